//! PageRank in `vertex bench-cpu`: our gather/apply engine
//! (`cpu::gather::run` with the shipped `pagerank` program) against gapbs `pr`
//! on the same CSR (the graph written as gapbs `.sg`), same tolerance and round
//! limit on both sides.
//!
//! Times: ours is the run's wall time (`report.time`: init, every round, no
//! loading), gapbs's its "Trial Time"; each the median of `--trials` runs per
//! thread count. The two sides iterate differently: ours is Jacobi (every round
//! reads the previous round's contributions; `f32` contributions, `f64` ranks),
//! gapbs's `PageRankPullGS` is Gauss-Seidel (`f32` scores, new contributions
//! visible at once), so they may stop after different round counts; both counts
//! are recorded (gapbs's from its `-l` log, at the most threads).
//!
//! Checks: ours at every thread count against the sequential oracle
//! (`oracle::pagerank`, the same rounds and per-vertex relative difference
//! ≤ 1e-6 or absolute ≤ 1e-12); gapbs once with its `-v` verifier (one more
//! serial round changes the scores by less than the tolerance), and our ranks
//! by that same criterion, plus gapbs's top five scores (`-a`) beside ours.

use runtime::gather::GatherOptions;
use serde::Serialize;
use vertex_examples::gapbs_output::{logged_steps, top_scores};
use vertex_examples::programs::pagerank;

use super::gapbs::{gapbs_best, gapbs_run_in};
use super::{
    gapbs_run, job, load_unweighted, median_of, sweep_threads, with_env_times, Detail, Job,
    Measured, Setup,
};

/// What a PageRank job records besides the timings.
#[derive(Serialize)]
pub(crate) struct PrDetail {
    damping: f64,
    tolerance: f64,
    max_rounds: u32,
    ours_method: &'static str,
    gapbs_method: &'static str,
    /// Rounds of our runs (the same at every thread count, else the check fails).
    ours_rounds: u32,
    /// Rounds of the sequential oracle.
    oracle_rounds: u32,
    /// Most rounds our Gauss–Seidel runs took (they vary with thread timing).
    ours_gauss_seidel_rounds: u32,
    /// Largest gapbs-verifier error of our Gauss–Seidel runs.
    ours_gauss_seidel_gapbs_error: f64,
    /// Iterations gapbs logged (`-l`) in its verified run.
    gapbs_rounds: Option<u32>,
    /// The L1 change of gapbs's last logged iteration.
    gapbs_last_change: Option<f64>,
    /// Threads of gapbs's verified run.
    gapbs_checked_threads: usize,
    /// `(threads, Jacobi time / gapbs time × gapbs_rounds / ours_rounds)`: ours / gapbs per round,
    /// for when the two stop after different round counts.
    ratio_per_round: Vec<(usize, f64)>,
    /// Largest per-vertex relative difference of our ranks from the oracle's.
    ours_oracle_max_rel_diff: f64,
    /// gapbs's verifier criterion on our ranks: the L1 change one more serial
    /// push round would make (gapbs passes when it is below the tolerance).
    ours_gapbs_error: f64,
    ours_passes_gapbs_verifier: bool,
    /// gapbs's top scores (`-a`) and ours for the same vertices.
    top: Vec<TopScore>,
}

#[derive(Serialize)]
struct TopScore {
    vertex: u32,
    gapbs: f64,
    ours: f64,
    rel_diff: f64,
}

impl PrDetail {
    /// One line for the closing summary.
    pub(crate) fn summary(&self) -> String {
        let fmt = |r: Option<u32>| r.map_or("?".into(), |r| r.to_string());
        let top = self.top.iter().map(|t| t.rel_diff).fold(0.0, f64::max);
        format!(
            "rounds: ours {} (oracle {}; Gauss-Seidel ≤ {}, verifier error ≤ {:.2e}), gapbs {}; ours by gapbs's verifier: error {:.2e} ({}); \
             top-{} scores vs gapbs: max rel diff {top:.1e}; ratio per round:{}",
            self.ours_rounds,
            self.oracle_rounds,
            self.ours_gauss_seidel_rounds,
            self.ours_gauss_seidel_gapbs_error,
            fmt(self.gapbs_rounds),
            self.ours_gapbs_error,
            if self.ours_passes_gapbs_verifier {
                "PASS"
            } else {
                "FAIL"
            },
            self.top.len(),
            self.ratio_per_round
                .iter()
                .map(|(t, r)| format!(" {t}t {r:.2}"))
                .collect::<String>(),
        )
    }
}

