//! Graph500 BFS-tree validation on the GPU (`kernels_rs::tree_check`): the same
//! rules as [`crate::validate::validate_bfs_tree`] on a symmetric graph, for runs
//! whose host-side validation would take longer than the whole device session
//! (scale 27: 2.7 s per tree on 16 cores). The tree the host received is uploaded
//! back, so what is checked is exactly what is reported.

use super::device::{Device, DeviceGraph, Incoming};
use super::launcher::{Arg, DeviceLauncher, Grid, HostLauncher, Kernel, Launcher};
use crate::error::{Error, Result};
use crate::graph::Csr;
use cudarc::driver::CudaFunction;
use kernels_rs::tree_check::{
    BAD_PARENT_LEVEL, BAD_ROOT, HALF_REACHED_EDGE, LONG_EDGE, NO_TREE_EDGE, PARENT_OF_UNREACHED,
};
use kernels_rs::{entry, ThreadCtx};

/// What a verdict word (`vertex << 8 | rule`, `u64::MAX` = valid) says.
pub(super) fn verdict_message(
    verdict: u64,
    levels: &[u32],
    parents: &[u32],
) -> std::result::Result<(), String> {
    if verdict == u64::MAX {
        return Ok(());
    }
    let v = (verdict >> 8) as usize;
    let (l, p) = (
        levels.get(v).copied().unwrap_or(u32::MAX),
        parents.get(v).copied().unwrap_or(u32::MAX),
    );
    let what = match verdict & 0xff {
        BAD_ROOT => "the root must be its own parent at level 0",
        PARENT_OF_UNREACHED => "an unreached vertex has a parent",
        BAD_PARENT_LEVEL => "the parent is missing, unreached or not one level up",
        HALF_REACHED_EDGE => "an edge joins it to a vertex on the other side of reached/unreached",
        LONG_EDGE => "an edge from it spans more than one level",
        NO_TREE_EDGE => "the edge to its parent is not in the graph",
        _ => "unknown rule",
    };
    Err(format!("vertex {v} (level {l}, parent {p}): {what}"))
}

/// Checks before any launch: a tree of the wrong size fails validation (as on
/// the host) rather than the run (`Ok(Some(message))`); a root that is not a
/// vertex is the caller's error.
pub(super) fn precheck(
    n: u64,
    root: u32,
    levels: &[u32],
    parents: &[u32],
) -> Result<Option<String>> {
    if levels.len() as u64 != n || parents.len() as u64 != n {
        return Ok(Some(format!(
            "{} levels and {} parents for a graph of {n} vertices",
            levels.len(),
            parents.len()
        )));
    }
    if u64::from(root) >= n {
        return Err(Error::InvalidArgument(format!(
            "root {root} is not a vertex"
        )));
    }
    Ok(None)
}

impl Device {
    /// Checks the BFS tree (`levels`, `parents`) from `root` on the GPU. The outer
    /// `Result` is a CUDA or argument error; the inner one the verdict, naming the
    /// lowest failing vertex and the rule it breaks. `g` must be symmetric (as
    /// Graph500 graphs are): tree edges are looked up in the child's row.
    pub fn check_bfs_tree(
        &self,
        g: &DeviceGraph,
        root: u32,
        levels: &[u32],
        parents: &[u32],
    ) -> Result<std::result::Result<(), String>> {
        needs_symmetric(matches!(g.incoming, Incoming::Symmetric))?;
        if let Some(msg) = precheck(g.n, root, levels, parents)? {
            return Ok(Err(msg));
        }
        self.gpu
            .check_fits("BFS tree check (levels, parents)", 8 * g.n + 8)?;
        let l = DeviceLauncher { gpu: &self.gpu };
        let csr = [g.n, g.m, g.offsets.ptr, g.targets.ptr];
        let verdict = check_on(
            &l,
            Some(&self.k.check_tree),
            csr,
            (0, g.n),
            root,
            levels,
            parents,
            256,
        )?;
        Ok(verdict_message(verdict, levels, parents))
    }
}

/// `check_tree(n, m, offsets, targets, root, levels, parents, verdict, first,
/// end)` of `kernels_rs::entry`.
unsafe fn check_body(t: ThreadCtx, a: &[Arg]) {
    // SAFETY: the launcher's contract: the list `check_on` builds.
    unsafe {
        entry::check_tree(
            t,
            a[0].u64(),
            a[1].u64(),
            a[2].ptr(),
            a[3].ptr(),
            a[4].u32(),
            a[5].ptr(),
            a[6].ptr(),
            a[7].ptr(),
            a[8].u64(),
            a[9].u64(),
        )
    }
}

