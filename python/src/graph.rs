//! `vertex.Graph`: a runtime graph held by Python, and the ways in.
//!
//! Every way in ends in the runtime's CSR (`runtime::graph::Graph`): edge
//! arrays go through the parallel builder, scipy CSR arrays are checked and
//! taken as rows, files and generator specs through `runtime::load` (the CLI's
//! loader: `.vgr` snapshots are memory-mapped, not copied). Views a program
//! needs (structure without weights, the simple undirected graph) are built
//! once, on first use, and kept with the graph.

use std::sync::OnceLock;

use numpy::{PyArray1, PyReadonlyArray1};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use runtime::graph::{build_consuming, Buf, BuildOptions, Csr, EdgeList, Graph, WeightKind};
use runtime::load::{load_graph, weight_kind_of, LoadOptions};

use crate::errors::OrPy;

/// The graph as stored: integer (or no) weights, or float weights.
pub enum Store {
    U32(Graph<u32>),
    F64(Graph<f64>),
}

/// A graph in vertex's CSR form (0-based `u32` vertex ids).
#[pyclass(name = "Graph", module = "vertex._vertex", frozen)]
pub struct PyGraph {
    pub store: Store,
    /// The structure without weights (programs that ignore weights).
    topo: OnceLock<Graph<u32>>,
    /// Simple undirected view: both directions, no self-loops, no duplicates
    /// (triangles, clustering, k-core; what the CLI builds for them).
    undirected: OnceLock<Graph<u32>>,
    /// Self-loops and duplicates dropped, directions kept (gapbs's build, what
    /// the CLI's `pr` and `bc` run on).
    squished: OnceLock<Graph<u32>>,
    /// Both directions of every edge, self-loops dropped, repeats kept: the
    /// degree of a vertex is its in- plus out-degree (networkx's `core_number`
    /// of a directed graph).
    doubled: OnceLock<Graph<u32>>,
    /// Each row's targets in the order the source listed them (networkx's
    /// neighbour order, for `bfs_edges`); rows as in the CSR.
    pub listed_order: Option<Vec<u32>>,
}

impl PyGraph {
    pub fn new(store: Store) -> Self {
        PyGraph {
            store,
            topo: OnceLock::new(),
            undirected: OnceLock::new(),
            squished: OnceLock::new(),
            doubled: OnceLock::new(),
            listed_order: None,
        }
    }

    pub fn num_vertices(&self) -> usize {
        match &self.store {
            Store::U32(g) => g.num_vertices(),
            Store::F64(g) => g.num_vertices(),
        }
    }

    pub fn symmetric(&self) -> bool {
        match &self.store {
            Store::U32(g) => g.is_symmetric(),
            Store::F64(g) => g.is_symmetric(),
        }
    }

    /// Offsets and targets, whatever the weights.
    pub fn rows(&self) -> (&[u64], &[u32]) {
        match &self.store {
            Store::U32(g) => (g.csr().offsets(), g.csr().targets()),
            Store::F64(g) => (g.csr().offsets(), g.csr().targets()),
        }
    }

    /// The structure as a `Graph<u32>` (the stored graph itself when it has
    /// integer or no weights).
    pub fn topo(&self) -> runtime::Result<&Graph<u32>> {
        if let Store::U32(g) = &self.store {
            return Ok(g);
        }
        if let Some(g) = self.topo.get() {
            return Ok(g);
        }
        let (o, t) = self.rows();
        let csr = Csr::from_parts(Buf::from(o.to_vec()), Buf::from(t.to_vec()), None)?;
        Ok(self.topo.get_or_init(|| Graph::new(csr, self.symmetric())))
    }

    fn rebuilt(&self, opts: BuildOptions) -> runtime::Result<Graph<u32>> {
        let (o, t) = self.rows();
        let mut edges = Vec::with_capacity(t.len());
        for (u, w) in o.windows(2).enumerate() {
            for &v in &t[w[0] as usize..w[1] as usize] {
                edges.push([u as u32, v]);
            }
        }
        let el = EdgeList::<u32> {
            num_vertices: self.num_vertices(),
            edges,
            weights: None,
        };
        build_consuming(el, opts)
    }

