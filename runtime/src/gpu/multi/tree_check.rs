//! Graph500 BFS-tree validation on the GPUs of a partition: each GPU checks its
//! own vertices on the rows it holds (their in-edges, the same edges on a
//! symmetric graph), so a tree of a graph that only several GPUs hold is checked
//! without the host's validator (scale 27: 2.7 s a tree on 16 cores, and eight
//! times the edges at scale 30).

use super::device::{MultiGpu, MultiGraph};
use crate::error::{Error, Result};
use crate::gpu::launcher::DeviceLauncher;
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
        let mut verdict = u64::MAX;
        for (i, (d, g)) in self.devices.iter().zip(&mg.graphs).enumerate() {
            let p = self.parts_of[i];
            let Some((offsets, sources, m)) = g.incoming() else {
                return Err(Error::InvalidArgument(
                    "a graph part uploaded without its in-edges".into(),
                ));
            };
            d.gpu
                .check_fits("BFS tree check (levels, parents)", 8 * n + 8)?;
            let r = mg.part.range(p);
            let l = DeviceLauncher { gpu: &d.gpu };
            let v = check_on(
                &l,
                Some(&d.k.check_tree),
                [n, m, offsets, sources],
                (r.start, r.end),
                root,
                levels,
                parents,
                256,
            )?;
            verdict = verdict.min(v);
        }
        Ok(verdict_message(verdict, levels, parents))
    }
}
