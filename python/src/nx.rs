//! What the networkx backend needs beyond the CLI's programs.
//!
//! * [`from_networkx`]: a networkx graph's adjacency (`G._adj`, dicts of
//!   dicts) read in Rust, without a Python-level loop, into the CSR; rows are
//!   sorted for the engines and their order as listed is kept for
//!   `bfs_edges`.
//! * [`pagerank_networkx`]: networkx's PageRank, its own power iteration
//!   round for round (weights normalized per vertex, dangling rank
//!   redistributed, personalization and start vectors).
//! * [`bc_dependencies`]: Brandes's per-source dependencies from the shipped
//!   `bc` programs, summed networkx's way (the source itself excluded, optional
//!   endpoints) instead of gapbs's.
//! * [`bfs_order`]: the BFS edges in networkx's order (queue order, neighbours
//!   as listed).

use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyInt, PyList};
use rayon::prelude::*;
use runtime::cpu::gather::{run as gather, run_from};
use runtime::gather::GatherOptions;
use runtime::graph::{Buf, Csr, Graph};
use vertex_examples::programs::bc;

use crate::errors::OrPy;
use crate::graph::{PyGraph, Store};

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

/// The vectors of networkx's PageRank beyond the graph: the teleport
/// distribution `p`, the start `x0`, and where dangling vertices send their
/// rank (`dangling`); each normalized to sum 1 by the caller, `None` =
/// uniform.
struct Vectors<'a> {
    p: Option<&'a [f64]>,
    x0: Option<&'a [f64]>,
    dangling: Option<&'a [f64]>,
}

/// networkx's own power iteration (its `_pagerank_scipy`), round for round:
/// `x ← α(xA + (Σ x[dangling])·d) + (1−α)p` from `x0`, stopping once
/// `Σ|x − x_prev| < n·tol`, at most `max_iter` rounds. The same iterates
/// and the same stopping rule give networkx's answer (to rounding) in the
/// rounds networkx takes, where running a rescaled iteration to a tighter
/// tolerance gave a different, more accurate answer at twice the rounds.
///
/// Not a `#[vertex_program]`: each round needs the rank held by dangling
/// vertices, a global sum the program model does not carry between rounds.
/// One pass per round over the in-edges (the graph's cached CSC): each
/// vertex pulls `x[u]/W(u)·w(u,v)` and, in the same pass, writes its own
/// message for the next round and adds to the next dangling sum and the
/// error. Returns the ranks, the rounds run and whether it converged.
fn power_iteration<W: runtime::graph::Weight + Into<f64>>(
    g: &Graph<W>,
    alpha: f64,
    tol: f64,
    max_iter: u32,
    weighted: bool,
    v: &Vectors<'_>,
) -> (Vec<f64>, u32, bool) {
    const CHUNK: usize = 256;
    let n = g.num_vertices();
    let out = g.csr();
    fn weights<W: runtime::graph::Weight>(c: &Csr<W>, weighted: bool) -> Option<&[W]> {
        c.weights().filter(|_| weighted)
    }
    // 1/W(u) (0 for a dangling vertex: out-weight 0, as networkx decides).
    let inv: Vec<f64> = (0..n)
        .into_par_iter()
        .map(|u| {
            let s: f64 = match weights(out, weighted) {
                None => out.degree(u as u32) as f64,
                Some(ws) => ws[out.edge_range(u as u32)].iter().map(|&w| w.into()).sum(),
            };
            if s != 0.0 {
                1.0 / s
            } else {
                0.0
            }
        })
        .collect();
    let uniform = 1.0 / n as f64;
    let mut x: Vec<f64> = match v.x0 {
        Some(x0) => x0.to_vec(),
        None => vec![uniform; n],
    };
    let mut msg: Vec<f64> = x.par_iter().zip(&inv).map(|(a, b)| a * b).collect();
    let mut dsum: f64 = x
        .par_iter()
        .zip(&inv)
        .filter(|(_, &i)| i == 0.0)
        .map(|(a, _)| a)
        .sum();
    let (mut next, mut next_msg) = (vec![0.0; n], vec![0.0; n]);
    let inc = g.csc();
    for round in 1..=max_iter {
        let (x_ref, msg_ref, inv_ref) = (&x, &msg, &inv);
        let (err, d) = next
            .par_chunks_mut(CHUNK)
            .zip(next_msg.par_chunks_mut(CHUNK))
            .enumerate()
            .map(|(c, (xs, ms))| {
                let (mut err, mut d) = (0.0, 0.0);
                for (i, (xn, m)) in xs.iter_mut().zip(ms.iter_mut()).enumerate() {
                    let w = c * CHUNK + i;
                    let mut acc = 0.0;
                    let r = inc.edge_range(w as u32);
                    let srcs = &inc.targets()[r.clone()];
                    match weights(inc, weighted) {
                        None => srcs.iter().for_each(|&u| acc += msg_ref[u as usize]),
                        Some(ws) => srcs
                            .iter()
                            .zip(&ws[r])
                            .for_each(|(&u, &x)| acc += msg_ref[u as usize] * x.into()),
                    }
                    let p = v.p.map_or(uniform, |p| p[w]);
                    let dw = v.dangling.map_or(uniform, |q| q[w]);
                    let val = alpha * (acc + dsum * dw) + (1.0 - alpha) * p;
                    err += (val - x_ref[w]).abs();
                    *xn = val;
                    *m = val * inv_ref[w];
                    if inv_ref[w] == 0.0 {
                        d += val;
                    }
                }
                (err, d)
            })
            .reduce(|| (0.0, 0.0), |a, b| (a.0 + b.0, a.1 + b.1));
        std::mem::swap(&mut x, &mut next);
        std::mem::swap(&mut msg, &mut next_msg);
        dsum = d;
        if err < n as f64 * tol {
            return (x, round, true);
        }
    }
    (x, max_iter, false)
}

