//! `vertex-gpu-bench sssp`: the SSSP vertex program on the GPU — seed 000's edge
//! chunks over stamp frontiers, the direction kernel without buckets (top-down
//! levels by a scan of every edge chunk while the frontier is large, by the
//! frontier's work list after), and near-far buckets over a Δ sweep — on Kronecker (weights 1..255) and a road-like
//! grid, every run of the first sources checked against Dijkstra. JSON + SVG.

use std::path::Path;

use anyhow::{Context, Result};
use runtime::generate::{weights_for_edges, GenSpec};
use runtime::gpu::program::gpu_delta;
use runtime::gpu::{BfsKernel, Device, ProgramOptions};
use runtime::graph::{build, Graph};
use runtime::oracle;
use serde::Serialize;
use vertex_bench::host::HostInfo;
use vertex_examples::programs::sssp::sssp;

#[derive(Serialize)]
struct Variant {
    graph: String,
    name: String,
    kernel: BfsKernel,
    max_edge_count: u64,
    delta: Option<u64>,
    /// Passes between host waits (1: the host plans every pass).
    levels_per_sync: u32,
    sources: usize,
    time_ms_median: f64,
    time_ms_mean: f64,
    passes_mean: f64,
    /// Edges out of reached vertices / median time (GTEPS, as for BFS).
    gteps_median: f64,
    checked: usize,
}

#[derive(Serialize)]
struct Report<'a> {
    host: HostInfo,
    device: runtime::gpu::DeviceInfo,
    command_line: String,
    variants: &'a [Variant],
}

fn weighted(spec: &str) -> Result<Graph<u32>> {
    let g = GenSpec::parse(spec).context("not a generator spec")??;
    let mut el = g.generate()?;
    el.weights = Some(weights_for_edges::<u32>(&el.edges, 1, 255, 7, true));
    Ok(build(&el, g.default_build_options())?)
}

pub fn run(dev: &Device, specs: &[String], sources: usize, out: &Path) -> Result<bool> {
    let k = dev.load_program::<sssp::Program>()?;
    let mut variants = Vec::new();
    let mut ok = true;
    for spec in specs {
        let g = weighted(spec)?;
        let csr = g.csr();
        let dg = dev.upload_traversal(&g, true)?;
        let roots = runtime::generate::pick_roots(csr, sources, 7);
        let auto = gpu_delta::<sssp::Program>(&g, roots[0]);
        let mut opts = vec![
            (
                "edge chunks (seed 000, stamps)".to_string(),
                ProgramOptions {
                    kernel: BfsKernel::Balanced,
                    ..ProgramOptions::default()
                },
            ),
            (
                "edge chunks, 64 per thread (the old default)".to_string(),
                ProgramOptions {
                    kernel: BfsKernel::Balanced,
                    max_edge_count: Some(64),
                    ..ProgramOptions::default()
                },
            ),
            (
                "direction: scan, then work list".to_string(),
                ProgramOptions {
                    kernel: BfsKernel::Direction,
                    max_edge_count: Some(32),
                    ..ProgramOptions::default()
                },
            ),
        ];
        for d in [auto / 8, auto / 2, auto, auto * 4, auto * 16] {
            let d = d.max(1);
            opts.push((
                format!("near-far Δ {d}"),
                ProgramOptions {
                    kernel: BfsKernel::Direction,
                    max_edge_count: Some(32),
                    delta: Some(d),
                    ..ProgramOptions::default()
                },
            ));
        }
        // Side by side: the same passes planned by the host, one wait each.
        for (name, delta) in [
            ("direction, host waits", None),
            ("near-far, host waits", Some(auto.max(1))),
        ] {
            let label = match delta {
                Some(d) => format!("{name} Δ {d}"),
                None => name.to_string(),
            };
            opts.push((
                label,
                ProgramOptions {
                    kernel: BfsKernel::Direction,
                    max_edge_count: Some(32),
                    delta,
                    levels_per_sync: 1,
                    ..ProgramOptions::default()
                },
            ));
        }
        let wants: Vec<Vec<u64>> = roots
            .iter()
            .take(2)
            .map(|&r| oracle::dijkstra(csr, r))
            .collect();
        for (name, o) in &opts {
            dev.run_program::<sssp::Program>(&k, &dg, roots[0], o)?; // warm-up
            let (mut times, mut passes, mut edges, mut checked) = (Vec::new(), 0.0, 0.0, 0);
            for (i, &r) in roots.iter().enumerate() {
                let run = dev.run_program::<sssp::Program>(&k, &dg, r, o)?;
                if let Some(want) = wants.get(i) {
                    checked += 1;
                    if &run.states != want {
                        ok = false;
                        println!("    FAIL {spec} {name} from {r}");
                    }
                }
                let reached: u64 = (0..csr.num_vertices() as u32)
                    .filter(|&v| run.states[v as usize] != u64::MAX)
                    .map(|v| csr.degree(v))
                    .sum();
                edges += reached as f64;
                passes += run.num_levels as f64;
                times.push(run.time_ms);
            }
            let k = times.len() as f64;
            let mean = times.iter().sum::<f64>() / k;
            times.sort_by(f64::total_cmp);
            let med = times[times.len() / 2];
            let v = Variant {
                graph: spec.clone(),
                name: name.clone(),
                kernel: o.kernel,
                max_edge_count: o.edges_per_item(),
                delta: o.delta,
                levels_per_sync: o.levels_per_sync,
                sources: times.len(),
                time_ms_median: med,
                time_ms_mean: mean,
                passes_mean: passes / k,
                gteps_median: edges / k / (med * 1e-3) / 1e9,
                checked,
            };
            println!(
                "{:16} {:34} median {:9.3} ms  {:6.1} passes  {:7.3} GTEPS",
                v.graph, v.name, v.time_ms_median, v.passes_mean, v.gteps_median
            );
            variants.push(v);
        }
    }
    let report = Report {
        host: HostInfo::read(),
        device: dev.info().clone(),
        command_line: std::env::args().collect::<Vec<_>>().join(" "),
        variants: &variants,
    };
    std::fs::create_dir_all(out)?;
    let json = out.join("gpu-sssp.json");
    std::fs::write(&json, serde_json::to_string_pretty(&report)? + "\n")
        .with_context(|| format!("writing {}", json.display()))?;
    let svg = out.join("gpu-sssp.svg");
    chart(&variants, specs, &svg)?;
    println!("wrote {} and {}", json.display(), svg.display());
    Ok(ok)
}

