//! APSP benchmarks (seed 002) — results as JSON + SVG, every number measured in
//! the same process on the same graphs.
//!
//! * [`run_cpu`]: blocked FW (each tile size, all threads and one thread) vs the
//!   naive triple loop vs Johnson vs the peers of [`peer`] (scipy's and
//!   petgraph's `floyd_warshall`) on the same graph, at N = 1024 / 2048; every
//!   result compared entry by entry with ours.
//! * [`run_gpu`]: GPU FW checked against the CPU on random graphs (negative
//!   weights → exact kernels, non-negative → fast kernels); the seed 002 sweep
//!   (naive GPU vs CPU, blocked GPU vs naive GPU, N = 64 … 4096); blocked FW at
//!   large N as relaxations/s against an add+min peak measured in the same run.
//!
//! Graphs: directed, each ordered pair an edge with probability `density`,
//! weights uniform in 1..=100 (seeded), so every engine sees the same matrix.

pub mod closure;
pub mod peer;

use std::path::{Path, PathBuf};
use std::time::Instant;

use rand::{Rng, SeedableRng};

use crate::host::HostInfo;
use crate::plot::{group_series, line_chart, Panel, Series};
use peer::CpuPeer;
use runtime::apsp::fw_cpu;
use runtime::apsp::johnson::Johnson;
use runtime::apsp::matrix::DistMatrix;
use runtime::apsp::output::summarize;
use runtime::apsp::semiring::MinPlus;
use runtime::error::{Error, Result};
use runtime::graph::{build, BuildOptions, Csr, EdgeList};

type S = MinPlus<i32>;

/// A random directed graph: each ordered pair `(u, v)`, `u ≠ v`, with
/// probability `density`, weight uniform in `lo..=hi`.
pub fn random_graph(n: usize, density: f64, lo: i32, hi: i32, seed: u64) -> Result<Csr<i32>> {
    let mut rng = rand_pcg::Pcg64::seed_from_u64(seed);
    let mut el = EdgeList::<i32>::new(n);
    let mut w = Vec::new();
    let expected = (n as f64 * n as f64 * density) as usize;
    el.edges.reserve(expected);
    w.reserve(expected);
    if density >= 0.05 {
        for u in 0..n as u32 {
            for v in 0..n as u32 {
                if u != v && rng.gen_bool(density) {
                    el.edges.push([u, v]);
                    w.push(rng.gen_range(lo..=hi));
                }
            }
        }
    } else {
        for _ in 0..expected {
            let (u, v) = (rng.gen_range(0..n as u32), rng.gen_range(0..n as u32));
            if u != v {
                el.edges.push([u, v]);
                w.push(rng.gen_range(lo..=hi));
            }
        }
    }
    el.weights = Some(w);
    Ok(build(&el, BuildOptions::default())?.into_csr())
}

fn adjacency(g: &Csr<i32>) -> Result<DistMatrix<i32>> {
    DistMatrix::adjacency::<S, i32>(g, 1, Some)
}

fn checksum(m: &DistMatrix<i32>) -> String {
    let s = summarize::<S>(m);
    format!("{}/{}", s.checksum, s.unreachable)
}

/// One measured configuration.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Row {
    pub n: usize,
    pub edges: u64,
    pub variant: String,
    /// Seconds (kernel time for GPU rows).
    pub seconds: f64,
    /// Host wall seconds including transfers (GPU rows).
    pub total_seconds: f64,
    /// n³ / seconds.
    pub relaxations_per_s: f64,
    /// `checksum of finite entries / unreachable pairs`, equal across variants.
    pub checksum: String,
    pub agrees: bool,
}

/// CPU benchmark settings.
#[derive(Clone, Debug, serde::Serialize)]
pub struct CpuConfig {
    pub sizes: Vec<usize>,
    pub density: f64,
    pub tiles: Vec<usize>,
    /// Largest n the naive triple loop runs at.
    pub naive_max: usize,
    /// Names of the peers measured (set by [`run_cpu`] from the peers it gets).
    pub peers: Vec<String>,
    pub seed: u64,
}

impl Default for CpuConfig {
    fn default() -> Self {
        CpuConfig {
            sizes: vec![1024, 2048],
            density: 0.1,
            tiles: fw_cpu::TILES.to_vec(),
            naive_max: 2048,
            peers: Vec::new(),
            seed: 1,
        }
    }
}

