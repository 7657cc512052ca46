//! `vertex-apsp-bench closure` and `closure-check`: the GPU closure of every
//! semiring program (the four shipped in `programs::apsp` and the user-style
//! ones in `programs::semirings`), each run from its module's generated kernels.
//!
//! Edge values are non-negative (and below 1 for max-times), so a best-first
//! search gives exact reference rows beyond the full-check size; floats are
//! multiples of a power of two, so sums are exact and GPU and CPU agree to the
//! bit wherever the association is the same.

use anyhow::Result;
use runtime::apsp::ProgramSemiring;
use runtime::gpu::closure::GpuSemiring;
use vertex_bench::apsp::closure::{self as closure_bench, ClosureBenchConfig, ClosureReport};
use vertex_examples::programs::apsp::{apsp, apsp_f64, bottleneck, closure};
use vertex_examples::programs::semirings::{apsp_f32, apsp_i64, reliable, widest_u64};

/// Every program the closure benchmark knows, in report order.
pub const PROGRAMS: [&str; 8] = [
    "apsp",
    "apsp_f32",
    "apsp_i64",
    "apsp_f64",
    "closure",
    "bottleneck",
    "widest_u64",
    "reliable",
];

/// What to do with each program.
pub enum Job<'a> {
    Bench {
        device: usize,
        cfg: &'a ClosureBenchConfig,
        /// N above which only `large` programs run.
        large_min: usize,
        large: &'a [String],
        rep: &'a mut ClosureReport,
    },
    Check {
        device: usize,
        sizes: &'a [usize],
    },
}

impl Job<'_> {
    fn run<S: GpuSemiring>(
        &mut self,
        name: &str,
        walks: bool,
        gen: impl Fn(u64) -> S::T + Sync,
    ) -> Result<()> {
        let mut log = |l: &str| eprintln!("{l}");
        match self {
            Job::Bench {
                device,
                cfg,
                large_min,
                large,
                rep,
            } => {
                let sizes: Vec<usize> = cfg
                    .sizes
                    .iter()
                    .copied()
                    .filter(|&n| n <= *large_min || large.iter().any(|l| l == name))
                    .collect();
                closure_bench::bench_semiring::<S>(
                    *device, cfg, &sizes, walks, &gen, rep, &mut log,
                )?;
            }
            Job::Check { device, sizes } => {
                closure_bench::check_semiring::<S>(*device, sizes, walks, &gen, &mut log)?;
                println!("closure check {name}: ok");
            }
        }
        Ok(())
    }
}

/// Runs `job` for program `name`.
pub fn run(name: &str, job: &mut Job) -> Result<()> {
    match name {
        "apsp" => job.run::<ProgramSemiring<apsp::Program>>(name, true, |x| (x % 100) as i32 + 1),
        "apsp_f32" => job.run::<ProgramSemiring<apsp_f32::Program>>(name, true, |x| {
            (x % 1000) as f32 * 0.125 + 0.125
        }),
        "apsp_i64" => job
            .run::<ProgramSemiring<apsp_i64::Program>>(name, true, |x| (x % (1 << 40)) as i64 + 1),
        "apsp_f64" => job.run::<ProgramSemiring<apsp_f64::Program>>(name, true, |x| {
            (x % 100_000) as f64 / 1024.0 + 1.0 / 1024.0
        }),
        "closure" => job.run::<ProgramSemiring<closure::Program>>(name, false, |_| 1),
        "bottleneck" => {
            job.run::<ProgramSemiring<bottleneck::Program>>(name, false, |x| (x % 1000) as u32 + 1)
        }
        "widest_u64" => {
            job.run::<ProgramSemiring<widest_u64::Program>>(name, false, |x| x % (1 << 40) + 1)
        }
        "reliable" => job.run::<ProgramSemiring<reliable::Program>>(name, true, |x| {
            0.5 + (x % 500) as f64 / 1000.0
        }),
        other => anyhow::bail!(
            "unknown closure program `{other}` (known: {})",
            PROGRAMS.join(", ")
        ),
    }
}
