//! The default job: generate a Kronecker graph, report on it, and run the shipped
//! BFS and SSSP programs under the level-synchronous, work-stealing and obim
//! schedules side by side (`vertex compare`), every run checked to agree.

use clap::Args;
use runtime::graph::GraphStats;
use runtime::load::{load_graph, LoadOptions};

use super::compare::{self, CompareArgs};
use super::info::print_stats;
use super::report::secs;

#[derive(Args, Debug)]
pub struct DemoArgs {
    /// Graph to use (file or generator spec).
    #[arg(default_value = "kron:18")]
    pub graph: String,
}

impl Default for DemoArgs {
    fn default() -> Self {
        DemoArgs {
            graph: "kron:18".into(),
        }
    }
}

pub fn run(a: DemoArgs) -> anyhow::Result<()> {
    let loaded = load_graph::<u32>(&a.graph, &LoadOptions::default())?;
    print_stats(&a.graph, &GraphStats::of(&loaded.graph));
    println!(
        "  made in      {:.3}s generate + {:.3}s build",
        secs(loaded.read_time),
        secs(loaded.build_time)
    );
    drop(loaded);
    let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
    let mut threads = vec![1];
    if cores > 1 {
        threads.push(cores);
    }
    // obim needs a priority: SSSP has one (delta-stepping), BFS does not.
    for (program, schedules) in [("bfs", "sync,async"), ("sssp", "sync,async,obim")] {
        println!();
        compare::run(CompareArgs {
            program: program.into(),
            graph: a.graph.clone(),
            source: None,
            threads: threads.clone(),
            schedules: schedules.split(',').map(String::from).collect(),
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
    println!();
    println!(
        "GPU: vertex bfs {g} --backend gpu --kernel direction --validate; more: vertex --help",
        g = a.graph
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn demo_runs_on_a_small_graph() {
        run(DemoArgs {
            graph: "kron:8".into(),
        })
        .unwrap();
    }
}
