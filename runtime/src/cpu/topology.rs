//! Which CPUs share a package (socket / last-level cache domain), and which package
//! each worker of an asynchronous engine belongs to.
//!
//! The asynchronous engines publish full chunks of work to a queue per *package*
//! and let an idle worker steal inside its own package before it crosses to
//! another one (Galois's topology-aware chunked bags): work stays in the cache it
//! was produced in as long as its package has hands to do it.
//!
//! The topology comes from, in order:
//! 1. an explicit [`Topology`] handed to the engine (tests force e.g. 2×2 this way,
//!    so that they stay independent of each other and of the environment);
//! 2. `VERTEX_TOPOLOGY=PxC` — `P` packages of `C` CPUs each (e.g. `2x8`), CPU ids
//!    numbered package by package; lets a 2-core machine exercise cross-package
//!    stealing;
//! 3. Linux sysfs: `/sys/devices/system/cpu/cpuN/topology/physical_package_id` of
//!    every online CPU the process may run on;
//! 4. otherwise one package holding `available_parallelism()` CPUs.
//!
//! Workers are laid out package by package in CPU order (worker `i` takes CPU
//! `cpus[i mod total]`), the way Galois fills one socket before the next.

use std::collections::BTreeMap;

use crate::error::{Error, Result};

/// Packages and the OS CPU ids in each.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Topology {
    /// `packages[p]` = CPU ids of package `p` (non-empty, sorted).
    packages: Vec<Vec<usize>>,
    /// Where the description came from (`sysfs`, `VERTEX_TOPOLOGY`, `given`, ...).
    origin: &'static str,
}

impl Topology {
    /// `packages` packages of `cores` CPUs each, ids numbered package by package.
    pub fn uniform(packages: usize, cores: usize) -> Result<Topology> {
        if packages == 0 || cores == 0 {
            return Err(Error::InvalidArgument(format!(
                "a topology needs at least one package of one CPU, not {packages}x{cores}"
            )));
        }
        if packages.saturating_mul(cores) > 1 << 16 {
            return Err(Error::InvalidArgument(format!(
                "topology {packages}x{cores} has more than 65536 CPUs"
            )));
        }
        Ok(Topology {
            packages: (0..packages)
                .map(|p| (p * cores..(p + 1) * cores).collect())
                .collect(),
            origin: "given",
        })
    }

    /// Parses `PxC` (e.g. `2x8`).
    pub fn parse(s: &str) -> Result<Topology> {
        let bad = || {
            Error::InvalidArgument(format!(
                "bad topology `{s}`: expected PACKAGESxCPUS, e.g. 2x8"
            ))
        };
        let (p, c) = s.trim().split_once(['x', 'X']).ok_or_else(bad)?;
        let p: usize = p.trim().parse().map_err(|_| bad())?;
        let c: usize = c.trim().parse().map_err(|_| bad())?;
        Topology::uniform(p, c)
    }

    /// `VERTEX_TOPOLOGY` if set (an error if malformed), else the OS's view.
    pub fn system() -> Result<Topology> {
        match std::env::var("VERTEX_TOPOLOGY") {
            Ok(s) if !s.trim().is_empty() => {
                let mut t = Topology::parse(&s)?;
                t.origin = "VERTEX_TOPOLOGY";
                Ok(t)
            }
            _ => Ok(Topology::detect()),
        }
    }

    /// The OS's view: sysfs packages of the CPUs this process may use, or one
    /// package of `available_parallelism()` CPUs when sysfs says nothing.
    pub fn detect() -> Topology {
        if let Some(t) = from_sysfs() {
            return t;
        }
        let n = std::thread::available_parallelism().map_or(1, |n| n.get());
        Topology {
            packages: vec![(0..n).collect()],
            origin: "available_parallelism",
        }
    }

    pub fn num_packages(&self) -> usize {
        self.packages.len()
    }

    pub fn num_cpus(&self) -> usize {
        self.packages.iter().map(Vec::len).sum()
    }

    pub fn origin(&self) -> &'static str {
        self.origin
    }

    /// `PxC` when every package has the same size, else the sizes joined by `+`.
    pub fn describe(&self) -> String {
        let sizes: Vec<usize> = self.packages.iter().map(Vec::len).collect();
        if sizes.iter().all(|&s| s == sizes[0]) {
            format!("{}x{}", sizes.len(), sizes[0])
        } else {
            sizes
                .iter()
                .map(usize::to_string)
                .collect::<Vec<_>>()
                .join("+")
        }
    }

    /// `(package, cpu)` of each of `workers` workers: CPUs in package order, wrapping
    /// around when there are more workers than CPUs.
    pub fn place(&self, workers: usize) -> Vec<(usize, usize)> {
        let order: Vec<(usize, usize)> = self
            .packages
            .iter()
            .enumerate()
            .flat_map(|(p, cpus)| cpus.iter().map(move |&c| (p, c)))
            .collect();
        (0..workers).map(|i| order[i % order.len()]).collect()
    }
}

