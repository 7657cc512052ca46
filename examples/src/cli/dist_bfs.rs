//! `vertex bfs` when it runs as one rank of several (under `vertex launch`
//! or a cluster launcher): each rank generates its part of the graph and
//! the ranks search it together (`runtime::dist`).

use anyhow::{bail, Context};
use runtime::dist::{bfs, kronecker_part, validate_bfs, Comm, RankEnv};
use runtime::generate::{GenSpec, Kronecker};
use serde::Serialize;

use super::run::{Backend, RunArgs};

#[derive(Serialize)]
struct Summary {
    graph: String,
    ranks: usize,
    vertices: usize,
    input_edges: u64,
    source: u32,
    levels: u32,
    reached: u64,
    /// Undirected edges with both ends reached (Graph500's traversed edges).
    edges_traversed: u64,
    time_ms: f64,
    exchange_ms: f64,
    teps: f64,
    generate_ms: f64,
    valid: Option<bool>,
}

pub fn dist_bfs_cmd(a: RunArgs, env: RankEnv) -> anyhow::Result<()> {
    let spec = match GenSpec::parse(&a.graph) {
        Some(Ok(GenSpec::Kron {
            scale,
            edgefactor,
            seed,
        })) => Kronecker::graph500(scale, edgefactor, seed),
        Some(Err(e)) => return Err(e.into()),
        _ => bail!(
            "a run over {} ranks generates its graph by parts, from a kron:S spec; `{}` is not one (files and the other generators: one process only, for now)",
            env.world,
            a.graph
        ),
    };
    if a.backend == Backend::Gpu {
        bail!("ranks run the CPU engine; GPU ranks (over NCCL) are not available yet: use --gpus N in one process");
    }
    if a.output.is_some() {
        bail!(
            "-o is not available in a run over several ranks (each rank holds only its vertices)"
        );
    }
    let comm = Comm::connect(&env)?;
    let t = std::time::Instant::now();
    let g = kronecker_part(&spec, &comm)
        .with_context(|| format!("rank {}: generating its part", env.rank))?;
    let generate_ms = t.elapsed().as_secs_f64() * 1e3;
    let source = match a.source {
        Some(s) => s,
        None => {
            // The first vertex with edges, as the one-process command picks.
            let mine = (0..g.rows())
                .find(|&i| g.offsets[i + 1] > g.offsets[i])
                .map_or(u64::MAX, |i| (g.first + i) as u64);
            let s = comm.all_reduce_min(mine)?;
            u32::try_from(s).context("the graph has no edges")?
        }
    };
    let r = bfs(&g, &comm, source)?;
    let traversed2: u64 = (0..g.rows())
        .filter(|&i| r.depth[i] != u32::MAX)
        .map(|i| g.offsets[i + 1] - g.offsets[i])
        .sum();
    let traversed = comm.all_reduce_sum(traversed2)? / 2;
    let valid = if a.validate {
        Some(validate_bfs(&g, &comm, source, &r)? == 0)
    } else {
        None
    };
    // The slowest rank's time is the run's.
    let time_us = comm
        .all_gather(&(r.time.as_micros() as u64).to_le_bytes())?
        .iter()
        .map(|b| u64::from_le_bytes(b[..8].try_into().unwrap_or([0; 8])))
        .max()
        .unwrap_or(0);
    if env.rank == 0 {
        let time_ms = time_us as f64 / 1e3;
        let s = Summary {
            graph: a.graph.clone(),
            ranks: env.world,
            vertices: g.num_vertices,
            input_edges: g.input_edges,
            source,
            levels: r.levels,
            reached: r.reached,
            edges_traversed: traversed,
            time_ms,
            exchange_ms: r.exchange.as_secs_f64() * 1e3,
            teps: traversed as f64 / (time_ms / 1e3).max(1e-9),
            generate_ms,
            valid,
        };
        if a.json {
            println!("{}", serde_json::to_string(&s)?);
        } else {
            println!(
                "bfs on {} over {} ranks: {} vertices, {} input edges; source {}: {} reached in {} levels, {:.2} ms ({:.2} ms exchanging on rank 0), {:.3} GTEPS{}",
                s.graph,
                s.ranks,
                s.vertices,
                s.input_edges,
                s.source,
                s.reached,
                s.levels,
                s.time_ms,
                s.exchange_ms,
                s.teps / 1e9,
                match valid {
                    Some(true) => "; valid (Graph500 checks)",
                    Some(false) => "; INVALID",
                    None => "",
                }
            );
        }
    }
    if valid == Some(false) {
        bail!("the distributed BFS result failed Graph500's checks");
    }
    Ok(())
}
