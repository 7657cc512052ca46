//! What the networkx backend needs beyond the CLI's programs.
//!
//! * [`from_networkx`]: a networkx graph's adjacency (`G._adj`, dicts of
//!   dicts) read in Rust, without a Python-level loop, into the CSR; rows are
//!   sorted for the engines and their order as listed is kept for
//!   `bfs_edges`.
//! * [`pagerank_nx`]: networkx's PageRank (weights normalized per vertex, the
//!   rank of dangling vertices redistributed like the teleport), by a gather
//!   program of our own (see its docs for why it is exact); on graphs without
//!   weights, [`pagerank_nx_unweighted`] runs on the stored graph itself.
//! * [`bc_dependencies`]: Brandes's per-source dependencies from the shipped
//!   `bc` programs, summed networkx's way (the source itself excluded, optional
//!   endpoints) instead of gapbs's.
//! * [`bfs_order`]: the BFS edges in networkx's order (queue order, neighbours
//!   as listed).

use numpy::{IntoPyArray, PyArray1};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyInt, PyList};
use rayon::prelude::*;
use runtime::cpu::gather::{run as gather, run_from};
use runtime::gather::GatherOptions;
use runtime::graph::{Buf, Csr, Graph};
use vertex_dsl::prelude::*;
use vertex_examples::programs::bc;

use crate::errors::OrPy;
use crate::graph::{PyGraph, Store};

/// PageRank as networkx computes it, up to scale.
///
/// networkx iterates `x = α(Wᵀx + (d·x)p) + (1−α)p` (`W` row-stochastic from
/// the weights, `d` the dangling vertices, `p` uniform). The bracketed scalar
/// is one number per round, so the fixed point is `x ∝ (I − αWᵀ)⁻¹p`: the
/// fixed point of `y = αWᵀy + 1` normalized to sum 1. This program iterates
/// that (α folded into the edge weights `α·w/Σw`, so it needs no parameter),
/// and the caller normalizes. Convergence is at rate α, as networkx's.
#[vertex_program(gather = sum, reduce = sum)]
pub mod pagerank_nx {
    pub type State = f64;
    pub type Msg = f64;
    pub type Acc = f64;
    pub type Weight = f64;
    pub const MAX_ROUNDS: u32 = 1000;
    pub const TOLERANCE: f64 = 1e-9;

    pub fn init(_ctx: Ctx) -> State {
        1.0
    }
    pub fn emit(y: State) -> Msg {
        y
    }
    pub fn gather(y: Msg, w: Weight) -> Acc {
        y * w
    }
    pub fn apply(_ctx: Ctx, _old: State, incoming: Acc) -> State {
        1.0 + incoming
    }
    pub fn reduce(old: State, new: State) -> f64 {
        (new - old).abs()
    }
}

/// [`pagerank_nx`] on a graph without weights (every networkx weight 1, the
/// common case): `α·y/outdeg` is sent once per vertex, so the run reads the
/// graph as it is stored (and the transpose it keeps), with no per-edge copy
/// of normalized weights. α rides in the state, set by the caller's initial
/// states, as programs take no parameters.
#[vertex_program(gather = sum, reduce = sum)]
pub mod pagerank_nx_unweighted {
    /// The iterate, and α.
    #[repr(C)]
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub struct Rank {
        pub y: f64,
        pub alpha: f64,
    }
    pub type State = Rank;
    pub type Msg = f64;
    pub type Acc = f64;
    pub const MAX_ROUNDS: u32 = 1000;
    pub const TOLERANCE: f64 = 1e-9;

    pub fn init(_ctx: Ctx) -> State {
        Rank {
            y: 1.0,
            alpha: 0.85,
        }
    }
    pub fn emit(ctx: Ctx, s: State) -> Msg {
        if ctx.out_degree == 0 {
            0.0
        } else {
            s.alpha * s.y / ctx.out_degree as f64
        }
    }
    pub fn gather(m: Msg) -> Acc {
        m
    }
    pub fn apply(_ctx: Ctx, old: State, incoming: Acc) -> State {
        Rank {
            y: 1.0 + incoming,
            alpha: old.alpha,
        }
    }
    pub fn reduce(old: State, new: State) -> f64 {
        (new.y - old.y).abs()
    }
}