/// Median time per variant, one series per graph.
fn chart(variants: &[Variant], specs: &[String], path: &Path) -> Result<()> {
    use vertex_bench::plot::{panels_svg, Panel};
    let panels: Vec<Panel> = specs
        .iter()
        .map(|s| Panel {
            title: format!("{s}: median time per variant (x = variant #)"),
            x_desc: "variant (0 = edge chunks, 1 = 64 a thread, 2 = direction, 3.. = near-far Δ ascending)".into(),
            y_desc: "ms".into(),
            series: vec![(
                "median time".into(),
                0,
                variants
                    .iter()
                    .filter(|v| &v.graph == s)
                    .enumerate()
                    .map(|(i, v)| (i as f64, v.time_ms_median))
                    .collect(),
            )],
            log_y: true,
        })
        .collect();
    panels_svg(
        path,
        "GPU SSSP (vertex program): edge chunks vs direction vs near-far",
        &panels,
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The chart renders (it only ever runs after a device bench).
    #[test]
    fn sssp_chart_renders() {
        let v = |graph: &str, name: &str, delta: Option<u64>| Variant {
            graph: graph.into(),
            name: name.into(),
            kernel: BfsKernel::Direction,
            max_edge_count: 32,
            delta,
            levels_per_sync: 8,
            sources: 2,
            time_ms_median: 1.5,
            time_ms_mean: 1.6,
            passes_mean: 12.0,
            gteps_median: 3.0,
            checked: 2,
        };
        let variants = [
            v("kron:8", "work list", None),
            v("kron:8", "near-far Δ 4", Some(4)),
            v("grid:9x9", "work list", None),
        ];
        let specs = ["kron:8".to_string(), "grid:9x9".to_string()];
        let path = std::env::temp_dir().join(format!("vertex-sssp-{}.svg", std::process::id()));
        chart(&variants, &specs, &path).unwrap();
        assert!(std::fs::metadata(&path).unwrap().len() > 100);
        std::fs::remove_file(&path).ok();
    }
}
