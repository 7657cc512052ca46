//! `compare PROGRAM GRAPH`: one program under several CPU schedules and thread
//! counts, and on the GPU, on the same graph from the same source, each run
//! checked against the first, side by side (a table, `--json`, `--svg`).

use std::path::PathBuf;

use anyhow::Context;
use clap::Args;
use plotters::prelude::*;
use runtime::program::Schedule;
use runtime::run::{Backend, Kind, Plan, Runnable};
use serde::Serialize;

use super::values::Values;

/// Options of `compare`.
#[derive(Args, Debug, Clone)]
pub struct CompareArgs {
    /// Graph file or generator spec.
    #[arg(default_value = "kron:16")]
    pub graph: String,
    /// What to run: CPU schedules (sync, async, obim) and `gpu`, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "sync,async,obim,gpu")]
    pub schedules: Vec<String>,
    /// CPU thread counts, comma-separated (default: all cores).
    #[arg(long, value_delimiter = ',')]
    pub threads: Vec<usize>,
    /// Source vertex (default: the first with out-edges).
    #[arg(long, short)]
    pub source: Option<u32>,
    /// Runs of each configuration; the best time counts.
    #[arg(long, default_value_t = 3)]
    pub repeat: u32,
    /// Random integer weights LO..HI for weighted programs.
    #[arg(long, value_parser = super::output::parse_range)]
    pub weights: Option<(u64, u64)>,
    /// Make the graph undirected.
    #[arg(long)]
    pub symmetrize: bool,
    /// Write a bar chart of the times here.
    #[arg(long)]
    pub svg: Option<PathBuf>,
    /// Print one JSON object on stdout instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Fail when any configuration could not run (by default a refused one,
    /// such as `obim` for a program without a priority, is a row that says why).
    #[arg(long)]
    pub require_all: bool,
}

/// One configuration's outcome.
#[derive(Serialize)]
struct Row {
    schedule: String,
    threads: Option<usize>,
    /// Best time of the repeats, ms (`None`: the run was refused or failed).
    time_ms: Option<f64>,
    rounds: u64,
    edges: u64,
    /// What the run said instead of a time, or how it disagreed.
    note: Option<String>,
    agrees: Option<bool>,
}

fn schedule_of(s: &str) -> anyhow::Result<Option<Schedule>> {
    Ok(match s {
        "sync" => Some(Schedule::Sync),
        "async" => Some(Schedule::Async),
        "obim" => Some(Schedule::Obim),
        "gpu" => None,
        _ => anyhow::bail!("--schedules: `{s}` is not one of sync, async, obim, gpu"),
    })
}

pub(super) fn compare<P>(a: &CompareArgs) -> anyhow::Result<()>
where
    P: Runnable,
    P::Output: Values,
{
    if a.repeat == 0 {
        anyhow::bail!("--repeat must be at least 1");
    }
    let configs: Vec<(String, Option<Schedule>)> = a
        .schedules
        .iter()
        .map(|s| Ok((s.clone(), schedule_of(s)?)))
        .collect::<anyhow::Result<_>>()?;
    let g = super::load_for::<P>(&a.graph, a.weights, a.symmetrize, a.json)?;
    let threads: Vec<Option<usize>> = if a.threads.is_empty() {
        vec![None]
    } else {
        a.threads.iter().map(|&t| Some(t)).collect()
    };
    let mut source = a.source;
    let mut first: Option<P::Output> = None;
    let mut rows = Vec::new();
    for (name, schedule) in &configs {
        let per_thread: Vec<Option<usize>> = match schedule {
            Some(_) => threads.clone(),
            None => vec![None],
        };
        for t in per_thread {
            let plan = Plan {
                backend: if schedule.is_some() {
                    Backend::Cpu
                } else {
                    Backend::Gpu
                },
                // An intersection program has one way to run on the CPU: its
                // `sync` row is that, and the ordered schedules are refused.
                schedule: match (P::KIND, schedule) {
                    (Kind::Intersect, Some(Schedule::Sync)) => None,
                    _ => *schedule,
                },
                threads: t,
                source,
                ..Plan::default()
            };
            let mut row = Row {
                schedule: name.clone(),
                threads: t.or_else(|| schedule.map(|_| rayon_threads())),
                time_ms: None,
                rounds: 0,
                edges: 0,
                note: None,
                agrees: None,
            };
            for _ in 0..a.repeat {
                match runtime::run::run::<P>(&g).plan(plan.clone()).go() {
                    Ok(out) => {
                        let ms = out.report.time.as_secs_f64() * 1e3;
                        row.time_ms = Some(row.time_ms.map_or(ms, |b| b.min(ms)));
                        row.rounds = out.report.rounds;
                        row.edges = out.report.edges;
                        if P::NEEDS_SOURCE && source.is_none() {
                            source = out.report.source;
                        }
                        match &first {
                            None => {
                                row.agrees = Some(true);
                                first = Some(out.values);
                            }
                            Some(f) => match f.agrees(&out.values) {
                                Ok(()) => row.agrees = Some(true),
                                Err(d) => {
                                    row.agrees = Some(false);
                                    row.note = Some(format!("differs from the first run: {d}"));
                                }
                            },
                        }
                    }
                    Err(e) => {
                        row.note = Some(e.to_string());
                        break;
                    }
                }
            }
            rows.push(row);
        }
    }
    if let Some(path) = &a.svg {
        chart(P::NAME, &a.graph, &rows, path)
            .with_context(|| format!("writing {}", path.display()))?;
    }
    let disagree = rows.iter().any(|r| r.agrees == Some(false));
    if a.json {
        let j = serde_json::json!({
            "program": P::NAME,
            "graph": a.graph,
            "vertices": g.num_vertices(),
            "edges": g.num_edges(),
            "source": source,
            "repeat": a.repeat,
            "rows": rows,
        });
        println!("{j}");
    } else {
        print_table(P::NAME, &a.graph, source, &rows);
    }
    if disagree {
        anyhow::bail!("the runs disagree (see the table)");
    }
    if a.require_all {
        if let Some(r) = rows.iter().find(|r| r.time_ms.is_none()) {
            anyhow::bail!(
                "--require-all: `{}` did not run: {}",
                r.schedule,
                r.note.as_deref().unwrap_or("no time")
            );
        }
    }
    Ok(())
}

