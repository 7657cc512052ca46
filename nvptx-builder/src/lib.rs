//! Compile a `#![no_std]` kernel crate to PTX from a host crate's `build.rs`.
//!
//! No crate on crates.io does this for current nightlies, so this is ours, shaped
//! like rust-gpu's `spirv-builder`: the host crate's build script names the kernel
//! crate, this crate runs a second, nested cargo for `nvptx64-nvidia-cuda` and hands
//! back the path of the PTX, which the host crate embeds with `include_str!`.
//!
//! ```no_run
//! // build.rs of a host crate: its `fn main` body
//! match nvptx_builder::NvptxBuilder::new("../kernels-rs").arch("sm_90").build() {
//!     Ok(ptx) => println!("cargo:rustc-env=KERNELS_PTX={}", ptx.path.display()),
//!     Err(e) if e.is_environmental() => println!("cargo:warning=no GPU kernels: {e}"),
//!     Err(e) => panic!("{e}"),
//! }
//! ```
//!
//! What it takes care of:
//! * the toolchain: nightly with `rust-src` (for `-Zbuild-std=core`), checked first;
//!   a missing `rust-src` is added (`rustup component add`; `VERTEX_NO_INSTALL=1`
//!   prevents it), a missing nightly is never installed: that, or a failed add, is a
//!   typed [`BuildError`] the host turns into a warning;
//! * the link step: rustc's PTX comes from `--emit=asm`; the `llvm-bitcode-linker`
//!   that the target wants is not installed, so the link failure is expected and
//!   ignored — but only when a fresh `.s` exists and no other error was reported;
//! * isolation: its own target directory (next to the outer one), a cleaned
//!   environment (see [`cargo_cmd`]), so the nested cargo neither deadlocks on the
//!   outer lock nor picks up the outer build's compiler or flags;
//! * caching: a stamp of the sources rustc read ([`cache`]), so the nested build only
//!   runs when they change, plus `cargo:rerun-if-changed` lines for the outer build;
//! * the switch `VERTEX_SKIP_PTX=1`, which skips the build ([`BuildError::Skipped`]),
//!   and `VERTEX_PTX_ARCH=sm_80` (or `sm_89`, `sm_90`, ...), which overrides the arch.

pub mod cache;
pub mod cargo_cmd;
mod error;
pub mod ptx;
pub mod toolchain;

use std::path::{Path, PathBuf};

pub use error::BuildError;

/// Environment variable that skips the PTX build when set to anything but `0` or empty.
pub const SKIP_ENV: &str = "VERTEX_SKIP_PTX";
/// Environment variable that overrides [`NvptxBuilder::arch`].
pub const ARCH_ENV: &str = "VERTEX_PTX_ARCH";

/// The whole `build.rs` of a crate that defines `#[vertex_program]`s.
///
/// Compiles the crate itself a second time, for `nvptx64-nvidia-cuda`, where the
/// macro emits each program's kernel entry points, and hands the PTX to the
/// macro through `VERTEX_PROGRAMS_PTX` (the host build then embeds it:
/// `Program::gpu_ptx()`). The nested build runs this same script with
/// `TARGET=nvptx64-nvidia-cuda`, which returns at once. Without nightly or
/// `rust-src`, or with `VERTEX_SKIP_PTX=1`, the crate builds without kernels and
/// the GPU backend reports why; a compile error in GPU code fails the build.
///
/// ```no_run
/// // build.rs (with `nvptx-builder` under [build-dependencies])
/// nvptx_builder::build_programs();
/// ```
/// and, at the top of the crate's `lib.rs`, what the PTX build needs:
/// `#![cfg_attr(target_arch = "nvptx64", no_std, feature(abi_ptx))]`.
pub fn build_programs() {
    if std::env::var("TARGET").is_ok_and(|t| t == cargo_cmd::TARGET) {
        return;
    }
    let Some(dir) = std::env::var_os("CARGO_MANIFEST_DIR") else {
        println!("cargo:warning=nvptx_builder::build_programs() must run from a build script");
        return;
    };
    match NvptxBuilder::new(&dir).build() {
        Ok(ptx) => {
            println!("cargo:rustc-env=VERTEX_PROGRAMS_PTX={}", ptx.path.display());
            println!("cargo:rustc-env=VERTEX_PROGRAMS_PTX_STATUS=ok");
        }
        Err(e) if e.is_environmental() => {
            let why = e.to_string().replace(['\n', '\r'], " ");
            if !matches!(e, BuildError::Skipped { .. }) {
                println!("cargo:warning=GPU kernels of this crate's programs not built: {why}");
            }
            println!("cargo:rustc-env=VERTEX_PROGRAMS_PTX=");
            println!("cargo:rustc-env=VERTEX_PROGRAMS_PTX_STATUS=built without PTX: {why}");
        }
        Err(e) => panic!("building the GPU kernels of this crate's programs failed:\n{e}"),
    }
    println!("cargo:rerun-if-changed=build.rs");
}

