//! The six GAP kernels as `vertex bench gap` runs them: for each, our CPU
//! schedules, our GPU kernel, the gapbs binary and its arguments, and the
//! sequential oracle every result of ours is checked against.
//!
//! A kernel is built for one graph ([`make`]): the constructor computes the
//! oracle's answer once (per source for BFS, SSSP and BC, the sources' oracles
//! side by side on rayon's threads; TC's count by blocks of vertices), then every run of
//! ours, at every thread count and on the GPU, is compared with it:
//!
//! | kernel | ours (CPU)                               | check                                  |
//! |--------|------------------------------------------|----------------------------------------|
//! | bfs    | sync (direction-optimizing), async       | levels = `oracle::bfs_levels`          |
//! | sssp   | bulk Δ-stepping, obim (same Δ as gapbs)  | distances = `oracle::dijkstra`         |
//! | pr     | pull Jacobi, pull Gauss–Seidel           | Jacobi: `oracle::pagerank` round for round; Gauss–Seidel and GPU: `pagerank_residual` ≤ 2·max(tolerance, last change) |
//! | cc     | Afforest                                 | labels = `oracle::components`          |
//! | bc     | Brandes (two gather/apply programs)      | scores vs `oracle::betweenness`, rel. 1e-9 |
//! | tc     | in place, or ranked by degree; intersect (DSL program) | count = `oracle::triangles` |
//!
//! Rooted kernels (bfs, sssp, bc) run from every source on both sides; a time is
//! the mean over sources of the median over trials.

use std::path::Path;
use std::time::Instant;

use rayon::prelude::*;

use runtime::cpu::Direction;
use runtime::gather::GatherOptions;
use runtime::gpu::gather::GatherGpuOptions;
use runtime::gpu::program::GpuProgram;
use runtime::gpu::{BfsKernel, Device, DeviceGraph, ProgramOptions};
use runtime::graph::Graph;
use runtime::program::{Schedule, VertexProgram};
use vertex_examples::programs::{bc, bfs, pagerank, sssp, triangles};

use super::super::bench_cpu::{mean, median_of, ours_run, schedule_label};
use super::{GapGraph, Kernel};

/// What every kernel needs besides its graph.
pub(crate) struct Params {
    pub trials: usize,
    /// SSSP bucket width for both sides (none: ours `auto_delta` on the first source).
    pub delta: Option<u64>,
    pub pr_tolerance: f64,
    pub pr_max_rounds: u32,
    /// BC: every source in one run (gapbs `-i roots`) instead of one run per source.
    pub bc_together: bool,
}

/// Seconds and whether every result matched the oracle.
pub(crate) type Timed = (f64, bool);

/// `--kernel auto`'s options for `P` on `g`.
fn auto_options<P: GpuProgram>(
    g: &Graph<<P as VertexProgram>::Weight>,
    root: u32,
) -> ProgramOptions {
    runtime::gpu::auto::choose::<P>(g, root).options(ProgramOptions::default())
}

/// A GPU strategy's name in the tables: kernel, Δ, and for the resident kernel
/// its rounds and the time per round.
fn strategy_name(program: &str, o: &ProgramOptions, rounds: Option<(u32, f64)>) -> String {
    let mut s = format!("{program} program, {}", o.kernel.name());
    if let Some(d) = o.delta {
        s += &format!(" Δ{d}");
    }
    if let Some((r, ms)) = rounds {
        s += &format!(
            " ({r} rounds, {:.2} µs/round)",
            ms * 1e3 / f64::from(r.max(1))
        );
    }
    s
}

