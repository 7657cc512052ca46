//! Where an APSP run goes: CPU Johnson, CPU blocked FW or the GPU closure.
//!
//! `--backend gpu` means the GPU closure (Johnson has no GPU form, so an
//! `auto` algorithm becomes FW there). `--backend auto` weighs the two real
//! contenders: the GPU closure does `n³` relaxations at ~10¹³/s on an H100,
//! Johnson ~`n·m` heap-bound relaxations at ~10⁹/s on 16 cores, so the GPU wins
//! unless `m < n² / GPU_JOHNSON_DENSITY`; below [`GPU_MIN_N`] vertices launches
//! and transfers cost more than the CPU's whole run. The decision and its reason
//! are reported (`note`), in text and JSON.

use super::{choose, Algorithm, Backend};

/// Below this many vertices `auto` keeps the CPU.
pub const GPU_MIN_N: usize = 512;

/// `auto` prefers the GPU closure over CPU Johnson when `m ≥ n² / this`: an
/// estimate from the two engines' relaxation rates (see the module docs), to be
/// refined by `vertex-apsp-bench closure` on the device.
pub const GPU_JOHNSON_DENSITY: u64 = 4096;

/// The algorithm and back end of one run, and why (`None` = as asked).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Placement {
    pub algorithm: Algorithm,
    pub backend: Backend,
    pub note: Option<String>,
}

/// Decides a run over `n` vertices and `m` edges with `elem`-byte entries:
/// `gpu_usable` says whether this build and machine can run GPU kernels at all.
/// Errors only for a combination that cannot run (Johnson on the GPU, next hops
/// with Johnson asked for).
pub fn place(
    asked: (Algorithm, Backend),
    n: usize,
    m: u64,
    elem: usize,
    budget: u64,
    next_hop: bool,
    gpu_usable: bool,
) -> Result<Placement, String> {
    let cpu_choice = || match asked.0 {
        Algorithm::Auto if next_hop => Algorithm::Fw,
        Algorithm::Auto => choose(n, m, elem, budget),
        a => a,
    };
    if asked.0 == Algorithm::Batched {
        // `solve` runs it before asking here; a caller that does not (one path)
        // gets the closure or Johnson.
        return Err(
            "batched all-pairs gives every distance, not one path: use fw or johnson".into(),
        );
    }
    if next_hop && asked.0 == Algorithm::Johnson {
        return Err("next hops are kept by FW only; use --algorithm fw (or `vertex path`)".into());
    }
    let placed = |algorithm, backend, note: Option<String>| Placement {
        algorithm,
        backend,
        note,
    };
    match asked.1 {
        Backend::Cpu => Ok(placed(cpu_choice(), Backend::Cpu, None)),
        Backend::Gpu => match asked.0 {
            Algorithm::Johnson => Err(
                "Johnson runs on the CPU; for the GPU leave --algorithm at auto (or fw): the GPU runs the blocked closure"
                    .into(),
            ),
            Algorithm::Auto => Ok(placed(
                Algorithm::Fw,
                Backend::Gpu,
                Some("the GPU runs the blocked closure (FW)".into()),
            )),
            Algorithm::Fw | Algorithm::Batched => Ok(placed(Algorithm::Fw, Backend::Gpu, None)),
        },
        Backend::Auto => {
            if !gpu_usable {
                return Ok(placed(
                    cpu_choice(),
                    Backend::Cpu,
                    Some("auto: no usable GPU here (no PTX or no driver): ran on the CPU".into()),
                ));
            }
            if n < GPU_MIN_N {
                return Ok(placed(
                    cpu_choice(),
                    Backend::Cpu,
                    Some(format!("auto: {n} vertices < {GPU_MIN_N}: the CPU is quicker than a GPU launch")),
                ));
            }
            let n2 = n as u64 * n as u64;
            let dense = m.saturating_mul(GPU_JOHNSON_DENSITY) >= n2;
            let fits = (n2 as f64) * (elem as f64) <= budget as f64;
            match asked.0 {
                Algorithm::Johnson | Algorithm::Batched => {
                    Ok(placed(Algorithm::Johnson, Backend::Cpu, None))
                }
                Algorithm::Auto if !fits && !next_hop => Ok(placed(
                    Algorithm::Johnson,
                    Backend::Cpu,
                    Some(format!(
                        "auto: the {n} × {n} matrix exceeds the memory budget: Johnson on the CPU, rows streamed"
                    )),
                )),
                Algorithm::Auto if !dense && !next_hop => Ok(placed(
                    Algorithm::Johnson,
                    Backend::Cpu,
                    Some(format!(
                        "auto: sparse ({m} edges < n²/{GPU_JOHNSON_DENSITY}): Johnson on the CPU"
                    )),
                )),
                _ => Ok(placed(
                    Algorithm::Fw,
                    Backend::Gpu,
                    Some(format!(
                        "auto: GPU closure ({n} vertices, {m} edges{})",
                        if dense { "" } else { ", next hops need FW" }
                    )),
                )),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BIG: u64 = 1 << 40;

    fn at(a: Algorithm, b: Backend, n: usize, m: u64, next: bool, gpu: bool) -> Placement {
        place((a, b), n, m, 4, BIG, next, gpu).unwrap()
    }

    #[test]
    fn gpu_asked_runs_the_closure() {
        let p = at(Algorithm::Auto, Backend::Gpu, 100, 10, false, false);
        assert_eq!((p.algorithm, p.backend), (Algorithm::Fw, Backend::Gpu));
        assert!(place(
            (Algorithm::Johnson, Backend::Gpu),
            9,
            9,
            4,
            BIG,
            false,
            true
        )
        .is_err());
        assert!(place((Algorithm::Johnson, Backend::Cpu), 9, 9, 4, BIG, true, true).is_err());
    }

    #[test]
    fn auto_by_size_density_and_gpu() {
        let p = at(Algorithm::Auto, Backend::Auto, 4096, 4096 * 64, false, true);
        assert_eq!((p.algorithm, p.backend), (Algorithm::Fw, Backend::Gpu));
        assert!(p.note.unwrap().contains("GPU closure"));
        let p = at(
            Algorithm::Auto,
            Backend::Auto,
            100_000,
            200_000,
            false,
            true,
        );
        assert_eq!((p.algorithm, p.backend), (Algorithm::Johnson, Backend::Cpu));
        assert!(p.note.unwrap().contains("sparse"));
        let p = at(Algorithm::Auto, Backend::Auto, 100_000, 200_000, true, true);
        assert_eq!(p.backend, Backend::Gpu);
        let p = place(
            (Algorithm::Auto, Backend::Auto),
            100_000,
            1 << 36,
            8,
            1 << 33,
            false,
            true,
        )
        .unwrap();
        assert_eq!((p.algorithm, p.backend), (Algorithm::Johnson, Backend::Cpu));
        assert!(p.note.unwrap().contains("budget"));
        let p = at(Algorithm::Auto, Backend::Auto, 100, 5000, false, true);
        assert_eq!(p.backend, Backend::Cpu);
        let p = at(Algorithm::Fw, Backend::Auto, 4096, 10, false, false);
        assert_eq!((p.algorithm, p.backend), (Algorithm::Fw, Backend::Cpu));
        assert!(p.note.unwrap().contains("no usable GPU"));
    }
}
