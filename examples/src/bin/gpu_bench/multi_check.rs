//! The correctness part of `vertex-gpu-bench multi`: BFS, SSSP and CC on 1 and G
//! GPUs against the CPU oracles, on Kronecker, a grid and a holdout-style file
//! graph (written here, read back through the file reader).

use std::io::Write;
use std::path::Path;
use std::time::Instant;

use anyhow::{Context, Result};
use runtime::generate::pick_roots;
use runtime::gpu::multi::MultiGpu;
use runtime::gpu::program::gpu_delta;
use runtime::gpu::{BfsKernel, ProgramOptions};
use runtime::graph::Graph;
use runtime::load::{load_graph, LoadOptions};
use serde::Serialize;
use vertex_examples::programs::{bfs, cc, pagerank, sssp};

/// One checked run.
#[derive(Clone, Debug, Serialize)]
pub struct Check {
    pub graph: String,
    pub program: &'static str,
    pub gpus: usize,
    pub levels_per_sync: u32,
    pub source: u32,
    pub ok: bool,
    pub time_ms: f64,
    pub levels: usize,
    /// Edges each GPU holds (out-slice, in-edges of its vertices).
    pub part_edges: Vec<(u64, u64)>,
}

/// Writes a skewed graph as a SNAP edge list (`# ` comments, `u v` per line,
/// each undirected edge once): Kronecker `scale` with the vertices renumbered by
/// degree, hubs first, as many real-world files are, so that equal vertex
/// ranges hold very unequal edge counts.
pub fn write_holdout(path: &Path, scale: u32) -> Result<usize> {
    let el = runtime::generate::kronecker(scale, 16, 11)?;
    let n = el.num_vertices;
    let mut degree = vec![0u64; n];
    for &[u, v] in &el.edges {
        degree[u as usize] += 1;
        degree[v as usize] += 1;
    }
    let mut order: Vec<u32> = (0..n as u32).collect();
    order.sort_by_key(|&v| (std::cmp::Reverse(degree[v as usize]), v));
    let mut new_id = vec![0u32; n];
    for (i, &v) in order.iter().enumerate() {
        new_id[v as usize] = i as u32;
    }
    let f = std::fs::File::create(path).with_context(|| format!("creating {}", path.display()))?;
    let mut w = std::io::BufWriter::new(f);
    writeln!(
        w,
        "# holdout-style graph for vertex-gpu-bench multi: Kronecker scale {scale}, \
         edgefactor 16, seed 11, vertices renumbered by degree (hubs first)"
    )?;
    writeln!(w, "# Nodes: {n} Edges: {}", el.edges.len())?;
    for &[u, v] in &el.edges {
        writeln!(w, "{}\t{}", new_id[u as usize], new_id[v as usize])?;
    }
    w.flush()?;
    Ok(el.edges.len())
}

/// A correctness graph: (name, unweighted, weighted 1..=255).
type Named = (String, Graph<u32>, Graph<u32>);

/// The correctness graphs.
fn graphs(scale: u32, grid: &str, file_scale: u32, scratch: &Path) -> Result<Vec<Named>> {
    let file = scratch.join(format!("multi-holdout-kron{file_scale}.txt"));
    let m = write_holdout(&file, file_scale)?;
    eprintln!("wrote {} ({m} edges)", file.display());
    let mut out = Vec::new();
    for spec in [
        format!("kron:{scale}"),
        format!("grid:{grid}"),
        file.display().to_string(),
    ] {
        let symmetrize = !spec.contains(':');
        let plain = LoadOptions {
            symmetrize,
            ignore_weights: true,
            ..LoadOptions::default()
        };
        let weighted = LoadOptions {
            symmetrize,
            random_weights: Some((1, 255, 7)),
            ..LoadOptions::default()
        };
        let g = load_graph::<u32>(&spec, &plain)?.graph;
        let gw = load_graph::<u32>(&spec, &weighted)?.graph;
        let name = match symmetrize {
            true => format!(
                "file:{}",
                file.file_name().unwrap_or_default().to_string_lossy()
            ),
            false => spec,
        };
        out.push((name, g, gw));
    }
    Ok(out)
}