/// The result of a PTX build.
#[derive(Clone, Debug)]
pub struct PtxArtifact {
    /// The PTX file (in the caller's `OUT_DIR` when run from a build script).
    pub path: PathBuf,
    /// Names of the kernel entry points (`.entry`) in the module.
    pub kernels: Vec<String>,
    /// The arch it was compiled for, e.g. `sm_90`.
    pub arch: String,
    /// Whether the cached PTX was reused without running cargo.
    pub cached: bool,
}

/// Builder for one PTX compilation; see the crate docs.
#[derive(Clone, Debug)]
pub struct NvptxBuilder {
    crate_path: PathBuf,
    arch: String,
    toolchain: String,
    target_dir: Option<PathBuf>,
    out_dir: Option<PathBuf>,
    features: Vec<String>,
    no_default_features: bool,
    emit_cargo_directives: bool,
}

impl NvptxBuilder {
    /// Builds the crate at `crate_path` (a directory with a `Cargo.toml`; relative
    /// paths are taken from the current directory, which in a build script is the
    /// host crate's manifest directory). Defaults: `sm_90`, toolchain `nightly`.
    pub fn new(crate_path: impl AsRef<Path>) -> Self {
        let in_build_script = std::env::var_os("OUT_DIR").is_some();
        NvptxBuilder {
            crate_path: crate_path.as_ref().to_path_buf(),
            arch: "sm_90".into(),
            toolchain: "nightly".into(),
            target_dir: None,
            out_dir: None,
            features: Vec::new(),
            no_default_features: false,
            emit_cargo_directives: in_build_script,
        }
    }

    /// The GPU architecture (`-C target-cpu`), e.g. `sm_80`, `sm_89`, `sm_90`.
    pub fn arch(mut self, arch: impl Into<String>) -> Self {
        self.arch = arch.into();
        self
    }

    /// The rustup toolchain to build with (default `nightly`).
    pub fn toolchain(mut self, toolchain: impl Into<String>) -> Self {
        self.toolchain = toolchain.into();
        self
    }