#[derive(Clone, Debug, serde::Serialize)]
pub struct CpuReport {
    pub config: CpuConfig,
    pub host: HostInfo,
    pub command_line: String,
    pub rows: Vec<Row>,
    /// `(n, what, ratio)` side-by-side time ratios `a / b` (> 1: b is faster).
    pub ratios: Vec<(usize, String, f64)>,
    pub notes: Vec<String>,
}

fn row(n: usize, edges: u64, variant: &str, secs: f64, total: f64, sum: String, want: &str) -> Row {
    Row {
        n,
        edges,
        variant: variant.to_string(),
        seconds: secs,
        total_seconds: total,
        relaxations_per_s: (n as f64).powi(3) / secs.max(1e-12),
        agrees: sum == want,
        checksum: sum,
    }
}

/// An in-place closure over our i32 min-plus matrix.
type Fw = fn(&mut DistMatrix<i32>) -> Result<()>;

/// Runs `f` on a copy of `m0`: seconds and the result.
fn timed(
    m0: &DistMatrix<i32>,
    f: impl FnOnce(&mut DistMatrix<i32>) -> Result<()>,
) -> Result<(f64, DistMatrix<i32>)> {
    let mut m = m0.clone();
    let t0 = Instant::now();
    f(&mut m)?;
    Ok((t0.elapsed().as_secs_f64(), m))
}

/// The rows of one size: every result is compared entry by entry with the
/// first one (blocked FW, first tile).
struct SizeRun<'a> {
    n: usize,
    edges: u64,
    reference: Option<DistMatrix<i32>>,
    rep: &'a mut CpuReport,
}

impl SizeRun<'_> {
    /// Records a row; returns whether `m` equals the reference.
    fn add(
        &mut self,
        variant: &str,
        secs: f64,
        m: &DistMatrix<i32>,
        log: &mut impl FnMut(&str),
    ) -> bool {
        let reference = self.reference.get_or_insert_with(|| m.clone());
        let sum = checksum(m);
        let mut r = row(self.n, self.edges, variant, secs, secs, sum.clone(), &sum);
        r.agrees = m == reference;
        log(&format!(
            "  {:30} {:8.3} s  {:.2e} relax/s  agrees {}",
            r.variant, secs, r.relaxations_per_s, r.agrees
        ));
        let ok = r.agrees;
        self.rep.rows.push(r);
        ok
    }

    fn ratio(&mut self, what: String, r: f64) {
        self.rep.ratios.push((self.n, what, r));
    }
}

/// Runs the CPU comparison (ours, then each of `peers` on the same graph);
/// `log` gets a line per measurement.
pub fn run_cpu(
    cfg: &CpuConfig,
    peers: &[&dyn CpuPeer],
    command_line: &str,
    mut log: impl FnMut(&str),
) -> Result<CpuReport> {
    let mut rep = CpuReport {
        config: CpuConfig {
            peers: peers.iter().map(|p| p.name()).collect(),
            ..cfg.clone()
        },
        host: HostInfo::read(),
        command_line: command_line.to_string(),
        rows: Vec::new(),
        ratios: Vec::new(),
        notes: vec![
            "the peers are single-threaded: compare them with the 1-thread row too".into(),
            "peer times are the solve alone (graph conversion and file I/O excluded); \
             petgraph's includes building its n²-entry HashMap result"
                .into(),
            "a peer whose matrix differs from ours gets no ratio".into(),
        ],
    };
    // Shared machines: record how busy it was around the measurements.
    rep.notes
        .push(format!("load average at start: {}", load_average()));
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .map_err(|e| Error::InvalidArgument(format!("thread pool: {e}")))?;
    for &n in &cfg.sizes {
        let g = random_graph(n, cfg.density, 1, 100, cfg.seed ^ n as u64)?;
        let m0 = adjacency(&g)?;
        log(&format!("n {n}: {} edges", g.num_edges()));
        let mut run = SizeRun {
            n,
            edges: g.num_edges(),
            reference: None,
            rep: &mut rep,
        };
        let mut best = (f64::MAX, 0usize);
        for &t in &cfg.tiles {
            let (s, m) = timed(&m0, |m| fw_cpu::blocked::<S>(m, None, t))?;
            run.add(&format!("blocked tile {t}"), s, &m, &mut log);
            if s < best.0 {
                best = (s, t);
            }
        }
        let (s1, m) = timed(&m0, |m| {
            one.install(|| fw_cpu::blocked::<S>(m, None, best.1))
        })?;
        run.add("blocked 1 thread (best tile)", s1, &m, &mut log);
        run.rep.notes.push(format!("n {n}: best tile {}", best.1));
        if n <= cfg.naive_max {
            let (s, m) = timed(&m0, |m| {
                fw_cpu::naive::<S>(m, None);
                Ok(())
            })?;
            run.add("naive triple loop", s, &m, &mut log);
            run.ratio("naive / blocked(best, all threads)".into(), s / best.0);
            run.ratio("naive / blocked(1 thread)".into(), s / s1);
        }
        let t0 = Instant::now();
        let j = Johnson::<i32>::prepare(&g, 1)?;
        let mut jm = Vec::with_capacity(n * n);
        j.for_each_block(256, |_, b| {
            jm.extend_from_slice(b);
            Ok(())
        })?;
        let sj = t0.elapsed().as_secs_f64();
        run.add("johnson", sj, &DistMatrix::from_vec(n, jm)?, &mut log);
        run.ratio("johnson / blocked(best)".into(), sj / best.0);
        for p in peers {
            let name = p.name();
            match p.solve(&g, &m0) {
                Ok((s, m)) if run.add(&name, s, &m, &mut log) => {
                    run.ratio(format!("{name} / blocked(best, all threads)"), s / best.0);
                    run.ratio(format!("{name} / blocked(1 thread)"), s / s1);
                }
                Ok(_) => run
                    .rep
                    .notes
                    .push(format!("{name} disagrees with ours at n {n}: no ratio")),
                Err(e) => run
                    .rep
                    .notes
                    .push(format!("{name} not measured at n {n}: {e}")),
            }
        }
    }
    rep.notes
        .push(format!("load average at end: {}", load_average()));
    Ok(rep)
}

