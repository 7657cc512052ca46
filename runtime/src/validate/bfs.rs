//! Graph500 BFS validation (spec §"Validation", rules 1–5).

use rayon::prelude::*;

use super::UNREACHED;
use crate::graph::{Csr, Weight};

/// Levels implied by a parent array: `parents[root] == root`, unreached =
/// [`UNREACHED`]. Fails if a parent chain has a cycle or ends outside the tree.
pub fn bfs_levels_from_parents(parents: &[u32], root: u32) -> Result<Vec<u32>, String> {
    let n = parents.len();
    if root as usize >= n {
        return Err(format!("root {root} out of range ({n} vertices)"));
    }
    if parents[root as usize] != root {
        return Err(format!(
            "parent of root {root} is {}, not itself",
            parents[root as usize]
        ));
    }
    let mut level = vec![UNREACHED; n];
    level[root as usize] = 0;
    let mut stack = Vec::new();
    for v in 0..n as u32 {
        if parents[v as usize] == UNREACHED || level[v as usize] != UNREACHED {
            continue;
        }
        // Walk up until a vertex with a known level, then unwind.
        let mut u = v;
        while level[u as usize] == UNREACHED {
            stack.push(u);
            if stack.len() > n {
                return Err(format!("parent chain from vertex {v} has a cycle"));
            }
            let p = parents[u as usize];
            if p == UNREACHED || p as usize >= n {
                return Err(format!(
                    "vertex {u} has parent {p}, which is not in the tree"
                ));
            }
            u = p;
        }
        let mut l = level[u as usize];
        while let Some(w) = stack.pop() {
            l += 1;
            level[w as usize] = l;
        }
    }
    Ok(level)
}

