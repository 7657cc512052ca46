//! `vertex bench-cpu`'s SSSP job: our delta-stepping engines against gapbs `sssp`
//! on one weighted graph.
//!
//! Both sides get their best Δ from the same sweep (first root, most threads;
//! ours sweeps the bulk delta-stepping path, `cpu::obim::run_bulk`, and
//! soft-priority obim reuses that Δ). Distances: gapbs always keeps 32-bit
//! ones; ours use 32 bits where [`sssp::fits_u32`] proves no shortest path can
//! overflow (decided once per graph; the check's time is recorded in the JSON
//! as `distances.check_s`, as gapbs's graph build is outside its trial time) and
//! the 64-bit program otherwise. Where 32 bits fit, obim (swept Δ) also runs
//! with 64-bit distances, so the JSON shows what the narrow states are worth. Our 32-bit results are checked against the oracle as they are
//! (widening them for output is not timed: gapbs does not convert either).
//! Our weighted engines read an interleaved `(target, weight)` copy of the
//! edges (`Graph::packed`, gapbs's own layout), built once per graph before any
//! timed run; its build time is recorded as `distances.packed_build_s`.

use std::time::Instant;

use runtime::cpu;
use runtime::program::Schedule;
use serde::Serialize;
use vertex_examples::programs::sssp;

use super::{
    gapbs_run, job, load_weighted, measure, ours_run, pick_roots, Detail, Job, Setup, Variant,
};

/// Which distance widths the SSSP job ran, and why.
#[derive(Serialize)]
pub(crate) struct Distances {
    /// Whether the 32-bit program ran (where it did, obim with 64-bit
    /// distances runs too, under a `u64` label).
    pub u32_fits: bool,
    pub bound: cpu::narrow::PathBound,
    /// Seconds the bound took (once per graph).
    pub check_s: f64,
    /// Seconds building the interleaved `(target, weight)` copy our weighted
    /// engines read took (once per graph, before any timed run; gapbs's own
    /// graph is interleaved as loaded).
    pub packed_build_s: f64,
}

/// Our side of one SSSP variant from `root`: median seconds and the distances,
/// 32-bit ones widened (after timing) so every variant compares with one oracle.
fn run_variant(
    s: &Setup,
    g: &runtime::graph::Graph<u32>,
    v: &Variant,
    root: u32,
    threads: usize,
) -> anyhow::Result<(f64, Vec<u64>)> {
    let a = s.a;
    let pin = a.pin || v.pin;
    if v.narrow {
        let (t, d) = ours_run::<sssp::sssp32::Program>(
            g, root, v.schedule, v.bulk, threads, v.delta, a.trials, pin,
        )?;
        Ok((t, cpu::narrow::widen(&d)))
    } else {
        ours_run::<sssp::sssp::Program>(
            g, root, v.schedule, v.bulk, threads, v.delta, a.trials, pin,
        )
    }
}

pub(crate) fn bench_sssp(s: &Setup, spec: &str) -> anyhow::Result<Job> {
    let (a, threads, work, bin) = (s.a, s.threads, s.work, s.bin);
    let (g, file) = load_weighted(spec, work)?;
    let t_check = Instant::now();
    let bound = cpu::narrow::path_bound(&g);
    let check_s = t_check.elapsed().as_secs_f64();
    let t_packed = Instant::now();
    g.packed();
    let distances = Distances {
        u32_fits: bound.fits_u32(),
        bound,
        check_s,
        packed_build_s: t_packed.elapsed().as_secs_f64(),
    };
    let narrow = distances.u32_fits;
    eprintln!(
        "  distances: {} (longest simple path ≤ {}, checked in {:.2} ms); \
         interleaved edges built in {:.2} ms (untimed, as gapbs's graph build)",
        if narrow { "u32" } else { "u64" },
        bound.bound,
        distances.check_s * 1e3,
        distances.packed_build_s * 1e3
    );
    let roots = pick_roots(&g, a.roots);
    let expect = runtime::oracle::dijkstra(g.csr(), roots[0]);
    let tmax = threads.iter().copied().max().unwrap_or(1);
    // Δ sweep on the first root at the most threads, both sides.
    let mut sweep = Vec::new();
    for &d in &a.deltas {
        let mut probe = Variant::new(String::new(), Schedule::Obim, true, Some(d));
        probe.narrow = narrow;
        let (ours, _) = run_variant(s, &g, &probe, roots[0], tmax)?;
        let theirs = gapbs_run(
            bin,
            &file,
            Some(roots[0]),
            a.trials,
            tmax,
            &["-d".into(), d.to_string()],
            false,
        )?
        .time;
        eprintln!(
            "  Δ {d}: ours {:.2} ms gapbs {:.2} ms",
            ours * 1e3,
            theirs * 1e3
        );
        sweep.push((d, ours, theirs));
    }
    let auto = cpu::operator::cpu_delta::<sssp::sssp::Program>(&g, roots[0]);
    let probe = runtime::shape::probe(&g, roots[0]);
    let best = |k: usize| {
        sweep
            .iter()
            .min_by(|x, y| {
                let (a, b) = if k == 0 { (x.1, y.1) } else { (x.2, y.2) };
                a.total_cmp(&b)
            })
            .map(|x| x.0)
    };
    let ours_delta = best(0).unwrap_or(auto);
    let gapbs_delta = best(1).unwrap_or(auto);
    let bits = if narrow { "u32" } else { "u64" };
    let mut variants = Vec::new();
    for (bulk, name) in [(true, "bulk Δ-stepping"), (false, "obim")] {
        for (delta, which) in [
            (Some(ours_delta), "swept Δ".to_string()),
            (None, format!("auto Δ {auto}")),
        ] {
            let mut v = Variant::new(
                format!("{name} {bits} ({which})"),
                Schedule::Obim,
                bulk,
                delta,
            );
            v.narrow = narrow;
            variants.push(v);
        }
        if narrow && !bulk {
            variants.push(Variant::new(
                format!("{name} u64 (swept Δ)"),
                Schedule::Obim,
                bulk,
                Some(ours_delta),
            ));
        }
    }
    if !a.pin {
        // What pinning is worth on this machine: soft-priority obim, swept Δ.
        let obim = variants
            .iter()
            .find(|v| !v.bulk && v.delta.is_some() && v.narrow == narrow)
            .map(Variant::pinned);
        variants.extend(obim);
    }
    if !probe.high_diameter {
        // Level-synchronous rounds: competitive on low-diameter graphs (the
        // 16-core host's Kronecker 20), ten times slower on grids (not run there).
        let mut v = Variant::new(format!("sync {bits}"), Schedule::Sync, false, None);
        v.narrow = narrow;
        variants.push(v);
    }
    let extra = ["-d".to_string(), gapbs_delta.to_string()];
    let ours = |v: &Variant, r: u32, t: usize| run_variant(s, &g, v, r, t);
    let m = measure(
        a, &roots, &expect, threads, &variants, ours, bin, &file, &extra,
    )?;
    let mut detail = Detail::rooted(roots, Some((ours_delta, gapbs_delta, sweep)));
    if let Detail::Rooted { distances: d, .. } = &mut detail {
        *d = Some(distances);
    }
    job("sssp", spec, &g, m, detail)
}