/// `/proc/loadavg`'s 1, 5 and 15 minute averages, `?` where unreadable.
fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "?".into())
}

/// GPU benchmark settings.
#[derive(Clone, Debug, serde::Serialize)]
pub struct GpuConfig {
    /// Seed 002 sweep sizes.
    pub sweep: Vec<usize>,
    /// Blocked-only sizes (relaxations/s vs peak).
    pub big: Vec<usize>,
    pub density: f64,
    /// Largest n the sequential CPU triple loop runs at in the sweep.
    pub cpu_naive_max: usize,
    /// Largest n the parallel CPU blocked FW runs at in the sweep.
    pub cpu_blocked_max: usize,
    /// Largest n the naive GPU kernel runs at.
    pub gpu_naive_max: usize,
    /// Rows spot-checked against CPU Dijkstra at every size.
    pub spot_rows: usize,
    pub peak_iters: u32,
    pub seed: u64,
}

impl Default for GpuConfig {
    fn default() -> Self {
        GpuConfig {
            sweep: vec![64, 128, 256, 512, 1024, 2048, 4096],
            big: vec![8192, 16384],
            density: 0.1,
            cpu_naive_max: 1024,
            cpu_blocked_max: 4096,
            gpu_naive_max: 8192,
            spot_rows: 8,
            peak_iters: 1 << 14,
            seed: 2,
        }
    }
}

#[derive(Clone, Debug, serde::Serialize)]
pub struct GpuReport {
    pub config: GpuConfig,
    pub device: runtime::gpu::DeviceInfo,
    pub host: HostInfo,
    pub command_line: String,
    pub check: Vec<String>,
    pub rows: Vec<Row>,
    /// Relaxations/s of the add+min microbenchmark (exact = with the ∞ select).
    pub peak_fast: f64,
    pub peak_exact: f64,
    /// `(n, what, ratio)`.
    pub ratios: Vec<(usize, String, f64)>,
}

/// Rows `s` of the CPU's Dijkstra (Johnson) agree with `d`.
fn spot_check(g: &Csr<i32>, d: &[i32], rows: usize, seed: u64) -> Result<bool> {
    let n = g.num_vertices();
    let j = Johnson::<i32>::prepare(g, 1)?;
    let mut rng = rand_pcg::Pcg64::seed_from_u64(seed);
    let mut sc = runtime::apsp::johnson::Scratch::new(n);
    let mut row = vec![0i32; n];
    for _ in 0..rows.min(n) {
        let s = rng.gen_range(0..n);
        j.row(s as u32, &mut sc, &mut row, None);
        if row[..] != d[s * n..(s + 1) * n] {
            return Ok(false);
        }
    }
    Ok(true)
}

