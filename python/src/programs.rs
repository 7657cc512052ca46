//! The shipped programs, as the `vertex` CLI runs them: the one run call for
//! programs (`run::<P>(&g)…go()`), the library functions for the rest (Afforest
//! components, Brandes's composition, closeness, APSP). Each returns numpy
//! values and the run's report as JSON text (`vertex` turns it into a dict).
//!
//! The GIL is released while an engine runs; loops over many sources run in
//! slices and check for Ctrl-C (`Python::check_signals`) between them.

use numpy::{IntoPyArray, PyArray1};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use runtime::graph::Graph;
use runtime::run::{run, Outcome, Plan, Report, Runnable};
use vertex_examples::programs as shipped;

use crate::errors::OrPy;
use crate::graph::{PyGraph, Store};
use crate::options::{backend, RunOptions};

/// Whether the shipped programs' GPU kernels were compiled into this build.
pub fn gpu_kernels_built() -> bool {
    <shipped::bfs::Program as Runnable>::has_gpu_kernels()
}

pub fn report_json(r: &Report) -> String {
    serde_json::to_string(r).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
}

type Values<'py, T> = (Bound<'py, PyArray1<T>>, String);

fn out<T: numpy::Element>(py: Python<'_>, o: Outcome<Vec<T>>) -> Values<'_, T> {
    (o.values.into_pyarray(py), report_json(&o.report))
}

/// `P` on `g` with `plan`, the GIL released.
fn go<P: Runnable>(py: Python<'_>, g: &Graph<P::Weight>, plan: Plan) -> PyResult<Outcome<P::Output>>
where
    P::Output: Send,
{
    py.detach(|| run::<P>(g).plan(plan).go()).py_err()
}

fn plan(opts: Option<RunOptions>, source: Option<u32>) -> PyResult<Plan> {
    let mut p = opts.unwrap_or_default().plan()?;
    p.source = source;
    Ok(p)
}

/// Hops from `source` (`u32::MAX`: not reached).
#[pyfunction]
#[pyo3(signature = (g, source=None, opts=None))]
fn bfs<'py>(
    py: Python<'py>,
    g: &PyGraph,
    source: Option<u32>,
    opts: Option<RunOptions>,
) -> PyResult<Values<'py, u32>> {
    let o = go::<shipped::bfs::Program>(py, g.topo().py_err()?, plan(opts, source)?)?;
    Ok(out(py, o))
}

/// Hops from each of `sources`, one row per source, flattened (`k·n`).
/// One BFS per source through `go_each`, in slices between which Ctrl-C is
/// honoured.
#[pyfunction]
#[pyo3(signature = (g, sources, opts=None))]
fn bfs_many<'py>(
    py: Python<'py>,
    g: &PyGraph,
    sources: Vec<u32>,
    opts: Option<RunOptions>,
) -> PyResult<Bound<'py, PyArray1<u32>>> {
    let topo = g.topo().py_err()?;
    let p = plan(opts, None)?;
    let mut all = Vec::with_capacity(sources.len() * g.num_vertices());
    for slice in sources.chunks(16) {
        let runs = py
            .detach(|| {
                run::<shipped::bfs::Program>(topo)
                    .plan(p.clone())
                    .sources(slice.iter().copied())
                    .go_each()
            })
            .py_err()?;
        for r in runs {
            all.extend_from_slice(&r.values);
        }
        py.check_signals()?;
    }
    Ok(all.into_pyarray(py))
}

/// Shortest distances from `source`: integer weights give `u64` distances
/// (`u64::MAX`: not reached), float weights `f64` (`inf`); a negative cycle is
/// an error, as in `vertex sssp`.
#[pyfunction]
#[pyo3(signature = (g, source=None, opts=None))]
fn sssp(
    py: Python<'_>,
    g: &PyGraph,
    source: Option<u32>,
    opts: Option<RunOptions>,
) -> PyResult<(Py<PyAny>, String)> {
    let p = plan(opts, source)?;
    Ok(match &g.store {
        Store::U32(graph) => {
            let (v, r) = out(py, go::<shipped::sssp::sssp::Program>(py, graph, p)?);
            (v.into_any().unbind(), r)
        }
        Store::F64(graph) => {
            py.detach(|| shipped::sssp::refuse_negative_cycle(graph))
                .py_err()?;
            let (v, r) = out(py, go::<shipped::sssp::sssp_f64::Program>(py, graph, p)?);
            (v.into_any().unbind(), r)
        }
    })
}

/// Widest-path (bottleneck) widths from `source` (integer weights).
#[pyfunction]
#[pyo3(signature = (g, source=None, opts=None))]
fn widest<'py>(
    py: Python<'py>,
    g: &PyGraph,
    source: Option<u32>,
    opts: Option<RunOptions>,
) -> PyResult<Values<'py, u32>> {
    let Store::U32(graph) = &g.store else {
        return Err(PyValueError::new_err(
            "widest paths take non-negative integer (u32) weights, and this graph has float weights",
        ));
    };
    Ok(out(
        py,
        go::<shipped::widest::Program>(py, graph, plan(opts, source)?)?,
    ))
}

