//! The one place that knows the inner cargo command line.
//!
//! The recipe (checked on these machines, see the architecture notes):
//! `cargo +nightly rustc --release --target nvptx64-nvidia-cuda -Zbuild-std=core
//! --crate-type cdylib -- --emit=asm` with `RUSTFLAGS=-C target-cpu=sm_XX`, release
//! with LTO and `panic = "abort"`. The profile comes in through
//! `CARGO_PROFILE_RELEASE_*` so that the kernel crate needs no profile of its own,
//! and the crate stays an `rlib` for its host users (`--crate-type cdylib` is given
//! here, only for the PTX build).
//!
//! The inner cargo runs inside an outer cargo's build script, whose environment is
//! full of settings meant for the outer build (`RUSTC`, `RUSTC_WRAPPER` set by
//! clippy, `CARGO_ENCODED_RUSTFLAGS`, `CARGO_TARGET_DIR`, the jobserver, ...). They
//! are removed so the inner build sees a clean slate, and it gets its own target
//! directory so it never waits on the outer build's lock.

use std::ffi::OsString;
use std::path::Path;
use std::process::Command;

use crate::toolchain::rustup_run;

/// The rustc target of every PTX build.
pub const TARGET: &str = "nvptx64-nvidia-cuda";

/// Inputs of one inner build.
pub struct CargoInvocation<'a> {
    pub toolchain: &'a str,
    pub manifest: &'a Path,
    pub target_dir: &'a Path,
    pub arch: &'a str,
    pub features: &'a [String],
    pub no_default_features: bool,
    pub jobs: Option<u32>,
}

/// Variables of the outer build that must not leak into the inner one.
fn is_outer_build_var(key: &str) -> bool {
    const EXACT: &[&str] = &[
        "RUSTC",
        "RUSTC_WRAPPER",
        "RUSTC_WORKSPACE_WRAPPER",
        "RUSTC_LINKER",
        "RUSTDOC",
        "RUSTFLAGS",
        "RUSTDOCFLAGS",
        "RUSTUP_TOOLCHAIN",
        "TARGET",
        "HOST",
        "OUT_DIR",
        "PROFILE",
        "OPT_LEVEL",
        "DEBUG",
        "NUM_JOBS",
        "MAKEFLAGS",
        "MFLAGS",
        "CARGO_MAKEFLAGS",
        "CARGO",
    ];
    if EXACT.contains(&key) {
        return true;
    }
    // Keep the user's cargo home and network/registry settings; drop the rest
    // (CARGO_PKG_*, CARGO_CFG_*, CARGO_ENCODED_RUSTFLAGS, CARGO_TARGET_DIR,
    // CARGO_BUILD_*, CARGO_PROFILE_*, CARGO_MANIFEST_*, CARGO_FEATURE_*, ...).
    if let Some(rest) = key.strip_prefix("CARGO_") {
        let keep = rest == "HOME"
            || rest.starts_with("NET_")
            || rest.starts_with("HTTP_")
            || rest.starts_with("REGISTRIES_")
            || rest.starts_with("REGISTRY_")
            || rest == "TERM_COLOR";
        return !keep;
    }
    key.starts_with("DEP_")
}

impl CargoInvocation<'_> {
    /// The full command, environment cleaned, ready to run.
    pub fn command(&self) -> Command {
        let mut cmd = rustup_run(self.toolchain, "cargo");
        let outer: Vec<OsString> = std::env::vars_os()
            .filter_map(|(k, _)| {
                let ks = k.to_str()?;
                is_outer_build_var(ks).then_some(k)
            })
            .collect();
        for k in outer {
            cmd.env_remove(k);
        }
        cmd.arg("rustc")
            .arg("--manifest-path")
            .arg(self.manifest)
            .args(["--lib", "--release", "--target", TARGET])
            .arg("-Zbuild-std=core")
            .args(["--crate-type", "cdylib"])
            .arg("--target-dir")
            .arg(self.target_dir)
            .args(["--color", "never"]);
        if self.no_default_features {
            cmd.arg("--no-default-features");
        }
        if !self.features.is_empty() {
            cmd.arg("--features").arg(self.features.join(","));
        }
        if let Some(j) = self.jobs {
            cmd.arg("-j").arg(j.to_string());
        }
        cmd.args(["--", "--emit=asm"]);
        cmd.env("RUSTFLAGS", format!("-C target-cpu={}", self.arch))
            .env("CARGO_PROFILE_RELEASE_LTO", "true")
            .env("CARGO_PROFILE_RELEASE_PANIC", "abort")
            .env("CARGO_PROFILE_RELEASE_OPT_LEVEL", "3")
            .env("CARGO_PROFILE_RELEASE_CODEGEN_UNITS", "1")
            .env("CARGO_PROFILE_RELEASE_DEBUG", "false")
            .env("CARGO_PROFILE_RELEASE_DEBUG_ASSERTIONS", "false")
            .env("CARGO_PROFILE_RELEASE_OVERFLOW_CHECKS", "false")
            .env("CARGO_PROFILE_RELEASE_INCREMENTAL", "false");
        cmd
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outer_vars_are_dropped_user_settings_kept() {
        for k in [
            "RUSTC",
            "RUSTC_WRAPPER",
            "CARGO_ENCODED_RUSTFLAGS",
            "CARGO_TARGET_DIR",
            "CARGO_PKG_NAME",
            "CARGO_MANIFEST_DIR",
            "CARGO",
            "OUT_DIR",
            "DEP_Z_INCLUDE",
        ] {
            assert!(is_outer_build_var(k), "{k} should be removed");
        }
        for k in [
            "CARGO_HOME",
            "CARGO_NET_OFFLINE",
            "PATH",
            "HOME",
            "RUSTUP_HOME",
        ] {
            assert!(!is_outer_build_var(k), "{k} should be kept");
        }
    }

    #[test]
    fn command_line_follows_the_recipe() {
        let inv = CargoInvocation {
            toolchain: "nightly",
            manifest: Path::new("/k/Cargo.toml"),
            target_dir: Path::new("/t"),
            arch: "sm_80",
            features: &["a".to_string()],
            no_default_features: false,
            jobs: Some(2),
        };
        let cmd = inv.command();
        let args: Vec<String> = cmd
            .get_args()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        let line = args.join(" ");
        assert!(line.starts_with("run nightly cargo rustc"), "{line}");
        assert!(line.contains("--target nvptx64-nvidia-cuda -Zbuild-std=core"));
        assert!(line.contains("--crate-type cdylib"));
        assert!(line.ends_with("-- --emit=asm"), "{line}");
        let rustflags = cmd
            .get_envs()
            .find(|(k, _)| *k == "RUSTFLAGS")
            .and_then(|(_, v)| v)
            .map(|v| v.to_string_lossy().into_owned());
        assert_eq!(rustflags.as_deref(), Some("-C target-cpu=sm_80"));
    }
}
