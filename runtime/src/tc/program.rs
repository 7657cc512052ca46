//! The CPU engine of intersection programs (`#[vertex_program(intersect = ..)]`,
//! [`IntersectProgram`]): the triangle counter of this module's parent with the
//! user's operator in place of `+1`.
//!
//! A run is [`orientation`] (the graph's own rows when the order by id is the
//! one to use, else the degree-ordered copy; shared with the library count and
//! the GPU), then [`fold_rows`]: the rows' edges cut into equal chunks (rayon
//! tasks, each finding its first row by binary search, as
//! [`super::count_rows`] does), each triangle-closing edge's intersection folded
//! by [`TriangleRows::fold_at`] (merge or galloping) with
//! `combine(acc, common(u, v, w))`, the corners lowest rank first whichever
//! rows are read. [`Per::Graph`] programs reduce per chunk and then over chunks,
//! without atomics; [`Per::Vertex`] programs combine each triangle's value
//! atomically into its three corners' slots (by rank), and [`finish`] renames
//! the slots back to graph ids and runs `apply` with each vertex's degree.

use std::time::{Duration, Instant};

use kernels_rs::intersect::{Ctx, Ids, IntersectProgram, Per, TriangleRows};
use kernels_rs::StateWord;
use rayon::prelude::*;

use super::{check_undirected, chunks, closing_edges, orientation, Orientation, Oriented};
use crate::error::Result;
use crate::graph::{Graph, Weight};

/// What an intersection program computed, and where its time went.
#[derive(Clone)]
pub struct IntersectRun<P: IntersectProgram> {
    /// [`Per::Graph`]: the reduction over every triangle; [`Per::Vertex`]: the
    /// identity.
    pub total: P::Acc,
    /// [`Per::Vertex`]: `apply` of each vertex (by graph id); empty otherwise.
    pub states: Vec<P::State>,
    /// Undirected edges after orientation (duplicates and self loops gone).
    pub oriented_edges: u64,
    /// Choosing the order, and ranking and copying when a copy is made
    /// ([`orientation`]).
    pub orient_time: Duration,
    /// The intersections and reduction (and, per vertex, `apply`).
    pub count_time: Duration,
    /// Whether the graph's own rows were read ([`Orientation::InPlace`]).
    pub in_place: bool,
    /// Worker threads used.
    pub threads: usize,
}

/// Runs `P` over the rows [`orientation`] chose: the [`Per::Graph`] total, or
/// the per-rank slots of a [`Per::Vertex`] program (graph ids through
/// [`finish`]).
pub fn fold_rows<P: IntersectProgram>(o: &Orientation<'_>) -> (P::Acc, Vec<P::Acc>) {
    let rows: TriangleRows<'_> = o.rows();
    let ids = Ids(o.ids());
    let m = o.num_entries();
    match P::PER {
        Per::Graph => {
            let total = chunks(m)
                .map(|(lo, hi)| {
                    let mut acc = P::identity();
                    for (u, e) in closing_edges(&rows, lo, hi) {
                        acc = rows.fold_at(u, e, acc, |a, u, v, w| {
                            P::combine(a, P::common(ids.id(u), ids.id(v), ids.id(w)))
                        });
                    }
                    acc
                })
                .reduce(P::identity, P::combine);
            (total, Vec::new())
        }
        Per::Vertex => {
            let mut slots = vec![P::identity(); o.num_vertices()];
            let cells = P::Acc::atomics_from_mut(&mut slots);
            chunks(m).for_each(|(lo, hi)| {
                for (u, e) in closing_edges(&rows, lo, hi) {
                    rows.fold_at(u, e, (), |(), u, v, w| {
                        let x = P::common(ids.id(u), ids.id(v), ids.id(w));
                        for r in [u, v, w] {
                            P::combine_atomic(&cells[r as usize], x);
                        }
                    });
                }
            });
            (P::identity(), slots)
        }
    }
}

/// Each rank's degree in the simple undirected graph: its row (higher ranks)
/// plus the rows it appears in (lower ranks).
fn degrees(o: &Oriented) -> Vec<u32> {
    let n = o.num_vertices();
    let mut lower = vec![0u32; n];
    let cells = u32::atomics_from_mut(&mut lower);
    o.targets.par_chunks(1 << 16).for_each(|c| {
        for &w in c {
            u32::fetch_add(&cells[w as usize], 1);
        }
    });
    lower
        .par_iter()
        .enumerate()
        .map(|(r, &l)| l + (o.offsets[r + 1] - o.offsets[r]) as u32)
        .collect()
}

