//! Shortest-path certificate: distances are exact iff the source is 0, no edge can
//! improve any distance, and every reached vertex has a tight incoming edge.

use rayon::prelude::*;

use crate::graph::{Csr, Weight};

/// Checks `dist` (with `None` = unreachable) against the graph. `add` is the path
/// weight operator (checked, so overflow is a failure rather than a wrap), and
/// weights must be non-negative for the tightness rule to prove optimality.
pub fn validate_sssp<W: Weight, D: Copy + PartialOrd + std::fmt::Debug + Send + Sync>(
    g: &Csr<W>,
    source: u32,
    dist: &[Option<D>],
    zero: D,
    add: impl Fn(D, W) -> Option<D> + Sync,
) -> Result<(), String> {
    let n = g.num_vertices();
    if dist.len() != n {
        return Err(format!("{} distances for {n} vertices", dist.len()));
    }
    if dist.get(source as usize).copied().flatten() != Some(zero) {
        return Err(format!(
            "source {source} has distance {:?}, not 0",
            dist[source as usize]
        ));
    }
    // No edge relaxes: d[v] <= d[u] + w, and reached u implies reached v.
    let relaxable = (0..n as u32).into_par_iter().find_map_any(|u| {
        let du = dist[u as usize]?;
        let ws = g.neighbor_weights(u);
        g.neighbors(u).iter().enumerate().find_map(|(i, &v)| {
            let w = ws.map_or(W::ONE, |ws| ws[i]);
            let cand = add(du, w)?;
            match dist[v as usize] {
                None => Some(format!("edge {u}->{v}: {u} reached but {v} is not")),
                Some(dv) if cand < dv => Some(format!(
                    "edge {u}->{v} improves {v} from {dv:?} to {cand:?}"
                )),
                _ => None,
            }
        })
    });
    if let Some(e) = relaxable {
        return Err(e);
    }
    // Tightness: each reached v != source has some u with d[u] + w == d[v].
    let csc = g.transpose();
    let untight = (0..n as u32).into_par_iter().find_map_any(|v| {
        let dv = dist[v as usize]?;
        if v == source {
            return None;
        }
        let ws = csc.neighbor_weights(v);
        let tight = csc.neighbors(v).iter().enumerate().any(|(i, &u)| {
            let w = ws.map_or(W::ONE, |ws| ws[i]);
            dist[u as usize].and_then(|du| add(du, w)) == Some(dv)
        });
        (!tight).then(|| format!("vertex {v}: distance {dv:?} is not reached by any incoming edge"))
    });
    match untight {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::{build, BuildOptions, EdgeList};

    #[test]
    fn certificate() {
        let el = EdgeList::<u32> {
            num_vertices: 4,
            edges: vec![[0, 1], [1, 2], [0, 2]],
            weights: Some(vec![1, 1, 5]),
        };
        let g = build(&el, BuildOptions::default()).unwrap().into_csr();
        let add = |d: u64, w: u32| d.checked_add(w as u64);
        validate_sssp(&g, 0, &[Some(0), Some(1), Some(2), None], 0u64, add).unwrap();
        assert!(validate_sssp(&g, 0, &[Some(0), Some(1), Some(5), None], 0u64, add).is_err());
        assert!(validate_sssp(&g, 0, &[Some(0), Some(1), Some(1), None], 0u64, add).is_err());
        assert!(validate_sssp(&g, 0, &[Some(0), Some(1), None, None], 0u64, add).is_err());
    }
}
