//! `vertex compare pr GRAPH`: synchronous vs data-driven PageRank side by side.
//!
//! Columns: `pagerank` in rounds (Jacobi power iteration, the GAP definition), and
//! `pagerank` in data-driven Gauss–Seidel sweeps (`driven`: only vertices whose
//! in-neighbours moved by more than their share of the tolerance are gathered;
//! listed with `sync` unless named on its own), and
//! `pagerank_delta` (residual push) in rounds, asynchronously from one FIFO, and
//! under obim ordered by residual — each at every `--threads` count, best of
//! `--repeats`. Every run is scored by the L1 distance of its ranks to a converged
//! reference (power iteration to an L1 change below 1e-12), so "fast" always comes
//! with "how close": the work columns are the edges scattered or gathered and the
//! vertex updates (`apply` calls).

use anyhow::{bail, Context};
use runtime::cpu::gather as rounds;
use runtime::cpu::gather_async::{self, AsyncOrder};
use runtime::gather::{GatherOptions, GatherReport};
use runtime::graph::Graph;
use runtime::load::{load_graph, LoadOptions};
use serde::Serialize;
use vertex_bench::plot::{panels_svg, Panel, Series};
use vertex_examples::programs::{pagerank, pagerank_delta};

use super::super::gather::l1;
use super::super::report::{human_count, print_json};
use super::CompareArgs;

#[derive(Serialize)]
struct Row {
    program: &'static str,
    schedule: &'static str,
    threads: usize,
    time_ms: f64,
    /// Time of `pagerank` in rounds at the same thread count / this time.
    speedup_vs_sync: f64,
    l1_to_reference: f64,
    /// Edges scattered or gathered (`report.edges_gathered`), at the top of
    /// the row so that every compare's JSON names its work the same way.
    edges: u64,
    /// `edges` over the graph's edges: how many sweeps of the graph the run's
    /// work amounts to.
    sweeps: f64,
    /// `edges` of `pagerank` in rounds at the same thread count / `edges`.
    edges_vs_sync: f64,
    report: GatherReport,
}

type Runner = fn(&Graph<u32>, &GatherOptions) -> anyhow::Result<(Vec<f64>, GatherReport)>;

fn ranks_of(s: Vec<pagerank_delta::pagerank_delta::Residual>) -> Vec<f64> {
    s.into_iter().map(|r| r.rank).collect()
}

/// `pagerank` in data-driven Gauss–Seidel sweeps (`cpu::gather::run_driven`).
const DRIVEN: (&str, &str, Runner) = ("pagerank", "driven", |g, o| {
    let r = rounds::run_driven::<pagerank::Program, u32>(g, o)?;
    Ok((r.states, r.report))
});

fn runners(schedules: &[String]) -> anyhow::Result<Vec<(&'static str, &'static str, Runner)>> {
    let mut out: Vec<(&'static str, &'static str, Runner)> = Vec::new();
    for s in schedules {
        match s.as_str() {
            "sync" => {
                out.push(("pagerank", "sync", |g, o| {
                    let r = rounds::run::<pagerank::Program, u32>(g, o)?;
                    Ok((r.states, r.report))
                }));
                // The data-driven sweeps of the same program, next to its
                // rounds, unless asked for on their own.
                if !schedules.iter().any(|s| s == "driven") {
                    out.push(DRIVEN);
                }
                out.push(("pagerank_delta", "sync", |g, o| {
                    let r = rounds::run::<pagerank_delta::Program, u32>(g, o)?;
                    Ok((ranks_of(r.states), r.report))
                }));
            }
            "driven" => out.push(DRIVEN),
            "async" => out.push(("pagerank_delta", "async", |g, o| {
                let r = gather_async::run::<pagerank_delta::Program, u32>(g, o, AsyncOrder::Fifo)?;
                Ok((ranks_of(r.states), r.report))
            })),
            "obim" => out.push(("pagerank_delta", "obim", |g, o| {
                let r = gather_async::run::<pagerank_delta::Program, u32>(g, o, AsyncOrder::Obim)?;
                Ok((ranks_of(r.states), r.report))
            })),
            // In the default list; PageRank's comparison has no GPU column.
            "gpu" => eprintln!(
                "compare pr: no GPU column (the GPU PageRank runs with `vertex pr --backend gpu`)"
            ),
            other => bail!("unknown schedule `{other}`: expected sync, driven, async or obim"),
        }
    }
    if out.is_empty() {
        bail!("--schedules: nothing to run (PageRank compares sync, async and obim)");
    }
    Ok(out)
}