/// Correctness on the device: GPU FW (both kernels, both encodings where exact)
/// equals CPU blocked FW on random graphs, negative weights included.
pub fn check_gpu(
    dev: &runtime::gpu::apsp::ApspGpu,
    max_n: usize,
    mut log: impl FnMut(&str),
) -> Result<Vec<String>> {
    use runtime::gpu::apsp::FwKernel;
    let mut lines = Vec::new();
    let mut failed = 0;
    for (i, &n) in [1usize, 7, 63, 64, 65, 200, 513, 1000, 1500]
        .iter()
        .enumerate()
        .filter(|(_, &n)| n <= max_n)
    {
        for neg in [false, true] {
            let (lo, hi) = if neg { (-20, 100) } else { (0, 100) };
            // Negative weights through a potential, so no negative cycle.
            let mut g = random_graph(n, 0.05, 0, hi - lo, 100 + i as u64)?;
            if neg {
                let h: Vec<i32> = (0..n as i32).map(|v| (v * 7919) % (-lo + 1)).collect();
                let offs = g.offsets().to_vec();
                let tg = g.targets().to_vec();
                let mut w = g.weights().map(|w| w.to_vec()).unwrap_or_default();
                for u in 0..n {
                    for e in offs[u] as usize..offs[u + 1] as usize {
                        w[e] += h[u] - h[tg[e] as usize];
                    }
                }
                g = g.with_weights(w)?;
            }
            let m0 = adjacency(&g)?;
            let mut want = m0.clone();
            fw_cpu::blocked::<S>(&mut want, None, 64)?;
            for kernel in [FwKernel::Naive, FwKernel::Blocked] {
                for fast in [None, Some(false)] {
                    let mut d = m0.clone().into_vec();
                    let r = dev.fw(&mut d, n, kernel, fast)?;
                    let ok = d == want.as_slice();
                    if !ok {
                        failed += 1;
                    }
                    let l = format!(
                        "n {n:5} {} {kernel:?} fast {}: {}",
                        if neg { "neg" } else { "pos" },
                        r.fast,
                        if ok { "ok" } else { "FAIL" }
                    );
                    log(&l);
                    lines.push(l);
                }
            }
        }
    }
    if failed > 0 {
        return Err(Error::InvalidGraph(format!(
            "{failed} GPU FW checks failed"
        )));
    }
    Ok(lines)
}

