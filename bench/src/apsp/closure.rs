//! The GPU closure benchmark: every semiring × element type at large N, against
//! its own measured peak and our CPU blocked FW, every result checked.
//!
//! For one semiring `S` ([`bench_semiring`]) and each N: a random dense matrix
//! (each ordered pair an edge with probability `density`, values from the
//! caller's generator), then
//! * `gpu` — the closure as `runtime::apsp` runs it (the fast i32 kernels for
//!   min-plus over i32 when exact, else the semiring's kernels): kernel time
//!   (CUDA events), relaxations/s over `n³`, % of the semiring's peak (its own
//!   `peak` kernel, [`runtime::gpu::closure::ClosureGpu::peak`]; the fast i32
//!   path against the fused add+min peak);
//! * `gpu next hops` (N ≤ `path_max`) — the path kernels, next hops included;
//! * `cpu blocked` (N ≤ `full_max`) — our blocked FW on all threads; the ratio
//!   CPU / GPU.
//!
//! Checks: up to `full_max` every cell against the CPU closure; beyond,
//! `sample_rows` rows against a best-first search over the matrix
//! ([`reference_row`]); the summaries (checksum, ∞ count, diameter) of the
//! variants against each other; the sampled rows' next hops walked (cancellative
//! ⊗) or checked hop by hop (`w(i, h) ⊗ d(h, j) = d(i, j)`, any semiring). The
//! emulator tests compare every next hop with the CPU's. A disagreement is recorded (`agrees: false`) and listed in
//! `failures`; the caller decides the exit status.

use std::path::{Path, PathBuf};
use std::time::Instant;

use rayon::prelude::*;

use crate::host::HostInfo;
use crate::plot::{group_series, line_chart, Panel};
use runtime::apsp::fw_cpu;
use runtime::apsp::matrix::{initial_next, DistMatrix};
use runtime::apsp::output::{summarize, Summary};
use runtime::apsp::semiring::Semiring;
use runtime::error::{Error, Result};
use runtime::gpu::closure::verify::{check_hops, check_walks, close, compare_rows};
use runtime::gpu::closure::{
    fast_closure, takes_fast_kernels, ClosureGpu, ClosureRun, GpuSemiring,
};
use runtime::gpu::DeviceInfo;

/// What to run.
#[derive(Clone, Debug, serde::Serialize)]
pub struct ClosureBenchConfig {
    pub sizes: Vec<usize>,
    pub density: f64,
    /// Largest N run on the CPU too (all threads, timed) and compared cell by cell.
    pub full_max: usize,
    /// Largest N run with next hops.
    pub path_max: usize,
    /// Rows checked beyond `full_max`.
    pub sample_rows: usize,
    pub peak_iters: u32,
    pub seed: u64,
}

impl Default for ClosureBenchConfig {
    fn default() -> Self {
        ClosureBenchConfig {
            sizes: vec![4096, 8192, 16384],
            density: 0.1,
            full_max: 4096,
            path_max: 8192,
            sample_rows: 4,
            peak_iters: 1 << 14,
            seed: 22,
        }
    }
}

/// One measured variant.
#[derive(Clone, Debug, serde::Serialize)]
pub struct ClosureRow {
    pub semiring: String,
    pub element: String,
    pub n: usize,
    pub variant: String,
    pub seconds: f64,
    pub relaxations_per_s: f64,
    /// Percent of the matching peak (GPU variants).
    pub percent_of_peak: Option<f64>,
    /// CPU blocked time / this time (GPU variants, where the CPU ran).
    pub speedup_vs_cpu: Option<f64>,
    /// `full` or `N sampled rows`.
    pub checked: String,
    pub agrees: bool,
    pub summary: Summary,
    /// The GPU run's details.
    pub gpu: Option<ClosureRun>,
}

