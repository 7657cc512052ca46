//! Finds the nightly toolchain and checks that it can build `core` from source.
//!
//! Checked up front, before cargo runs, so that a machine without nightly or
//! without `rust-src` gets a one-line typed error instead of a page of cargo output.

use std::path::PathBuf;
use std::process::Command;

use crate::error::BuildError;

/// A usable toolchain: where its sysroot is and what it calls itself.
#[derive(Clone, Debug)]
pub struct Toolchain {
    /// The rustup name, e.g. `nightly`.
    pub name: String,
    /// `rustc --print sysroot`.
    pub sysroot: PathBuf,
    /// `rustc -V`, part of the cache key so a toolchain update rebuilds.
    pub version: String,
}

impl Toolchain {
    /// `rust-src`'s copy of `core`, which `-Zbuild-std=core` compiles.
    pub fn core_src_manifest(&self) -> PathBuf {
        core_src_manifest(&self.sysroot)
    }
}

fn core_src_manifest(sysroot: &std::path::Path) -> PathBuf {
    sysroot.join("lib/rustlib/src/rust/library/core/Cargo.toml")
}

/// A command running `tool` from `toolchain` through rustup, with rustup's
/// auto-install off (a build script must never download a toolchain).
pub fn rustup_run(toolchain: &str, tool: &str) -> Command {
    let mut cmd = Command::new("rustup");
    cmd.args(["run", toolchain, tool]);
    cmd.env("RUSTUP_AUTO_INSTALL", "0");
    // The outer cargo pins its own toolchain through these; they would override ours.
    cmd.env_remove("RUSTUP_TOOLCHAIN");
    cmd.env_remove("RUSTC");
    cmd
}

/// Locates `toolchain` and checks for rust-src.
pub fn detect(toolchain: &str) -> Result<Toolchain, BuildError> {
    let rustup = Command::new("rustup").arg("--version").output();
    if let Err(e) = rustup {
        return Err(BuildError::RustupMissing {
            toolchain: toolchain.to_string(),
            detail: e.to_string(),
        });
    }
    let out = rustup_run(toolchain, "rustc")
        .args(["--print", "sysroot"])
        .output()
        .map_err(|e| BuildError::io("running rustup run rustc", e))?;
    if !out.status.success() {
        return Err(BuildError::ToolchainMissing {
            toolchain: toolchain.to_string(),
            detail: first_line(&String::from_utf8_lossy(&out.stderr)),
        });
    }
    let sysroot = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    let manifest = core_src_manifest(&sysroot);
    if !manifest.is_file() {
        return Err(BuildError::RustSrcMissing {
            toolchain: toolchain.to_string(),
            looked_for: manifest,
        });
    }
    let version = rustup_run(toolchain, "rustc")
        .arg("-V")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default();
    Ok(Toolchain {
        name: toolchain.to_string(),
        sysroot,
        version,
    })
}

/// Set to anything but `0` or empty: never add `rust-src` by itself (see
/// [`add_rust_src`]).
pub const NO_INSTALL_ENV: &str = "VERTEX_NO_INSTALL";

/// Whether the builder may add a missing `rust-src` ([`NO_INSTALL_ENV`] unset).
pub fn may_add_rust_src() -> bool {
    std::env::var(NO_INSTALL_ENV).map_or(true, |v| v.is_empty() || v == "0")
}

/// Adds the `rust-src` component to an installed `toolchain`.
///
/// Why a build adds it: a newcomer's first `cargo run --release` on a GPU machine
/// with nightly should produce kernels, not a warning to go and run rustup. Only
/// this component (source of `core`, tens of MB) is ever added, never a whole
/// toolchain; [`NO_INSTALL_ENV`] turns it off (offline or managed machines).
pub fn add_rust_src(toolchain: &str) -> Result<(), BuildError> {
    let failed = |detail: String| BuildError::RustSrcAddFailed {
        toolchain: toolchain.to_string(),
        detail,
    };
    let out = Command::new("rustup")
        .args(["component", "add", "rust-src", "--toolchain", toolchain])
        .env("RUSTUP_AUTO_INSTALL", "0")
        .output()
        .map_err(|e| failed(e.to_string()))?;
    if !out.status.success() {
        return Err(failed(first_line(&String::from_utf8_lossy(&out.stderr))));
    }
    Ok(())
}

/// Where a missing toolchain or rust-src would appear once installed; a build
/// script watches it so that installing one re-runs the build.
pub fn install_marker(err: &BuildError) -> Option<PathBuf> {
    match err {
        BuildError::RustSrcMissing { looked_for, .. } => Some(looked_for.clone()),
        BuildError::ToolchainMissing { .. } => {
            let home = std::env::var_os("RUSTUP_HOME")
                .map(PathBuf::from)
                .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".rustup")))?;
            Some(home.join("toolchains"))
        }
        _ => None,
    }
}

fn first_line(s: &str) -> String {
    s.lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("no output")
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adding_rust_src_to_a_missing_toolchain_fails_typed() {
        if Command::new("rustup").arg("--version").output().is_err() {
            return;
        }
        let err = add_rust_src("no-such-toolchain-xyz").unwrap_err();
        assert!(
            matches!(err, BuildError::RustSrcAddFailed { .. }) && err.is_environmental(),
            "got {err}"
        );
    }

    #[test]
    fn missing_toolchain_is_typed() {
        if Command::new("rustup").arg("--version").output().is_err() {
            return; // no rustup on this machine: RustupMissing is the answer, also fine
        }
        let err = detect("no-such-toolchain-xyz").unwrap_err();
        assert!(
            matches!(err, BuildError::ToolchainMissing { .. }),
            "got {err}"
        );
        assert!(err.is_environmental());
    }
}
