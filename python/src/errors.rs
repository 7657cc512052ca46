//! Runtime errors as Python exceptions. The message is the runtime's own (what
//! the `vertex` CLI prints); the class says what kind of problem it is, so
//! Python code can catch `FileNotFoundError` or `ValueError` as usual.

use pyo3::exceptions::{PyFileNotFoundError, PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use runtime::Error;

pyo3::create_exception!(
    _vertex,
    GpuUnavailableError,
    PyRuntimeError,
    "The GPU backend cannot run here (no driver, no device, or no PTX kernels)."
);
pyo3::create_exception!(
    _vertex,
    NegativeCycleError,
    PyValueError,
    "The graph has a negative cycle, so shortest distances are undefined."
);

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("GpuUnavailableError", py.get_type::<GpuUnavailableError>())?;
    m.add("NegativeCycleError", py.get_type::<NegativeCycleError>())?;
    Ok(())
}

/// The Python exception for a runtime error.
pub fn to_py(e: Error) -> PyErr {
    let msg = e.to_string();
    match e {
        Error::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound => {
            PyFileNotFoundError::new_err(msg)
        }
        Error::Io { .. } => PyOSError::new_err(msg),
        Error::GpuUnavailable(_) => GpuUnavailableError::new_err(msg),
        Error::NegativeCycle(_) => NegativeCycleError::new_err(msg),
        Error::Parse { .. }
        | Error::Format { .. }
        | Error::InvalidGraph(_)
        | Error::InvalidArgument(_) => PyValueError::new_err(msg),
        _ => PyRuntimeError::new_err(msg),
    }
}

/// `?` on runtime results inside `#[pyfunction]`s.
pub trait OrPy<T> {
    fn py_err(self) -> PyResult<T>;
}

impl<T> OrPy<T> for runtime::Result<T> {
    fn py_err(self) -> PyResult<T> {
        self.map_err(to_py)
    }
}