/// Levels consistent with the parents: see [`validate_bfs_tree`].
fn check_levels(parents: &[u32], root: u32, level: &[u32]) -> Result<(), String> {
    let n = parents.len();
    if root as usize >= n {
        return Err(format!("root {root} out of range ({n} vertices)"));
    }
    if parents[root as usize] != root {
        return Err(format!(
            "parent of root {root} is {}, not itself",
            parents[root as usize]
        ));
    }
    let bad = (0..n).into_par_iter().find_map_any(|v| {
        let (p, l) = (parents[v], level[v]);
        if v == root as usize {
            return (l != 0).then(|| format!("root {root} has level {l}, not 0"));
        }
        if p == UNREACHED || l == UNREACHED {
            return (p != l).then(|| {
                format!("vertex {v}: parent {p} and level {l} disagree on whether it is reached")
            });
        }
        if p as usize >= n {
            return Some(format!(
                "vertex {v} has parent {p}, which is not in the tree"
            ));
        }
        let lp = level[p as usize];
        (lp == UNREACHED || lp.checked_add(1) != Some(l))
            .then(|| format!("vertex {v}: reported level {l} but its parent {p} has level {lp}"))
    });
    match bad {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// Checks a BFS result by the Graph500 rules on the graph it was computed on:
/// (1) the parents form a tree rooted at `root` (no cycles), (2) every tree edge
/// joins levels that differ by one, (3) every graph edge `u→v` with `u` reached has
/// `v` reached and `level[v] ≤ level[u] + 1`, (4) hence the tree spans the part
/// reachable from the root, (5) every tree edge is a graph edge. If `levels` is
/// given it must equal the levels implied by the parents.
pub fn validate_bfs_tree<W: Weight>(
    g: &Csr<W>,
    root: u32,
    parents: &[u32],
    levels: Option<&[u32]>,
) -> Result<(), String> {
    let n = g.num_vertices();
    if parents.len() != n {
        return Err(format!("{} parents for {n} vertices", parents.len()));
    }
    // With levels given, check them against the parents in parallel: level 0 only
    // at the root, and every other reached vertex one level below its parent.
    // Levels then strictly decrease along every parent chain, so the chains are
    // acyclic and end at the root — exactly the levels the parents imply, without
    // the sequential chain walk (which dominates validation at large scales).
    let implied;
    let level: &[u32] = match levels {
        Some(l) => {
            if l.len() != n {
                return Err(format!("{} levels for {n} vertices", l.len()));
            }
            check_levels(parents, root, l)?;
            l
        }
        None => {
            implied = bfs_levels_from_parents(parents, root)?;
            &implied
        }
    };
    // Rules 3 and 4 over every edge.
    let bad_edge = (0..n as u32).into_par_iter().find_map_any(|u| {
        let lu = level[u as usize];
        if lu == UNREACHED {
            return None;
        }
        g.neighbors(u).iter().find_map(|&v| {
            let lv = level[v as usize];
            if lv == UNREACHED {
                Some(format!(
                    "edge {u}->{v}: {u} is reached (level {lu}) but {v} is not"
                ))
            } else if lv > lu + 1 {
                Some(format!(
                    "edge {u}->{v}: level {lv} is more than one past level {lu}"
                ))
            } else {
                None
            }
        })
    });
    if let Some(e) = bad_edge {
        return Err(e);
    }
    // Rules 2 and 5: each tree edge is a graph edge one level down. Neighbour lists
    // are sorted after a build, but binary search needs that, so fall back to a scan.
    // Sortedness is checked once for the whole graph (O(m)): checking a hub's list
    // once per child would cost O(degree²).
    let sorted = (0..n as u32)
        .into_par_iter()
        .all(|u| g.neighbors(u).windows(2).all(|w| w[0] <= w[1]));
    let bad_tree = (0..n as u32).into_par_iter().find_map_any(|v| {
        let p = parents[v as usize];
        if p == UNREACHED || v == root {
            return None;
        }
        if level[v as usize] != level[p as usize] + 1 {
            return Some(format!(
                "tree edge {p}->{v} does not go down exactly one level"
            ));
        }
        let nb = g.neighbors(p);
        let found = if sorted {
            nb.binary_search(&v).is_ok()
        } else {
            nb.contains(&v)
        };
        (!found).then(|| format!("tree edge {p}->{v} is not an edge of the graph"))
    });
    match bad_tree {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::{build, BuildOptions, EdgeList};

    fn path4() -> Csr<u32> {
        let el = EdgeList::<u32> {
            num_vertices: 5,
            edges: vec![[0, 1], [1, 2], [2, 3], [0, 2]],
            weights: None,
        };
        build(&el, BuildOptions::undirected()).unwrap().into_csr()
    }

    #[test]
    fn accepts_a_correct_tree() {
        let g = path4();
        let parents = [0, 0, 0, 2, UNREACHED];
        validate_bfs_tree(&g, 0, &parents, Some(&[0, 1, 1, 2, UNREACHED])).unwrap();
    }

    #[test]
    fn rejects_wrong_trees() {
        let g = path4();
        // 2 reached through 1: level 2, but edge 0-2 makes that too deep.
        assert!(validate_bfs_tree(&g, 0, &[0, 0, 1, 2, UNREACHED], None).is_err());
        // cycle
        assert!(validate_bfs_tree(&g, 0, &[0, 2, 1, 2, UNREACHED], None)
            .unwrap_err()
            .contains("cycle"));
        // unreached vertex with a reached neighbour
        assert!(validate_bfs_tree(&g, 0, &[0, 0, 0, UNREACHED, UNREACHED], None).is_err());
        // parent that is not a neighbour
        assert!(validate_bfs_tree(&g, 0, &[0, 0, 0, 1, UNREACHED], None).is_err());
        // root not its own parent
        assert!(validate_bfs_tree(&g, 0, &[1, 0, 0, 2, UNREACHED], None).is_err());
        // wrong reported level
        assert!(validate_bfs_tree(
            &g,
            0,
            &[0, 0, 0, 2, UNREACHED],
            Some(&[0, 1, 1, 3, UNREACHED])
        )
        .is_err());
        // With levels given (the parallel path): a cycle, whatever levels claim.
        for lv in [
            [0, 1, 2, 3, UNREACHED],
            [0, 2, 1, 3, UNREACHED],
            [0, 1, 1, 2, UNREACHED],
        ] {
            assert!(validate_bfs_tree(&g, 0, &[0, 2, 1, 2, UNREACHED], Some(&lv)).is_err());
        }
        // reached per level, unreached per parent (and the reverse)
        assert!(validate_bfs_tree(
            &g,
            0,
            &[0, 0, 0, UNREACHED, UNREACHED],
            Some(&[0, 1, 1, 2, UNREACHED])
        )
        .is_err());
        assert!(
            validate_bfs_tree(&g, 0, &[0, 0, 0, 2, 4], Some(&[0, 1, 1, 2, UNREACHED])).is_err()
        );
        // root with a level other than 0
        assert!(validate_bfs_tree(
            &g,
            0,
            &[0, 0, 0, 2, UNREACHED],
            Some(&[1, 2, 2, 3, UNREACHED])
        )
        .is_err());
    }

    #[test]
    fn given_levels_and_derived_levels_agree() {
        let el = crate::generate::kronecker(9, 8, 4).unwrap();
        let g = build(&el, BuildOptions::undirected()).unwrap().into_csr();
        let root = (0..g.num_vertices() as u32)
            .find(|&v| g.degree(v) > 0)
            .unwrap();
        let t = crate::oracle::bfs(&g, root).unwrap();
        validate_bfs_tree(&g, root, &t.parents, Some(&t.levels)).unwrap();
        validate_bfs_tree(&g, root, &t.parents, None).unwrap();
        assert_eq!(bfs_levels_from_parents(&t.parents, root).unwrap(), t.levels);
    }
}
