//! The kernels' PTX, compiled from `kernels-rs` by `build.rs` and embedded.
//!
//! A build without the nightly toolchain embeds nothing and records why; asking
//! for the GPU then fails with that reason. `VERTEX_PTX_FILE=path.ptx` loads PTX
//! from a file at run time instead (to try a rebuilt module on the GPU machine
//! without relinking the binary).

use crate::error::{Error, Result};

/// The embedded module (empty when the build had no PTX).
pub const EMBEDDED: &str = include_str!(concat!(env!("OUT_DIR"), "/kernels.ptx"));

/// `ok`, or why the build has no PTX.
pub const BUILD_STATUS: &str = env!("VERTEX_PTX_STATUS");

/// Environment variable naming a PTX file that replaces the embedded module.
pub const PTX_FILE_ENV: &str = "VERTEX_PTX_FILE";

/// The PTX to load, or why there is none.
pub fn source() -> Result<std::borrow::Cow<'static, str>> {
    if let Some(path) = std::env::var_os(PTX_FILE_ENV) {
        return std::fs::read_to_string(&path)
            .map(Into::into)
            .map_err(|e| Error::io(&path, e));
    }
    if EMBEDDED.trim().is_empty() {
        return Err(Error::GpuUnavailable(format!(
            "built without PTX kernels: {BUILD_STATUS}"
        )));
    }
    Ok(EMBEDDED.into())
}

/// Whether this binary carries PTX.
pub fn embedded() -> bool {
    !EMBEDDED.trim().is_empty()
}
