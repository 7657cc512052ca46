//! Checks of a shortest-path result on the distributed graph (the search
//! itself runs on GPU ranks: `gpu::multi::ranks`).

use rayon::prelude::*;

use super::comm::Comm;
use super::part::RankGraph;
use crate::error::Result;

/// Distance of a vertex the search did not reach.
pub const UNREACHED_DIST: u64 = u64::MAX;

/// The certificate of shortest-path distances, checked for the rows each
/// rank holds: the source at 0; for every edge `u→v` with `u` reached, `v`
/// reached and `d(v) ≤ d(u) + w(u, v)`; every reached vertex but the source
/// with an in-edge where equality holds. `dist` is this rank's vertices'
/// distances, `weight(u, v)` the edge's weight (as the ranks uploaded them).
/// Needs every rank's distances (all-gathered: 8 bytes a vertex on each
/// rank). Returns the number of violations over all ranks (0: these are the
/// shortest distances).
pub fn validate_sssp(
    g: &RankGraph,
    comm: &Comm,
    source: u32,
    dist: &[u64],
    weight: impl Fn(u32, u32) -> u64 + Sync,
) -> Result<u64> {
    let mut all = vec![UNREACHED_DIST; g.num_vertices];
    comm.all_gather_into(dist, |r| g.parts.range(r), &mut all, "distances")?;
    let bad: u64 = (0..g.rows())
        .into_par_iter()
        .map(|i| {
            let v = g.first + i;
            let d = all[v];
            let mut errs = u64::from((v == source as usize) != (d == 0));
            let mut tight = false;
            for &u in g.neighbors(v) {
                let du = all[u as usize];
                if du == UNREACHED_DIST {
                    continue;
                }
                let via = du.saturating_add(weight(u, v as u32));
                errs += u64::from(d > via);
                tight |= d == via;
            }
            if d != UNREACHED_DIST && d > 0 && !tight {
                errs += 1;
            }
            errs
        })
        .sum();
    comm.all_reduce_sum(bad)
}