pub fn run(a: &CompareArgs) -> anyhow::Result<()> {
    let runners = runners(&a.schedules)?;
    if a.threads.contains(&0) {
        bail!("--threads: thread counts must be at least 1");
    }
    let lo = LoadOptions {
        ignore_weights: true,
        ..LoadOptions::default()
    };
    let loaded =
        load_graph::<u32>(&a.graph, &lo).with_context(|| format!("loading {}", a.graph))?;
    let g = &loaded.graph;
    if !a.json {
        println!(
            "PageRank on {} ({} vertices, {} edges), best of {}; reference: power iteration to L1 change < 1e-12",
            loaded.source,
            human_count(g.num_vertices() as u64),
            human_count(g.num_edges()),
            a.repeats.max(1)
        );
    }
    let reference = rounds::run::<pagerank::Program, u32>(
        g,
        &GatherOptions {
            tolerance: Some(1e-12),
            max_rounds: Some(10_000),
            ..Default::default()
        },
    )?
    .states;
    let mut rows: Vec<Row> = Vec::new();
    for &t in &a.threads {
        let opts = GatherOptions {
            threads: Some(t),
            ..Default::default()
        };
        let mut sync_ms = None;
        let mut sync_edges = None;
        for (program, schedule, f) in &runners {
            let mut best: Option<(Vec<f64>, GatherReport)> = None;
            for _ in 0..a.repeats.max(1) {
                let (ranks, rep) = f(g, &opts)?;
                if best.as_ref().is_none_or(|b| rep.time < b.1.time) {
                    best = Some((ranks, rep));
                }
            }
            let Some((ranks, report)) = best else {
                continue;
            };
            let time_ms = report.time.as_secs_f64() * 1e3;
            if *program == "pagerank" && *schedule == "sync" {
                sync_ms = Some(time_ms);
                sync_edges = Some(report.edges_gathered);
            }
            if !a.json {
                eprintln!("  {program} {schedule} x{t}: {time_ms:.2} ms");
            }
            rows.push(Row {
                program,
                schedule,
                threads: t,
                time_ms,
                speedup_vs_sync: sync_ms.map_or(f64::NAN, |s| s / time_ms),
                l1_to_reference: l1(ranks.into_iter(), &reference),
                edges: report.edges_gathered,
                sweeps: report.edges_gathered as f64 / g.num_edges().max(1) as f64,
                edges_vs_sync: sync_edges
                    .map_or(f64::NAN, |s| s as f64 / report.edges_gathered.max(1) as f64),
                report,
            });
        }
    }
    if let Some(p) = &a.svg {
        draw(&rows, &loaded.source, p)?;
    }
    if a.json {
        print_json(&serde_json::json!({
            "graph": loaded.source,
            "vertices": g.num_vertices(),
            "edges": g.num_edges(),
            "command_line": std::env::args().collect::<Vec<_>>().join(" "),
            "rows": rows,
        }))?;
        return Ok(());
    }
    println!(
        "{:<15} {:<6} {:>4} {:>10} {:>8} {:>10} {:>7} {:>10} {:>7} {:>10}",
        "program",
        "sched",
        "thr",
        "time ms",
        "vs sync",
        "edges",
        "sweeps",
        "applies",
        "rounds",
        "L1 error"
    );
    for r in &rows {
        println!(
            "{:<15} {:<6} {:>4} {:>10.2} {:>7.2}x {:>10} {:>7.1} {:>10} {:>7} {:>10.2e}",
            r.program,
            r.schedule,
            r.threads,
            r.time_ms,
            r.speedup_vs_sync,
            human_count(r.edges),
            r.sweeps,
            human_count(r.report.applies),
            r.report.rounds,
            r.l1_to_reference
        );
    }
    if let Some(p) = &a.svg {
        println!("chart: {}", p.display());
    }
    Ok(())
}

/// Time and edges per variant against threads.
fn draw(rows: &[Row], graph: &str, path: &std::path::Path) -> anyhow::Result<()> {
    let mut names: Vec<String> = Vec::new();
    let mut time: Vec<Series> = Vec::new();
    let mut edges: Vec<Series> = Vec::new();
    for r in rows {
        let name = format!("{} {}", r.program, r.schedule);
        let i = match names.iter().position(|n| *n == name) {
            Some(i) => i,
            None => {
                names.push(name.clone());
                time.push((name.clone(), names.len() - 1, Vec::new()));
                edges.push((name, names.len() - 1, Vec::new()));
                names.len() - 1
            }
        };
        time[i].2.push((r.threads as f64, r.time_ms));
        edges[i]
            .2
            .push((r.threads as f64, r.report.edges_gathered as f64));
    }
    let panels = [
        Panel {
            title: "time".into(),
            x_desc: "threads".into(),
            y_desc: "ms".into(),
            series: time,
            log_y: true,
        },
        Panel {
            title: "edges processed".into(),
            x_desc: "threads".into(),
            y_desc: "edges".into(),
            series: edges,
            log_y: true,
        },
    ];
    panels_svg(
        path,
        &format!("PageRank, sync vs data-driven, {graph}"),
        &panels,
    )?;
    Ok(())
}
