//! Graph500 BFS-tree validation on the GPUs of a partition: each GPU checks its
//! own vertices on the rows it holds (their in-edges, the same edges on a
//! symmetric graph), so a tree of a graph that only several GPUs hold is checked
//! without the host's validator (scale 27: 2.7 s a tree on 16 cores, and eight
//! times the edges at scale 30).

use super::device::{MultiGpu, MultiGraph};
use super::partition::{part_graph, Partition};
use crate::error::{Error, Result};
use crate::gpu::launcher::{DeviceLauncher, HostLauncher};
use crate::gpu::tree_check::{check_on, needs_symmetric, precheck, verdict_message};

impl MultiGpu {
    /// Checks the BFS tree (`levels`, `parents`, every vertex's) from `root` on
    /// the GPUs holding `mg`, by the rules of [`crate::gpu::Device::check_bfs_tree`]:
    /// the outer `Result` is a CUDA or argument error, the inner one the verdict,
    /// naming the lowest failing vertex of any part and the rule it breaks. Each
    /// GPU receives the whole tree (`8 n` bytes). One process driving every GPU
    /// only: a rank holds its own vertices' levels, not the whole tree.
    pub fn check_bfs_tree(
        &self,
        mg: &MultiGraph,
        root: u32,
        levels: &[u32],
        parents: &[u32],
    ) -> Result<std::result::Result<(), String>> {
        self.whole_graph_only("the ranks' host validation")?;
        needs_symmetric(mg.symmetric)?;
        let n = mg.part.n;
        if let Some(msg) = precheck(n, root, levels, parents)? {
            return Ok(Err(msg));
        }
        // Each GPU on a thread of its own: the tree's upload (8 n bytes, 2 GB
        // at scale 28) is most of a check, and the GPUs' copies overlap.
        let verdicts = std::thread::scope(|s| {
            let handles: Vec<_> = self
                .devices
                .iter()
                .zip(&mg.graphs)
                .enumerate()
                .map(|(i, (d, g))| {
                    let p = self.parts_of[i];
                    s.spawn(move || -> Result<u64> {
                        let Some((offsets, sources, m)) = g.incoming() else {
                            return Err(Error::InvalidArgument(
                                "a graph part uploaded without its in-edges".into(),
                            ));
                        };
                        d.gpu
                            .check_fits("BFS tree check (levels, parents)", 8 * n + 8)?;
                        let r = mg.part.range(p);
                        let l = DeviceLauncher { gpu: &d.gpu };
                        check_on(
                            &l,
                            Some(&d.k.check_tree),
                            [n, m, offsets, sources],
                            (r.start, r.end),
                            root,
                            levels,
                            parents,
                            256,
                        )
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| {
                    h.join().unwrap_or_else(|_| {
                        Err(Error::InvalidArgument("a GPU's tree check panicked".into()))
                    })
                })
                .collect::<Result<Vec<u64>>>()
        })?;
        let verdict = verdicts.into_iter().min().unwrap_or(u64::MAX);
        Ok(verdict_message(verdict, levels, parents))
    }
}

/// [`crate::gpu::tree_check::check_bfs_tree_emulated`] as the GPUs of a
/// partition run it ([`MultiGpu::check_bfs_tree`]): each part checks its own
/// vertices on its in-edges, and the lowest failure of any part is the verdict.
pub fn check_bfs_tree_parts_emulated<W: crate::graph::Weight>(
    g: &crate::graph::Graph<W>,
    part: &Partition,
    root: u32,
    levels: &[u32],
    parents: &[u32],
) -> Result<std::result::Result<(), String>> {
    let n = g.num_vertices() as u64;
    needs_symmetric(g.is_symmetric())?;
    if let Some(msg) = precheck(n, root, levels, parents)? {
        return Ok(Err(msg));
    }
    let mut verdict = u64::MAX;
    for p in 0..part.parts {
        let pg = part_graph(g, part, p)?;
        let inc = &pg.incoming;
        let csr = [
            n,
            inc.num_edges(),
            inc.offsets().as_ptr() as u64,
            inc.targets().as_ptr() as u64,
        ];
        let r = part.range(p);
        let l = HostLauncher::new(4);
        let v = check_on(&l, None, csr, (r.start, r.end), root, levels, parents, 64)?;
        verdict = verdict.min(v);
    }
    Ok(verdict_message(verdict, levels, parents))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::tree_check::check_bfs_tree_emulated;
    use crate::gpu::tree_check::tests::tree_and_corruptions;
    use crate::graph::{build, BuildOptions};

    /// The parts of a partition, each checking its own vertices on its own
    /// in-edges, reach the one-GPU verdict (the same vertex and rule), with
    /// equal ranges and with ranges cut by cost.
    #[test]
    fn parts_reach_the_one_gpu_verdict() {
        let (g, root, levels, parents, cases) = tree_and_corruptions();
        let n = g.num_vertices() as u64;
        let mut parts = vec![Partition::new(n, 2).unwrap(), Partition::new(n, 3).unwrap()];
        parts.push(Partition::balanced(g.csr().offsets(), 4).unwrap());
        // More parts than 32-vertex words allow: the last ones own no vertex.
        let many = Partition::new(n, 24).unwrap();
        assert!(many.range(23).is_empty(), "{:?}", many.bounds);
        parts.push(many);
        let all = std::iter::once((levels, parents)).chain(cases);
        for (i, (l, p)) in all.enumerate() {
            let whole = check_bfs_tree_emulated(g.csr(), root, &l, &p).unwrap();
            for part in &parts {
                let got = check_bfs_tree_parts_emulated(&g, part, root, &l, &p).unwrap();
                assert_eq!(got, whole, "case {i}, bounds {:?}", part.bounds);
            }
        }
        // A tree of the wrong size fails validation; a directed graph is refused.
        let part = &parts[0];
        let short = check_bfs_tree_parts_emulated(&g, part, root, &[0], &[0]).unwrap();
        assert!(short.is_err());
        let el = crate::generate::kronecker(6, 4, 1).unwrap();
        let directed = build(&el, BuildOptions::default()).unwrap();
        if !directed.is_symmetric() {
            let part = Partition::new(directed.num_vertices() as u64, 2).unwrap();
            let nv = directed.num_vertices();
            let e = check_bfs_tree_parts_emulated(&directed, &part, 0, &vec![0; nv], &vec![0; nv]);
            assert!(e.is_err());
        }
    }
}
