//! Options every kernel command (`pr`, `kcore`, `bc`, `tc`, …) shares, flattened
//! into each command's own arguments so the flags read the same everywhere.

use std::path::Path;

use clap::Args;

use runtime::gpu::Device;

use super::run::Backend;

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

/// The closing lines of a command's text output: the oracle's verdict (when
/// `--validate` asked for one) and the file `-o` wrote.
pub fn print_check(validated: Option<bool>, output: Option<&Path>) {
    if let Some(v) = validated {
        println!("  oracle       {}", if v { "agrees" } else { "DISAGREES" });
    }
    if let Some(p) = output {
        println!("  wrote        {}", p.display());
    }
}
