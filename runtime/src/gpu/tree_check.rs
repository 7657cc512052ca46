//! Graph500 BFS-tree validation on the GPU (`kernels_rs::tree_check`): the same
//! rules as [`crate::validate::validate_bfs_tree`] on a symmetric graph, for runs
//! whose host-side validation would take longer than the whole device session
//! (scale 27: 2.7 s per tree on 16 cores). The tree the host received is uploaded
//! back, so what is checked is exactly what is reported.

use super::cuda::cuda_err;
use super::device::{Device, DeviceGraph, Incoming};
use super::launch::{emulated_grid, launch, SharedPtr};
use crate::error::{Error, Result};
use crate::graph::Csr;
use cudarc::driver::PushKernelArg;
use kernels_rs::entry;
use kernels_rs::tree_check::{
    BAD_PARENT_LEVEL, BAD_ROOT, HALF_REACHED_EDGE, LONG_EDGE, NO_TREE_EDGE, PARENT_OF_UNREACHED,
};

/// What a verdict word (`vertex << 8 | rule`, `u64::MAX` = valid) says.
fn verdict_message(
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
fn precheck(n: u64, root: u32, levels: &[u32], parents: &[u32]) -> Result<Option<String>> {
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
        if !matches!(g.incoming, Incoming::Symmetric) {
            return Err(Error::InvalidArgument(
                "GPU tree validation needs a graph uploaded as symmetric".into(),
            ));
        }
        if let Some(msg) = precheck(g.n, root, levels, parents)? {
            return Ok(Err(msg));
        }
        let gpu = &self.gpu;
        gpu.check_fits("BFS tree check (levels, parents)", 8 * g.n + 8)?;
        let lv = gpu.upload(levels, "tree levels")?;
        let pa = gpu.upload(parents, "tree parents")?;
        let verdict = gpu.upload(&[u64::MAX], "tree verdict")?;
        let n = g.n;
        let mut b = gpu.stream.launch_builder(&self.k.check_tree);
        g.csr_args(&mut b)
            .arg(&root)
            .arg(&lv.ptr)
            .arg(&pa.ptr)
            .arg(&verdict.ptr);
        // SAFETY: `check_tree(n, m, offsets, targets, root, levels, parents,
        // verdict)` of kernels_rs::entry, with live buffers of those lengths.
        unsafe { b.launch(gpu.resident_grid(n, 256)) }
            .map_err(cuda_err("cuLaunchKernel(vertex_check_bfs_tree)"))?;
        let mut out = [0u64];
        gpu.download(&verdict, &mut out, "tree verdict")?;
        Ok(verdict_message(out[0], levels, parents))
    }
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
    let verdict = std::sync::atomic::AtomicU64::new(u64::MAX);
    let (offsets, targets) = (
        SharedPtr(g.offsets().as_ptr() as *mut u64),
        SharedPtr(g.targets().as_ptr() as *mut u32),
    );
    let (lv, pa) = (
        SharedPtr(levels.as_ptr() as *mut u32),
        SharedPtr(parents.as_ptr() as *mut u32),
    );
    let out = SharedPtr(verdict.as_ptr());
    let m = g.num_edges();
    launch(emulated_grid(n, 64, 16), 64, |t| {
        // SAFETY: host arrays of the documented lengths, read-only except the
        // verdict word, which the kernel only updates atomically.
        unsafe {
            entry::check_tree(
                t,
                n,
                m,
                offsets.get(),
                targets.get(),
                root,
                lv.get(),
                pa.get(),
                out.get(),
            )
        }
    });
    Ok(verdict_message(verdict.into_inner(), levels, parents))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::{build, BuildOptions};
    use crate::validate::validate_bfs_tree;

    /// Agrees with the host validator on valid trees and on every kind of
    /// corruption the rules name.
    #[test]
    fn agrees_with_the_host_validator() {
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
        assert_eq!(
            check_bfs_tree_emulated(csr, root, &levels, &parents).unwrap(),
            Ok(())
        );
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
        for (i, (l, p)) in cases.iter().enumerate() {
            let gpu = check_bfs_tree_emulated(csr, root, l, p).unwrap();
            let host = validate_bfs_tree(csr, root, p, Some(l));
            assert!(gpu.is_err(), "case {i}: corruption not found");
            assert!(host.is_err(), "case {i}: host validator disagrees");
        }
    }
}