/// Loads `P`'s kernels, times each distinct strategy on every root (median of `trials`), checks each
/// against `expect`, and keeps the fastest; a wrong answer is returned at once.
fn best_gpu<P: GpuProgram>(
    dev: &Device,
    dg: &DeviceGraph,
    roots: &[u32],
    expect: &[Vec<<P as VertexProgram>::State>],
    trials: usize,
    strategies: impl IntoIterator<Item = ProgramOptions>,
) -> anyhow::Result<(String, Timed)> {
    let k = &dev.load_program::<P>()?;
    let mut tried: Vec<(BfsKernel, Option<u64>)> = Vec::new();
    let mut best: Option<(String, Timed)> = None;
    for po in strategies {
        let key = (po.kernel, po.delta);
        if tried.contains(&key) {
            continue;
        }
        tried.push(key);
        let warm = dev.run_program::<P>(k, dg, roots[0], &po)?;
        let rounds = warm.resident.map(|s| (s.rounds, warm.time_ms));
        let r = per_root(roots, |i, r| {
            median_of(trials, || {
                let run = dev.run_program::<P>(k, dg, r, &po)?;
                Ok((run.time_ms / 1e3, run.states == expect[i]))
            })
        })?;
        let name = strategy_name(P::NAME, &po, rounds);
        eprintln!(
            "    gpu {name}: {:.3} ms{}",
            r.0 * 1e3,
            if r.1 { "" } else { " WRONG" }
        );
        if !r.1 {
            return Ok((name, r));
        }
        if best.as_ref().is_none_or(|b| r.0 < b.1 .0) {
            best = Some((name, r));
        }
    }
    best.ok_or_else(|| anyhow::anyhow!("no GPU strategy ran"))
}

/// Whether a peer's printed output holds the right answer.
pub(crate) type AnswerCheck = Box<dyn Fn(&str) -> bool>;

/// One kernel on one graph.
pub(crate) trait GapKernel {
    /// Names of our CPU schedules.
    fn schedules(&self) -> Vec<String>;
    /// Schedule `i` at `threads`: time and oracle agreement.
    fn ours(&mut self, i: usize, threads: usize) -> anyhow::Result<Timed>;
    /// Our GPU kernel (its name, time, agreement), on an opened device.
    fn gpu(&mut self, dev: &Device) -> anyhow::Result<(String, Timed)>;
    /// gapbs's input file and arguments besides `-f`, `-r`, `-n`, `-v`.
    fn gapbs_input(&self) -> (&Path, Vec<String>);
    /// A check of a gapbs run's output (run with [`Self::gapbs_input`]'s
    /// arguments) against the oracle, for kernels whose answer gapbs prints
    /// (`-a`: after the last trial of each call); `None`: gapbs's own `-v`
    /// checks it instead. Checking the printed answer checks every timed call
    /// at no cost, where `-v` is one extra run (and TC's verifier is a serial
    /// intersection that outlasts every timed run at scale 22).
    fn gapbs_answer_check(&self) -> Option<AnswerCheck> {
        None
    }
    /// Whether gapbs runs once per source (`-r`).
    fn rooted(&self) -> bool;
    /// Parameters recorded in the results (Δ, tolerance, ...).
    fn detail(&self) -> serde_json::Value;
}

/// The kernel `k` on `gg`, its oracle answers computed.
pub(crate) fn make<'a>(
    k: Kernel,
    gg: &'a GapGraph,
    p: &'a Params,
) -> anyhow::Result<Box<dyn GapKernel + 'a>> {
    let g = &gg.g;
    Ok(match k {
        Kernel::Bfs => Box::new(Bfs {
            gg,
            p,
            expect: gg
                .roots
                .par_iter()
                .map(|&r| runtime::oracle::bfs_levels(g.csr(), r))
                .collect(),
        }),
        Kernel::Sssp => {
            let (gw, _) = gg
                .weighted
                .as_ref()
                .ok_or_else(|| anyhow::anyhow!("internal: {} loaded without weights", gg.label))?;
            let delta = p.delta.unwrap_or_else(|| {
                runtime::shape::auto_delta::<sssp::sssp::Program>(gw, gg.roots[0])
            });
            Box::new(Sssp {
                gg,
                p,
                delta,
                expect: gg
                    .roots
                    .par_iter()
                    .map(|&r| runtime::oracle::dijkstra(gw.csr(), r))
                    .collect(),
            })
        }
        Kernel::Pr => {
            let damping = pagerank::pagerank::DAMPING;
            let (expect, rounds) =
                runtime::oracle::pagerank(g.csr(), damping, p.pr_tolerance, p.pr_max_rounds);
            Box::new(Pr {
                gg,
                p,
                expect,
                rounds,
            })
        }
        Kernel::Cc => Box::new(Cc {
            gg,
            p,
            expect: runtime::oracle::components(g.csr()),
        }),
        Kernel::Bc => Box::new(Bc {
            gg,
            p,
            expect: if p.bc_together {
                vec![runtime::oracle::betweenness(g.csr(), &gg.roots)]
            } else {
                gg.roots
                    .par_iter()
                    .map(|&r| runtime::oracle::betweenness(g.csr(), &[r]))
                    .collect()
            },
        }),
        Kernel::Tc => {
            let (gu, _) = gg.undirected();
            Box::new(Tc {
                gg,
                p,
                expect: runtime::oracle::triangles_in_parallel(gu.csr()),
            })
        }
    })
}