    /// Where the nested cargo keeps its build (default: `nvptx-builder/<arch>` next
    /// to the outer target directory's profile folders).
    pub fn target_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.target_dir = Some(dir.into());
        self
    }

    /// Where to put the final `.ptx` (default: `$OUT_DIR`, else the target dir).
    pub fn out_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.out_dir = Some(dir.into());
        self
    }

    /// Cargo features of the kernel crate to enable.
    pub fn features<I, S>(mut self, features: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.features.extend(features.into_iter().map(Into::into));
        self
    }

    /// Builds the kernel crate with `--no-default-features`.
    pub fn no_default_features(mut self) -> Self {
        self.no_default_features = true;
        self
    }

    /// Whether to print `cargo:rerun-if-changed` / `rerun-if-env-changed` lines
    /// (default: yes when `OUT_DIR` is set, i.e. inside a build script).
    pub fn emit_cargo_directives(mut self, yes: bool) -> Self {
        self.emit_cargo_directives = yes;
        self
    }

    /// Runs the build (or reuses the cache) and returns the PTX.
    pub fn build(&self) -> Result<PtxArtifact, BuildError> {
        self.directive(&format!("rerun-if-env-changed={SKIP_ENV}"));
        self.directive(&format!("rerun-if-env-changed={ARCH_ENV}"));
        self.directive(&format!(
            "rerun-if-env-changed={}",
            toolchain::NO_INSTALL_ENV
        ));
        if std::env::var(SKIP_ENV).is_ok_and(|v| !v.is_empty() && v != "0") {
            return Err(BuildError::Skipped { var: SKIP_ENV });
        }
        let arch = match std::env::var(ARCH_ENV) {
            Ok(a) if !a.is_empty() => a,
            _ => self.arch.clone(),
        };
        check_arch(&arch)?;

        let crate_dir = std::fs::canonicalize(&self.crate_path).map_err(|e| {
            BuildError::Config(format!("kernel crate {}: {e}", self.crate_path.display()))
        })?;
        let manifest = crate_dir.join("Cargo.toml");
        let lib_name = lib_name(&manifest)?;
        self.directive(&format!("rerun-if-changed={}", manifest.display()));
        self.directive(&format!(
            "rerun-if-changed={}",
            crate_dir.join("src").display()
        ));

        let detected = match toolchain::detect(&self.toolchain) {
            Err(BuildError::RustSrcMissing { .. }) if toolchain::may_add_rust_src() => {
                self.directive(&format!(
                    "warning=adding rust-src to toolchain `{}` to build the GPU kernels \
                     ({}=1 stops this)",
                    self.toolchain,
                    toolchain::NO_INSTALL_ENV
                ));
                toolchain::add_rust_src(&self.toolchain)
                    .and_then(|()| toolchain::detect(&self.toolchain))
            }
            r => r,
        };
        let tc = match detected {
            Ok(tc) => tc,
            Err(e) => {
                if let Some(marker) = toolchain::install_marker(&e) {
                    self.directive(&format!("rerun-if-changed={}", marker.display()));
                }
                return Err(e);
            }
        };

        let target_dir = match &self.target_dir {
            Some(d) => d.clone(),
            None => default_target_dir(&crate_dir).join(&arch),
        };
        std::fs::create_dir_all(&target_dir)
            .map_err(|e| BuildError::io(format!("creating {}", target_dir.display()), e))?;
        let out_dir = self
            .out_dir
            .clone()
            .or_else(|| std::env::var_os("OUT_DIR").map(PathBuf::from))
            .unwrap_or_else(|| target_dir.clone());
        let out_path = out_dir.join(format!("{lib_name}.ptx"));
        let cached_ptx = target_dir.join(format!("{lib_name}.ptx"));
        let stamp_path = target_dir.join(format!("{lib_name}.stamp"));
        let settings = format!(
            "{arch}|{}|{:?}|{}|{}",
            tc.version,
            self.features,
            self.no_default_features,
            crate_dir.display()
        );

        // Cache hit: same settings, same sources.
        if let Some(stamp) = cache::Stamp::read(&stamp_path) {
            if cached_ptx.is_file() && cache::hash_inputs(&settings, &stamp.inputs) == stamp.hash {
                self.watch(&stamp.inputs);
                return self.finish(&cached_ptx, &out_path, &arch, true);
            }
        }

        let asm = ptx::asm_path(&target_dir, &lib_name);
        let before = ptx::mtime(&asm);
        let jobs = std::env::var("NUM_JOBS").ok().and_then(|j| j.parse().ok());
        let inv = cargo_cmd::CargoInvocation {
            toolchain: &tc.name,
            manifest: &manifest,
            target_dir: &target_dir,
            arch: &arch,
            features: &self.features,
            no_default_features: self.no_default_features,
            jobs,
        };
        let output = inv
            .command()
            .output()
            .map_err(|e| BuildError::io("running the nested cargo (rustup run cargo)", e))?;
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        let fresh = match (before, ptx::mtime(&asm)) {
            (_, None) => false,
            (None, Some(_)) => true,
            (Some(b), Some(a)) => a > b,
        };
        let ok = if output.status.success() {
            asm.is_file()
        } else if ptx::only_link_errors(&stderr) {
            fresh
        } else {
            return Err(BuildError::Compile {
                crate_name: lib_name,
                diagnostics: ptx::real_diagnostics(&stderr),
            });
        };
        if !ok {
            return Err(BuildError::NoPtx {
                crate_name: lib_name,
                expected: asm,
                stderr: ptx::real_diagnostics(&stderr),
            });
        }

        std::fs::copy(&asm, &cached_ptx)
            .map_err(|e| BuildError::io(format!("copying {}", asm.display()), e))?;
        let deps_dir = target_dir.join(cargo_cmd::TARGET).join("release/deps");
        let mut exclude = vec![tc.sysroot.clone()];
        if let Some(home) = cargo_home() {
            exclude.push(home.join("registry"));
            exclude.push(home.join("git"));
        }
        let inputs = cache::dep_info_inputs(&deps_dir, &crate_dir, &exclude);
        let stamp = cache::Stamp {
            hash: cache::hash_inputs(&settings, &inputs),
            inputs,
        };
        stamp
            .write(&stamp_path)
            .map_err(|e| BuildError::io(format!("writing {}", stamp_path.display()), e))?;
        self.watch(&stamp.inputs);
        self.finish(&cached_ptx, &out_path, &arch, false)
    }

    fn finish(
        &self,
        cached_ptx: &Path,
        out_path: &Path,
        arch: &str,
        cached: bool,
    ) -> Result<PtxArtifact, BuildError> {
        let text = std::fs::read_to_string(cached_ptx)
            .map_err(|e| BuildError::io(format!("reading {}", cached_ptx.display()), e))?;
        if !ptx::looks_like_ptx(&text) {
            return Err(BuildError::Config(format!(
                "{} is not PTX (no .version/.target line)",
                cached_ptx.display()
            )));
        }
        if out_path != cached_ptx {
            if let Some(dir) = out_path.parent() {
                std::fs::create_dir_all(dir)
                    .map_err(|e| BuildError::io(format!("creating {}", dir.display()), e))?;
            }
            std::fs::write(out_path, &text)
                .map_err(|e| BuildError::io(format!("writing {}", out_path.display()), e))?;
        }
        Ok(PtxArtifact {
            path: out_path.to_path_buf(),
            kernels: ptx::kernel_names(&text),
            arch: arch.to_string(),
            cached,
        })
    }

    fn watch(&self, inputs: &[PathBuf]) {
        for p in inputs {
            self.directive(&format!("rerun-if-changed={}", p.display()));
        }
    }

    fn directive(&self, d: &str) {
        if self.emit_cargo_directives {
            println!("cargo:{d}");
        }
    }
}

