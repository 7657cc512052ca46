//! All-pairs shortest paths and one shortest path, as `vertex apsp` and
//! `vertex path` run them (`runtime::apsp::solve` / `path_on`), with the
//! CLI's choice of distance type (`i32` where no sum of two simple paths can
//! overflow it, else `i64`; floats stay `f64`). The dense matrix comes back as
//! `f64` with `inf` for "no path", what numpy users (and networkx's
//! `floyd_warshall_numpy`) expect.

use numpy::{IntoPyArray, PyArray1};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use runtime::apsp::johnson::MinPlusElem;
use runtime::apsp::semiring::{min_plus_kind_for, Elem};
use runtime::apsp::{self as rapsp, Algorithm, ApspOptions, MinPlus, Semiring};
use runtime::gpu::closure::GpuSemiring;
use runtime::graph::{Csr, WeightKind};
use vertex_examples::programs::apsp::MinPlusProgram;

use crate::errors::OrPy;
use crate::graph::{PyGraph, Store};
use crate::options::backend;

/// The distance type the CLI picks for integer weights in `lo..=hi`.
fn int_kind<W: Elem>(g: &Csr<W>) -> WeightKind {
    let (mut lo, mut hi) = (1i128, 1i128);
    if let Some(ws) = g.weights() {
        let vals = ws.iter().filter_map(|w| w.to_i128());
        lo = vals.clone().min().unwrap_or(1);
        hi = vals.max().unwrap_or(1);
    }
    min_plus_kind_for(WeightKind::I32, g.num_vertices(), lo, hi)
}

type Solved = (serde_json::Value, Option<Vec<f64>>);

fn solve<T: MinPlusProgram, W: Elem>(
    g: &Csr<W>,
    opts: &ApspOptions,
    keep: bool,
) -> runtime::Result<Solved>
where
    MinPlus<T>: GpuSemiring<T = T>,
{
    let r = rapsp::solve_with_program::<T::P, T, W>(g, opts, None, keep)?;
    let none = <MinPlus<T> as Semiring>::zero();
    let m = r.matrix.as_ref().map(|m| {
        m.as_slice()
            .iter()
            .map(|&x| if x == none { f64::INFINITY } else { x.to_f64() })
            .collect()
    });
    let mut summary =
        serde_json::to_value(&r).map_err(|e| runtime::Error::InvalidArgument(e.to_string()))?;
    summary["vertices"] = g.num_vertices().into();
    summary["edges"] = g.num_edges().into();
    Ok((summary, m))
}

fn algorithm(name: &str) -> PyResult<Algorithm> {
    name.parse()
        .map_err(|e: runtime::Error| PyValueError::new_err(e.to_string()))
}

/// APSP summary (checksum, unreachable pairs, diameter) and, with
/// `matrix=True` (blocked Floyd–Warshall), the `n × n` distances, flattened.
#[pyfunction]
#[pyo3(signature = (g, backend_name="auto", algorithm_name="auto", matrix=false))]
fn apsp<'py>(
    py: Python<'py>,
    g: &PyGraph,
    backend_name: &str,
    algorithm_name: &str,
    matrix: bool,
) -> PyResult<(String, Option<Bound<'py, PyArray1<f64>>>)> {
    let mut algo = algorithm(algorithm_name)?;
    if matrix {
        if algo == Algorithm::Johnson {
            return Err(PyValueError::new_err(
                "matrix=True needs algorithm \"fw\" or \"auto\" (Johnson streams its rows)",
            ));
        }
        algo = Algorithm::Fw;
    }
    let opts = ApspOptions {
        algorithm: algo,
        backend: backend(Some(backend_name))?,
        ..ApspOptions::default()
    };
    let solved = py.detach(|| -> runtime::Result<Solved> {
        match &g.store {
            Store::F64(graph) => solve::<f64, f64>(graph.csr(), &opts, matrix),
            Store::U32(graph) => match int_kind(graph.csr()) {
                WeightKind::I32 => solve::<i32, u32>(graph.csr(), &opts, matrix),
                _ => solve::<i64, u32>(graph.csr(), &opts, matrix),
            },
        }
    });
    let (summary, m) = solved.py_err()?;
    Ok((summary.to_string(), m.map(|m| m.into_pyarray(py))))
}

/// One shortest path `source → target`: `(vertices, length)`, or `None` when
/// `target` is unreachable.
#[pyfunction]
#[pyo3(signature = (g, source, target, backend_name="auto", algorithm_name="auto"))]
fn path(
    py: Python<'_>,
    g: &PyGraph,
    source: u32,
    target: u32,
    backend_name: &str,
    algorithm_name: &str,
) -> PyResult<Option<(Vec<u32>, f64)>> {
    let algo = algorithm(algorithm_name)?;
    let be = backend(Some(backend_name))?;
    fn one<T: MinPlusElem, W: Elem>(
        g: &Csr<W>,
        s: u32,
        t: u32,
        a: Algorithm,
        b: runtime::run::Backend,
    ) -> runtime::Result<Option<(Vec<u32>, f64)>>
    where
        MinPlus<T>: GpuSemiring<T = T>,
    {
        let (found, _) = rapsp::path_on::<T, W>(g, s, t, a, b)?;
        Ok(found.map(|(p, d)| (p, d.to_f64())))
    }
    py.detach(|| match &g.store {
        Store::F64(graph) => one::<f64, f64>(graph.csr(), source, target, algo, be),
        Store::U32(graph) => match int_kind(graph.csr()) {
            WeightKind::I32 => one::<i32, u32>(graph.csr(), source, target, algo, be),
            _ => one::<i64, u32>(graph.csr(), source, target, algo, be),
        },
    })
    .py_err()
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(apsp, m)?)?;
    m.add_function(wrap_pyfunction!(path, m)?)?;
    Ok(())
}
