//! `vertex-gpu-bench programs`: every shipped `#[vertex_program]` on the device,
//! both level kernels, against the sequential oracles.

use anyhow::{Context, Result};
use runtime::generate::{weights_for_edges, GenSpec};
use runtime::gpu::program::GpuProgram;
use runtime::gpu::{BfsKernel, Device, DeviceGraph, ProgramOptions};
use runtime::graph::{build, BuildOptions, Csr, EdgeList, Graph};
use runtime::oracle;
use runtime::program::VertexProgram;
use vertex_examples::programs::{bfs, cc, sssp, widest};

/// Undirected graph with weights 1..=255.
fn weighted(spec: &str) -> Result<Csr<u32>> {
    let spec = GenSpec::parse(spec).context("not a generator spec")??;
    let el = spec.generate()?;
    let w = weights_for_edges::<u32>(&el.edges, 1, 255, 5, true);
    let el = EdgeList::<u32> {
        num_vertices: el.num_vertices,
        edges: el.edges,
        weights: Some(w),
    };
    Ok(build(&el, BuildOptions::undirected())?.into_csr())
}

fn isolated() -> Result<Csr<u32>> {
    let mut el = runtime::generate::uniform(5000, 1500, 7)?;
    el.num_vertices = 5100;
    el.edges.push([4999, 5000]);
    el.weights = Some(weights_for_edges::<u32>(&el.edges, 1, 9, 3, true));
    Ok(build(&el, BuildOptions::undirected())?.into_csr())
}

fn variants() -> Vec<ProgramOptions> {
    let mut v = Vec::new();
    for lps in [1, 3] {
        v.push(ProgramOptions {
            kernel: BfsKernel::Naive,
            levels_per_sync: lps,
            ..ProgramOptions::default()
        });
        for mec in [1, 16, 256] {
            v.push(ProgramOptions {
                kernel: BfsKernel::Direction,
                max_edge_count: Some(mec),
                ..ProgramOptions::default()
            });
            v.push(ProgramOptions {
                kernel: BfsKernel::Balanced,
                max_edge_count: Some(mec),
                levels_per_sync: lps,
                ..ProgramOptions::default()
            });
        }
    }
    v
}

/// Runs `P` with every variant; returns (runs, failures) and prints failures.
fn one<P: GpuProgram>(
    dev: &Device,
    g: &DeviceGraph,
    src: u32,
    want: &[<P as VertexProgram>::State],
) -> Result<(usize, usize)> {
    let k = dev.load_program::<P>()?;
    let mut bad = 0;
    let vs = variants();
    for o in &vs {
        let r = dev.run_program::<P>(&k, g, src, o)?;
        if r.states != want {
            let v = r
                .states
                .iter()
                .zip(want)
                .position(|(a, b)| a != b)
                .unwrap_or(0);
            println!(
                "    FAIL {} {:?} mec {} lps {}: vertex {v}: gpu {:?} oracle {:?}",
                P::NAME,
                o.kernel,
                o.edges_per_item(),
                o.levels_per_sync,
                r.states[v],
                want[v]
            );
            bad += 1;
        }
    }
    Ok((vs.len(), bad))
}

pub fn check(dev: &Device, max_scale: u32, small: bool) -> Result<bool> {
    let mut graphs: Vec<(String, Csr<u32>)> = Vec::new();
    let top = if small { 8 } else { max_scale };
    for scale in (if small { 6 } else { 10 })..=top {
        let s = format!("kron:{scale}:16");
        graphs.push((s.clone(), weighted(&s)?));
    }
    graphs.push((
        "grid".into(),
        weighted(if small { "grid:30x20" } else { "grid:700x700" })?,
    ));
    graphs.push(("isolated".into(), isolated()?));
    let (mut runs, mut fails) = (0, 0);
    println!(
        "{:16} {:>9} {:>10} {:>7}  programs",
        "graph", "vertices", "edges", "source"
    );
    for (name, g) in &graphs {
        // Built undirected: the CSR is its own transpose (bottom-up in-edges).
        let dg = dev.upload_traversal(&Graph::new(g.clone(), true), true)?;
        let src = (0..g.num_vertices() as u32)
            .find(|&v| g.degree(v) > 0)
            .unwrap_or(0);
        println!(
            "{:16} {:>9} {:>10} {:>7}  bfs cc sssp widest",
            name,
            g.num_vertices(),
            g.num_edges(),
            src
        );
        for (r, f) in [
            one::<bfs::Program>(dev, &dg, src, &oracle::bfs_levels(g, src))?,
            one::<cc::Program>(dev, &dg, src, &oracle::components(g))?,
            one::<sssp::sssp::Program>(dev, &dg, src, &oracle::dijkstra(g, src))?,
            one::<widest::Program>(dev, &dg, src, &oracle::widest(g, src))?,
        ] {
            runs += r;
            fails += f;
        }
    }
    // The single-vertex graph.
    let single = build(&EdgeList::<u32>::new(1), BuildOptions::default())?.into_csr();
    let dg = dev.upload(&single)?;
    let (r, f) = one::<bfs::Program>(dev, &dg, 0, &[0])?;
    runs += r;
    fails += f;
    println!("{} passed, {} failed", runs - fails, fails);
    Ok(fails == 0)
}