fn from_sysfs() -> Option<Topology> {
    let allowed = allowed_cpus();
    let dir = std::fs::read_dir("/sys/devices/system/cpu").ok()?;
    let mut by_pkg: BTreeMap<i64, Vec<usize>> = BTreeMap::new();
    for entry in dir.flatten() {
        let name = entry.file_name();
        let Some(id) = name
            .to_str()
            .and_then(|s| s.strip_prefix("cpu"))
            .and_then(|s| s.parse::<usize>().ok())
        else {
            continue;
        };
        if let Some(a) = &allowed {
            if !a.contains(&id) {
                continue;
            }
        }
        let pkg = std::fs::read_to_string(entry.path().join("topology/physical_package_id"))
            .ok()
            .and_then(|s| s.trim().parse::<i64>().ok());
        // Offline CPUs have no topology directory: skip them.
        if let Some(p) = pkg {
            by_pkg.entry(p).or_default().push(id);
        }
    }
    if by_pkg.is_empty() {
        return None;
    }
    let packages = by_pkg
        .into_values()
        .map(|mut v| {
            v.sort_unstable();
            v
        })
        .collect();
    Some(Topology {
        packages,
        origin: "sysfs",
    })
}

/// CPUs in this process's affinity mask (Linux), so a container's or `taskset`'s
/// limits are respected.
#[cfg(target_os = "linux")]
fn allowed_cpus() -> Option<Vec<usize>> {
    // SAFETY: `cpu_set_t` is plain data; zeroed is the empty set, and
    // sched_getaffinity writes at most `size_of::<cpu_set_t>()` bytes into it.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) != 0 {
            return None;
        }
        let cpus: Vec<usize> = (0..libc::CPU_SETSIZE as usize)
            .filter(|&c| libc::CPU_ISSET(c, &set))
            .collect();
        (!cpus.is_empty()).then_some(cpus)
    }
}

#[cfg(not(target_os = "linux"))]
fn allowed_cpus() -> Option<Vec<usize>> {
    None
}

/// The calling thread pinned to one CPU until the guard drops, when its earlier
/// affinity mask comes back (see [`pin_for_now`]).
pub struct PinGuard {
    before: Option<Vec<usize>>,
}

/// Pins the calling thread to `cpu` ([`pin_current_thread`]) for as long as the
/// returned guard lives. A one-worker engine runs on its caller's thread: pinned
/// for good, that thread (a benchmark's main thread, say) and every thread or
/// process it starts later would be confined to one CPU — `vertex bench-cpu`'s
/// 2-thread SSSP runs, ours and gapbs's, ran on one CPU after a pinned 1-thread
/// variant.
pub fn pin_for_now(cpu: usize) -> PinGuard {
    let before = allowed_cpus();
    pin_current_thread(cpu);
    PinGuard { before }
}

impl Drop for PinGuard {
    fn drop(&mut self) {
        if let Some(cpus) = &self.before {
            set_affinity(cpus);
        }
    }
}

/// Sets the calling thread's affinity mask to `cpus` (ids past `CPU_SETSIZE`
/// ignored). Best effort: whether the OS took it. Allocates nothing, so a
/// launcher may call it between fork and exec (`Command::pre_exec`).
#[cfg(target_os = "linux")]
pub fn set_affinity(cpus: &[usize]) -> bool {
    // SAFETY: as in `allowed_cpus`; CPU_SET writes inside the zeroed set for
    // indices below CPU_SETSIZE, the only ones passed.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        for &c in cpus.iter().filter(|&&c| c < libc::CPU_SETSIZE as usize) {
            libc::CPU_SET(c, &mut set);
        }
        libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) == 0
    }
}

/// Sets the calling thread's affinity mask: not on this OS.
#[cfg(not(target_os = "linux"))]
pub fn set_affinity(_cpus: &[usize]) -> bool {
    false
}

/// Pins the calling thread to `cpu` (taken modulo the CPUs that exist, so that a
/// forced topology larger than the machine still pins somewhere). Best effort:
/// returns whether the OS accepted it.
#[cfg(target_os = "linux")]
pub fn pin_current_thread(cpu: usize) -> bool {
    let online = allowed_cpus().unwrap_or_else(|| vec![0]);
    let target = online[cpu % online.len()];
    // SAFETY: as in `allowed_cpus`; CPU_SET writes inside the zeroed set because
    // `target < CPU_SETSIZE` (it came from CPU_ISSET over that range).
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(target, &mut set);
        libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) == 0
    }
}

#[cfg(not(target_os = "linux"))]
pub fn pin_current_thread(_cpu: usize) -> bool {
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_place() {
        let t = Topology::parse("2x2").unwrap();
        assert_eq!(t.num_packages(), 2);
        assert_eq!(t.num_cpus(), 4);
        assert_eq!(t.describe(), "2x2");
        let p: Vec<usize> = t.place(6).iter().map(|x| x.0).collect();
        assert_eq!(p, vec![0, 0, 1, 1, 0, 0]);
        assert!(Topology::parse("2y2").is_err());
        assert!(Topology::parse("0x4").is_err());
        assert!(Topology::parse("x4").is_err());
    }

    #[test]
    fn a_pin_for_now_ends_with_its_guard() {
        let before = allowed_cpus();
        {
            let _g = pin_for_now(0);
            if before.as_ref().is_some_and(|b| b.len() > 1) {
                assert_eq!(allowed_cpus().map(|c| c.len()), Some(1));
            }
        }
        assert_eq!(allowed_cpus(), before);
    }

    #[test]
    fn detect_finds_cpus() {
        let t = Topology::detect();
        assert!(t.num_cpus() >= 1);
        assert!(t.place(3).len() == 3);
    }
}