    /// The simple undirected graph (see the field).
    pub fn undirected(&self) -> runtime::Result<&Graph<u32>> {
        if let Some(g) = self.undirected.get() {
            return Ok(g);
        }
        let g = self.rebuilt(BuildOptions::undirected())?;
        Ok(self.undirected.get_or_init(|| g))
    }

    /// Every edge both ways, repeats kept (see the field).
    pub fn doubled(&self) -> runtime::Result<&Graph<u32>> {
        if let Some(g) = self.doubled.get() {
            return Ok(g);
        }
        let g = self.rebuilt(BuildOptions {
            symmetrize: true,
            remove_self_loops: true,
            ..BuildOptions::default()
        })?;
        Ok(self.doubled.get_or_init(|| g))
    }

    /// Self-loops and duplicate edges dropped (see the field).
    pub fn squished(&self) -> runtime::Result<&Graph<u32>> {
        if let Some(g) = self.squished.get() {
            return Ok(g);
        }
        let g = if self.symmetric() {
            self.rebuilt(BuildOptions::undirected())?
        } else {
            self.rebuilt(BuildOptions {
                remove_self_loops: true,
                dedup: true,
                ..BuildOptions::default()
            })?
        };
        Ok(self.squished.get_or_init(|| g))
    }
}

/// `(indptr, indices, weights)` as numpy arrays.
type CsrArrays<'py> = (
    Bound<'py, PyArray1<u64>>,
    Bound<'py, PyArray1<u32>>,
    Option<Py<PyAny>>,
);

/// Weights from Python: integers (`u32`) or floats.
#[derive(FromPyObject)]
pub enum Weights<'py> {
    U32(PyReadonlyArray1<'py, u32>),
    F64(PyReadonlyArray1<'py, f64>),
}

#[pymethods]
impl PyGraph {
    #[getter]
    fn num_vertices_(&self) -> usize {
        self.num_vertices()
    }
    #[getter]
    fn num_edges(&self) -> u64 {
        self.rows().1.len() as u64
    }
    /// Whether the graph is undirected (stored with both directions).
    #[getter]
    fn is_symmetric(&self) -> bool {
        self.symmetric()
    }
    /// `"u32"`, `"f64"` or `None` (no weights).
    #[getter]
    fn weight_type(&self) -> Option<&'static str> {
        match &self.store {
            Store::U32(g) => g.csr().is_weighted().then_some("u32"),
            Store::F64(g) => g.csr().is_weighted().then_some("f64"),
        }
    }
    /// `(indptr, indices, weights or None)` as numpy arrays (copies).
    fn csr<'py>(&self, py: Python<'py>) -> CsrArrays<'py> {
        let (o, t) = self.rows();
        let w = match &self.store {
            Store::U32(g) => g
                .csr()
                .weights()
                .map(|w| PyArray1::from_slice(py, w).into_any().unbind()),
            Store::F64(g) => g
                .csr()
                .weights()
                .map(|w| PyArray1::from_slice(py, w).into_any().unbind()),
        };
        (PyArray1::from_slice(py, o), PyArray1::from_slice(py, t), w)
    }
    /// Whether the CSR arrays point into a memory-mapped `.vgr` file.
    #[getter]
    fn is_mapped(&self) -> bool {
        match &self.store {
            Store::U32(g) => g.csr().is_mapped(),
            Store::F64(g) => g.csr().is_mapped(),
        }
    }
}