/// Runs every check; prints one line each. The holdout file goes to `scratch`
/// (tens of MiB: not the results folder, which comes back from the GPU machine
/// packed under a size limit).
pub fn run(
    multis: &[&MultiGpu],
    scale: u32,
    grid: &str,
    file_scale: u32,
    scratch: &Path,
) -> Result<Vec<Check>> {
    let mut checks = Vec::new();
    let graphs = graphs(scale, grid, file_scale, scratch)?;
    for (name, g, gw) in &graphs {
        let t = Instant::now();
        let sources = pick_roots(g.csr(), 2, 9);
        let comps = runtime::oracle::components(g.csr());
        let (ranks, rounds) = runtime::oracle::pagerank(g.csr(), 0.85, 1e-4, 20);
        let want: Vec<_> = sources
            .iter()
            .map(|&s| {
                (
                    runtime::oracle::bfs_levels(g.csr(), s),
                    runtime::oracle::dijkstra(gw.csr(), s),
                )
            })
            .collect();
        eprintln!(
            "{name}: {} vertices, {} edges; oracles in {:.1} s",
            g.num_vertices(),
            g.num_edges(),
            t.elapsed().as_secs_f64()
        );
        for multi in multis {
            let gpus = multi.devices.len();
            let mg = multi.upload(g, false)?;
            let mgw = multi.upload(gw, true)?;
            let kb = multi.load_program::<bfs::Program>()?;
            let kc = multi.load_program::<cc::Program>()?;
            let ks = multi.load_program::<sssp::sssp::Program>()?;
            let mut record = |program, lps, source, ok: bool, time_ms, levels, part: &Vec<_>| {
                eprintln!(
                    "  {name} {program} on {gpus} GPU(s), {lps} levels/sync, source {source}: {} \
                     ({time_ms:.3} ms, {levels} levels)",
                    if ok { "ok" } else { "WRONG" }
                );
                checks.push(Check {
                    graph: name.clone(),
                    program,
                    gpus,
                    levels_per_sync: lps,
                    source,
                    ok,
                    time_ms,
                    levels,
                    part_edges: part.clone(),
                });
            };
            for lps in [1, 8] {
                let o = ProgramOptions {
                    kernel: BfsKernel::Direction,
                    levels_per_sync: lps,
                    ..ProgramOptions::default()
                };
                for (&s, (levels, dist)) in sources.iter().zip(&want) {
                    let p = ProgramOptions { parents: true, ..o };
                    let r = multi.run_program::<bfs::Program>(&kb, &mg, s, &p)?;
                    let tree = r.parents.as_ref().is_some_and(|p| {
                        runtime::validate::validate_bfs_tree(g.csr(), s, p, Some(&r.states)).is_ok()
                    });
                    let ok = &r.states == levels && tree;
                    record("bfs", lps, s, ok, r.time_ms, r.levels.len(), &mg.part_edges);
                    let r = multi.run_program::<sssp::sssp::Program>(&ks, &mgw, s, &o)?;
                    let ok = &r.states == dist;
                    record(
                        "sssp",
                        lps,
                        s,
                        ok,
                        r.time_ms,
                        r.levels.len(),
                        &mgw.part_edges,
                    );
                    let b = ProgramOptions {
                        delta: Some(gpu_delta::<sssp::sssp::Program>(gw, s)),
                        ..o
                    };
                    let r = multi.run_program::<sssp::sssp::Program>(&ks, &mgw, s, &b)?;
                    let ok = &r.states == dist;
                    record(
                        "sssp-near-far",
                        lps,
                        s,
                        ok,
                        r.time_ms,
                        r.levels.len(),
                        &mgw.part_edges,
                    );
                }
                let s = sources.first().copied().unwrap_or(0);
                let r = multi.run_program::<cc::Program>(&kc, &mg, s, &o)?;
                let ok = r.states == comps;
                record("cc", lps, s, ok, r.time_ms, r.levels.len(), &mg.part_edges);
            }
            // PageRank: gather rounds (no levels per sync; `levels` = rounds).
            let kp = multi.load_gather::<pagerank::Program>()?;
            let gopts = runtime::gpu::gather::GatherGpuOptions::default();
            let gg = multi.upload_gather(g, &gopts, false)?;
            let opts = runtime::gather::GatherOptions::default();
            let r = multi.run_gather::<pagerank::Program>(&kp, &gg, &opts, None)?;
            let ok = r.report.rounds == rounds && close(&r.states, &ranks, 1e-6);
            let ms = r.report.time.as_secs_f64() * 1e3;
            let held = gg.part_edges.iter().map(|&e| (0, e)).collect();
            record("pr", 0, 0, ok, ms, r.report.rounds as usize, &held);
        }
    }
    Ok(checks)
}

