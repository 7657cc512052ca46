//! One error type for the whole runtime.
//!
//! Every variant that comes from user input carries *where* (file and, for text
//! formats, the 1-based line) so that the CLI can print `file:line: problem` and the
//! user can open the file at the right place. Library code never panics on bad input;
//! it returns one of these.

use std::path::{Path, PathBuf};

/// Result alias used across the runtime.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong in the runtime.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// An operating-system I/O error while touching `path`.
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    /// A malformed text file: `line` is 1-based.
    #[error("{}:{line}: {msg}", path.display())]
    Parse {
        path: PathBuf,
        line: u64,
        msg: String,
    },

    /// A malformed binary file or a whole-file problem (no meaningful line).
    #[error("{}: {msg}", path.display())]
    Format { path: PathBuf, msg: String },

    /// A graph (or a request about it) that is inconsistent, e.g. an id out of range.
    #[error("invalid graph: {0}")]
    InvalidGraph(String),

    /// A bad argument from the caller, e.g. an unknown generator spec.
    #[error("{0}")]
    InvalidArgument(String),

    /// The GPU backend is not usable on this machine (no driver, no device, no PTX).
    #[error("GPU backend unavailable: {0}")]
    GpuUnavailable(String),

    /// A CUDA call failed.
    #[error("CUDA error in {call}: {msg}")]
    Cuda { call: String, msg: String },

    /// Not enough device memory; checked before anything is allocated.
    #[error("out of GPU memory: {what} needs {needed} bytes, {free} bytes free on the device")]
    GpuOutOfMemory {
        what: String,
        needed: u64,
        free: u64,
    },

    /// Not enough host memory for a job whose size is known up front (e.g. a
    /// Graph500 scale); checked before anything is generated.
    #[error("out of host memory: {what} needs about {needed} bytes, {available} bytes available")]
    HostOutOfMemory {
        what: String,
        needed: u64,
        available: u64,
    },

    /// A frontier-driven program ran into the round bound it gets when it sets no
    /// limit of its own (`runtime::gather::frontier_round_bound`): it did not
    /// finish, so it has no answer.
    #[error("{0}")]
    RoundBound(String),

    /// A negative cycle makes shortest distances undefined.
    #[error("negative cycle: {0}")]
    NegativeCycle(String),
}

impl Error {
    /// Wraps an I/O error with the path it happened on.
    pub fn io(path: impl AsRef<Path>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.as_ref().to_path_buf(),
            source,
        }
    }

    /// A parse error at `path:line`.
    pub fn parse(path: impl AsRef<Path>, line: u64, msg: impl Into<String>) -> Self {
        Error::Parse {
            path: path.as_ref().to_path_buf(),
            line,
            msg: msg.into(),
        }
    }

    /// A whole-file format error.
    pub fn format(path: impl AsRef<Path>, msg: impl Into<String>) -> Self {
        Error::Format {
            path: path.as_ref().to_path_buf(),
            msg: msg.into(),
        }
    }

    /// Host memory for `what` (`needed` bytes) could not be had; says how much
    /// is available where the OS tells.
    pub fn host_memory(what: impl Into<String>, needed: u64) -> Self {
        Error::HostOutOfMemory {
            what: what.into(),
            needed,
            available: available_memory().unwrap_or(0),
        }
    }
}

/// `MemAvailable + SwapFree` from `/proc/meminfo` (Linux); `None` elsewhere.
pub fn available_memory() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let kib = |key: &str| {
        info.lines()
            .find_map(|l| l.strip_prefix(key))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
    };
    Some((kib("MemAvailable:")? + kib("SwapFree:").unwrap_or(0)) * 1024)
}