/// Reads `G._adj` (`adj`), in node order, into a graph: networkx weights
/// (`attrs.get(weight, 1)`; the smallest of parallel edges in a multigraph).
/// Returns the graph, the node labels in order, and facts the backend's
/// `can_run` needs: self-loops, negative weights, whether every weight is a
/// Python int.
#[pyfunction]
#[pyo3(signature = (adj, weight=None, directed=true, multigraph=false))]
fn from_networkx<'py>(
    py: Python<'py>,
    adj: &Bound<'py, PyDict>,
    weight: Option<&str>,
    directed: bool,
    multigraph: bool,
) -> PyResult<(PyGraph, Bound<'py, PyList>, Bound<'py, PyDict>)> {
    let n = adj.len();
    if n > runtime::graph::MAX_VERTICES {
        return Err(pyo3::exceptions::PyValueError::new_err(format!(
            "{n} nodes do not fit vertex's 32-bit ids"
        )));
    }
    // Nodes 0..n-1 in order (the common case): a neighbour's id is its value,
    // no dict lookup (each costs a hash and a cache miss).
    let nodes = PyList::empty(py);
    let mut identity = true;
    for (i, node) in adj.keys().iter().enumerate() {
        identity = identity
            && node.is_exact_instance_of::<PyInt>()
            && node.extract::<u64>().ok() == Some(i as u64);
        nodes.append(node)?;
    }
    let index = PyDict::new(py);
    if !identity {
        for (i, node) in nodes.iter().enumerate() {
            index.set_item(node, i as u32)?;
        }
    }
    let lookup = |v: &Bound<'py, PyAny>| -> PyResult<u32> {
        if identity && v.is_exact_instance_of::<PyInt>() {
            if let Ok(i) = v.extract::<u32>() {
                if (i as usize) < n {
                    return Ok(i);
                }
            }
        }
        let found = if identity {
            // A neighbour equal to a node but not an int (1.0 == 1): as Python sees it.
            nodes.index(v).ok().map(|i| i as u32)
        } else {
            index.get_item(v)?.map(|i| i.extract()).transpose()?
        };
        found.ok_or_else(|| pyo3::exceptions::PyValueError::new_err("a neighbour is not a node"))
    };
    let mut offsets = Vec::with_capacity(n + 1);
    offsets.push(0u64);
    let mut targets = Vec::new();
    let mut weights = Vec::new();
    let (mut self_loops, mut negative, mut all_int) = (0u64, false, true);
    let key = weight.map(|w| pyo3::types::PyString::new(py, w));
    let weight_of = |attrs: &Bound<'py, PyAny>, all_int: &mut bool| -> PyResult<f64> {
        let Some(k) = &key else { return Ok(1.0) };
        let d = attrs.downcast::<PyDict>()?;
        match d.get_item(k)? {
            None => Ok(1.0),
            Some(w) => {
                *all_int &= w.is_instance_of::<PyInt>();
                w.extract::<f64>()
            }
        }
    };
    for (u, (_, nbrs)) in adj.iter().enumerate() {
        let nbrs = nbrs.downcast::<PyDict>()?;
        for (v, attrs) in nbrs.iter() {
            let vi = lookup(&v)?;
            let w = if multigraph && key.is_some() {
                let mut best = f64::INFINITY;
                for (_, a) in attrs.downcast::<PyDict>()?.iter() {
                    best = best.min(weight_of(&a, &mut all_int)?);
                }
                best
            } else if key.is_some() {
                weight_of(&attrs, &mut all_int)?
            } else {
                1.0
            };
            self_loops += (vi == u as u32) as u64;
            negative |= w < 0.0;
            targets.push(vi);
            weights.push(w);
        }
        offsets.push(targets.len() as u64);
    }
    let listed = targets.clone();
    let weighted = key.is_some();
    let store = py.detach(|| -> runtime::Result<Store> {
        sort_rows(&offsets, &mut targets, &mut weights);
        let ints = all_int
            && weights
                .iter()
                .all(|&w| (0.0..=u32::MAX as f64).contains(&w));
        let (o, t) = (Buf::from(offsets), Buf::from(targets));
        Ok(if !weighted {
            Store::U32(Graph::new(Csr::from_parts(o, t, None)?, !directed))
        } else if ints {
            let w: Vec<u32> = weights.iter().map(|&w| w as u32).collect();
            Store::U32(Graph::new(
                Csr::from_parts(o, t, Some(Buf::from(w)))?,
                !directed,
            ))
        } else {
            Store::F64(Graph::new(
                Csr::from_parts(o, t, Some(Buf::from(weights)))?,
                !directed,
            ))
        })
    });
    let mut g = PyGraph::new(store.py_err()?);
    g.listed_order = Some(listed);
    let facts = PyDict::new(py);
    facts.set_item("self_loops", self_loops)?;
    facts.set_item("negative", negative)?;
    facts.set_item("all_int", all_int)?;
    // Nodes 0..n-1 in order: results map ids to labels as they are.
    facts.set_item("identity", identity)?;
    Ok((g, nodes, facts))
}

