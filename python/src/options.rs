//! The CLI's run options from Python keyword arguments: the same names and
//! the same values (`backend="cpu"|"gpu"|"auto"`, `schedule="sync"|...`,
//! `kernel="balanced"|...`), parsed into the one run call's [`Plan`].

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use runtime::program::Schedule;
use runtime::run::{Backend, Plan};

/// Options every program takes, as Python passes them.
#[derive(FromPyObject, Default)]
pub struct RunOptions {
    #[pyo3(item, default)]
    pub backend: Option<String>,
    #[pyo3(item, default)]
    pub threads: Option<usize>,
    #[pyo3(item, default)]
    pub kernel: Option<String>,
    #[pyo3(item, default)]
    pub schedule: Option<String>,
    #[pyo3(item, default)]
    pub max_edge_count: Option<u64>,
    #[pyo3(item, default)]
    pub delta: Option<u64>,
    #[pyo3(item, default)]
    pub max_rounds: Option<u32>,
    #[pyo3(item, default)]
    pub tolerance: Option<f64>,
}

pub fn backend(name: Option<&str>) -> PyResult<Backend> {
    match name.unwrap_or("auto") {
        "cpu" => Ok(Backend::Cpu),
        "gpu" => Ok(Backend::Gpu),
        "auto" => Ok(Backend::Auto),
        b => Err(PyValueError::new_err(format!(
            "backend {b:?}: expected \"cpu\", \"gpu\" or \"auto\""
        ))),
    }
}

impl RunOptions {
    /// The plan these options describe (`schedule`/`kernel` `"auto"` = unset).
    pub fn plan(&self) -> PyResult<Plan> {
        let schedule = match self.schedule.as_deref() {
            None | Some("auto") => None,
            Some("sync") => Some(Schedule::Sync),
            Some("async") => Some(Schedule::Async),
            Some("obim") => Some(Schedule::Obim),
            Some(s) => {
                return Err(PyValueError::new_err(format!(
                    "schedule {s:?}: expected \"auto\", \"sync\", \"async\" or \"obim\""
                )))
            }
        };
        let kernel = match self.kernel.as_deref() {
            None | Some("auto") => None,
            Some(k) => Some(k.parse().map_err(|e| PyValueError::new_err(format!("kernel {k:?}: {e}")))?),
        };
        Ok(Plan {
            backend: backend(self.backend.as_deref())?,
            schedule,
            threads: self.threads,
            kernel,
            max_edge_count: self.max_edge_count,
            delta: self.delta,
            max_rounds: self.max_rounds,
            tolerance: self.tolerance,
            ..Plan::default()
        })
    }
}
