//! The default job: the project's three worlds on built-in graphs, in well under
//! a minute. A Kronecker graph's BFS and SSSP programs under the CPU schedules
//! (level-synchronous, work-stealing, obim) and, when one is usable, on the GPU
//! from the same program definitions, every run checked to agree (`vertex
//! compare`); then all-pairs shortest paths of a small road-like grid; then the
//! commands to try next.

use std::time::Instant;

use clap::Args;
use runtime::graph::GraphStats;
use runtime::load::{load_graph, LoadOptions};
use vertex_examples::programs::bfs;

use super::apsp::{self, ApspArgs, ApspCommand};
use super::compare::{self, CompareArgs};
use super::report::{human_count, secs};

#[derive(Args, Debug)]
pub struct DemoArgs {
    /// Graph for BFS and SSSP (file or generator spec).
    #[arg(default_value = "kron:18")]
    pub graph: String,
    /// Graph for the all-pairs step (small: its distance matrix is n²).
    #[arg(long, default_value = "grid:48x48")]
    pub apsp_graph: String,
}

impl Default for DemoArgs {
    fn default() -> Self {
        DemoArgs {
            graph: "kron:18".into(),
            apsp_graph: "grid:48x48".into(),
        }
    }
}

/// The GPU's name, or why it cannot run the programs here.
fn gpu_status() -> Result<String, String> {
    super::run::open_gpu::<bfs::Program>().map(|(d, _)| d.info().name.clone())
}

pub fn run(a: DemoArgs) -> anyhow::Result<()> {
    let started = Instant::now();
    let loaded = load_graph::<u32>(&a.graph, &LoadOptions::default())?;
    let stats = GraphStats::of(&loaded.graph);
    println!(
        "vertex demo: one program definition per algorithm, run by every engine\n\n\
         graph {}: {} vertices, {} edges{}, max degree {}; made in {:.2}s",
        a.graph,
        human_count(stats.vertices),
        human_count(stats.edges),
        if stats.symmetric { " (undirected)" } else { "" },
        stats.max_out_degree,
        secs(loaded.read_time + loaded.build_time),
    );
    drop(loaded);
    let gpu = gpu_status();
    match &gpu {
        Ok(name) => {
            println!("GPU: {name}: the `gpu` rows run the same programs' generated kernels")
        }
        Err(why) => println!("GPU: not used: {why}"),
    }
    let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
    let mut threads = vec![1];
    if cores > 1 {
        threads.push(cores);
    }
    // obim needs a priority: SSSP has one (delta-stepping), BFS does not.
    for (step, program, cpu) in [(1, "bfs", "sync,async"), (2, "sssp", "sync,async,obim")] {
        println!(
            "\n[{step}/3] {program}: CPU schedules{}",
            if gpu.is_ok() { " and the GPU" } else { "" }
        );
        let mut schedules: Vec<String> = cpu.split(',').map(String::from).collect();
        if gpu.is_ok() {
            schedules.push("gpu".into());
        }
        compare::run(CompareArgs {
            program: program.into(),
            graph: a.graph.clone(),
            source: None,
            threads: threads.clone(),
            schedules,
            repeats: 1,
            delta: None,
            chunk: runtime::cpu::bag::DEFAULT_CHUNK,
            topology: None,
            pin: false,
            weights: None,
            json: false,
            svg: None,
        })?;
    }
    println!("\n[3/3] all-pairs shortest paths (blocked Floyd–Warshall)");
    apsp::run(ApspCommand::Apsp(ApspArgs::summary(&a.apsp_graph)))?;
    println!(
        "\ndone in {:.1}s. Try next:\n  \
         vertex bfs kron:20 --validate                  # one program, CPU or GPU (--backend)\n  \
         vertex compare sssp grid:300x300 --threads 1,2 # schedules side by side on a road-like graph\n  \
         vertex bench gap kron:16 --no-gpu              # the GAP suite's six kernels\n  \
         vertex run kcore grid:300x300 --symmetrize -o cores.txt   # any shipped program, one run call\n\
         and `vertex --help` for the rest.",
        started.elapsed().as_secs_f64()
    );
    Ok(())
}