/// Whether every rank is within `rel` of the oracle's (sums in another order).
fn close(got: &[f64], want: &[f64], rel: f64) -> bool {
    got.len() == want.len()
        && got
            .iter()
            .zip(want)
            .all(|(x, y)| (x - y).abs() <= rel * y.abs().max(1e-300))
}

/// Per checked graph, program and levels per sync with a run on 1 GPU and on
/// more: (graph, program, levels per sync, GPUs, time on 1 GPU / time on them).
pub fn speedups(checks: &[Check]) -> Vec<(String, &'static str, u32, usize, f64)> {
    let mut keys: Vec<(&str, &'static str, u32, usize)> = Vec::new();
    for c in checks.iter().filter(|c| c.gpus > 1) {
        let k = (c.graph.as_str(), c.program, c.levels_per_sync, c.gpus);
        if !keys.contains(&k) {
            keys.push(k);
        }
    }
    keys.into_iter()
        .filter_map(|(graph, program, lps, gpus)| {
            let mean = |on: usize| {
                let t: Vec<f64> = checks
                    .iter()
                    .filter(|x| {
                        x.graph == graph
                            && x.program == program
                            && x.levels_per_sync == lps
                            && x.gpus == on
                    })
                    .map(|x| x.time_ms)
                    .collect();
                (!t.is_empty()).then(|| t.iter().sum::<f64>() / t.len() as f64)
            };
            Some((
                graph.to_string(),
                program,
                lps,
                gpus,
                mean(1)? / mean(gpus)?,
            ))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The holdout file reads back through the file reader as the same graph,
    /// skewed (hubs first), and the CPU oracles run on it.
    #[test]
    fn holdout_file_round_trips() {
        let dir = std::env::temp_dir().join(format!("vertex-multi-check-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let gs = graphs(8, "6x5", 9, &dir).unwrap();
        assert_eq!(gs.len(), 3);
        let (name, g, gw) = &gs[2];
        assert!(name.starts_with("file:"), "{name}");
        assert!(g.is_symmetric());
        assert!(gw.csr().is_weighted());
        assert_eq!(g.num_edges(), gw.num_edges());
        // Hubs first: the first half of the ids holds most edges.
        let half = g.num_vertices() as u32 / 2;
        let first: usize = (0..half).map(|v| g.csr().degree(v) as usize).sum();
        assert!(
            first * 3 > g.num_edges() as usize * 2,
            "{first} of {}",
            g.num_edges()
        );
        let s = pick_roots(g.csr(), 1, 9)[0];
        let levels = runtime::oracle::bfs_levels(g.csr(), s);
        assert_eq!(levels[s as usize], 0);
        std::fs::remove_dir_all(&dir).ok();
    }
}
