//! `vertex._vertex`: the compiled half of the `vertex` Python package.
//!
//! A layer of conversions over the Rust library, in the manner of rustworkx and
//! polars: graphs in from numpy/scipy arrays, networkx adjacency dicts, files
//! and generator specs (`graph`); the shipped programs through the one run
//! call (`runtime::run`) and the library functions the `vertex` CLI calls
//! (`programs`); what the networkx backend needs beyond them (`nx`).
//! Results go out as numpy arrays; every engine runs with the GIL released
//! (`Python::detach`); runtime errors become Python exceptions carrying the
//! runtime's message (`errors`). The Python half (`python/vertex/`) holds the
//! keyword-argument API and the networkx backend.

mod errors;
mod graph;
mod nx;
mod options;
mod paths;
mod programs;

use pyo3::prelude::*;

#[pymodule]
fn _vertex(m: &Bound<'_, PyModule>) -> PyResult<()> {
    errors::register(m)?;
    m.add_class::<graph::PyGraph>()?;
    graph::register(m)?;
    programs::register(m)?;
    nx::register(m)?;
    m.add("GPU_KERNELS", programs::gpu_kernels_built())?;
    Ok(())
}
