//! Progress bars for long steps (generate, read, build, write).
//!
//! Bars draw on stderr only when it is a terminal and nobody asked for quiet
//! (`--json` sets quiet), so piped and scripted runs stay clean.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

static QUIET: AtomicBool = AtomicBool::new(false);

/// Turns every future bar off (or back on).
pub fn set_quiet(quiet: bool) {
    QUIET.store(quiet, Ordering::Relaxed);
}

fn visible() -> bool {
    !QUIET.load(Ordering::Relaxed) && std::io::stderr().is_terminal()
}

/// A bar over `len` units (bytes or items); hidden when not on a terminal.
pub fn bar(len: u64, msg: &str) -> ProgressBar {
    if !visible() {
        return ProgressBar::hidden();
    }
    let pb = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr());
    pb.set_style(
        ProgressStyle::with_template(
            "{spinner} {msg:12} [{bar:30}] {percent:>3}% {elapsed_precise} eta {eta}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> "),
    );
    pb.set_message(msg.to_string());
    pb
}

/// A spinner for a step whose length is unknown; hidden when not on a terminal.
pub fn spinner(msg: &str) -> ProgressBar {
    if !visible() {
        return ProgressBar::hidden();
    }
    let pb = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
    pb.set_style(
        ProgressStyle::with_template("{spinner} {msg} {elapsed_precise}")
            .unwrap_or_else(|_| ProgressStyle::default_spinner()),
    );
    pb.set_message(msg.to_string());
    pb.enable_steady_tick(Duration::from_millis(120));
    pb
}