/// Sorts each row by target (weights alongside), as the builder leaves rows.
fn sort_rows(offsets: &[u64], targets: &mut [u32], weights: &mut [f64]) {
    let mut pairs: Vec<(u32, f64)> = Vec::new();
    for w in offsets.windows(2) {
        let (a, b) = (w[0] as usize, w[1] as usize);
        if targets[a..b].windows(2).all(|p| p[0] <= p[1]) {
            continue;
        }
        pairs.clear();
        pairs.extend(
            targets[a..b]
                .iter()
                .copied()
                .zip(weights[a..b].iter().copied()),
        );
        pairs.sort_unstable_by(|x, y| x.0.cmp(&y.0).then(x.1.total_cmp(&y.1)));
        for (i, (t, w)) in pairs.iter().enumerate() {
            targets[a + i] = *t;
            weights[a + i] = *w;
        }
    }
}

/// networkx's PageRank (see [`pagerank_nx`]): ranks summing to 1, and the
/// rounds it took (`max_rounds` reached = not converged).
#[pyfunction]
#[pyo3(signature = (g, alpha, tolerance, max_rounds, threads=None))]
fn pagerank_networkx<'py>(
    py: Python<'py>,
    g: &PyGraph,
    alpha: f64,
    tolerance: f64,
    max_rounds: u32,
    threads: Option<usize>,
) -> PyResult<(Bound<'py, PyArray1<f64>>, u64)> {
    let opts = GatherOptions {
        max_rounds: Some(max_rounds),
        tolerance: Some(tolerance),
        threads,
        ..Default::default()
    };
    let normalized = |y: &mut dyn Iterator<Item = f64>| -> Vec<f64> {
        let y: Vec<f64> = y.collect();
        let total: f64 = y.iter().sum();
        y.iter().map(|v| v / total).collect()
    };
    if let Store::U32(s) = &g.store {
        let unweighted = s
            .csr()
            .weights()
            .is_none_or(|w| w.par_iter().all(|&x| x == 1));
        if unweighted {
            let run = py.detach(|| -> runtime::Result<(Vec<f64>, u64)> {
                let start = vec![pagerank_nx_unweighted::Rank { y: 1.0, alpha }; s.num_vertices()];
                let r = run_from::<pagerank_nx_unweighted::Program, u32>(s, &opts, start)?;
                let ranks = normalized(&mut r.states.iter().map(|s| s.y));
                Ok((ranks, r.report.rounds as u64))
            });
            let (ranks, rounds) = run.py_err()?;
            return Ok((ranks.into_pyarray(py), rounds));
        }
    }
    let (offsets, _) = g.rows();
    let raw: Vec<f64> = match &g.store {
        Store::U32(s) => match s.csr().weights() {
            Some(w) => w.iter().map(|&x| x as f64).collect(),
            None => vec![1.0; s.csr().num_edges() as usize],
        },
        Store::F64(s) => s.csr().weights().map(<[f64]>::to_vec).unwrap_or_default(),
    };
    let run = py.detach(|| -> runtime::Result<(Vec<f64>, u64)> {
        let mut w = raw;
        for r in offsets.windows(2) {
            let row = &mut w[r[0] as usize..r[1] as usize];
            let sum: f64 = row.iter().sum();
            let scale = if sum != 0.0 { alpha / sum } else { 0.0 };
            row.iter_mut().for_each(|x| *x *= scale);
        }
        let (o, t) = g.rows();
        let csr = Csr::from_parts(
            Buf::from(o.to_vec()),
            Buf::from(t.to_vec()),
            Some(Buf::from(w)),
        )?;
        // Not symmetric: the normalized weights differ by direction.
        let graph = Graph::new(csr, false);
        let r = gather::<pagerank_nx::Program, f64>(&graph, &opts)?;
        Ok((
            normalized(&mut r.states.iter().copied()),
            r.report.rounds as u64,
        ))
    });
    let (ranks, rounds) = run.py_err()?;
    Ok((ranks.into_pyarray(py), rounds))
}