/// Benchmarks PageRank on `spec`.
pub(crate) fn bench_pr(s: &Setup, spec: &str) -> anyhow::Result<Job> {
    let (a, threads, bin) = (s.a, s.threads, s.bin);
    let (g, file) = load_unweighted(spec, s.work)?;
    let (tolerance, max_rounds) = (a.pr_tolerance, a.pr_max_rounds);
    let damping = pagerank::pagerank::DAMPING;
    let (expect, oracle_rounds) =
        runtime::oracle::pagerank(g.csr(), damping, tolerance, max_rounds);
    let limits = [
        "-i".to_string(),
        max_rounds.to_string(),
        "-t".to_string(),
        tolerance.to_string(),
    ];
    // gapbs once, verified, with its per-iteration log and top scores.
    let tmax = threads.iter().copied().max().unwrap_or(1);
    let logged: Vec<String> = limits
        .iter()
        .cloned()
        .chain(["-l".into(), "-a".into()])
        .collect();
    let check = gapbs_run(bin, &file, None, 1, tmax, &logged, true)?;
    let steps = logged_steps(&check.text);
    if check.verified != Some(true) {
        eprintln!("  WARNING: gapbs pr's verifier did not pass on {spec}");
    }

    let opts = GatherOptions {
        tolerance: Some(tolerance),
        max_rounds: Some(max_rounds),
        ..GatherOptions::default()
    };
    let mut checked = true;
    let mut rounds = None;
    let mut ranks = Vec::new();
    let (mut gs_rounds, mut gs_error) = (0u32, 0.0f64);
    let mut env_times = Vec::new();
    let points = sweep_threads(
        threads,
        &[
            "pull (Jacobi)".to_string(),
            "pull (Gauss-Seidel)".to_string(),
        ],
        |i, t| {
            let opts = GatherOptions {
                threads: Some(t),
                gauss_seidel: i == 1,
                ..opts.clone()
            };
            let (time, run) = median_of(a.trials, || {
                let r = runtime::cpu::gather::run::<pagerank::Program, u32>(&g, &opts)?;
                Ok((r.report.time.as_secs_f64(), r))
            })?;
            if opts.gauss_seidel {
                // In-place rounds have no round-for-round oracle: judge the
                // distance to the fixed point, bounded by the last change.
                let e = runtime::oracle::pagerank_residual(g.csr(), &run.states, damping);
                checked &= e <= 2.0 * tolerance.max(run.report.reduced);
                gs_rounds = gs_rounds.max(run.report.rounds);
                gs_error = gs_error.max(e);
            } else {
                checked &= run.report.rounds == oracle_rounds
                    && *rounds.get_or_insert(run.report.rounds) == run.report.rounds
                    && agrees(&run.states, &expect);
                ranks = run.states;
            }
            Ok(time)
        },
        |t| {
            let (best, times) = gapbs_best(|env| {
                Ok(gapbs_run_in(env, bin, &file, None, a.trials, t, &limits, false)?.time)
            })?;
            env_times.push(times);
            Ok(Some(best))
        },
    )?;
    let points = with_env_times(points, env_times);

    let ours_gapbs_error = runtime::oracle::pagerank_residual(g.csr(), &ranks, damping);
    let ours_rounds = rounds.unwrap_or(0);
    let gapbs_rounds = (!steps.is_empty()).then_some(steps.len() as u32);
    let ratio_per_round = match gapbs_rounds {
        Some(gr) if ours_rounds > 0 => points
            .iter()
            .filter_map(|p| {
                Some((
                    p.threads,
                    p.ours[0].1 / p.gapbs? * gr as f64 / ours_rounds as f64,
                ))
            })
            .collect(),
        _ => Vec::new(),
    };
    let detail = PrDetail {
        damping,
        tolerance,
        max_rounds,
        ours_method: "pull, Jacobi or Gauss-Seidel (in place): f32 contributions, f64 ranks",
        ours_gauss_seidel_rounds: gs_rounds,
        ours_gauss_seidel_gapbs_error: gs_error,
        gapbs_method: "pull, Gauss-Seidel (PageRankPullGS): f32 scores",
        ours_rounds,
        oracle_rounds,
        gapbs_rounds,
        gapbs_last_change: steps.last().copied(),
        gapbs_checked_threads: tmax,
        ratio_per_round,
        ours_oracle_max_rel_diff: ranks
            .iter()
            .zip(&expect)
            .map(|(x, y)| rel_diff(*x, *y))
            .fold(0.0, f64::max),
        ours_gapbs_error,
        ours_passes_gapbs_verifier: ours_gapbs_error < tolerance,
        top: top_scores(&check.text)
            .into_iter()
            .filter(|&(v, _)| (v as usize) < ranks.len())
            .map(|(vertex, gapbs)| TopScore {
                vertex,
                gapbs,
                ours: ranks[vertex as usize],
                rel_diff: rel_diff(ranks[vertex as usize], gapbs),
            })
            .collect(),
    };
    let m = Measured {
        points,
        checked,
        verified: check.verified,
    };
    let job = job("pr", spec, &g, m, Detail::PageRank(detail))?;
    Ok(job)
}

fn rel_diff(x: f64, y: f64) -> f64 {
    (x - y).abs() / y.abs().max(f64::MIN_POSITIVE)
}

/// Our ranks against the oracle's: per vertex, relative difference ≤ 1e-6 or
/// absolute ≤ 1e-12.
pub(crate) fn agrees(ours: &[f64], expect: &[f64]) -> bool {
    ours.len() == expect.len()
        && ours.iter().zip(expect).all(|(x, y)| {
            let d = (x - y).abs();
            d <= 1e-12 || d <= 1e-6 * y.abs()
        })
}
