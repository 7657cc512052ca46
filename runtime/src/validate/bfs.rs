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

/// Read access to a level array, stored as `u32` or compacted to `u8`.
trait Levels: Sync {
    /// Level of `v`, [`UNREACHED`] if unreached.
    fn at(&self, v: usize) -> u32;
}

impl Levels for [u32] {
    #[inline]
    fn at(&self, v: usize) -> u32 {
        self[v]
    }
}

/// Levels below [`SMALL_UNREACHED`] in one byte each: the rule-3 pass reads a
/// random vertex's level per edge, and a quarter of the bytes means a quarter of
/// the cache footprint (64 MB instead of 256 MB at Graph500 scale 26).
struct Small<'a>(&'a [u8]);

/// Marks an unreached vertex in [`Small`].
const SMALL_UNREACHED: u8 = u8::MAX;

impl Levels for Small<'_> {
    #[inline]
    fn at(&self, v: usize) -> u32 {
        match self.0[v] {
            SMALL_UNREACHED => UNREACHED,
            l => l as u32,
        }
    }
}

/// Levels consistent with the parents: see [`validate_bfs_tree`].
fn check_levels<L: Levels + ?Sized>(parents: &[u32], root: u32, level: &L) -> Result<(), String> {
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
    let bad = (0..n).into_par_iter().with_min_len(4096).find_map_any(|v| {
        let (p, l) = (parents[v], level.at(v));
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
        let lp = level.at(p as usize);
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
///
/// For many roots on one graph use a [`BfsValidator`], which keeps what does not
/// change between roots and, on a symmetric graph, checks the edges in one pass.
pub fn validate_bfs_tree<W: Weight>(
    g: &Csr<W>,
    root: u32,
    parents: &[u32],
    levels: Option<&[u32]>,
) -> Result<(), String> {
    BfsValidator::new(g, false).validate(root, parents, levels)
}

/// [`validate_bfs_tree`] for many trees of one graph (the Graph500 loop).
///
/// Kept across roots: the edge-balanced vertex ranges the passes run over (a hub's
/// row would otherwise serialise a vertex-split pass), whether the rows are sorted
/// (needed only by the directed path), and the compact level buffer.
///
/// On a graph declared symmetric (every `u→v` has a twin `v→u`, as
/// [`crate::graph::Graph::is_symmetric`] promises) rules 3–5 take one streaming
/// pass over the rows: for an edge pair `{u, v}` rule 3 in both directions says
/// "both reached or neither, and the levels differ by at most one", so only the
/// entry with `u < v` reads the far level — half the random reads — and rule 5 for
/// the tree edge `parent(u)→u` is checked as its twin `u→parent(u)`, found in `u`'s
/// own row while streaming it, instead of a search in the parent's row.
pub struct BfsValidator<'g, W: Weight> {
    g: &'g Csr<W>,
    symmetric: bool,
    /// Vertex ranges of about equal `edges + vertices`, covering `0..n`.
    ranges: Vec<std::ops::Range<u32>>,
    /// Whether every row is sorted (computed on first use).
    sorted: Option<bool>,
    /// Compact levels of the tree being checked.
    small: Vec<u8>,
}

/// Ranges per thread: enough that stealing evens out uneven rows.
const RANGES_PER_THREAD: usize = 32;

impl<'g, W: Weight> BfsValidator<'g, W> {
    /// A validator for trees of `g`. `symmetric` is a promise as in
    /// [`crate::graph::Graph::new`]; with `false` every edge is checked from both
    /// ends as in the directed rules.
    pub fn new(g: &'g Csr<W>, symmetric: bool) -> Self {
        BfsValidator {
            g,
            symmetric,
            ranges: balanced_ranges(
                g.offsets(),
                rayon::current_num_threads() * RANGES_PER_THREAD,
            ),
            sorted: None,
            small: Vec::new(),
        }
    }

    /// A validator for trees of `g`, symmetric if `g` says so.
    pub fn for_graph(g: &'g crate::graph::Graph<W>) -> Self {
        Self::new(g.csr(), g.is_symmetric())
    }

    /// Checks one tree: see [`validate_bfs_tree`] for the rules.
    pub fn validate(
        &mut self,
        root: u32,
        parents: &[u32],
        levels: Option<&[u32]>,
    ) -> Result<(), String> {
        let n = self.g.num_vertices();
        if parents.len() != n {
            return Err(format!("{} parents for {n} vertices", parents.len()));
        }
        // With levels given, check them against the parents in parallel: level 0
        // only at the root, and every other reached vertex one level below its
        // parent. Levels then strictly decrease along every parent chain, so the
        // chains are acyclic and end at the root — exactly the levels the parents
        // imply, without the sequential chain walk.
        let implied;
        let level: &[u32] = match levels {
            Some(l) => {
                if l.len() != n {
                    return Err(format!("{} levels for {n} vertices", l.len()));
                }
                l
            }
            None => {
                implied = bfs_levels_from_parents(parents, root)?;
                &implied
            }
        };
        let deepest = level
            .par_iter()
            .with_min_len(4096)
            .filter(|&&l| l != UNREACHED)
            .max()
            .copied()
            .unwrap_or(0);
        let sorted = self.sorted();
        let given = levels.is_some();
        if deepest >= SMALL_UNREACHED as u32 {
            return self.check(sorted, root, parents, given, level);
        }
        let mut small = std::mem::take(&mut self.small);
        small.resize(n, 0);
        small
            .par_iter_mut()
            .zip(level.par_iter())
            .with_min_len(4096)
            .for_each(|(s, &l)| {
                *s = if l == UNREACHED {
                    SMALL_UNREACHED
                } else {
                    l as u8
                }
            });
        let res = self.check(sorted, root, parents, given, &Small(&small));
        self.small = small;
        res
    }

    /// Whether every row is sorted; only the directed path asks.
    fn sorted(&mut self) -> bool {
        if self.symmetric {
            return false;
        }
        let g = self.g;
        *self.sorted.get_or_insert_with(|| {
            (0..g.num_vertices() as u32)
                .into_par_iter()
                .all(|u| g.neighbors(u).windows(2).all(|w| w[0] <= w[1]))
        })
    }

    /// Rules 2–5 (and, for given levels, their agreement with the parents).
    fn check<L: Levels + ?Sized>(
        &self,
        sorted: bool,
        root: u32,
        parents: &[u32],
        given: bool,
        level: &L,
    ) -> Result<(), String> {
        if given {
            check_levels(parents, root, level)?;
        }
        let (g, ranges) = (self.g, &self.ranges);
        let bad = if self.symmetric {
            ranges
                .par_iter()
                .find_map_any(|r| symmetric_pass(g, r.clone(), root, parents, level))
        } else {
            ranges
                .par_iter()
                .find_map_any(|r| directed_edges(g, r.clone(), level))
                .or_else(|| {
                    ranges
                        .par_iter()
                        .find_map_any(|r| directed_tree(g, r.clone(), root, parents, level, sorted))
                })
        };
        match bad {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

/// Cuts `0..n` into about `k` ranges of equal `edges + vertices` (the cost of a
/// pass over the rows), from the offsets alone.
fn balanced_ranges(offsets: &[u64], k: usize) -> Vec<std::ops::Range<u32>> {
    let n = offsets.len().saturating_sub(1);
    let cost = |v: usize| offsets[v] + v as u64;
    let total = cost(n);
    let k = k.max(1) as u64;
    let mut bounds = vec![0usize];
    for i in 1..k {
        let target = total * i / k;
        // First vertex whose cumulative cost reaches `target`.
        let (mut lo, mut hi) = (*bounds.last().unwrap_or(&0), n);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if cost(mid) < target {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        if lo > *bounds.last().unwrap_or(&0) {
            bounds.push(lo);
        }
    }
    if n > *bounds.last().unwrap_or(&0) {
        bounds.push(n);
    }
    bounds
        .windows(2)
        .map(|w| w[0] as u32..w[1] as u32)
        .collect()
}

/// Rules 3–5 on a symmetric graph for the vertices of `range` (see
/// [`BfsValidator`]). Rule 2 (a tree edge goes down exactly one level) was
/// established with the levels: by [`check_levels`], or by construction when the
/// levels were derived from the parents.
fn symmetric_pass<W: Weight, L: Levels + ?Sized>(
    g: &Csr<W>,
    range: std::ops::Range<u32>,
    root: u32,
    parents: &[u32],
    level: &L,
) -> Option<String> {
    for u in range {
        let lu = level.at(u as usize);
        let pu = parents[u as usize];
        let mut parent_found = u == root || pu == UNREACHED;
        for &v in g.neighbors(u) {
            parent_found |= v == pu;
            if v <= u {
                continue;
            }
            // Both directions of the pair, each by the directed rule.
            let lv = level.at(v as usize);
            if let Some(e) = edge_violation(u, lu, v, lv).or_else(|| edge_violation(v, lv, u, lu)) {
                return Some(e);
            }
        }
        if !parent_found {
            return Some(format!("tree edge {pu}->{u} is not an edge of the graph"));
        }
    }
    None
}

/// Rules 3 and 4 on a directed graph: every edge out of a reached vertex.
fn directed_edges<W: Weight, L: Levels + ?Sized>(
    g: &Csr<W>,
    range: std::ops::Range<u32>,
    level: &L,
) -> Option<String> {
    range.into_iter().find_map(|u| {
        let lu = level.at(u as usize);
        if lu == UNREACHED {
            return None;
        }
        g.neighbors(u)
            .iter()
            .find_map(|&v| edge_violation(u, lu, v, level.at(v as usize)))
    })
}

/// Rules 3–4 for the edge `u→v` with levels `lu`, `lv`: a reached source needs a
/// reached target at most one level further down.
fn edge_violation(u: u32, lu: u32, v: u32, lv: u32) -> Option<String> {
    if lu == UNREACHED {
        None
    } else if lv == UNREACHED {
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
}

/// Rules 2 and 5 on a directed graph: each tree edge is a graph edge one level
/// down, found by binary search in the parent's row when rows are sorted (a scan
/// otherwise; sortedness is known for the whole graph, because checking a hub's
/// row once per child would cost O(degree²)).
fn directed_tree<W: Weight, L: Levels + ?Sized>(
    g: &Csr<W>,
    range: std::ops::Range<u32>,
    root: u32,
    parents: &[u32],
    level: &L,
    sorted: bool,
) -> Option<String> {
    range.into_iter().find_map(|v| {
        let p = parents[v as usize];
        if p == UNREACHED || v == root {
            return None;
        }
        if level.at(v as usize) != level.at(p as usize).wrapping_add(1) {
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
    })
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

    /// Both paths (directed rules, symmetric one-pass) on `g`, with the levels
    /// given and derived; returns the four results.
    fn all_paths(g: &Csr<u32>, root: u32, p: &[u32], l: &[u32]) -> Vec<Result<(), String>> {
        let mut out = Vec::new();
        for sym in [false, true] {
            let mut v = BfsValidator::new(g, sym);
            out.push(v.validate(root, p, Some(l)));
            out.push(v.validate(root, p, None));
        }
        out
    }

    /// Every rule has a tree that breaks only it, and every path rejects it
    /// (with the levels given, and with the levels derived from the parents).
    #[test]
    fn every_path_rejects_each_rule() {
        let g = path4(); // edges 0-1, 1-2, 2-3, 0-2; vertex 4 isolated
        let u = UNREACHED;
        let good = all_paths(&g, 0, &[0, 0, 0, 2, u], &[0, 1, 1, 2, u]);
        assert!(good.iter().all(|r| r.is_ok()), "{good:?}");
        let good = all_paths(&g, 3, &[2, 2, 3, 3, u], &[2, 2, 1, 0, u]);
        assert!(good.iter().all(|r| r.is_ok()), "{good:?}");
        // (name, root, parents, levels, part of the message)
        type Case = (&'static str, u32, [u32; 5], [u32; 5], &'static str);
        let cases: [Case; 6] = [
            // Rule 1: the root is not its own parent.
            ("root", 0, [1, 0, 0, 2, u], [0, 1, 1, 2, u], "root"),
            // Rule 3, far end higher: 0-2 skips a level (0 at 0, 2 at 2).
            (
                "skip up",
                0,
                [0, 0, 1, 2, u],
                [0, 1, 2, 3, u],
                "more than one past",
            ),
            // Rule 3, near end higher: from root 3, 0 hangs below 1 at level 3
            // but its neighbour 2 is at level 1 (edge 0-2 seen from 0 < 2).
            (
                "skip down",
                3,
                [1, 2, 3, 3, u],
                [3, 2, 1, 0, u],
                "more than one past",
            ),
            // Rule 4: a reached vertex's neighbour is left out (3, above 2).
            (
                "unreached far",
                0,
                [0, 0, 0, u, u],
                [0, 1, 1, u, u],
                "is not",
            ),
            // Rule 4, the unreached end has the smaller id: 0 left out from root 3.
            (
                "unreached near",
                3,
                [u, 2, 3, 3, u],
                [u, 2, 1, 0, u],
                "is not",
            ),
            // Rule 5: 3 hangs below 1, one level down but not a neighbour.
            (
                "not an edge",
                0,
                [0, 0, 0, 1, u],
                [0, 1, 1, 2, u],
                "not an edge",
            ),
        ];
        for (name, root, p, l, msg) in cases {
            for (i, r) in all_paths(&g, root, &p, &l).into_iter().enumerate() {
                let e = r.expect_err(name);
                // The root case fails before any edge is looked at.
                assert!(e.contains(msg), "{name} (path {i}): {e}");
            }
        }
        // Rule 2 with given levels: a tree edge that is not one level down.
        let l = [0, 1, 1, 3, u];
        for sym in [false, true] {
            let e = BfsValidator::new(&g, sym)
                .validate(0, &[0, 0, 0, 2, u], Some(&l))
                .unwrap_err();
            assert!(e.contains("level"), "{e}");
        }
        // Rule 1: a cycle, whatever the levels claim.
        for sym in [false, true] {
            let mut v = BfsValidator::new(&g, sym);
            assert!(v
                .validate(0, &[0, 2, 1, 2, u], None)
                .unwrap_err()
                .contains("cycle"));
            for lv in [[0, 1, 2, 3, u], [0, 2, 1, 3, u], [0, 1, 1, 2, u]] {
                assert!(v.validate(0, &[0, 2, 1, 2, u], Some(&lv)).is_err());
            }
            // Reached per levels, unreached per parents, and the reverse.
            assert!(v
                .validate(0, &[0, 0, 0, u, u], Some(&[0, 1, 1, 2, u]))
                .is_err());
            assert!(v
                .validate(0, &[0, 0, 0, 2, 4], Some(&[0, 1, 1, 2, u]))
                .is_err());
            // Wrong lengths.
            assert!(v.validate(0, &[0, 0, 0, 2], None).is_err());
            assert!(v
                .validate(0, &[0, 0, 0, 2, u], Some(&[0, 1, 1, 2]))
                .is_err());
        }
    }

    /// A path longer than 254 levels takes the `u32` level path, not the bytes.
    #[test]
    fn deep_trees_use_wide_levels() {
        let n = 600u32;
        let el = EdgeList::<u32> {
            num_vertices: n as usize,
            edges: (1..n).map(|v| [v - 1, v]).collect(),
            weights: None,
        };
        let g = build(&el, BuildOptions::undirected()).unwrap().into_csr();
        let t = crate::oracle::bfs(&g, 0).unwrap();
        assert!(all_paths(&g, 0, &t.parents, &t.levels)
            .iter()
            .all(|r| r.is_ok()));
        // The deepest vertex hangs one level too deep below a non-neighbour.
        let (mut p, mut l) = (t.parents.clone(), t.levels.clone());
        p[599] = 500;
        l[599] = 501;
        for r in all_paths(&g, 0, &p, &l) {
            assert!(r.is_err());
        }
    }

    #[test]
    fn balanced_ranges_cover_every_vertex_once() {
        // A hub (vertex 3) with most of the edges, then many small rows.
        let mut offsets = vec![0u64];
        for v in 0..1000u64 {
            let d = if v == 3 { 50_000 } else { v % 7 };
            offsets.push(offsets.last().unwrap() + d);
        }
        for k in [1, 2, 7, 64, 5000] {
            let r = balanced_ranges(&offsets, k);
            assert_eq!(r.first().unwrap().start, 0);
            assert_eq!(r.last().unwrap().end, 1000);
            assert!(r.windows(2).all(|w| w[0].end == w[1].start));
            assert!(r.iter().all(|x| x.start < x.end));
        }
        assert!(balanced_ranges(&[0], 8).is_empty());
    }

    proptest::proptest! {
        /// On symmetric graphs the one-pass check accepts exactly the trees the
        /// directed rules accept: correct trees and corrupted ones alike.
        #[test]
        fn symmetric_pass_agrees_with_the_directed_rules(
            n in 2usize..30,
            es in proptest::collection::vec((0u32..30, 0u32..30), 0..80),
            root in 0u32..30,
            hits in proptest::collection::vec((0u32..30, 0u32..31, 0u32..4), 0..3),
        ) {
            let el = EdgeList::<u32> {
                num_vertices: n,
                edges: es.iter().map(|&(a, b)| [a % n as u32, b % n as u32]).collect(),
                weights: None,
            };
            let g = build(&el, BuildOptions::undirected()).unwrap().into_csr();
            let root = root % n as u32;
            let t = crate::oracle::bfs(&g, root).unwrap();
            let (mut p, mut l) = (t.parents.clone(), t.levels.clone());
            for &(v, x, what) in &hits {
                let v = (v % n as u32) as usize;
                let x = if x == 30 { UNREACHED } else { x % n as u32 };
                match what {
                    0 => p[v] = x,
                    1 => l[v] = x,
                    // Cut v out of the tree (a leaf: a rule-4 failure only).
                    2 => {
                        p[v] = UNREACHED;
                        l[v] = UNREACHED;
                    }
                    _ => { p[v] = x; l[v] = l.get(x as usize).map_or(UNREACHED, |&y| y.wrapping_add(1)); }
                }
            }
            let r = all_paths(&g, root, &p, &l);
            proptest::prop_assert_eq!(r[0].is_ok(), r[2].is_ok(), "given levels: {:?}", r);
            proptest::prop_assert_eq!(r[1].is_ok(), r[3].is_ok(), "derived levels: {:?}", r);
            if hits.is_empty() {
                proptest::prop_assert!(r.iter().all(|x| x.is_ok()), "{:?}", r);
            }
        }
    }
}