/// Component labels (the smallest vertex id of each component; weak
/// components of a directed graph): `"afforest"` (the CLI's default) or
/// `"label"` (the label-propagation program on the undirected graph).
#[pyfunction]
#[pyo3(signature = (g, algorithm="afforest", opts=None))]
fn cc<'py>(
    py: Python<'py>,
    g: &PyGraph,
    algorithm: &str,
    opts: Option<RunOptions>,
) -> PyResult<Values<'py, u32>> {
    let opts = opts.unwrap_or_default();
    match algorithm {
        "afforest" => {
            let on_gpus = opts.gpus.is_some_and(|n| n > 1) || opts.exchange.is_some();
            if on_gpus || !matches!(opts.backend.as_deref(), None | Some("cpu") | Some("auto")) {
                return Err(PyValueError::new_err(
                    "cc algorithm \"afforest\" runs on the CPU; algorithm=\"label\" runs on the CPU, one GPU or several (gpus=N)",
                ));
            }
            let topo = g.topo().py_err()?;
            let a = runtime::cc::AfforestOptions {
                threads: opts.threads,
                ..Default::default()
            };
            let r = py.detach(|| runtime::cc::afforest(topo, &a)).py_err()?;
            let report = serde_json::json!({
                "program": "cc", "algorithm": "afforest", "backend": "cpu",
                "time_ms": r.report.time.as_secs_f64() * 1e3, "threads": r.report.threads,
            });
            Ok((r.labels.into_pyarray(py), report.to_string()))
        }
        "label" => {
            let u = g.undirected().py_err()?;
            Ok(out(py, go::<shipped::cc::Program>(py, u, opts.plan()?)?))
        }
        a => Err(PyValueError::new_err(format!(
            "cc algorithm {a:?}: expected \"afforest\" or \"label\""
        ))),
    }
}

/// PageRank as gapbs defines it (the CLI's `pr`), on the graph as gapbs builds
/// it (self-loops and repeated edges dropped).
#[pyfunction]
#[pyo3(signature = (g, opts=None))]
fn pagerank<'py>(
    py: Python<'py>,
    g: &PyGraph,
    opts: Option<RunOptions>,
) -> PyResult<Values<'py, f64>> {
    Ok(out(
        py,
        go::<shipped::pagerank::Program>(py, g.squished().py_err()?, plan(opts, None)?)?,
    ))
}

/// Core numbers of the simple undirected graph, or with `doubled` of the
/// graph with every edge both ways and repeats kept (degree = in + out).
#[pyfunction]
#[pyo3(signature = (g, opts=None, doubled=false))]
fn kcore<'py>(
    py: Python<'py>,
    g: &PyGraph,
    opts: Option<RunOptions>,
    doubled: bool,
) -> PyResult<Values<'py, u32>> {
    let view = if doubled { g.doubled() } else { g.undirected() }.py_err()?;
    let o = go::<shipped::kcore::Program>(py, view, plan(opts, None)?)?;
    let cores: Vec<u32> = o.values.iter().map(|s| s.core).collect();
    Ok((cores.into_pyarray(py), report_json(&o.report)))
}

/// Triangles of the simple undirected graph.
#[pyfunction]
#[pyo3(signature = (g, opts=None))]
fn tc(py: Python<'_>, g: &PyGraph, opts: Option<RunOptions>) -> PyResult<(u64, String)> {
    let o = go::<shipped::triangles::Program>(py, g.undirected().py_err()?, plan(opts, None)?)?;
    Ok((o.values.total, report_json(&o.report)))
}

/// Local clustering coefficients of the simple undirected graph.
#[pyfunction]
#[pyo3(signature = (g, opts=None))]
fn lcc<'py>(py: Python<'py>, g: &PyGraph, opts: Option<RunOptions>) -> PyResult<Values<'py, f64>> {
    let o = go::<shipped::lcc::Program>(py, g.undirected().py_err()?, plan(opts, None)?)?;
    Ok((o.values.states.into_pyarray(py), report_json(&o.report)))
}

/// Triangles through each vertex of the simple undirected graph, from the
/// `lcc` program's coefficients `c = 2t / (d(d − 1))` (exact: `t` < 2^50).
#[pyfunction]
#[pyo3(signature = (g, opts=None))]
fn triangles_per_vertex<'py>(
    py: Python<'py>,
    g: &PyGraph,
    opts: Option<RunOptions>,
) -> PyResult<Values<'py, u64>> {
    let u = g.undirected().py_err()?;
    let o = go::<shipped::lcc::Program>(py, u, plan(opts, None)?)?;
    let t = o
        .values
        .states
        .iter()
        .enumerate()
        .map(|(v, c)| {
            let d = u.csr().degree(v as u32) as f64;
            (c * d * (d - 1.0) / 2.0).round() as u64
        })
        .collect();
    Ok(out(
        py,
        Outcome {
            values: t,
            report: o.report,
        },
    ))
}

