//! Other projects' APSP solvers, run by [`super::run_cpu`] on the same
//! graph as ours (issue 8: "CPU blocked FW vs scipy and petgraph, same graph,
//! same machine, ratios").
//!
//! A peer returns its whole distance matrix in our encoding (i32, `i32::MAX` =
//! unreachable) and the bench compares it entry by entry with ours: a fast
//! wrong answer is not a time. Peers time only their solve (not the conversion
//! of the graph into their format, not file I/O), as we time only ours.
//!
//! [`Scipy`] is a `python3` subprocess (no Rust dependency); [`Petgraph`] calls
//! the crate.

use runtime::apsp::matrix::DistMatrix;
use runtime::error::{Error, Result};
use runtime::graph::Csr;

/// One peer solver.
pub trait CpuPeer {
    /// Name in the report's rows and ratios.
    fn name(&self) -> String;
    /// All-pairs distances of `g` (`adjacency` is its matrix in our encoding):
    /// seconds of the solve alone and the distances.
    fn solve(&self, g: &Csr<i32>, adjacency: &DistMatrix<i32>) -> Result<(f64, DistMatrix<i32>)>;
}

/// `scipy.sparse.csgraph.floyd_warshall` (single-threaded Cython) in a
/// `python3` subprocess, fed the matrix as raw f64 (∞ = no edge); timed inside
/// Python around the call.
pub struct Scipy;

const SCIPY: &str = r#"
import json, sys, time
import numpy as np
from scipy.sparse.csgraph import floyd_warshall
n = int(sys.argv[2])
a = np.fromfile(sys.argv[1], dtype=np.float64).reshape(n, n)
t = time.perf_counter()
d = floyd_warshall(a, directed=True)
t = time.perf_counter() - t
d.astype(np.float64).tofile(sys.argv[3])
print(json.dumps({"seconds": t}))
"#;

impl CpuPeer for Scipy {
    fn name(&self) -> String {
        "scipy floyd_warshall".into()
    }

    fn solve(&self, _g: &Csr<i32>, m: &DistMatrix<i32>) -> Result<(f64, DistMatrix<i32>)> {
        let dir = tempfile::tempdir().map_err(|e| Error::io(std::env::temp_dir(), e))?;
        let (input, output) = (dir.path().join("a.f64"), dir.path().join("d.f64"));
        let a: Vec<f64> = m
            .as_slice()
            .iter()
            .map(|&x| {
                if x == i32::MAX {
                    f64::INFINITY
                } else {
                    x as f64
                }
            })
            .collect();
        std::fs::write(&input, bytemuck::cast_slice(&a)).map_err(|e| Error::io(&input, e))?;
        let out = std::process::Command::new("python3")
            .arg("-c")
            .arg(SCIPY)
            .arg(&input)
            .arg(m.n().to_string())
            .arg(&output)
            .output()
            .map_err(|e| Error::io("python3", e))?;
        if !out.status.success() {
            return Err(Error::InvalidArgument(format!(
                "python3/scipy failed: {}",
                String::from_utf8_lossy(&out.stderr)
                    .lines()
                    .last()
                    .unwrap_or("")
            )));
        }
        let v: serde_json::Value = serde_json::from_slice(&out.stdout)
            .map_err(|e| Error::InvalidArgument(format!("scipy output: {e}")))?;
        let bytes = std::fs::read(&output).map_err(|e| Error::io(&output, e))?;
        if bytes.len() != m.n() * m.n() * 8 {
            return Err(Error::format(
                &output,
                "scipy wrote a matrix of the wrong size",
            ));
        }
        let d = bytes
            .chunks_exact(8)
            .map(|b| {
                let mut x = [0u8; 8];
                x.copy_from_slice(b);
                let x = f64::from_le_bytes(x);
                if x.is_finite() {
                    x as i32
                } else {
                    i32::MAX
                }
            })
            .collect();
        Ok((
            v["seconds"].as_f64().unwrap_or(f64::NAN),
            DistMatrix::from_vec(m.n(), d)?,
        ))
    }
}

/// `petgraph::algo::floyd_warshall` (single-threaded, `Vec<Vec<i32>>` distances,
/// a `HashMap` of all n² pairs as its result) on a `petgraph::Graph` holding the
/// same edges. Timed around the call alone; `i32::MAX` is petgraph's "no path"
/// too (its overflow-checked add never extends it).
pub struct Petgraph;

impl CpuPeer for Petgraph {
    fn name(&self) -> String {
        "petgraph floyd_warshall".into()
    }

    fn solve(
        &self,
        g: &Csr<i32>,
        _adjacency: &DistMatrix<i32>,
    ) -> runtime::Result<(f64, DistMatrix<i32>)> {
        use petgraph::graph::{Graph, NodeIndex};
        let n = g.num_vertices();
        let mut pg = Graph::<(), i32>::with_capacity(n, g.num_edges() as usize);
        for _ in 0..n {
            pg.add_node(());
        }
        let (offsets, targets) = (g.offsets(), g.targets());
        let weights = g.weights();
        for u in 0..n {
            for e in offsets[u] as usize..offsets[u + 1] as usize {
                let w = weights.map_or(1, |w| w[e]);
                pg.add_edge(NodeIndex::new(u), NodeIndex::new(targets[e] as usize), w);
            }
        }
        let t0 = std::time::Instant::now();
        let dist = petgraph::algo::floyd_warshall(&pg, |e| *e.weight()).map_err(|_| {
            runtime::Error::NegativeCycle("petgraph's floyd_warshall found one".into())
        })?;
        let secs = t0.elapsed().as_secs_f64();
        let mut d = vec![i32::MAX; n * n];
        for ((a, b), x) in dist {
            d[a.index() * n + b.index()] = x;
        }
        Ok((secs, DistMatrix::from_vec(n, d)?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use runtime::apsp::fw_cpu;
    use runtime::apsp::MinPlus;

    /// petgraph's matrix equals our blocked FW (and so can be compared at all).
    #[test]
    fn petgraph_peer_matches_blocked_fw() {
        for (n, density) in [(1, 0.5), (37, 0.08), (130, 0.03)] {
            let g = crate::apsp::random_graph(n, density, 1, 100, n as u64).unwrap();
            let m0 = DistMatrix::adjacency::<MinPlus<i32>, i32>(&g, 1, Some).unwrap();
            let mut ours = m0.clone();
            fw_cpu::blocked::<MinPlus<i32>>(&mut ours, None, 32).unwrap();
            let (_, theirs) = Petgraph.solve(&g, &m0).unwrap();
            assert_eq!(theirs, ours, "n {n}");
        }
    }
}