/// Mean over sources of `run(source index, source)`'s (median) time; whether
/// every source agreed.
fn per_root(
    roots: &[u32],
    mut run: impl FnMut(usize, u32) -> anyhow::Result<Timed>,
) -> anyhow::Result<Timed> {
    let mut times = Vec::new();
    let mut ok = true;
    for (i, &r) in roots.iter().enumerate() {
        let (t, good) = run(i, r)?;
        times.push(t);
        ok &= good;
    }
    Ok((mean(&times), ok))
}

struct Bfs<'a> {
    gg: &'a GapGraph,
    p: &'a Params,
    expect: Vec<Vec<u32>>,
}

impl GapKernel for Bfs<'_> {
    fn schedules(&self) -> Vec<String> {
        [Schedule::Sync, Schedule::Async]
            .map(schedule_label)
            .to_vec()
    }

    fn ours(&mut self, i: usize, threads: usize) -> anyhow::Result<Timed> {
        let s = [Schedule::Sync, Schedule::Async][i];
        per_root(&self.gg.roots, |k, r| {
            let (t, states) = ours_run::<bfs::Program>(
                &self.gg.g,
                r,
                s,
                false,
                threads,
                None,
                self.p.trials,
                false,
            )?;
            Ok((t, states == self.expect[k]))
        })
    }

    fn gpu(&mut self, dev: &Device) -> anyhow::Result<(String, Timed)> {
        let dg = dev.upload_traversal(&self.gg.g, false)?;
        let direction = ProgramOptions {
            kernel: BfsKernel::Direction,
            ..ProgramOptions::default()
        };
        let auto = auto_options::<bfs::Program>(&self.gg.g, self.gg.roots[0]);
        best_gpu::<bfs::Program>(
            dev,
            &dg,
            &self.gg.roots,
            &self.expect,
            self.p.trials,
            [auto, direction],
        )
    }

    fn gapbs_input(&self) -> (&Path, Vec<String>) {
        (&self.gg.sg, Vec::new())
    }

    fn rooted(&self) -> bool {
        true
    }

    fn detail(&self) -> serde_json::Value {
        serde_json::json!({ "direction": format!("{:?}", Direction::Auto) })
    }
}

struct Sssp<'a> {
    gg: &'a GapGraph,
    p: &'a Params,
    delta: u64,
    expect: Vec<Vec<u64>>,
}

impl Sssp<'_> {
    fn graph(&self) -> anyhow::Result<(&Graph<u32>, &Path)> {
        let (g, f) = self
            .gg
            .weighted
            .as_ref()
            .ok_or_else(|| anyhow::anyhow!("internal: {} has no weights", self.gg.label))?;
        Ok((g, f))
    }
}