/// Vertices with out-edges picked at random, reproducibly (gapbs's picker,
/// what `vertex bc --sources K` and `vertex closeness --sources K` use).
#[pyfunction]
fn pick_sources(g: &PyGraph, count: usize, seed: u64) -> PyResult<Vec<u32>> {
    Ok(runtime::generate::pick_roots(
        g.topo().py_err()?.csr(),
        count,
        seed,
    ))
}

/// Betweenness centrality from `sources` as gapbs defines it (the CLI's `bc`:
/// scores normalized by the largest): on the CPU (the shipped gather/apply
/// programs, one source after another) or, with `backend="gpu"`, the batched GPU
/// kernels (64 sources per edge sweep; the device and the upload are cached as the
/// one run call caches them).
#[pyfunction]
#[pyo3(signature = (g, sources, opts=None))]
fn bc<'py>(
    py: Python<'py>,
    g: &PyGraph,
    sources: Vec<u32>,
    opts: Option<RunOptions>,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let opts = opts.unwrap_or_default();
    let sg = g.squished().py_err()?;
    let n = sg.num_vertices();
    for &s in &sources {
        runtime::program::check_source(s, n).py_err()?;
    }
    let total = if backend(opts.backend.as_deref())? == runtime::run::Backend::Gpu {
        py.detach(|| bc_gpu(sg, &sources)).py_err()?
    } else {
        crate::nx::bc_dependencies(py, sg, &sources, opts.threads, false, true)?
    };
    Ok(runtime::cpu::brandes::normalize(total).into_pyarray(py))
}

/// Raw betweenness sums from `sources` on GPU 0, through the run call's cache.
fn bc_gpu(g: &runtime::graph::Graph<u32>, sources: &[u32]) -> runtime::Result<Vec<f64>> {
    use runtime::gpu::msbfs::MsbfsKernels;
    use runtime::run::device_cache::{self, GraphKey};
    device_cache::with(0, |slot| {
        let k = slot.kernels::<MsbfsKernels, MsbfsKernels>(|d| d.load_msbfs())?;
        let key = GraphKey {
            graph: g.id(),
            what: "msbfs",
            edges_per_thread: 0,
        };
        let dg = slot.graph(key, |d| d.upload(g.csr()))?;
        Ok(slot.device().betweenness(&k, &dg, sources, |_| {})?.scores)
    })
}

/// Closeness (or harmonic) centrality of `vertices`, networkx's definitions
/// (`runtime::closeness`), 64 searches per sweep; Ctrl-C between slices.
#[pyfunction]
#[pyo3(signature = (g, vertices, harmonic=false, threads=None))]
fn closeness<'py>(
    py: Python<'py>,
    g: &PyGraph,
    vertices: Vec<u32>,
    harmonic: bool,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    use runtime::ball_batches::{BallBatches, Batching};
    use runtime::closeness::{centrality_with, Measure};
    let topo = g.topo().py_err()?;
    // Balls over the whole list, once (not per slice: each would pay the
    // ordering's sweep over the graph for two batches' worth of sources).
    let balls = BallBatches::new(topo, &vertices);
    let m = if harmonic {
        Measure::Harmonic
    } else {
        Measure::Closeness
    };
    let mut scores = Vec::with_capacity(vertices.len());
    let slice = runtime::cpu::msbfs::LANES * runtime::cpu::threads_for(threads).max(1);
    for part in balls.sources.chunks(slice) {
        scores.extend(
            py.detach(|| centrality_with(topo, part, m, threads, Batching::Given))
                .py_err()?,
        );
        py.check_signals()?;
    }
    Ok(balls.back(scores).into_pyarray(py))
}

/// Frees what GPU runs keep between calls (opened GPUs, loaded kernels,
/// uploaded graphs, the GPUs of the last `gpus=N` run): for a caller done with
/// the GPU, or about to hand its memory to another library. The next GPU run
/// opens and uploads again.
#[pyfunction]
fn release_gpus(py: Python<'_>) {
    py.detach(runtime::run::device_cache::clear);
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(release_gpus, m)?)?;
    m.add_function(wrap_pyfunction!(bfs, m)?)?;
    m.add_function(wrap_pyfunction!(bfs_many, m)?)?;
    m.add_function(wrap_pyfunction!(sssp, m)?)?;
    m.add_function(wrap_pyfunction!(widest, m)?)?;
    m.add_function(wrap_pyfunction!(cc, m)?)?;
    m.add_function(wrap_pyfunction!(pagerank, m)?)?;
    m.add_function(wrap_pyfunction!(kcore, m)?)?;
    m.add_function(wrap_pyfunction!(tc, m)?)?;
    m.add_function(wrap_pyfunction!(lcc, m)?)?;
    m.add_function(wrap_pyfunction!(triangles_per_vertex, m)?)?;
    m.add_function(wrap_pyfunction!(pick_sources, m)?)?;
    m.add_function(wrap_pyfunction!(bc, m)?)?;
    m.add_function(wrap_pyfunction!(closeness, m)?)?;
    crate::paths::register(m)?;
    Ok(())
}
