//! Why a PTX build did not produce kernels.
//!
//! The variants are split by *who* must act: [`BuildError::Skipped`] and the
//! toolchain variants are environment conditions a host `build.rs` turns into a
//! `cargo:warning` (the host build still succeeds, without kernels), while
//! [`BuildError::Compile`] is a bug in the kernel crate and should fail the build.

use std::path::PathBuf;

/// Everything that can stop [`crate::NvptxBuilder::build`].
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    /// The build was switched off with `VERTEX_SKIP_PTX`.
    #[error("PTX build skipped because {var} is set")]
    Skipped { var: &'static str },

    /// `rustup` (needed to pick the nightly toolchain) is not on the PATH.
    #[error("rustup not found ({detail}); the PTX build needs `cargo +{toolchain}`")]
    RustupMissing { toolchain: String, detail: String },

    /// The requested toolchain (normally `nightly`) is not installed.
    #[error(
        "toolchain `{toolchain}` is not installed ({detail}); install it with \
         `rustup toolchain install {toolchain} --component rust-src`"
    )]
    ToolchainMissing { toolchain: String, detail: String },

    /// The toolchain has no `rust-src`, which `-Zbuild-std=core` needs.
    #[error(
        "toolchain `{toolchain}` has no rust-src (looked for {}); add it with \
         `rustup component add rust-src --toolchain {toolchain}`",
        looked_for.display()
    )]
    RustSrcMissing {
        toolchain: String,
        looked_for: PathBuf,
    },

    /// `rust-src` was missing and adding it (`rustup component add`) failed.
    #[error(
        "toolchain `{toolchain}` has no rust-src and adding it failed ({detail}); add it \
         with `rustup component add rust-src --toolchain {toolchain}`"
    )]
    RustSrcAddFailed { toolchain: String, detail: String },

    /// The kernel crate failed to compile; `diagnostics` are rustc's own messages
    /// (warnings and the expected link-step failure removed).
    #[error("kernel crate {crate_name} failed to compile for nvptx64:\n{diagnostics}")]
    Compile {
        crate_name: String,
        diagnostics: String,
    },

    /// Cargo reported success or only a link failure, but no fresh PTX was written.
    #[error("no PTX produced for {crate_name}: expected {}\n{stderr}", expected.display())]
    NoPtx {
        crate_name: String,
        expected: PathBuf,
        stderr: String,
    },

    /// A bad builder setting (arch, crate path without Cargo.toml, ...).
    #[error("{0}")]
    Config(String),

    /// A file-system or process-spawn error.
    #[error("{what}: {source}")]
    Io {
        what: String,
        #[source]
        source: std::io::Error,
    },
}

impl BuildError {
    /// Whether this is an environment condition (missing toolchain, skipped) under
    /// which a host build should go on without kernels, as opposed to a real failure.
    pub fn is_environmental(&self) -> bool {
        matches!(
            self,
            BuildError::Skipped { .. }
                | BuildError::RustupMissing { .. }
                | BuildError::ToolchainMissing { .. }
                | BuildError::RustSrcMissing { .. }
                | BuildError::RustSrcAddFailed { .. }
        )
    }

    pub(crate) fn io(what: impl Into<String>, source: std::io::Error) -> Self {
        BuildError::Io {
            what: what.into(),
            source,
        }
    }
}
