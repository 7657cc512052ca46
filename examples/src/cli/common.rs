//! Options every kernel command (`pr`, `kcore`, `bc`, `tc`, …) shares, flattened
//! into each command's own arguments so the flags read the same everywhere.

use std::io::Write;
use std::path::Path;

use clap::{Args, ValueEnum};
use serde::Serialize;

use runtime::gpu::Device;

/// Where a program runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Backend {
    Cpu,
    Gpu,
    /// The GPU when one is usable, else the CPU (the output says which ran).
    Auto,
}

/// A switch given as `on` or `off` (in comma lists of runs to compare).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum OnOff {
    On,
    Off,
}

impl OnOff {
    pub fn on(self) -> bool {
        self == OnOff::On
    }
}

/// How the GPUs of one process exchange frontier slices and messages
/// (`--exchange`, with `--gpus N`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Exchange {
    /// Each GPU reads its peers' slices over NVLink peer access (the default
    /// where every pair of GPUs has it).
    Peer,
    /// NCCL's all-gather and all-reduce.
    Nccl,
}

impl Exchange {
    /// The runtime's route this flag value names.
    pub fn route(self) -> runtime::gpu::multi::Route {
        use runtime::gpu::multi::Route;
        match self {
            Exchange::Peer => Route::Peer,
            Exchange::Nccl => Route::Nccl,
        }
    }
}

/// `--exchange` asks how several GPUs exchange: an error with fewer than two.
pub fn check_exchange(gpus: usize, exchange: Option<Exchange>) -> anyhow::Result<()> {
    if gpus < 2 && exchange.is_some() {
        anyhow::bail!("--exchange picks how several GPUs exchange: it needs --gpus 2 or more");
    }
    Ok(())
}

/// Opens `gpus` GPUs for one process, on the exchange route `exchange` asks for
/// (`None`: `VERTEX_EXCHANGE`, else peer access where available): an error
/// naming the flag when it asks for peer access the GPUs lack, or for any route
/// on one GPU.
pub fn open_gpus(
    gpus: usize,
    exchange: Option<Exchange>,
) -> anyhow::Result<runtime::gpu::multi::MultiGpu> {
    use anyhow::Context;
    use runtime::gpu::multi::MultiGpu;
    check_exchange(gpus, exchange)?;
    let mut m = MultiGpu::open(gpus).with_context(|| format!("--gpus {gpus}"))?;
    if let Some(e) = exchange {
        let route = e.route();
        m.set_route(route)
            .with_context(|| format!("--exchange {}", route.name()))?;
    }
    Ok(m)
}

/// The output pieces `vertex_dsl::cli` gives every program crate's command line.
pub use vertex_dsl::cli::output::{check_output, human_out, is_stdout, write_result};

/// `println!` onto the human summary's stream ([`human_out`]). A write error
/// is dropped: the summary is for a person, and a closed terminal must not
/// turn a finished run into a failure.
macro_rules! say {
    ($h:expr, $($t:tt)*) => {{
        let _ = writeln!($h, $($t)*);
    }};
}
pub(crate) use say;

/// Where a kernel runs, and how its result is checked and shown.
#[derive(Args, Debug, Clone)]
pub struct KernelArgs {
    #[arg(long, value_enum, default_value_t = Backend::Auto)]
    pub backend: Backend,
    /// CPU worker threads (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Check the result against the command's sequential oracle.
    #[arg(long)]
    pub validate: bool,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

/// The GPU picked for a run (with what the command loaded on it), if any, and the
/// note to print about the choice.
pub type Picked<T> = (Option<(Device, T)>, Option<String>);

/// The GPU (with what `open` loads for the command) that `backend` asks for, and
/// the note `auto` prints: `gpu` fails with `open`'s reason, `auto` falls back to
/// the CPU and says why.
pub fn pick_gpu<T>(
    backend: Backend,
    open: impl FnOnce() -> Result<(Device, T), String>,
) -> anyhow::Result<Picked<T>> {
    Ok(match backend {
        Backend::Cpu => (None, None),
        Backend::Gpu => (
            Some(open().map_err(|e| anyhow::anyhow!("--backend gpu: {e}"))?),
            None,
        ),
        Backend::Auto => match open() {
            Ok((d, k)) => {
                let note = format!("auto: using GPU 0 ({})", d.info().name);
                (Some((d, k)), Some(note))
            }
            Err(e) => (None, Some(format!("auto: using the CPU ({e})"))),
        },
    })
}

/// The closing lines of a command's text output, on `h`: the oracle's verdict
/// (when `--validate` asked for one) and the file `-o` wrote (nothing when it
/// wrote stdout: the result is there).
pub fn print_check(h: &mut dyn Write, validated: Option<bool>, output: Option<&Path>) {
    if let Some(v) = validated {
        say!(
            h,
            "  oracle       {}",
            if v { "agrees" } else { "DISAGREES" }
        );
    }
    if let Some(p) = output.filter(|p| !is_stdout(p)) {
        say!(h, "  wrote        {}", p.display());
    }
}

/// Refuses `-o -` for a command whose output format follows the file's
/// extension (graph files, the APSP matrix): stdout has no extension.
pub fn refuse_stdout(what: &str, output: Option<&Path>) -> anyhow::Result<()> {
    if output.is_some_and(is_stdout) {
        anyhow::bail!(
            "-o -: {what} is written in the format its file name's extension names, and \
             stdout has none: give a file name"
        );
    }
    Ok(())
}

/// Prints the one-line warning for an option that has no effect in this run
/// (`option`: the flag as typed; `why`: what makes it inert). A warning, not an
/// error, so that scripts passing one set of flags to every run keep working.
pub fn warn_unused(option: &str, why: &str) {
    eprintln!("warning: {option} has no effect: {why}");
}

/// Warns that `--threads` did nothing because the GPU ran (every command that
/// has both backends says it the same way).
pub fn warn_threads_on_gpu(threads: Option<usize>, on_gpu: bool) {
    if let (Some(t), true) = (threads, on_gpu) {
        warn_unused(
            &format!("--threads {t}"),
            "the GPU ran; threads are for the CPU (--backend cpu)",
        );
    }
}

/// How gapbs builds every graph it runs (its `SquishGraph`): self-loops and
/// repeated edges dropped, and with `symmetrize` made undirected. The commands
/// that promise gapbs's definitions (`pr`, `pr-delta`, `bc`) count each
/// neighbour once, as gapbs does: a repeated edge would otherwise weigh twice in
/// a rank and count as a second shortest path.
pub fn gapbs_build(symmetrize: bool) -> runtime::graph::BuildOptions {
    use runtime::graph::BuildOptions;
    if symmetrize {
        BuildOptions::undirected()
    } else {
        BuildOptions {
            remove_self_loops: true,
            dedup: true,
            ..BuildOptions::default()
        }
    }
}