/// The seed 002 sweep and the large-n runs.
pub fn run_gpu(
    dev: &runtime::gpu::apsp::ApspGpu,
    cfg: &GpuConfig,
    command_line: &str,
    mut log: impl FnMut(&str),
) -> Result<GpuReport> {
    use runtime::gpu::apsp::FwKernel;
    let check = check_gpu(dev, usize::MAX, &mut log)?;
    let peak_fast = dev.peak(true, cfg.peak_iters, 8)?;
    let peak_exact = dev.peak(false, cfg.peak_iters, 8)?;
    log(&format!(
        "peak add+min: fast {peak_fast:.3e}/s, exact {peak_exact:.3e}/s"
    ));
    let mut rep = GpuReport {
        config: cfg.clone(),
        device: dev.info().clone(),
        host: HostInfo::read(),
        command_line: command_line.to_string(),
        check,
        rows: Vec::new(),
        peak_fast,
        peak_exact,
        ratios: Vec::new(),
    };
    let mut sizes = cfg.sweep.clone();
    sizes.extend(cfg.big.iter().copied());
    for &n in &sizes {
        let g = random_graph(n, cfg.density, 1, 100, cfg.seed ^ n as u64)?;
        let e = g.num_edges();
        let m0 = adjacency(&g)?;
        let in_sweep = cfg.sweep.contains(&n);
        let mut want = String::new();
        let mut times = std::collections::HashMap::new();
        let mut gpu =
            |kernel: FwKernel, fast: bool, rep: &mut GpuReport, want: &mut String| -> Result<()> {
                let mut d = m0.clone().into_vec();
                dev.fw(&mut d, n, kernel, Some(fast))?; // warm-up (JIT, first touch)
                let mut d = m0.clone().into_vec();
                let r = dev.fw(&mut d, n, kernel, Some(fast))?;
                let ok = spot_check(&g, &d, cfg.spot_rows, n as u64)?;
                let sum = checksum(&DistMatrix::from_vec(n, d)?);
                if want.is_empty() {
                    *want = sum.clone();
                }
                let name = format!("gpu {kernel:?}{}", if fast { " fast" } else { " exact" })
                    .to_lowercase();
                let mut rw = row(n, e, &name, r.kernel_ms / 1e3, r.total_ms / 1e3, sum, want);
                rw.agrees &= ok;
                log(&format!(
                "  n {n:6} {:22} {:10.3} ms kernels {:10.3} ms total  {:.3e} relax/s  agrees {}",
                name, r.kernel_ms, r.total_ms, rw.relaxations_per_s, rw.agrees
            ));
                times.insert(name, rw.seconds);
                rep.rows.push(rw);
                Ok(())
            };
        gpu(FwKernel::Blocked, true, &mut rep, &mut want)?;
        gpu(FwKernel::Blocked, false, &mut rep, &mut want)?;
        if n <= cfg.gpu_naive_max {
            gpu(FwKernel::Naive, true, &mut rep, &mut want)?;
            gpu(FwKernel::Naive, false, &mut rep, &mut want)?;
        }
        let cpu_runs: [(&str, usize, Fw); 2] = [
            ("cpu blocked", cfg.cpu_blocked_max, |m| {
                fw_cpu::blocked::<S>(m, None, fw_cpu::DEFAULT_TILE)
            }),
            ("cpu naive", cfg.cpu_naive_max, |m| {
                fw_cpu::naive::<S>(m, None);
                Ok(())
            }),
        ];
        for (name, max, fw) in cpu_runs {
            if in_sweep && n <= max {
                let (s, m) = timed(&m0, fw)?;
                let rw = row(n, e, name, s, s, checksum(&m), &want);
                log(&format!(
                    "  n {n:6} {:22} {:10.3} ms  agrees {}",
                    rw.variant,
                    s * 1e3,
                    rw.agrees
                ));
                times.insert(name.to_string(), s);
                rep.rows.push(rw);
            }
        }
        let mut ratio = |what: &str, a: &str, b: &str| {
            if let (Some(x), Some(y)) = (times.get(a), times.get(b)) {
                rep.ratios.push((n, what.to_string(), x / y));
            }
        };
        ratio(
            "cpu naive / gpu naive exact (seed 002)",
            "cpu naive",
            "gpu naive exact",
        );
        ratio(
            "cpu blocked / gpu naive exact",
            "cpu blocked",
            "gpu naive exact",
        );
        ratio(
            "gpu naive exact / gpu blocked exact",
            "gpu naive exact",
            "gpu blocked exact",
        );
        ratio(
            "gpu naive fast / gpu blocked fast",
            "gpu naive fast",
            "gpu blocked fast",
        );
        ratio(
            "gpu blocked exact / gpu blocked fast",
            "gpu blocked exact",
            "gpu blocked fast",
        );
        if let Some(t) = times.get("gpu blocked fast") {
            let rps = (n as f64).powi(3) / t;
            rep.ratios.push((
                n,
                "gpu blocked fast relax/s / peak fast".into(),
                rps / peak_fast,
            ));
        }
    }
    if rep.rows.iter().any(|r| !r.agrees) {
        log("WARNING: some variants disagree (see `agrees` in the JSON)");
    }
    Ok(rep)
}

/// A log–log chart of `series` over n.
fn chart(path: &Path, title: &str, y_desc: &str, series: Vec<Series>) -> Result<()> {
    let panel = Panel {
        title: title.into(),
        x_desc: "n (vertices)".into(),
        y_desc: y_desc.into(),
        series,
        log_y: true,
    };
    line_chart(path, &panel, true)
}

/// One line per variant: `f(row)` over n.
fn series_of(rows: &[Row], f: impl Fn(&Row) -> f64) -> Vec<Series> {
    group_series(rows, |r| r.variant.as_str(), |r| Some((r.n as f64, f(r))))
}

/// One line per ratio name over n.
fn ratio_series(ratios: &[(usize, String, f64)]) -> Vec<Series> {
    group_series(ratios, |r| r.1.as_str(), |r| Some((r.0 as f64, r.2)))
}

fn write_json<T: serde::Serialize>(v: &T, path: &Path) -> Result<()> {
    let text = serde_json::to_string_pretty(v)
        .map_err(|e| Error::InvalidArgument(format!("serialising the report: {e}")))?;
    std::fs::write(path, text + "\n").map_err(|e| Error::io(path, e))
}