fn rayon_threads() -> usize {
    runtime::cpu::threads_for(None)
}

fn print_table(name: &str, graph: &str, source: Option<u32>, rows: &[Row]) {
    let best = rows
        .iter()
        .filter_map(|r| r.time_ms)
        .fold(f64::INFINITY, f64::min);
    println!(
        "{name} on {graph}{}",
        source.map_or(String::new(), |s| format!(", source {s}"))
    );
    println!(
        "{:<10} {:>7} {:>12} {:>8} {:>12} {:>9}",
        "schedule", "threads", "time (ms)", "rounds", "edges", "vs best"
    );
    for r in rows {
        let threads = r.threads.map_or("-".to_string(), |t| t.to_string());
        match r.time_ms {
            Some(ms) => println!(
                "{:<10} {:>7} {:>12.3} {:>8} {:>12} {:>8.2}x{}",
                r.schedule,
                threads,
                ms,
                r.rounds,
                r.edges,
                ms / best,
                r.note.as_ref().map_or(String::new(), |n| format!("  {n}"))
            ),
            None => println!(
                "{:<10} {:>7} {:>12}  {}",
                r.schedule,
                threads,
                "-",
                r.note.as_deref().unwrap_or("no time")
            ),
        }
    }
}

/// A bar per configuration that ran.
fn chart(name: &str, graph: &str, rows: &[Row], path: &std::path::Path) -> anyhow::Result<()> {
    let bars: Vec<(String, f64)> = rows
        .iter()
        .filter_map(|r| {
            let label = match r.threads {
                Some(t) if r.schedule != "gpu" => format!("{} ×{t}", r.schedule),
                _ => r.schedule.clone(),
            };
            r.time_ms.map(|ms| (label, ms))
        })
        .collect();
    if bars.is_empty() {
        anyhow::bail!("no configuration ran, so there is nothing to plot");
    }
    let top = bars.iter().map(|b| b.1).fold(0.0, f64::max) * 1.15;
    let root = SVGBackend::new(path, (720, 120 + 40 * bars.len() as u32)).into_drawing_area();
    root.fill(&WHITE)?;
    let mut c = ChartBuilder::on(&root)
        .caption(
            format!("{name} on {graph}: best time (ms)"),
            ("sans-serif", 18),
        )
        .margin(12)
        .x_label_area_size(30)
        .y_label_area_size(110)
        .build_cartesian_2d(0.0..top, (0..bars.len()).into_segmented())?;
    c.configure_mesh()
        .disable_y_mesh()
        .y_label_formatter(&|v| match v {
            SegmentValue::CenterOf(i) => bars.get(*i).map_or(String::new(), |b| b.0.clone()),
            _ => String::new(),
        })
        .x_desc("ms")
        .draw()?;
    c.draw_series(bars.iter().enumerate().map(|(i, (_, ms))| {
        Rectangle::new(
            [
                (0.0, SegmentValue::Exact(i)),
                (*ms, SegmentValue::Exact(i + 1)),
            ],
            BLUE.mix(0.6).filled(),
        )
    }))?;
    root.present()?;
    Ok(())
}