/// Σ over `sources` of Brandes's dependencies, by the shipped `bc` programs
/// on `g` (forward) and `t` (its transpose; `None`: `g` is undirected). gapbs
/// (`gapbs=true`) adds the source's own dependency; networkx does not, and
/// with `endpoints` adds 1 per reached vertex and the reached count to the
/// source.
fn dependencies(
    py: Python<'_>,
    g: &Graph<u32>,
    t: Option<&Graph<u32>>,
    sources: &[u32],
    threads: Option<usize>,
    endpoints: bool,
    gapbs: bool,
) -> PyResult<Vec<f64>> {
    let n = g.num_vertices();
    py.detach(|| -> runtime::Result<Vec<f64>> {
        let mut total = vec![0.0f64; n];
        for &s in sources {
            let opts = GatherOptions {
                source: Some(s),
                threads,
                ..Default::default()
            };
            let fwd = gather::<bc::bc_paths::Program, u32>(g, &opts)?;
            let opts = GatherOptions {
                source: None,
                ..opts
            };
            let deps = run_from::<bc::bc_deps::Program, u32>(
                t.unwrap_or(g),
                &opts,
                bc::deps_from_paths(&fwd.states),
            )?;
            let mut reached = 0.0;
            for (v, d) in deps.states.iter().enumerate() {
                if d.depth == bc::bc_paths::UNREACHED || (v as u32 == s && !gapbs) {
                    continue;
                }
                total[v] += d.delta + if endpoints { 1.0 } else { 0.0 };
                reached += 1.0;
            }
            if endpoints {
                total[s as usize] += reached;
            }
        }
        Ok(total)
    })
    .py_err()
}

/// [`dependencies`] over all of `sources` on `g` (the transpose built here
/// when `g` is directed), in slices between which Ctrl-C is honoured.
pub fn bc_dependencies(
    py: Python<'_>,
    g: &Graph<u32>,
    sources: &[u32],
    threads: Option<usize>,
    endpoints: bool,
    gapbs: bool,
) -> PyResult<Vec<f64>> {
    let t = (!g.is_symmetric()).then(|| g.transposed());
    let mut total = vec![0.0; g.num_vertices()];
    for slice in sources.chunks(16) {
        let part = dependencies(py, g, t.as_ref(), slice, threads, endpoints, gapbs)?;
        total.iter_mut().zip(part).for_each(|(a, b)| *a += b);
        py.check_signals()?;
    }
    Ok(total)
}

/// networkx's (unnormalized) betweenness sums from `sources` (see
/// [`dependencies`]).
#[pyfunction]
#[pyo3(signature = (g, sources, endpoints=false, threads=None))]
fn betweenness_networkx<'py>(
    py: Python<'py>,
    g: &PyGraph,
    sources: Vec<u32>,
    endpoints: bool,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let sg = g.squished().py_err()?;
    let total = bc_dependencies(py, sg, &sources, threads, endpoints, false)?;
    Ok(total.into_pyarray(py))
}

/// `(parents, children)` of BFS edges.
type EdgeArrays<'py> = (Bound<'py, PyArray1<u32>>, Bound<'py, PyArray1<u32>>);

/// networkx's `bfs_edges` order: `(parents, children)` in the order networkx
/// yields them (queue order, neighbours as listed), up to `depth_limit`.
#[pyfunction]
#[pyo3(signature = (g, source, depth_limit=None))]
fn bfs_order<'py>(
    py: Python<'py>,
    g: &PyGraph,
    source: u32,
    depth_limit: Option<u64>,
) -> PyResult<EdgeArrays<'py>> {
    let (offsets, sorted) = g.rows();
    let listed = g.listed_order.as_deref().unwrap_or(sorted);
    let n = g.num_vertices();
    runtime::program::check_source(source, n).py_err()?;
    let (parents, children) = py.detach(|| {
        let mut seen = vec![false; n];
        seen[source as usize] = true;
        let (mut parents, mut children) = (Vec::new(), Vec::new());
        let mut level = vec![source];
        let mut depth = 0u64;
        while !level.is_empty() && depth_limit.is_none_or(|d| depth < d) {
            let mut next = Vec::new();
            for &u in &level {
                for &v in &listed[offsets[u as usize] as usize..offsets[u as usize + 1] as usize] {
                    if !seen[v as usize] {
                        seen[v as usize] = true;
                        parents.push(u);
                        children.push(v);
                        next.push(v);
                    }
                }
            }
            level = next;
            depth += 1;
        }
        (parents, children)
    });
    Ok((parents.into_pyarray(py), children.into_pyarray(py)))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(from_networkx, m)?)?;
    m.add_function(wrap_pyfunction!(pagerank_networkx, m)?)?;
    m.add_function(wrap_pyfunction!(betweenness_networkx, m)?)?;
    m.add_function(wrap_pyfunction!(bfs_order, m)?)?;
    Ok(())
}
