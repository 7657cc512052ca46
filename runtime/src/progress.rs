//! Progress bars for long steps (generate, read, build, write).
//!
//! Bars draw on stderr only when it is a terminal and nobody asked for quiet
//! (`--json` sets quiet), so piped and scripted runs stay clean. Steps that run
//! for minutes also print plain status lines ([`status`], [`Ticker`]), so that a
//! log of a run that was cut off still shows how far it got.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

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

/// One status line on stderr, unless quiet (shown in logs too, unlike bars).
pub fn status(msg: &str) {
    if !QUIET.load(Ordering::Relaxed) {
        eprintln!("{msg}");
    }
}

/// Status lines for a long loop: [`Ticker::tick`] prints on the first call and
/// then at most once per period, so a log shows progress without one line per
/// item. On a terminal the caller's bar shows progress and the lines go above it.
pub struct Ticker {
    every: Duration,
    last: Option<Instant>,
}

impl Ticker {
    /// A ticker that prints at most once per `every`.
    pub fn new(every: Duration) -> Self {
        Ticker { every, last: None }
    }

    /// Prints `msg()` through `pb` (above a visible bar, plain otherwise) if the
    /// period has passed since the last line; `force` prints regardless.
    pub fn tick(&mut self, pb: &ProgressBar, force: bool, msg: impl FnOnce() -> String) {
        if QUIET.load(Ordering::Relaxed) {
            return;
        }
        let due = self.last.is_none_or(|t| t.elapsed() >= self.every);
        if !(due || force) {
            return;
        }
        self.last = Some(Instant::now());
        let line = msg();
        if pb.is_hidden() {
            eprintln!("{line}");
        } else {
            pb.println(line);
        }
    }
}
