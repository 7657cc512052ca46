//! Integer SSSP's 32-bit twin: taken exactly where no path can overflow it.

use super::*;

/// A directed path `0 → 1 → …` with the given weights, plus an unreachable
/// vertex at the end.
fn weighted_path(weights: &[u32]) -> Graph<u32> {
    let n = weights.len() + 2;
    let mut el = EdgeList::<u32>::new(n);
    el.edges = (0..weights.len() as u32).map(|i| [i, i + 1]).collect();
    el.weights = Some(weights.to_vec());
    build(&el, BuildOptions::default()).unwrap()
}

/// `sssp::run_cpu` takes 32-bit distances exactly when no simple path can reach
/// `u32::MAX` (weights at the limits included) and 64-bit ones otherwise, and
/// every schedule and the bulk path give Dijkstra's distances either way.
#[test]
fn sssp_picks_32_bits_only_where_they_cannot_overflow() {
    let half = (u32::MAX - 1) / 2; // two hops: u32::MAX − 1, the largest that fits
    for (weights, fits) in [
        (&[u32::MAX - 1][..], true),
        (&[u32::MAX][..], false),
        (&[half, half][..], true),
        (&[half + 1, half][..], false),
        (&[1 << 31, 1 << 31][..], false),
        (&[0, 0, 7][..], true),
    ] {
        let g = weighted_path(weights);
        assert_eq!(sssp::fits_u32(&g), fits, "{weights:?}");
        let want = oracle::dijkstra(g.csr(), 0);
        assert_eq!(
            *want.last().unwrap(),
            u64::MAX,
            "the extra vertex is unreached"
        );
        for s in [Schedule::Sync, Schedule::Async, Schedule::Obim] {
            for t in [1, 3] {
                let o = CpuOptions {
                    threads: Some(t),
                    direction: Direction::Auto,
                };
                let a = AsyncOptions::default();
                let (r, narrow) = sssp::run_cpu(&g, 0, s, &o, &a).unwrap();
                assert_eq!(narrow, fits, "{weights:?} {s:?}");
                assert_eq!(r.states, want, "{weights:?} {s:?} t{t}");
            }
        }
        if fits {
            let o = CpuOptions {
                threads: Some(2),
                ..CpuOptions::default()
            };
            let r =
                cpu::obim::run_bulk::<sssp::sssp32::Program>(&g, 0, &o, &AsyncOptions::default())
                    .unwrap();
            assert_eq!(cpu::narrow::widen(&r.states), want, "bulk {weights:?}");
        }
    }
    // Undirected: the bound counts vertices on edges, not all of them.
    let mut el = EdgeList::<u32>::new(1000);
    el.edges = vec![[0, 1], [1, 2]];
    el.weights = Some(vec![u32::MAX / 3, u32::MAX / 3]);
    let g = build(&el, BuildOptions::undirected()).unwrap();
    assert!(sssp::fits_u32(&g), "2 hops of a third of u32::MAX fit");
    let (r, narrow) = sssp::run_cpu(
        &g,
        2,
        Schedule::Obim,
        &CpuOptions::default(),
        &AsyncOptions::default(),
    )
    .unwrap();
    assert!(narrow);
    assert_eq!(r.states, oracle::dijkstra(g.csr(), 2));
}