/// Accepts `sm_NN` / `sm_NNa` (NN ≥ 30), the names `-C target-cpu` knows for NVPTX.
fn check_arch(arch: &str) -> Result<(), BuildError> {
    let digits = arch
        .strip_prefix("sm_")
        .map(|d| d.trim_end_matches('a'))
        .filter(|d| !d.is_empty() && d.chars().all(|c| c.is_ascii_digit()));
    match digits.and_then(|d| d.parse::<u32>().ok()) {
        Some(n) if n >= 30 => Ok(()),
        _ => Err(BuildError::Config(format!(
            "unknown GPU arch `{arch}`: expected sm_80, sm_89, sm_90 or similar"
        ))),
    }
}

/// The library name rustc gives the crate (`[lib] name`, else the package name
/// with `-` → `_`), read with a minimal line scan of the manifest.
fn lib_name(manifest: &Path) -> Result<String, BuildError> {
    let text = std::fs::read_to_string(manifest)
        .map_err(|e| BuildError::io(format!("reading {}", manifest.display()), e))?;
    let mut section = String::new();
    let mut package = None;
    let mut lib = None;
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            section = line
                .trim_matches(|c| c == '[' || c == ']')
                .trim()
                .to_string();
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        if key.trim() != "name" {
            continue;
        }
        let value = value.trim().trim_matches('"').to_string();
        match section.as_str() {
            "package" => package = Some(value),
            "lib" => lib = Some(value),
            _ => {}
        }
    }
    lib.or(package)
        .map(|n| n.replace('-', "_"))
        .ok_or_else(|| BuildError::Config(format!("{}: no [package] name", manifest.display())))
}

/// `<outer target dir>/nvptx-builder` derived from `OUT_DIR`
/// (`<target>/<profile>/build/<pkg>-<hash>/out`), else `<crate>/target/nvptx-builder`.
fn default_target_dir(crate_dir: &Path) -> PathBuf {
    if let Some(out) = std::env::var_os("OUT_DIR").map(PathBuf::from) {
        if let Some(build) = out
            .ancestors()
            .find(|a| a.file_name().is_some_and(|n| n == "build"))
        {
            if let Some(target) = build.parent().and_then(Path::parent) {
                return target.join("nvptx-builder");
            }
        }
    }
    crate_dir.join("target/nvptx-builder")
}

fn cargo_home() -> Option<PathBuf> {
    std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arch_names() {
        for ok in ["sm_80", "sm_89", "sm_90", "sm_90a", "sm_100"] {
            assert!(check_arch(ok).is_ok(), "{ok}");
        }
        for bad in ["", "sm_", "90", "sm_9x", "compute_90", "sm_20"] {
            assert!(check_arch(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn lib_name_prefers_lib_section() {
        let dir = tempfile::tempdir().unwrap();
        let m = dir.path().join("Cargo.toml");
        std::fs::write(&m, "[package]\nname = \"my-kernels\"\n").unwrap();
        assert_eq!(lib_name(&m).unwrap(), "my_kernels");
        std::fs::write(&m, "[package]\nname = \"a\"\n[lib]\nname = \"b_lib\"\n").unwrap();
        assert_eq!(lib_name(&m).unwrap(), "b_lib");
    }

    #[test]
    fn skip_switch_is_environmental() {
        let e = BuildError::Skipped { var: SKIP_ENV };
        assert!(e.is_environmental());
        let c = BuildError::Compile {
            crate_name: "k".into(),
            diagnostics: "error".into(),
        };
        assert!(!c.is_environmental());
    }
}