/// A semiring's peak.
#[derive(Clone, Debug, serde::Serialize)]
pub struct PeakRow {
    pub semiring: String,
    pub element: String,
    pub kernel: String,
    pub relaxations_per_s: f64,
}

/// Everything one run measured.
#[derive(Clone, Debug, serde::Serialize)]
pub struct ClosureReport {
    pub config: ClosureBenchConfig,
    pub device: Option<DeviceInfo>,
    pub host: HostInfo,
    pub command_line: String,
    pub peaks: Vec<PeakRow>,
    pub rows: Vec<ClosureRow>,
    pub failures: Vec<String>,
}

impl ClosureReport {
    pub fn new(config: ClosureBenchConfig, command_line: &str) -> Self {
        ClosureReport {
            config,
            device: None,
            host: HostInfo::read(),
            command_line: command_line.into(),
            peaks: Vec::new(),
            rows: Vec::new(),
            failures: Vec::new(),
        }
    }
}

/// A random closure input over `S`: 1̄ on the diagonal, each other cell an edge
/// with probability `density` valued `gen(hash)`, else 0̄. Rows are generated in
/// parallel from a per-row stream, so the matrix depends on the seed only.
pub fn random_matrix<S: Semiring>(
    n: usize,
    density: f64,
    seed: u64,
    gen: &(impl Fn(u64) -> S::T + Sync),
) -> Result<DistMatrix<S::T>> {
    let mut m = DistMatrix::filled(n, S::zero())?;
    let cut = (density.clamp(0.0, 1.0) * (1u64 << 53) as f64) as u64;
    m.as_mut_slice()
        .par_chunks_mut(n.max(1))
        .enumerate()
        .for_each(|(i, row)| {
            let mut x = seed ^ (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
            for (j, cell) in row.iter_mut().enumerate() {
                x = splitmix(x);
                if i == j {
                    *cell = S::one();
                } else if x >> 11 < cut {
                    *cell = gen(splitmix(x));
                }
            }
        });
    Ok(m)
}

fn splitmix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Row `i` of the closure of `m0` by best-first search (Dijkstra over the
/// semiring, O(n²)): exact when ⊗ never improves a path (non-negative
/// min-plus, max-min, max-times over [0, 1], or-and) — the generator's values.
pub fn reference_row<S: Semiring>(m0: &DistMatrix<S::T>, i: usize) -> Vec<S::T> {
    let n = m0.n();
    let mut best = vec![S::zero(); n];
    let mut done = vec![false; n];
    best[i] = S::one();
    for _ in 0..n {
        let mut u = None;
        for v in 0..n {
            if !done[v]
                && !S::is_zero(best[v])
                && u.is_none_or(|u: usize| S::improves(best[v], best[u]))
            {
                u = Some(v);
            }
        }
        let Some(u) = u else { break };
        done[u] = true;
        let row = &m0.as_slice()[u * n..(u + 1) * n];
        for v in 0..n {
            if !done[v] {
                best[v] = S::add(best[v], S::mul(best[u], row[v]));
            }
        }
    }
    best
}

/// The rows checked beyond `full_max`: spread over the matrix.
fn sample(n: usize, k: usize) -> Vec<usize> {
    (0..k.min(n))
        .map(|r| (r * n) / k.max(1) + r % 7)
        .map(|r| r.min(n - 1))
        .collect()
}

/// Runs the benchmark for `S` over `cfg.sizes` on device `ordinal`; `walks`:
/// next-hop walks are checked (cancellative ⊗, see
/// [`runtime::gpu::closure::verify::emulated_equals_cpu`]). `gen` makes edge values,
/// `peak_args` the peak kernel's `(x, y, seeds)`.
pub fn bench_semiring<S: GpuSemiring>(
    ordinal: usize,
    cfg: &ClosureBenchConfig,
    sizes: &[usize],
    walks: bool,
    gen: &(impl Fn(u64) -> S::T + Sync),
    rep: &mut ClosureReport,
    log: &mut impl FnMut(&str),
) -> Result<()> {
    let dev = ClosureGpu::<S>::open(ordinal)?;
    rep.device.get_or_insert_with(|| dev.info().clone());
    let elem = <S::T as runtime::graph::Weight>::KIND.to_string();
    let seeds: [S::T; 16] = std::array::from_fn(|l| gen(splitmix(l as u64 + 7)));
    let peak = dev.peak(cfg.peak_iters, 8, gen(1), gen(2), seeds)?;
    rep.peaks.push(PeakRow {
        semiring: S::name().into(),
        element: elem.clone(),
        kernel: S::kernel_prefix() + "_peak",
        relaxations_per_s: peak,
    });
    log(&format!(
        "{} ({elem}): peak {peak:.3e} relaxations/s",
        S::name()
    ));
    // Min-plus over i32 runs the fast kernels (as `runtime::apsp` does): their
    // module, opened once, and their fused add+min peak.
    let fast_dev = if S::is_min_plus() && elem == "i32" {
        Some(runtime::gpu::apsp::ApspGpu::open(ordinal)?)
    } else {
        None
    };
    let fast_peak = if let Some(f) = &fast_dev {
        let p = f.peak(true, cfg.peak_iters, 8)?;
        rep.peaks.push(PeakRow {
            semiring: S::name().into(),
            element: elem.clone(),
            kernel: "apsp_peak_fast (fused add+min)".into(),
            relaxations_per_s: p,
        });
        Some(p)
    } else {
        None
    };
    for &n in sizes {
        let m0 = random_matrix::<S>(n, cfg.density, cfg.seed ^ n as u64, gen)?;
        let full = n <= cfg.full_max;
        // Our CPU blocked FW (all threads, no next hops, as `gpu` runs): its time,
        // and the reference for the full check.
        let cpu = if full {
            let mut want = m0.clone();
            let t0 = Instant::now();
            fw_cpu::blocked::<S>(&mut want, None, fw_cpu::DEFAULT_TILE)?;
            Some((t0.elapsed().as_secs_f64(), want))
        } else {
            None
        };
        let rows = sample(n, cfg.sample_rows);
        let refs: Vec<Vec<S::T>> = if full {
            Vec::new()
        } else {
            rows.par_iter()
                .map(|&i| reference_row::<S>(&m0, i))
                .collect()
        };
        let check = |got: &DistMatrix<S::T>, next: Option<&[u32]>, what: &str| -> Result<()> {
            match &cpu {
                Some((_, want)) => compare_rows(got, want, 0..n, what)?,
                None => {
                    for (&i, r) in rows.iter().zip(&refs) {
                        if let Some(j) = (0..n).find(|&j| !close(got.get(i, j), r[j])) {
                            return Err(Error::InvalidArgument(format!(
                                "{what}: ({i}, {j}) is {:?}, best-first search says {:?}",
                                got.get(i, j),
                                r[j]
                            )));
                        }
                    }
                }
            }
            match next {
                Some(nx) if walks => check_walks::<S>(&m0, got, nx, rows.iter().copied(), what),
                Some(nx) => check_hops::<S>(&m0, got, nx, rows.iter().copied(), what),
                None => Ok(()),
            }
        };
        let checked = if full {
            "full".to_string()
        } else {
            format!("{} sampled rows", rows.len())
        };
        let name = format!("{} {elem} n {n}", S::name());
        let mut summaries: Vec<Summary> = Vec::new();
        for path in [false, true] {
            if path && n > cfg.path_max {
                continue;
            }
            let mut got = m0.clone();
            let mut next = path.then(|| initial_next::<S>(&m0));
            let run = match &fast_dev {
                Some(f) if !path && takes_fast_kernels::<S>(&got, false) => {
                    fast_closure::<S>(f, &mut got)?
                }
                _ => dev.run(got.as_mut_slice(), n, next.as_deref_mut())?,
            };
            let variant = if path { "gpu next hops" } else { "gpu" };
            let verdict = check(&got, next.as_deref(), &format!("{name} {variant}"));
            let summary = summarize::<S>(&got);
            let agrees = verdict.is_ok() && summaries.iter().all(|s| same_summary(s, &summary));
            if let Err(e) = &verdict {
                rep.failures.push(e.to_string());
            } else if !agrees {
                rep.failures.push(format!(
                    "{name} {variant}: summary differs from the other GPU variant"
                ));
            }
            let peak_of = if run.fast {
                fast_peak.unwrap_or(peak)
            } else {
                peak
            };
            let r = run.relaxations_per_s();
            log(&format!(
                "{name} {variant}: {:.1} ms, {r:.3e} relaxations/s, {:.1}% of peak{}, checked {checked}: {}",
                run.kernel_ms,
                100.0 * r / peak_of,
                if run.fast { " (fast i32)" } else { "" },
                if agrees { "ok" } else { "MISMATCH" }
            ));
            rep.rows.push(ClosureRow {
                semiring: S::name().into(),
                element: elem.clone(),
                n,
                variant: variant.into(),
                seconds: run.kernel_ms * 1e-3,
                relaxations_per_s: r,
                percent_of_peak: Some(100.0 * r / peak_of),
                speedup_vs_cpu: cpu
                    .as_ref()
                    .map(|c| c.0 / (run.kernel_ms * 1e-3).max(1e-12)),
                checked: checked.clone(),
                agrees,
                summary: summary.clone(),
                gpu: Some(run),
            });
            summaries.push(summary);
        }
        if let Some((secs, want)) = cpu {
            let summary = summarize::<S>(&want);
            rep.rows.push(ClosureRow {
                semiring: S::name().into(),
                element: elem.clone(),
                n,
                variant: "cpu blocked".into(),
                seconds: secs,
                relaxations_per_s: (n as f64).powi(3) / secs.max(1e-12),
                percent_of_peak: None,
                speedup_vs_cpu: None,
                checked: "reference".into(),
                agrees: summaries.iter().all(|s| same_summary(s, &summary)),
                summary,
                gpu: None,
            });
        }
    }
    Ok(())
}

/// Summaries agree: same ∞ count, checksums and diameters equal (floats within
/// 1e-9 relative).
fn same_summary(a: &Summary, b: &Summary) -> bool {
    let num = |x: &serde_json::Value, y: &serde_json::Value| match (x.as_f64(), y.as_f64()) {
        (Some(p), Some(q)) if x.is_f64() || y.is_f64() => close(p, q),
        _ => x == y,
    };
    a.unreachable == b.unreachable && num(&a.checksum, &b.checksum) && num(&a.diameter, &b.diameter)
}

/// Small-N device check of `S` (for compute-sanitizer): both kernel sets against
/// the CPU closure at every N in `sizes`, every cell and next hop.
pub fn check_semiring<S: GpuSemiring>(
    ordinal: usize,
    sizes: &[usize],
    walks: bool,
    gen: &(impl Fn(u64) -> S::T + Sync),
    log: &mut impl FnMut(&str),
) -> Result<()> {
    let cfg = ClosureBenchConfig {
        sizes: sizes.to_vec(),
        full_max: usize::MAX,
        path_max: usize::MAX,
        peak_iters: 16,
        ..ClosureBenchConfig::default()
    };
    let mut rep = ClosureReport::new(cfg.clone(), "check");
    bench_semiring::<S>(ordinal, &cfg, sizes, walks, gen, &mut rep, log)?;
    match rep.failures.first() {
        Some(f) => Err(Error::InvalidArgument(f.clone())),
        None => Ok(()),
    }
}

/// Writes `apsp-closure.json`, `apsp-closure-rate.svg` (relaxations/s by
/// semiring, type and variant over N) and `apsp-closure-peak.svg` (% of each
/// semiring's peak) into `dir`.
pub fn write_closure(rep: &ClosureReport, dir: &Path) -> Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let j = dir.join("apsp-closure.json");
    let text = serde_json::to_string_pretty(rep)
        .map_err(|e| Error::InvalidArgument(format!("serialising the report: {e}")))?;
    std::fs::write(&j, text + "\n").map_err(|e| Error::io(&j, e))?;
    let label = |r: &ClosureRow| format!("{} {} {}", r.semiring, r.element, r.variant);
    let device = rep
        .device
        .as_ref()
        .map_or("no GPU".to_string(), |d| d.name.clone());
    let mut out = vec![j];
    for (file, title, y, f) in [
        (
            "apsp-closure-rate.svg",
            format!("GPU closure: relaxations/s by semiring and type — {device}"),
            "relaxations / s",
            (|r: &ClosureRow| Some(r.relaxations_per_s)) as fn(&ClosureRow) -> Option<f64>,
        ),
        (
            "apsp-closure-peak.svg",
            format!("GPU closure: % of the semiring's measured peak — {device}"),
            "% of peak",
            |r: &ClosureRow| r.percent_of_peak,
        ),
    ] {
        let labels: Vec<(String, &ClosureRow)> = rep.rows.iter().map(|r| (label(r), r)).collect();
        let series = group_series(
            &labels,
            |x| x.0.as_str(),
            |x| f(x.1).map(|v| (x.1.n as f64, v)),
        );
        if series.iter().all(|s| s.2.is_empty()) {
            continue; // nothing measured (e.g. no GPU): the JSON says why
        }
        let panel = Panel {
            title,
            x_desc: "n (vertices)".into(),
            y_desc: y.into(),
            series,
            log_y: true,
        };
        let p = dir.join(file);
        line_chart(&p, &panel, true)?;
        out.push(p);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use runtime::apsp::{MaxMin, MinPlus};

    #[test]
    fn best_first_rows_equal_the_closure() {
        let g = |x: u64| (x % 90) as i64 + 1;
        let m0 = random_matrix::<MinPlus<i64>>(150, 0.05, 3, &g).unwrap();
        let mut c = m0.clone();
        fw_cpu::blocked::<MinPlus<i64>>(&mut c, None, 32).unwrap();
        for i in sample(150, 5) {
            assert_eq!(
                reference_row::<MinPlus<i64>>(&m0, i),
                c.as_slice()[i * 150..(i + 1) * 150]
            );
        }
        let w = |x: u64| (x % 50) as u32 + 1;
        let m0 = random_matrix::<MaxMin>(120, 0.05, 4, &w).unwrap();
        let mut c = m0.clone();
        fw_cpu::blocked::<MaxMin>(&mut c, None, 32).unwrap();
        for i in sample(120, 5) {
            assert_eq!(
                reference_row::<MaxMin>(&m0, i),
                c.as_slice()[i * 120..(i + 1) * 120]
            );
        }
    }

    #[test]
    fn report_writes_json_and_charts() {
        let dir = std::env::temp_dir().join(format!("vertex-closure-bench-{}", std::process::id()));
        let mut rep = ClosureReport::new(ClosureBenchConfig::default(), "test");
        let m = DistMatrix::<i32>::filled(2, 0).unwrap();
        rep.rows.push(ClosureRow {
            semiring: "min-plus".into(),
            element: "i32".into(),
            n: 4096,
            variant: "gpu".into(),
            seconds: 1.0,
            relaxations_per_s: 1e12,
            percent_of_peak: Some(50.0),
            speedup_vs_cpu: None,
            checked: "full".into(),
            agrees: true,
            summary: summarize::<MinPlus<i32>>(&m),
            gpu: None,
        });
        let files = write_closure(&rep, &dir).unwrap();
        assert_eq!(files.len(), 3);
        assert!(files.iter().all(|f| f.exists()));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