/// Writes `apsp-cpu.json`, `apsp-cpu.svg` (seconds by variant) and
/// `apsp-cpu-ratios.svg` into `dir`.
pub fn write_cpu(rep: &CpuReport, dir: &Path) -> Result<Vec<PathBuf>> {
    write_report(
        rep,
        dir,
        "apsp-cpu",
        [
            (
                "apsp-cpu.svg",
                &format!("CPU Floyd–Warshall: seconds by variant — {}", rep.host.cpu),
            ),
            (
                "apsp-cpu-ratios.svg",
                "Time ratios a / b (> 1: b is faster)",
            ),
        ],
        &rep.rows,
        &rep.ratios,
    )
}

/// Writes `apsp-gpu.json`, `apsp-gpu-seed002.svg` (time vs n) and
/// `apsp-gpu-ratios.svg` into `dir`.
pub fn write_gpu(rep: &GpuReport, dir: &Path) -> Result<Vec<PathBuf>> {
    write_report(
        rep,
        dir,
        "apsp-gpu",
        [
            (
                "apsp-gpu-seed002.svg",
                "FW time vs n (GPU kernel time, CUDA events)",
            ),
            (
                "apsp-gpu-ratios.svg",
                "Speed ratios (> 1: the first is slower)",
            ),
        ],
        &rep.rows,
        &rep.ratios,
    )
}

/// `{stem}.json`, then the charts `[(file, title); 2]`: seconds by variant over
/// n, and the ratios over n (left out when there are none).
fn write_report<T: serde::Serialize>(
    rep: &T,
    dir: &Path,
    stem: &str,
    charts: [(&str, &str); 2],
    rows: &[Row],
    ratios: &[(usize, String, f64)],
) -> Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let j = dir.join(format!("{stem}.json"));
    write_json(rep, &j)?;
    let t = dir.join(charts[0].0);
    chart(&t, charts[0].1, "seconds", series_of(rows, |r| r.seconds))?;
    let mut out = vec![j, t];
    if !ratios.is_empty() {
        let r = dir.join(charts[1].0);
        chart(&r, charts[1].1, "ratio", ratio_series(ratios))?;
        out.push(r);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::peer::Scipy;
    use super::*;

    /// A peer that answers with our own FW, optionally with one entry changed.
    struct Fake(bool);

    impl CpuPeer for Fake {
        fn name(&self) -> String {
            format!("fake {}", self.0)
        }
        fn solve(&self, _g: &Csr<i32>, m0: &DistMatrix<i32>) -> Result<(f64, DistMatrix<i32>)> {
            let (s, mut m) = timed(m0, |m| fw_cpu::blocked::<S>(m, None, 32))?;
            if self.0 {
                m.set(0, 1, m.get(0, 1).wrapping_add(1));
            }
            Ok((s, m))
        }
    }

    #[test]
    fn apsp_cpu_bench_checks_peers_and_writes_charts() {
        let cfg = CpuConfig {
            sizes: vec![40, 70],
            density: 0.2,
            tiles: vec![32],
            ..CpuConfig::default()
        };
        let peers: [&dyn CpuPeer; 2] = [&Fake(false), &Fake(true)];
        let rep = run_cpu(&cfg, &peers, "test", |_| {}).unwrap();
        assert_eq!(rep.config.peers, ["fake false", "fake true"]);
        for r in &rep.rows {
            assert_eq!(r.agrees, r.variant != "fake true", "{}", r.variant);
        }
        let named = |w: &str| rep.ratios.iter().filter(|r| r.1.starts_with(w)).count();
        assert_eq!(named("fake false /"), 4);
        assert_eq!(named("fake true"), 0);
        assert_eq!(
            rep.notes.iter().filter(|n| n.contains("disagrees")).count(),
            2
        );
        let dir = tempfile::tempdir().unwrap();
        let files = write_cpu(&rep, dir.path()).unwrap();
        assert_eq!(files.len(), 3);
        for f in &files {
            assert!(std::fs::metadata(f).unwrap().len() > 100, "{}", f.display());
        }
    }

    /// scipy's matrix equals ours where python3 with scipy is installed.
    #[test]
    fn apsp_scipy_peer_agrees() {
        let g = random_graph(50, 0.1, 1, 100, 3).unwrap();
        let m0 = adjacency(&g).unwrap();
        let Ok((_, theirs)) = Scipy.solve(&g, &m0) else {
            return; // no python3 / scipy here
        };
        let mut ours = m0.clone();
        fw_cpu::blocked::<S>(&mut ours, None, 32).unwrap();
        assert_eq!(theirs, ours);
    }
}
