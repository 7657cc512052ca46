//! The CLI's run options from Python keyword arguments: the same names and
//! the same values (`backend="cpu"|"gpu"|"auto"`, `schedule="sync"|...`,
//! `kernel="balanced"|...`, `gpus=2`, `exchange="peer"|"nccl"`), parsed into
//! the one run call's [`Plan`].

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use runtime::gpu::multi::Route;
use runtime::program::Schedule;
use runtime::run::{Backend, Plan};

/// Options every program takes, from a Python dict (missing keys and `None`
/// values: unset).
#[derive(Default)]
pub struct RunOptions {
    pub backend: Option<String>,
    pub threads: Option<usize>,
    pub kernel: Option<String>,
    pub schedule: Option<String>,
    pub max_edge_count: Option<u64>,
    pub delta: Option<u64>,
    pub max_rounds: Option<u32>,
    pub tolerance: Option<f64>,
    /// GPUs of this machine for one run (`None` or 1: one GPU; 0 is refused
    /// rather than read as one, since Python callers mean a count).
    pub gpus: Option<usize>,
    /// How several GPUs exchange: `"peer"` or `"nccl"`.
    pub exchange: Option<String>,
    /// The GPU direction kernel's switch points (the CLI's `--alpha`/`--beta`).
    pub alpha: Option<u64>,
    pub beta: Option<u64>,
}

impl<'py> FromPyObject<'py> for RunOptions {
    fn extract_bound(ob: &Bound<'py, PyAny>) -> PyResult<Self> {
        let d = ob.downcast::<PyDict>()?;
        fn get<'py, T: FromPyObject<'py>>(d: &Bound<'py, PyDict>, k: &str) -> PyResult<Option<T>> {
            match d.get_item(k)? {
                Some(v) if !v.is_none() => v
                    .extract()
                    .map(Some)
                    .map_err(|e| PyValueError::new_err(format!("option {k}: {e}"))),
                _ => Ok(None),
            }
        }
        Ok(RunOptions {
            backend: get(d, "backend")?,
            threads: get(d, "threads")?,
            kernel: get(d, "kernel")?,
            schedule: get(d, "schedule")?,
            max_edge_count: get(d, "max_edge_count")?,
            delta: get(d, "delta")?,
            max_rounds: get(d, "max_rounds")?,
            tolerance: get(d, "tolerance")?,
            gpus: get(d, "gpus")?,
            exchange: get(d, "exchange")?,
            alpha: get(d, "alpha")?,
            beta: get(d, "beta")?,
        })
    }
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
            Some(k) => Some(
                k.parse()
                    .map_err(|e| PyValueError::new_err(format!("kernel {k:?}: {e}")))?,
            ),
        };
        if self.gpus == Some(0) {
            return Err(PyValueError::new_err(
                "gpus 0: expected 1 (one GPU, the default) or more",
            ));
        }
        let exchange = self
            .exchange
            .as_deref()
            .map(Route::from_name)
            .transpose()
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        Ok(Plan {
            backend: backend(self.backend.as_deref())?,
            gpus: self.gpus.unwrap_or(1),
            exchange,
            schedule,
            threads: self.threads,
            kernel,
            max_edge_count: self.max_edge_count,
            delta: self.delta,
            max_rounds: self.max_rounds,
            tolerance: self.tolerance,
            heuristic: runtime::gpu::options::heuristic_from(self.alpha, self.beta),
            ..Plan::default()
        })
    }
}