impl GapKernel for Sssp<'_> {
    fn schedules(&self) -> Vec<String> {
        let d = self.delta;
        vec![format!("bulk Δ-stepping Δ{d}"), format!("obim Δ{d}")]
    }

    fn ours(&mut self, i: usize, threads: usize) -> anyhow::Result<Timed> {
        let (g, _) = self.graph()?;
        per_root(&self.gg.roots, |k, r| {
            let (t, states) = ours_run::<sssp::sssp::Program>(
                g,
                r,
                Schedule::Obim,
                i == 0,
                threads,
                Some(self.delta),
                self.p.trials,
                false,
            )?;
            Ok((t, states == self.expect[k]))
        })
    }

    fn gpu(&mut self, dev: &Device) -> anyhow::Result<(String, Timed)> {
        let (g, _) = self.graph()?;
        let dg = dev.upload_traversal(g, true)?;
        // `--kernel auto`'s pick and the two level-kernel strategies, the fastest
        // kept (as the CPU side keeps its best schedule); 32-bit distances where
        // they are exact, as `vertex sssp` runs them.
        let auto = auto_options::<sssp::sssp::Program>(g, self.gg.roots[0]);
        let near_far = ProgramOptions {
            kernel: BfsKernel::Direction,
            delta: Some(self.delta),
            ..ProgramOptions::default()
        };
        let strategies = [auto, ProgramOptions::default(), near_far];
        if sssp::fits_u32(g) {
            let expect: Vec<Vec<u32>> = self
                .expect
                .iter()
                .map(|d| {
                    d.iter()
                        .map(|&x| u32::try_from(x).unwrap_or(u32::MAX))
                        .collect()
                })
                .collect();
            best_gpu::<sssp::sssp32::Program>(
                dev,
                &dg,
                &self.gg.roots,
                &expect,
                self.p.trials,
                strategies,
            )
        } else {
            best_gpu::<sssp::sssp::Program>(
                dev,
                &dg,
                &self.gg.roots,
                &self.expect,
                self.p.trials,
                strategies,
            )
        }
    }

    fn gapbs_input(&self) -> (&Path, Vec<String>) {
        let file = self
            .gg
            .weighted
            .as_ref()
            .map_or(self.gg.sg.as_path(), |w| &w.1);
        (file, vec!["-d".into(), self.delta.to_string()])
    }

    fn rooted(&self) -> bool {
        true
    }

    fn detail(&self) -> serde_json::Value {
        serde_json::json!({
            "delta": self.delta,
            "delta_from": if self.p.delta.is_some() { "--delta" } else { "ours auto_delta on the first source" },
        })
    }
}

/// PageRank: ours is the shipped gather program through the generic CPU gather
/// engine, Jacobi or Gauss–Seidel rounds. Timed on our side: the run's report
/// time, from the first state's `init` to the last round's reduction (states and
/// message arrays allocated and filled, every round), not the graph, the pool's
/// dispatch or handing the states back; on gapbs's side its `Trial Time`, one
/// `PageRankPullGS` call (its score and contribution arrays allocated and
/// filled, every round), not loading or verifying.
struct Pr<'a> {
    gg: &'a GapGraph,
    p: &'a Params,
    expect: Vec<f64>,
    rounds: u32,
}

impl Pr<'_> {
    fn options(&self, threads: Option<usize>, gauss_seidel: bool) -> GatherOptions {
        GatherOptions {
            tolerance: Some(self.p.pr_tolerance),
            max_rounds: Some(self.p.pr_max_rounds),
            threads,
            gauss_seidel,
            ..GatherOptions::default()
        }
    }

    /// Distance to the fixed point within twice the tolerance (or the last change).
    fn near_fixed_point(&self, ranks: &[f64], last_change: f64) -> bool {
        let e =
            runtime::oracle::pagerank_residual(self.gg.g.csr(), ranks, pagerank::pagerank::DAMPING);
        e <= 2.0 * self.p.pr_tolerance.max(last_change)
    }
}

impl GapKernel for Pr<'_> {
    fn schedules(&self) -> Vec<String> {
        vec!["pull Jacobi".into(), "pull Gauss-Seidel".into()]
    }

    fn ours(&mut self, i: usize, threads: usize) -> anyhow::Result<Timed> {
        let opts = self.options(Some(threads), i == 1);
        median_of(self.p.trials, || {
            let r = runtime::cpu::gather::run::<pagerank::Program, u32>(&self.gg.g, &opts)?;
            let ok = if opts.gauss_seidel {
                self.near_fixed_point(&r.states, r.report.reduced)
            } else {
                r.report.rounds == self.rounds
                    && super::super::bench_cpu::pr::agrees(&r.states, &self.expect)
            };
            Ok((r.report.time.as_secs_f64(), ok))
        })
    }

    fn gpu(&mut self, dev: &Device) -> anyhow::Result<(String, Timed)> {
        let k = dev.load_gather::<pagerank::Program>()?;
        let opts = self.options(None, false);
        let go = GatherGpuOptions::default();
        dev.run_gather::<pagerank::Program, u32>(&k, &self.gg.g, &opts, &go)?;
        let r = median_of(self.p.trials, || {
            let r = dev.run_gather::<pagerank::Program, u32>(&k, &self.gg.g, &opts, &go)?;
            let ok = self.near_fixed_point(&r.states, r.report.reduced);
            Ok((r.report.time.as_secs_f64(), ok))
        })?;
        Ok(("pagerank gather program".into(), r))
    }

    fn gapbs_input(&self) -> (&Path, Vec<String>) {
        let extra = [
            "-i".to_string(),
            self.p.pr_max_rounds.to_string(),
            "-t".to_string(),
            self.p.pr_tolerance.to_string(),
        ];
        (&self.gg.sg, extra.to_vec())
    }

    fn rooted(&self) -> bool {
        false
    }

    fn detail(&self) -> serde_json::Value {
        serde_json::json!({
            "damping": pagerank::pagerank::DAMPING,
            "tolerance": self.p.pr_tolerance,
            "max_rounds": self.p.pr_max_rounds,
            "oracle_rounds": self.rounds,
            "gapbs_method": "pull Gauss-Seidel (PageRankPullGS), f32 scores",
        })
    }
}

