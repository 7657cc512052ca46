//! The gapbs side of `vertex bench-cpu`: one invocation of a gapbs binary, and
//! the same under both OpenMP settings the ratios are taken against.
//!
//! Why both: on the 16-core host gapbs at 16 threads was erratic with the
//! OpenMP defaults (slower than at 8), and `OMP_PROC_BIND=close
//! OMP_WAIT_POLICY=passive` steadied it; on other machines the defaults win. A
//! ratio against the faster of the two is one gapbs could not improve by an
//! environment variable; both times are recorded.

use std::path::Path;
use std::process::Command;

use anyhow::{bail, Context};

use super::median;

/// The OpenMP settings gapbs is run under.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum OmpEnv {
    /// As the calling environment has them.
    Inherited,
    /// `OMP_PROC_BIND` and `OMP_WAIT_POLICY` removed: libgomp's defaults.
    Unset,
    /// `OMP_PROC_BIND=close OMP_WAIT_POLICY=passive`.
    ClosePassive,
}

impl OmpEnv {
    /// The two settings [`gapbs_best`] compares.
    pub const COMPARED: [OmpEnv; 2] = [OmpEnv::Unset, OmpEnv::ClosePassive];

    pub fn label(self) -> &'static str {
        match self {
            OmpEnv::Inherited => "inherited",
            OmpEnv::Unset => "OMP_PROC_BIND/OMP_WAIT_POLICY unset",
            OmpEnv::ClosePassive => "OMP_PROC_BIND=close OMP_WAIT_POLICY=passive",
        }
    }

    fn apply(self, cmd: &mut Command) {
        match self {
            OmpEnv::Inherited => {}
            OmpEnv::Unset => {
                cmd.env_remove("OMP_PROC_BIND")
                    .env_remove("OMP_WAIT_POLICY");
            }
            OmpEnv::ClosePassive => {
                cmd.env("OMP_PROC_BIND", "close")
                    .env("OMP_WAIT_POLICY", "passive");
            }
        }
    }
}

/// gapbs's time per OpenMP setting at one thread count (seconds), as recorded
/// in the JSON next to the best of them.
pub(crate) type EnvTimes = Vec<(String, f64)>;

/// What one gapbs invocation printed.
pub(crate) struct GapbsRun {
    /// Median of its "Trial Time" lines, seconds.
    pub time: f64,
    /// Its `-v` verdict (every "Verification" line PASS), if asked.
    pub verified: Option<bool>,
    /// Its whole standard output.
    pub text: String,
}

/// Runs a gapbs binary on `file` (from `root`, for the kernels that take one).
pub(crate) fn gapbs_run(
    bin: &Path,
    file: &Path,
    root: Option<u32>,
    trials: usize,
    threads: usize,
    extra: &[String],
    verify: bool,
) -> anyhow::Result<GapbsRun> {
    gapbs_run_in(
        OmpEnv::Inherited,
        bin,
        file,
        root,
        trials,
        threads,
        extra,
        verify,
    )
}

/// [`gapbs_run`] under the OpenMP setting `env`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn gapbs_run_in(
    env: OmpEnv,
    bin: &Path,
    file: &Path,
    root: Option<u32>,
    trials: usize,
    threads: usize,
    extra: &[String],
    verify: bool,
) -> anyhow::Result<GapbsRun> {
    let mut cmd = Command::new(bin);
    env.apply(&mut cmd);
    cmd.arg("-f").arg(file);
    if let Some(r) = root {
        cmd.arg("-r").arg(r.to_string());
    }
    cmd.arg("-n").arg(trials.to_string());
    cmd.args(extra);
    if verify {
        cmd.arg("-v");
    }
    cmd.env("OMP_NUM_THREADS", threads.to_string());
    let out = cmd
        .output()
        .with_context(|| format!("running {}", bin.display()))?;
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    if !out.status.success() {
        bail!(
            "{} failed ({}): {}{}",
            bin.display(),
            out.status,
            text,
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let times: Vec<f64> = text
        .lines()
        .filter_map(|l| l.strip_prefix("Trial Time:"))
        .filter_map(|t| t.trim().parse().ok())
        .collect();
    if times.is_empty() {
        bail!(
            "no `Trial Time` in the output of {}:\n{text}",
            bin.display()
        );
    }
    let verified = verify.then(|| {
        text.lines()
            .filter(|l| l.starts_with("Verification:"))
            .all(|l| l.contains("PASS"))
    });
    Ok(GapbsRun {
        time: median(times),
        verified,
        text,
    })
}

/// gapbs at `threads` under each of [`OmpEnv::COMPARED`]: `time(env)` is the
/// seconds one setting takes (e.g. the mean over roots of [`gapbs_run_in`]);
/// returns the best time and every setting's.
pub(crate) fn gapbs_best(
    mut time: impl FnMut(OmpEnv) -> anyhow::Result<f64>,
) -> anyhow::Result<(f64, EnvTimes)> {
    let mut times = EnvTimes::new();
    for env in OmpEnv::COMPARED {
        times.push((env.label().to_string(), time(env)?));
    }
    let best = times.iter().map(|t| t.1).fold(f64::INFINITY, f64::min);
    Ok((best, times))
}