/// Edge arrays (`src[i] → dst[i]`) to a graph: `directed=False` adds both
/// directions and keeps one copy of repeated edges (the smallest weight).
#[pyfunction]
#[pyo3(signature = (src, dst, num_vertices, weights=None, directed=true))]
fn from_edges(
    py: Python<'_>,
    src: PyReadonlyArray1<'_, u32>,
    dst: PyReadonlyArray1<'_, u32>,
    num_vertices: usize,
    weights: Option<Weights<'_>>,
    directed: bool,
) -> PyResult<PyGraph> {
    let (s, d) = (src.as_slice()?, dst.as_slice()?);
    if s.len() != d.len() {
        return Err(PyValueError::new_err(format!(
            "src has {} entries and dst {}: one per edge in each",
            s.len(),
            d.len()
        )));
    }
    let opts = BuildOptions {
        symmetrize: !directed,
        dedup: !directed,
        ..BuildOptions::default()
    };
    let edges = || s.iter().zip(d).map(|(&a, &b)| [a, b]).collect::<Vec<_>>();
    macro_rules! go {
        ($w:expr, $store:ident) => {{
            let w: Option<Vec<_>> = $w;
            if let Some(w) = &w {
                if w.len() != s.len() {
                    return Err(PyValueError::new_err(format!(
                        "{} weights for {} edges",
                        w.len(),
                        s.len()
                    )));
                }
            }
            let g = py.detach(|| {
                let el = EdgeList {
                    num_vertices,
                    edges: edges(),
                    weights: w,
                };
                el.validate()?;
                build_consuming(el, opts)
            });
            Store::$store(g.py_err()?)
        }};
    }
    let store = match weights {
        None => go!(None::<Vec<u32>>, U32),
        Some(Weights::U32(w)) => go!(Some(w.as_slice()?.to_vec()), U32),
        Some(Weights::F64(w)) => go!(Some(w.as_slice()?.to_vec()), F64),
    };
    Ok(PyGraph::new(store))
}

/// CSR arrays (scipy's `indptr`, `indices`, `data`) as rows, checked.
/// `symmetric=True` promises that the matrix is symmetric (the caller checked).
#[pyfunction]
#[pyo3(signature = (indptr, indices, weights=None, symmetric=false))]
fn from_csr(
    py: Python<'_>,
    indptr: PyReadonlyArray1<'_, u64>,
    indices: PyReadonlyArray1<'_, u32>,
    weights: Option<Weights<'_>>,
    symmetric: bool,
) -> PyResult<PyGraph> {
    let o = Buf::from(indptr.as_slice()?.to_vec());
    let t = Buf::from(indices.as_slice()?.to_vec());
    let store = match weights {
        None => Store::U32(Graph::new(
            py.detach(|| Csr::from_parts(o, t, None)).py_err()?,
            symmetric,
        )),
        Some(Weights::U32(w)) => {
            let w = Buf::from(w.as_slice()?.to_vec());
            Store::U32(Graph::new(
                py.detach(|| Csr::from_parts(o, t, Some(w))).py_err()?,
                symmetric,
            ))
        }
        Some(Weights::F64(w)) => {
            let w = Buf::from(w.as_slice()?.to_vec());
            Store::F64(Graph::new(
                py.detach(|| Csr::from_parts(o, t, Some(w))).py_err()?,
                symmetric,
            ))
        }
    };
    Ok(PyGraph::new(store))
}

/// A file or generator spec, read as the CLI reads it (`kron:16`,
/// `grid:100x100`, `mesh:10000`, `road.gr.gz`, `g.vgr`, ...). Returns the graph and, when the
/// loader renumbered vertices, `new_to_old`.
#[pyfunction]
#[pyo3(signature = (spec, symmetrize=false, ignore_weights=false, weights=None))]
fn load(
    py: Python<'_>,
    spec: &str,
    symmetrize: bool,
    ignore_weights: bool,
    weights: Option<(u64, u64, u64)>,
) -> PyResult<PyGraph> {
    runtime::progress::set_quiet(true);
    let opts = LoadOptions {
        symmetrize,
        ignore_weights,
        random_weights: weights,
        ..LoadOptions::default()
    };
    let kind = if ignore_weights {
        None
    } else {
        weight_kind_of(spec).py_err()?
    };
    let store = py.detach(|| -> runtime::Result<Store> {
        Ok(match kind {
            Some(WeightKind::F32 | WeightKind::F64) if weights.is_none() => {
                Store::F64(load_graph::<f64>(spec, &opts)?.graph)
            }
            _ => Store::U32(load_graph::<u32>(spec, &opts)?.graph),
        })
    });
    Ok(PyGraph::new(store.py_err()?))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(from_edges, m)?)?;
    m.add_function(wrap_pyfunction!(from_csr, m)?)?;
    m.add_function(wrap_pyfunction!(load, m)?)?;
    Ok(())
}