/// The check of vertices `range` on any launcher: the verdict word. `csr` is
/// `(n, m, offsets, targets)` with addresses on `l`, holding at least the rows
/// of `range`.
#[allow(clippy::too_many_arguments)]
pub(super) fn check_on<L: Launcher>(
    l: &L,
    device: Option<&CudaFunction>,
    csr: [u64; 4],
    range: (u64, u64),
    root: u32,
    levels: &[u32],
    parents: &[u32],
    block: u32,
) -> Result<u64> {
    let lv = l.upload(levels, "tree levels")?;
    let pa = l.upload(parents, "tree parents")?;
    let verdict = l.upload(&[u64::MAX], "tree verdict")?;
    let k = Kernel {
        name: "vertex_check_bfs_tree",
        device,
        host: check_body,
    };
    let args = [
        csr[0].into(),
        csr[1].into(),
        csr[2].into(),
        csr[3].into(),
        root.into(),
        L::addr(&lv).into(),
        L::addr(&pa).into(),
        L::addr(&verdict).into(),
        range.0.into(),
        range.1.into(),
    ];
    // An empty part still launches (one block, which finds nothing to check).
    let work = range.1.saturating_sub(range.0).max(1);
    // SAFETY: `check_tree(n, m, offsets, targets, root, levels, parents,
    // verdict, first, end)` with live buffers of those lengths (`precheck`
    // checked the tree's) and the rows of `range` in the CSR; the kernel only
    // reads, but for the verdict's atomic minimum.
    unsafe { l.launch(&k, Grid::Resident(work), block, &args)? };
    Ok(l.read(&verdict, "tree verdict")?[0])
}

/// [`Device::check_bfs_tree`] on the host: the kernel body under the emulator,
/// for tests (and machines without a GPU). `g` must be symmetric.
pub fn check_bfs_tree_emulated(
    g: &Csr<u32>,
    root: u32,
    levels: &[u32],
    parents: &[u32],
) -> Result<std::result::Result<(), String>> {
    let n = g.num_vertices() as u64;
    if let Some(msg) = precheck(n, root, levels, parents)? {
        return Ok(Err(msg));
    }
    let csr = [
        n,
        g.num_edges(),
        g.offsets().as_ptr() as u64,
        g.targets().as_ptr() as u64,
    ];
    let verdict = check_on(
        &HostLauncher::new(16),
        None,
        csr,
        (0, n),
        root,
        levels,
        parents,
        64,
    )?;
    Ok(verdict_message(verdict, levels, parents))
}

/// The rules look tree edges up in the child's row: they hold on a symmetric
/// graph only.
pub(super) fn needs_symmetric(symmetric: bool) -> Result<()> {
    if symmetric {
        Ok(())
    } else {
        Err(Error::InvalidArgument(
            "GPU tree validation needs a symmetric graph (Graph500's are)".into(),
        ))
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::graph::{build, BuildOptions, Graph};
    use crate::validate::validate_bfs_tree;

    /// A Kronecker graph (symmetric), a root with edges, its BFS tree and
    /// corruptions of it breaking each rule.
    #[allow(clippy::type_complexity)]
    pub(crate) fn tree_and_corruptions() -> (
        Graph<u32>,
        u32,
        Vec<u32>,
        Vec<u32>,
        Vec<(Vec<u32>, Vec<u32>)>,
    ) {
        let el = crate::generate::GenSpec::Kron {
            scale: 9,
            edgefactor: 8,
            seed: 3,
        }
        .generate()
        .unwrap();
        let g = build(&el, BuildOptions::undirected()).unwrap();
        let csr = g.csr();
        let root = (0..csr.num_vertices() as u32)
            .find(|&v| csr.degree(v) > 0)
            .unwrap();
        let t = crate::oracle::bfs(csr, root).unwrap();
        let (levels, parents) = (t.levels.clone(), t.parents.clone());
        let reached: Vec<u32> = (0..levels.len() as u32)
            .filter(|&v| levels[v as usize] != u32::MAX && v != root)
            .collect();
        let unreached = (0..levels.len() as u32).find(|&v| levels[v as usize] == u32::MAX);
        let deep = *reached.iter().max_by_key(|&&v| levels[v as usize]).unwrap();
        let mut cases: Vec<(Vec<u32>, Vec<u32>)> = Vec::new();
        let (mut l, mut p) = (levels.clone(), parents.clone());
        p[root as usize] = reached[0]; // root not its own parent
        cases.push((l.clone(), p.clone()));
        p = parents.clone();
        p[deep as usize] = root; // parent not one level up (deep is at level >= 2)
        cases.push((l.clone(), p.clone()));
        p = parents.clone();
        l[deep as usize] += 5; // level inconsistent with the parent and the edges
        cases.push((l.clone(), p.clone()));
        l = levels.clone();
        if let Some(u) = unreached {
            p[u as usize] = root; // an unreached vertex with a parent
            cases.push((l.clone(), p.clone()));
            p = parents.clone();
        }
        // A parent one level up that is not a neighbour.
        let v = deep;
        if let Some(&w) = reached.iter().find(|&&w| {
            levels[w as usize] + 1 == levels[v as usize] && !csr.neighbors(v).contains(&w)
        }) {
            p[v as usize] = w;
            cases.push((l.clone(), p.clone()));
        }
        assert!(cases.len() >= 4);
        (g, root, levels, parents, cases)
    }

    /// Agrees with the host validator on valid trees and on every kind of
    /// corruption the rules name.
    #[test]
    fn agrees_with_the_host_validator() {
        let (g, root, levels, parents, cases) = tree_and_corruptions();
        let csr = g.csr();
        assert_eq!(
            check_bfs_tree_emulated(csr, root, &levels, &parents).unwrap(),
            Ok(())
        );
        for (i, (l, p)) in cases.iter().enumerate() {
            let gpu = check_bfs_tree_emulated(csr, root, l, p).unwrap();
            let host = validate_bfs_tree(csr, root, p, Some(l));
            assert!(gpu.is_err(), "case {i}: corruption not found");
            assert!(host.is_err(), "case {i}: host validator disagrees");
        }
    }
}
