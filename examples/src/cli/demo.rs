//! The default job: generate a Kronecker graph and report on it.

use clap::Args;
use runtime::graph::GraphStats;
use runtime::load::{load_graph, LoadOptions};

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
    Ok(())
}