struct Cc<'a> {
    gg: &'a GapGraph,
    p: &'a Params,
    expect: Vec<u32>,
}

impl GapKernel for Cc<'_> {
    fn schedules(&self) -> Vec<String> {
        vec!["afforest".into()]
    }

    fn ours(&mut self, _: usize, threads: usize) -> anyhow::Result<Timed> {
        let ao = runtime::cc::AfforestOptions {
            threads: Some(threads),
            ..Default::default()
        };
        median_of(self.p.trials, || {
            let r = runtime::cc::afforest(&self.gg.g, &ao)?;
            Ok((r.report.time.as_secs_f64(), r.labels == self.expect))
        })
    }

    fn gpu(&mut self, dev: &Device) -> anyhow::Result<(String, Timed)> {
        let k = dev.load_cc()?;
        let dg = dev.upload_traversal(&self.gg.g, false)?;
        let ao = runtime::cc::AfforestOptions::default();
        dev.afforest(&k, &dg, &ao)?;
        let r = median_of(self.p.trials, || {
            let r = dev.afforest(&k, &dg, &ao)?;
            Ok((r.time_ms / 1e3, r.labels == self.expect))
        })?;
        Ok(("afforest".into(), r))
    }

    fn gapbs_input(&self) -> (&Path, Vec<String>) {
        (&self.gg.sg, Vec::new())
    }

    fn rooted(&self) -> bool {
        false
    }

    fn detail(&self) -> serde_json::Value {
        serde_json::json!({ "components": runtime::cc::count_components(&self.expect) })
    }
}

struct Bc<'a> {
    gg: &'a GapGraph,
    p: &'a Params,
    expect: Vec<Vec<f64>>,
}

impl Bc<'_> {
    fn agrees(scores: &[f64], expect: &[f64]) -> bool {
        scores.len() == expect.len()
            && scores
                .iter()
                .zip(expect)
                .all(|(x, y)| (x - y).abs() <= 1e-9 * y.abs().max(1e-12))
    }
}

impl Bc<'_> {
    /// The runs: every source at once, or one run per source.
    fn runs(&self) -> Vec<Vec<u32>> {
        if self.p.bc_together {
            vec![self.gg.roots.clone()]
        } else {
            self.gg.roots.iter().map(|&r| vec![r]).collect()
        }
    }

    /// Mean over [`Self::runs`] of `run(sources)`'s median time, checked.
    fn timed(
        &self,
        mut run: impl FnMut(&[u32]) -> anyhow::Result<(f64, Vec<f64>)>,
    ) -> anyhow::Result<Timed> {
        let runs = self.runs();
        let mut times = Vec::new();
        let mut ok = true;
        for (i, sources) in runs.iter().enumerate() {
            let (t, good) = median_of(self.p.trials, || {
                let (t, s) = run(sources)?;
                Ok((t, Self::agrees(&s, &self.expect[i])))
            })?;
            times.push(t);
            ok &= good;
        }
        Ok((mean(&times), ok))
    }
}