/// A [`Per::Vertex`] program's results by graph id: `apply` of each vertex with
/// its degree and its slot (`slots` by rank, as [`fold_rows`] and the GPU
/// kernel leave them).
pub fn finish<P: IntersectProgram>(o: &Orientation<'_>, slots: &[P::Acc]) -> Vec<P::State> {
    let n = o.num_vertices();
    let o = match o {
        Orientation::InPlace { .. } => {
            // Ranks are ids, and each row says its vertex's degree.
            return (0..n)
                .into_par_iter()
                .map(|v| {
                    let ctx = Ctx {
                        vertex: v as u32,
                        degree: o.in_place_degree(v as u32).unwrap_or(0),
                        num_vertices: n as u32,
                    };
                    P::apply(ctx, slots[v])
                })
                .collect();
        }
        Orientation::Copy(o) => o,
    };
    let degree = degrees(o);
    let ids = Ids(&o.ids);
    // Ranks are a permutation of the ids: gather each id's rank first.
    let mut rank_of = vec![0u32; n];
    for r in 0..n as u32 {
        rank_of[ids.id(r) as usize] = r;
    }
    (0..n)
        .into_par_iter()
        .map(|v| {
            let r = rank_of[v] as usize;
            let ctx = Ctx {
                vertex: v as u32,
                degree: degree[r],
                num_vertices: n as u32,
            };
            P::apply(ctx, slots[r])
        })
        .collect()
}

/// Runs intersection program `P` on an undirected graph with `threads` workers
/// (or the global pool). Fails on a directed graph ([`check_undirected`]).
pub fn run<P: IntersectProgram, W: Weight>(
    g: &Graph<W>,
    threads: Option<usize>,
) -> Result<IntersectRun<P>> {
    check_undirected(g)?;
    let (run, threads) = crate::cpu::in_pool(threads, || -> Result<IntersectRun<P>> {
        let t0 = Instant::now();
        let o = orientation(g)?;
        let orient_time = t0.elapsed();
        let t1 = Instant::now();
        let (total, slots) = fold_rows::<P>(&o);
        let states = match P::PER {
            Per::Graph => Vec::new(),
            Per::Vertex => finish::<P>(&o, &slots),
        };
        Ok(IntersectRun {
            total,
            states,
            oriented_edges: o.undirected_edges(),
            orient_time,
            count_time: t1.elapsed(),
            in_place: o.in_place(),
            threads: 0,
        })
    })?;
    let mut run = run?;
    run.threads = threads;
    Ok(run)
}

/// Hand-written programs (the macro lives downstream): a triangle count and
/// per-vertex triangle counts.
#[cfg(test)]
pub(crate) mod test_programs {
    use kernels_rs::intersect::{Ctx, IntersectProgram, Per};
    use kernels_rs::StateWord;

    #[derive(Clone, Copy, Debug)]
    pub struct Count;
    impl IntersectProgram for Count {
        type Acc = u64;
        type State = u64;
        const NAME: &'static str = "count";
        const PER: Per = Per::Graph;
        fn common(_: u32, _: u32, _: u32) -> u64 {
            1
        }
        fn identity() -> u64 {
            0
        }
        fn combine(a: u64, b: u64) -> u64 {
            a + b
        }
        fn combine_atomic(slot: &<u64 as StateWord>::Atomic, v: u64) {
            u64::fetch_add(slot, v);
        }
        fn apply(_: Ctx, acc: u64) -> u64 {
            acc
        }
    }

