//! Other projects' APSP solvers, run by [`super::run_cpu`] on the same
//! graph as ours (issue 8: "CPU blocked FW vs scipy and petgraph, same graph,
//! same machine, ratios").
//!
//! A peer returns its whole distance matrix in our encoding (i32, `i32::MAX` =
//! unreachable) and the bench compares it entry by entry with ours: a fast
//! wrong answer is not a time. Peers time only their solve (not the conversion
//! of the graph into their format, not file I/O), as we time only ours.
//!
//! [`Scipy`] lives here (a `python3` subprocess, no Rust dependency); a peer
//! that needs a crate (petgraph) is implemented by the binary that runs the
//! bench, so this crate does not depend on it.

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