impl GapKernel for Bc<'_> {
    fn schedules(&self) -> Vec<String> {
        let engine = runtime::cpu::brandes::Engine::Auto;
        let sources = self.runs()[0].len();
        vec![format!(
            "brandes ({})",
            engine.describe(&self.gg.g, sources)
        )]
    }

    fn ours(&mut self, _: usize, threads: usize) -> anyhow::Result<Timed> {
        let g = &self.gg.g;
        // In-edges (a directed graph's) are built outside the timing, as
        // gapbs's graph build is.
        g.csc();
        self.timed(|sources| {
            let t = Instant::now();
            let s = runtime::cpu::brandes::betweenness(g, sources, Some(threads))?;
            Ok((t.elapsed().as_secs_f64(), bc::normalize(s)))
        })
    }

    fn gpu(&mut self, dev: &Device) -> anyhow::Result<(String, Timed)> {
        let k = dev.load_msbfs()?;
        // The graph goes to the device once, outside the timing (gapbs's times
        // exclude loading too).
        let dg = dev.upload(self.gg.g.csr())?;
        dev.betweenness(&k, &dg, &self.gg.roots[..1], |_| {})?;
        let r = self.timed(|sources| {
            let run = dev.betweenness(&k, &dg, sources, |_| {})?;
            Ok((run.time_ms / 1e3, bc::normalize(run.scores)))
        })?;
        Ok(("bc batched (msbfs kernels, 64 sources a sweep)".into(), r))
    }

    fn gapbs_input(&self) -> (&Path, Vec<String>) {
        let per_run = if self.p.bc_together {
            self.gg.roots.len()
        } else {
            1
        };
        (&self.gg.sg, vec!["-i".into(), per_run.to_string()])
    }

    fn rooted(&self) -> bool {
        !self.p.bc_together
    }

    fn detail(&self) -> serde_json::Value {
        let per_run = if self.p.bc_together {
            self.gg.roots.len()
        } else {
            1
        };
        serde_json::json!({ "sources_per_run": per_run })
    }
}

struct Tc<'a> {
    gg: &'a GapGraph,
    p: &'a Params,
    expect: u64,
}

impl GapKernel for Tc<'_> {
    fn schedules(&self) -> Vec<String> {
        vec!["order (in place or a degree-ordered copy) + intersect (DSL program)".into()]
    }

    fn ours(&mut self, _: usize, threads: usize) -> anyhow::Result<Timed> {
        let (g, _) = self.gg.undirected();
        median_of(self.p.trials, || {
            let r = runtime::tc::program::run::<triangles::Program, _>(g, Some(threads))?;
            let t = (r.orient_time + r.count_time).as_secs_f64();
            Ok((t, r.total == self.expect))
        })
    }

    fn gpu(&mut self, dev: &Device) -> anyhow::Result<(String, Timed)> {
        let (g, _) = self.gg.undirected();
        let in_place = dev.run_intersect::<triangles::Program, _>(g)?.run.in_place;
        let r = median_of(self.p.trials, || {
            let r = dev.run_intersect::<triangles::Program, _>(g)?.run;
            let t = (r.orient_time + r.count_time).as_secs_f64();
            Ok((t, r.total == self.expect))
        })?;
        let how = if in_place {
            "in place (the CSR as uploaded) + DSL intersection kernel"
        } else {
            "degree-ordered copy on host + DSL intersection kernel"
        };
        Ok((how.into(), r))
    }

    fn gapbs_input(&self) -> (&Path, Vec<String>) {
        // `-a`: print the count of every trial ("N triangles").
        (self.gg.undirected().1, vec!["-a".into()])
    }

    fn gapbs_answer_check(&self) -> Option<AnswerCheck> {
        let expect = self.expect;
        Some(Box::new(move |out| triangle_counts_ok(out, expect)))
    }

    fn rooted(&self) -> bool {
        false
    }

    fn detail(&self) -> serde_json::Value {
        serde_json::json!({ "triangles": self.expect })
    }
}

/// Whether gapbs `tc -a` printed a count for at least one trial and every count
/// is `expect` (its lines read "N triangles").
fn triangle_counts_ok(output: &str, expect: u64) -> bool {
    let counts: Vec<Option<u64>> = output
        .lines()
        .filter_map(|l| l.trim().strip_suffix(" triangles"))
        .map(|n| n.trim().parse().ok())
        .collect();
    !counts.is_empty() && counts.iter().all(|&c| c == Some(expect))
}

#[cfg(test)]
mod tests {
    use super::triangle_counts_ok;

    #[test]
    fn gapbs_triangle_counts() {
        let out = "Trial Time: 0.1\n42 triangles\nTrial Time: 0.1\n42 triangles\n";
        assert!(triangle_counts_ok(out, 42));
        assert!(!triangle_counts_ok(out, 41));
        assert!(!triangle_counts_ok("Trial Time: 0.1\n", 42));
        assert!(!triangle_counts_ok("42 triangles\n41 triangles\n", 42));
        assert!(!triangle_counts_ok("x triangles\n", 42));
    }
}