    /// Per vertex: (triangles, degree) packed as `t << 32 | degree`.
    #[derive(Clone, Copy, Debug)]
    pub struct PerVertex;
    impl IntersectProgram for PerVertex {
        type Acc = u64;
        type State = (u64, u32);
        const NAME: &'static str = "per_vertex";
        const PER: Per = Per::Vertex;
        fn common(_: u32, _: u32, _: u32) -> u64 {
            1
        }
        fn identity() -> u64 {
            0
        }
        fn combine(a: u64, b: u64) -> u64 {
            a + b
        }
        fn combine_atomic(slot: &<u64 as StateWord>::Atomic, v: u64) {
            u64::fetch_add(slot, v);
        }
        fn apply(ctx: Ctx, acc: u64) -> (u64, u32) {
            (acc, ctx.degree)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::test_programs::{Count, PerVertex};
    use super::*;
    use crate::graph::{build, BuildOptions, EdgeList};

    fn kron(scale: u32) -> Graph<u32> {
        let el = crate::generate::GenSpec::Kron {
            scale,
            edgefactor: 16,
            seed: 5,
        }
        .generate()
        .unwrap();
        build(&el, BuildOptions::undirected()).unwrap()
    }

    #[test]
    fn a_count_program_agrees_with_the_library_count() {
        let g = kron(10);
        assert!(
            !super::super::orient(&g).unwrap().ids.is_empty(),
            "kron is degree-ranked"
        );
        let expect = super::super::count(&g, Some(2)).unwrap().triangles;
        for threads in [Some(1), Some(3)] {
            assert_eq!(run::<Count, _>(&g, threads).unwrap().total, expect);
        }
    }

    #[test]
    fn programs_in_place_agree_with_the_copy_and_brute_force() {
        use crate::tc::tests::{brute_per_vertex, shapes};
        for (name, g, in_place) in shapes() {
            let per = brute_per_vertex(g.csr());
            let total = per.iter().sum::<u64>() / 3;
            let copy = Orientation::Copy(crate::tc::orient(&g).unwrap());
            let r = run::<Count, _>(&g, Some(2)).unwrap();
            assert_eq!((r.total, r.in_place), (total, in_place), "{name}");
            assert_eq!(fold_rows::<Count>(&copy).0, total, "{name}");
            let r = run::<PerVertex, _>(&g, Some(3)).unwrap();
            let (_, slots) = fold_rows::<PerVertex>(&copy);
            assert_eq!(r.states, finish::<PerVertex>(&copy, &slots), "{name}");
            let csr = g.csr();
            for (v, s) in r.states.iter().enumerate() {
                assert_eq!(
                    *s,
                    (per[v], csr.degree(v as u32) as u32),
                    "{name}: vertex {v}"
                );
            }
        }
    }

    #[test]
    fn per_vertex_counts_land_on_graph_ids() {
        // Triangles {0,1,2} and {0,2,3}, plus a pendant 4, a self loop and an
        // edge listed twice.
        let el = EdgeList::<u32> {
            num_vertices: 5,
            edges: vec![
                [0, 1],
                [1, 2],
                [2, 0],
                [2, 3],
                [3, 0],
                [3, 4],
                [4, 4],
                [1, 0],
            ],
            weights: None,
        };
        let opts = BuildOptions {
            symmetrize: true,
            ..BuildOptions::default()
        };
        let g = build(&el, opts).unwrap();
        let r = run::<PerVertex, _>(&g, Some(2)).unwrap();
        assert!(!r.in_place, "rows with repeats are copied");
        assert_eq!(r.states, vec![(2, 3), (1, 2), (2, 3), (1, 3), (0, 1)]);
        // Deduplicated with the loop kept: in place, the loop not a neighbour.
        let g = build(
            &el,
            BuildOptions {
                dedup: true,
                ..opts
            },
        )
        .unwrap();
        let r = run::<PerVertex, _>(&g, Some(2)).unwrap();
        assert!(r.in_place);
        assert_eq!(r.states, vec![(2, 3), (1, 2), (2, 3), (1, 3), (0, 1)]);
        // On a degree-ranked graph, the per-vertex counts sum to three per triangle.
        let g = kron(9);
        let total = run::<Count, _>(&g, None).unwrap().total;
        let per = run::<PerVertex, _>(&g, None).unwrap();
        assert_eq!(per.states.iter().map(|s| s.0).sum::<u64>(), 3 * total);
        let csr = g.csr();
        for (v, s) in per.states.iter().enumerate() {
            assert_eq!(u64::from(s.1), csr.degree(v as u32), "vertex {v}");
        }
    }

    proptest::proptest! {
        #[test]
        fn programs_count_what_brute_force_counts(
            (n, edges) in crate::tc::tests::arb_edges()
        ) {
            use crate::tc::tests::{brute_per_vertex, builds};
            for g in builds(n, &edges) {
                let per = brute_per_vertex(g.csr());
                let r = run::<Count, _>(&g, Some(2)).unwrap();
                proptest::prop_assert_eq!(r.total, per.iter().sum::<u64>() / 3);
                let r = run::<PerVertex, _>(&g, Some(2)).unwrap();
                let got: Vec<u64> = r.states.iter().map(|s| s.0).collect();
                proptest::prop_assert_eq!(got, per);
            }
        }
    }
}