/// networkx's PageRank by [`power_iteration`]: `(ranks, rounds, converged)`;
/// `weighted=False` reads every edge as weight 1 (networkx's `weight=None`).
/// `personalization`, `nstart`, `dangling`: per-vertex vectors already
/// normalized to sum 1 (the backend builds them from networkx's dicts), or
/// `None` for uniform.
#[pyfunction]
#[pyo3(signature = (g, alpha, tol, max_iter, weighted=true, personalization=None, nstart=None, dangling=None, threads=None))]
#[allow(clippy::too_many_arguments)]
fn pagerank_networkx<'py>(
    py: Python<'py>,
    g: &PyGraph,
    alpha: f64,
    tol: f64,
    max_iter: u32,
    weighted: bool,
    personalization: Option<PyReadonlyArray1<'py, f64>>,
    nstart: Option<PyReadonlyArray1<'py, f64>>,
    dangling: Option<PyReadonlyArray1<'py, f64>>,
    threads: Option<usize>,
) -> PyResult<(Bound<'py, PyArray1<f64>>, u32, bool)> {
    let n = g.num_vertices();
    let arrays = [&personalization, &nstart, &dangling];
    let slices = arrays
        .iter()
        .map(|a| a.as_ref().map(|a| a.as_slice()).transpose())
        .collect::<Result<Vec<_>, _>>()?;
    if let Some(bad) = slices.iter().flatten().find(|s| s.len() != n) {
        return Err(pyo3::exceptions::PyValueError::new_err(format!(
            "a PageRank vector has {} entries for {n} vertices",
            bad.len()
        )));
    }
    let v = Vectors {
        p: slices[0],
        x0: slices[1],
        dangling: slices[2],
    };
    let (ranks, rounds, converged) = py
        .detach(|| {
            runtime::cpu::in_pool(threads, || match &g.store {
                Store::U32(s) => power_iteration(s, alpha, tol, max_iter, weighted, &v),
                Store::F64(s) => power_iteration(s, alpha, tol, max_iter, weighted, &v),
            })
        })
        .py_err()?
        .0;
    Ok((ranks.into_pyarray(py), rounds, converged))
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
