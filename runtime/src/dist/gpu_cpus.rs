//! Which CPUs sit next to each GPU, so that a launcher can keep a rank's threads
//! and (by first touch) its host memory on its GPU's NUMA node. Runs over ranks
//! on two H200s were bimodal, one rank slower by about 150 µs a level in half of
//! them, and pinning each rank to half the cores made every run slow: where a
//! rank runs matters, and the node next to its GPU is the one to pick.
//!
//! The GPUs are the NVIDIA display and 3-D controllers under
//! `/sys/bus/pci/devices`, in PCI address order — CUDA's order with
//! `CUDA_DEVICE_ORDER=PCI_BUS_ID` — and each one's `local_cpulist` names its CPUs.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// Where Linux lists PCI devices.
pub const PCI_DEVICES: &str = "/sys/bus/pci/devices";

/// PCI vendor id of NVIDIA.
const NVIDIA: &str = "0x10de";

/// The CPUs of a `cpulist` (`0-15,32-47`, as sysfs writes them), in order.
pub fn parse_cpulist(s: &str) -> Result<Vec<usize>> {
    let bad = |why: &str| Error::InvalidArgument(format!("bad CPU list `{}`: {why}", s.trim()));
    let mut cpus = Vec::new();
    for part in s.trim().split(',').filter(|p| !p.trim().is_empty()) {
        let num = |x: &str| {
            x.trim()
                .parse::<usize>()
                .map_err(|_| bad("not a CPU number"))
        };
        match part.split_once('-') {
            Some((a, b)) => {
                let (a, b) = (num(a)?, num(b)?);
                if a > b || b - a >= 1 << 16 {
                    return Err(bad("a range runs backwards or past 65,536 CPUs"));
                }
                cpus.extend(a..=b);
            }
            None => cpus.push(num(part)?),
        }
    }
    Ok(cpus)
}

/// The NVIDIA GPUs under `root` (a `/sys/bus/pci/devices` tree), in PCI
/// address order: vendor NVIDIA, class 0x03xxxx (display controller; NVSwitch
/// bridges are class 0x06).
pub fn nvidia_gpus_in(root: &Path) -> Result<Vec<PathBuf>> {
    let read = |p: PathBuf| std::fs::read_to_string(p).unwrap_or_default();
    let mut gpus: Vec<PathBuf> = std::fs::read_dir(root)
        .map_err(|e| Error::io(root, e))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|d| {
            read(d.join("vendor")).trim() == NVIDIA
                && read(d.join("class")).trim().starts_with("0x03")
        })
        .collect();
    gpus.sort();
    Ok(gpus)
}

/// The CPUs next to GPU `ordinal` (PCI order) under `root`.
pub fn gpu_cpus_in(root: &Path, ordinal: usize) -> Result<Vec<usize>> {
    let gpus = nvidia_gpus_in(root)?;
    let dev = gpus.get(ordinal).ok_or_else(|| {
        Error::InvalidArgument(format!(
            "no GPU {ordinal}: {} NVIDIA GPU(s) under {}",
            gpus.len(),
            root.display()
        ))
    })?;
    let list = dev.join("local_cpulist");
    let text = std::fs::read_to_string(&list).map_err(|e| Error::io(&list, e))?;
    let cpus = parse_cpulist(&text)?;
    if cpus.is_empty() {
        return Err(Error::InvalidArgument(format!(
            "{} names no CPU",
            list.display()
        )));
    }
    Ok(cpus)
}

/// The CPUs next to GPU `ordinal` of this machine ([`PCI_DEVICES`]).
pub fn gpu_cpus(ordinal: usize) -> Result<Vec<usize>> {
    gpu_cpus_in(Path::new(PCI_DEVICES), ordinal)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn cpulists_as_sysfs_writes_them() {
        assert_eq!(
            parse_cpulist("0-3,8,10-11\n").unwrap(),
            vec![0, 1, 2, 3, 8, 10, 11]
        );
        assert_eq!(parse_cpulist("5").unwrap(), vec![5]);
        assert!(parse_cpulist("\n").unwrap().is_empty());
        for bad in ["3-1", "a", "1-", "0-99999999"] {
            assert!(parse_cpulist(bad).is_err(), "{bad}");
        }
    }

    proptest! {
        /// Any set of CPUs written as ranges reads back as itself.
        #[test]
        fn cpulists_round_trip(mut cpus in proptest::collection::btree_set(0usize..512, 0..64)) {
            let cpus: Vec<usize> = std::mem::take(&mut cpus).into_iter().collect();
            let mut parts = Vec::new();
            let mut i = 0;
            while i < cpus.len() {
                let mut j = i;
                while j + 1 < cpus.len() && cpus[j + 1] == cpus[j] + 1 {
                    j += 1;
                }
                parts.push(if i == j { cpus[i].to_string() } else { format!("{}-{}", cpus[i], cpus[j]) });
                i = j + 1;
            }
            prop_assert_eq!(parse_cpulist(&parts.join(",")).unwrap(), cpus);
        }
    }

    /// A fake sysfs tree: two GPUs (out of order on disk), an NVSwitch, a NIC.
    #[test]
    fn gpus_in_pci_order_with_their_cpus() {
        let root = std::env::temp_dir().join(format!("vertex-pci-{}", std::process::id()));
        let dev = |name: &str, vendor: &str, class: &str, cpus: &str| {
            let d = root.join(name);
            std::fs::create_dir_all(&d).unwrap();
            std::fs::write(d.join("vendor"), format!("{vendor}\n")).unwrap();
            std::fs::write(d.join("class"), format!("{class}\n")).unwrap();
            std::fs::write(d.join("local_cpulist"), format!("{cpus}\n")).unwrap();
        };
        dev("0000:c1:00.0", NVIDIA, "0x030200", "32-63");
        dev("0000:1b:00.0", NVIDIA, "0x030200", "0-31");
        dev("0000:05:00.0", NVIDIA, "0x068000", "0-31");
        dev("0000:3a:00.0", "0x15b3", "0x020700", "0-31");
        assert_eq!(nvidia_gpus_in(&root).unwrap().len(), 2);
        assert_eq!(gpu_cpus_in(&root, 0).unwrap(), (0..32).collect::<Vec<_>>());
        assert_eq!(gpu_cpus_in(&root, 1).unwrap(), (32..64).collect::<Vec<_>>());
        let e = gpu_cpus_in(&root, 2).unwrap_err().to_string();
        assert!(
            e.contains("no GPU 2") && e.contains("2 NVIDIA GPU(s)"),
            "{e}"
        );
        std::fs::remove_dir_all(&root).ok();
        assert!(nvidia_gpus_in(&root).is_err());
    }
}
