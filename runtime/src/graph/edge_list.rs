//! The interchange form every reader produces and every generator emits.

use super::weight::Weight;
use crate::error::{Error, Result};

/// A list of directed edges `(src, dst)` with optional weights.
///
/// `num_vertices` may exceed `max id + 1` (isolated trailing vertices are real
/// vertices, e.g. from a Matrix Market header).
#[derive(Clone, Debug, PartialEq)]
pub struct EdgeList<W: Weight = u32> {
    /// Number of vertices; every id is `< num_vertices`.
    pub num_vertices: usize,
    /// Edges as `[src, dst]`.
    pub edges: Vec<[u32; 2]>,
    /// One weight per edge, or `None` for an unweighted graph.
    pub weights: Option<Vec<W>>,
}

/// Largest vertex count representable with u32 ids.
pub const MAX_VERTICES: usize = 1 << 32;

impl<W: Weight> EdgeList<W> {
    /// An empty unweighted list over `num_vertices` vertices.
    pub fn new(num_vertices: usize) -> Self {
        EdgeList {
            num_vertices,
            edges: Vec::new(),
            weights: None,
        }
    }

    /// Number of edges.
    pub fn len(&self) -> usize {
        self.edges.len()
    }

    /// Whether there are no edges.
    pub fn is_empty(&self) -> bool {
        self.edges.is_empty()
    }

    /// Checks the invariants a builder relies on: ids in range, weights aligned.
    pub fn validate(&self) -> Result<()> {
        if self.num_vertices > MAX_VERTICES {
            return Err(Error::InvalidGraph(format!(
                "{} vertices do not fit 32-bit vertex ids (max {MAX_VERTICES})",
                self.num_vertices
            )));
        }
        if let Some(w) = &self.weights {
            if w.len() != self.edges.len() {
                return Err(Error::InvalidGraph(format!(
                    "{} weights for {} edges",
                    w.len(),
                    self.edges.len()
                )));
            }
        }
        let n = self.num_vertices as u64;
        if let Some((i, e)) = self
            .edges
            .iter()
            .enumerate()
            .find(|(_, e)| e[0] as u64 >= n || e[1] as u64 >= n)
        {
            return Err(Error::InvalidGraph(format!(
                "edge {i} ({} -> {}) has a vertex id >= vertex count {n}",
                e[0], e[1]
            )));
        }
        Ok(())
    }

    /// Converts the weights to another type (e.g. u32 generator weights to f64).
    pub fn map_weights<V: Weight>(self, f: impl Fn(W) -> V) -> EdgeList<V> {
        EdgeList {
            num_vertices: self.num_vertices,
            edges: self.edges,
            weights: self.weights.map(|w| w.into_iter().map(f).collect()),
        }
    }
}
