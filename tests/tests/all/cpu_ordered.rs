//! What `Schedule::Obim` runs (`cpu::obim::run_ordered`): lock-step buckets
//! (bulk Δ-stepping with gapbs's bin fusion) on high-diameter graphs, soft
//! priorities elsewhere. Both, and the path `auto` picks, agree with Dijkstra on
//! grid, Kronecker, uniform random and hub-plus-path graphs, in 64 and 32 bits,
//! at several thread counts and bucket widths; bin fusion leaves one pass per
//! bucket where every bin is small.

use runtime::cpu::{self, AsyncOptions, CpuOptions, Direction};
use runtime::graph::Graph;
use runtime::program::Schedule;
use vertex_examples::programs::sssp;
use vertex_tests::{dijkstra, first_with_edges, generated, star_and_path};

fn opts(threads: usize) -> CpuOptions {
    CpuOptions {
        threads: Some(threads),
        direction: Direction::Auto,
    }
}

fn graphs() -> Vec<(&'static str, Graph<u32>, bool)> {
    vec![
        ("grid:120x80", generated("grid:120x80", true), true),
        ("kron:12", generated("kron:12", true), false),
        (
            "uniform:3000:12000",
            generated("uniform:3000:12000", true),
            false,
        ),
        ("star and path", star_and_path(), true),
    ]
}

#[test]
fn ordered_obim_agrees_with_dijkstra_in_lock_step_and_soft() {
    for (name, g, high) in graphs() {
        let src = first_with_edges(&g);
        assert_eq!(
            cpu::obim::lockstep::<sssp::sssp::Program>(&g, src),
            high,
            "{name}: lock-step only on high-diameter graphs"
        );
        let choice = cpu::auto::choose::<sssp::sssp::Program>(&g, src);
        assert_eq!(choice.schedule, Schedule::Obim);
        assert_eq!(
            choice.reason.contains("lock-step"),
            high,
            "{name}: {choice:?}"
        );
        let want = dijkstra(g.csr(), src);
        let want32: Vec<u32> = want
            .iter()
            .map(|&d| d.min(u64::from(u32::MAX)) as u32)
            .collect();
        for threads in [1, 2, 3, 8] {
            for delta in [None, Some(1), Some(64), Some(100_000)] {
                let (o, a) = (
                    opts(threads),
                    AsyncOptions {
                        delta,
                        ..AsyncOptions::default()
                    },
                );
                let what = format!("{name} t{threads} Δ{delta:?}");
                let r = cpu::run::<sssp::sssp::Program>(&g, src, Schedule::Obim, &o, &a).unwrap();
                assert_eq!(r.states, want, "ordered {what}");
                let r = cpu::run::<sssp::sssp32::Program>(&g, src, Schedule::Obim, &o, &a).unwrap();
                assert_eq!(r.states, want32, "ordered 32-bit {what}");
                let r = cpu::obim::run::<sssp::sssp32::Program>(&g, src, &o, &a).unwrap();
                assert_eq!(r.states, want32, "soft 32-bit {what}");
                let r = cpu::obim::run_bulk::<sssp::sssp32::Program>(&g, src, &o, &a).unwrap();
                assert_eq!(r.states, want32, "bulk 32-bit {what}");
            }
        }
    }
}

/// Bin fusion: a worker drains its own small bin of the current bucket before
/// the barrier, so where no bin reaches the threshold every bucket takes exactly
/// one pass, at any thread count.
#[test]
fn bin_fusion_leaves_one_pass_per_bucket() {
    let g = generated("grid:60x60", true);
    let src = first_with_edges(&g);
    let want = dijkstra(g.csr(), src);
    for threads in [1, 2, 3] {
        for delta in [16, 64, 256] {
            let a = AsyncOptions {
                delta: Some(delta),
                ..AsyncOptions::default()
            };
            let r =
                cpu::obim::run_bulk::<sssp::sssp::Program>(&g, src, &opts(threads), &a).unwrap();
            assert_eq!(r.states, want, "t{threads} Δ{delta}");
            assert!(r.report.bucket_switches > 1, "t{threads} Δ{delta}");
            assert_eq!(
                r.report.rounds, r.report.bucket_switches,
                "t{threads} Δ{delta}: passes vs buckets"
            );
        }
    }
}
