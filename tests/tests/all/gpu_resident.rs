//! The device-resident kernel (`kernels_rs::resident`) on the host: the generated
//! `vx_<program>_resident` body run by one OS thread per simulated GPU thread with
//! real barriers, against the sequential oracles, on the graphs it is for (long
//! paths, grids, a 100,000-vertex chain) and the ones it must survive (Kronecker
//! hubs, isolated sources, stars), with grid shapes that force each path: all
//! rounds on one block, all on the grid, a one-word append buffer (overflow to the
//! global queue), and bucket widths from 1 to "one bucket".

use proptest::prelude::*;
use runtime::gpu::auto;
use runtime::gpu::program::emulate;
use runtime::gpu::resident::emulate_resident;
use runtime::gpu::{BfsKernel, ProgramOptions};
use runtime::graph::{build, BuildOptions, EdgeList, Graph};
use vertex_examples::programs::{bfs, cc, sssp, widest};
use vertex_tests as oracle;
use vertex_tests::{first_with_edges, generated, star_and_path};

/// `(blocks, threads, smem words, small_max)`: mixed, always wide, tiny buffer,
/// always one block, one thread.
const SHAPES: [(u32, u32, u32, u32); 5] = [
    (3, 4, 64, 16),
    (2, 4, 8, 0),
    (2, 3, 1, 5),
    (2, 8, 4096, u32::MAX),
    (1, 1, 2, 3),
];

fn opts(delta: Option<u64>) -> ProgramOptions {
    ProgramOptions {
        kernel: BfsKernel::Resident,
        delta,
        ..ProgramOptions::default()
    }
}

fn check_all(g: &Graph<u32>, gw: &Graph<u32>, src: u32) {
    let levels = oracle::bfs_levels(g.csr(), src);
    let comps = oracle::components(g.csr());
    let dist = oracle::dijkstra(gw.csr(), src);
    let wide = oracle::widest(gw.csr(), src);
    for (b, t, sm, small) in SHAPES {
        let shape = format!("{b}x{t} smem {sm} small {small}");
        let r =
            emulate_resident::<bfs::Program>(g.csr(), src, &opts(None), b, t, sm, small).unwrap();
        assert_eq!(r.states, levels, "BFS {shape}");
        let stats = r.resident.unwrap();
        assert_eq!(
            stats.rounds,
            stats.small_rounds + stats.wide_rounds,
            "{stats:?}"
        );
        let r =
            emulate_resident::<cc::Program>(g.csr(), src, &opts(None), b, t, sm, small).unwrap();
        assert_eq!(r.states, comps, "CC {shape}");
        for delta in [None, Some(1), Some(40), Some(1 << 40)] {
            let r = emulate_resident::<sssp::sssp::Program>(
                gw.csr(),
                src,
                &opts(delta),
                b,
                t,
                sm,
                small,
            )
            .unwrap();
            assert_eq!(r.states, dist, "SSSP Δ {delta:?} {shape}");
        }
        let r = emulate_resident::<widest::Program>(gw.csr(), src, &opts(None), b, t, sm, small)
            .unwrap();
        assert_eq!(r.states, wide, "widest {shape}");
    }
}

#[test]
fn generated_graphs() {
    for spec in ["grid:23x17", "kron:9:8", "uniform:300:900", "grid:1x150"] {
        let (g, gw) = (generated(spec, false), generated(spec, true));
        check_all(&g, &gw, first_with_edges(&g));
    }
}

#[test]
fn parents_form_a_bfs_tree() {
    let g = generated("grid:31x29", false);
    let levels = oracle::bfs_levels(g.csr(), 5);
    let o = ProgramOptions {
        parents: true,
        ..opts(None)
    };
    for (b, t, sm, small) in SHAPES {
        let r = emulate_resident::<bfs::Program>(g.csr(), 5, &o, b, t, sm, small).unwrap();
        let p = r.parents.unwrap();
        assert_eq!(p[5], 5);
        for v in 0..g.num_vertices() {
            if v == 5 || levels[v] == oracle::UNREACHED {
                continue;
            }
            let u = p[v];
            assert_eq!(levels[u as usize] + 1, levels[v], "parent of {v}");
            assert!(g.csr().neighbors(u).contains(&(v as u32)));
        }
    }
}

#[test]
fn a_chain_of_100000_vertices() {
    let n = 100_000u32;
    let el = EdgeList::<u32> {
        num_vertices: n as usize,
        edges: (0..n - 1).map(|v| [v, v + 1]).collect(),
        weights: Some((0..n - 1).map(|v| 1 + v % 7).collect()),
    };
    let g = build(&el, BuildOptions::default()).unwrap();
    // One emulated thread: a barrier per round between OS threads would cost
    // more than the rounds (the shapes with many threads run on the shorter
    // chain below).
    let r = emulate_resident::<bfs::Program>(g.csr(), 0, &opts(None), 1, 1, 16, 8).unwrap();
    assert_eq!(r.states, oracle::bfs_levels(g.csr(), 0));
    assert_eq!(r.resident.unwrap().rounds, n);
    assert_eq!(r.resident.unwrap().wide_rounds, 0);
    let r =
        emulate_resident::<sssp::sssp::Program>(g.csr(), 0, &opts(Some(64)), 1, 1, 16, 8).unwrap();
    assert_eq!(r.states, oracle::dijkstra(g.csr(), 0));
    let short = EdgeList::<u32> {
        num_vertices: 3000,
        edges: el.edges[..2999].to_vec(),
        weights: el.weights.as_ref().map(|w| w[..2999].to_vec()),
    };
    let g = build(&short, BuildOptions::undirected()).unwrap();
    for (b, t, sm, small) in SHAPES {
        let r =
            emulate_resident::<sssp::sssp::Program>(g.csr(), 1500, &opts(Some(9)), b, t, sm, small)
                .unwrap();
        assert_eq!(r.states, oracle::dijkstra(g.csr(), 1500));
    }
}

#[test]
fn hubs_isolated_sources_and_errors() {
    // A star glued to a path: one vertex of degree 250, then 550 levels.
    let g = star_and_path();
    check_all(&g, &g, 0);
    check_all(&g, &g, 801); // unreached tail vertex 801: isolated
                            // Not idempotent or not BFS-like: refused, not wrong.
    let o = ProgramOptions {
        parents: true,
        ..opts(None)
    };
    let e = emulate_resident::<sssp::sssp::Program>(g.csr(), 0, &o, 1, 2, 8, 4).unwrap_err();
    assert!(e.to_string().contains("parents"), "{e}");
    let e = emulate_resident::<bfs::Program>(g.csr(), 900, &opts(None), 1, 2, 8, 4).unwrap_err();
    assert!(e.to_string().contains("out of range"), "{e}");
    // The level-kernel entry point reaches the resident kernel too.
    let r = emulate::<bfs::Program>(g.csr(), 0, &opts(None), 4).unwrap();
    assert_eq!(r.states, oracle::bfs_levels(g.csr(), 0));
}

/// A root with 100 hubs of 70 leaves each, then a path: the hubs' round lists
/// more heavy rows than a block has slots (the rest are relaxed by the thread
/// that met them), and one-block rounds meet heavy rows too.
#[test]
fn many_heavy_rows_in_one_round() {
    let (hubs, leaves) = (100u32, 70u32);
    let mut edges = Vec::new();
    let mut next = hubs + 1;
    for h in 1..=hubs {
        edges.push([0, h]);
        for _ in 0..leaves {
            edges.push([h, next]);
            next += 1;
        }
    }
    for i in 0..50 {
        edges.push([next - 1 + i, next + i]);
    }
    let el = EdgeList::<u32> {
        num_vertices: (next + 50) as usize,
        weights: Some((0..edges.len() as u32).map(|i| 1 + i % 13).collect()),
        edges,
    };
    let g = build(&el, BuildOptions::undirected()).unwrap();
    assert!(g.csr().degree(0) as usize > runtime::gpu::resident::HEAVY_ROW);
    check_all(&g, &g, 0);
    check_all(&g, &g, 7);
    let r = emulate_resident::<bfs::Program>(
        g.csr(),
        0,
        &ProgramOptions {
            parents: true,
            ..opts(None)
        },
        2,
        8,
        4096,
        u32::MAX,
    )
    .unwrap();
    assert_eq!(r.states, oracle::bfs_levels(g.csr(), 0));
}

/// Several GPUs on a graph one GPU runs with a persistent kernel: the run
/// says so (the report's warning, the CLI's stderr); on Kronecker it does not.
#[test]
fn several_gpus_warn_on_grids_only() {
    let grid = generated("grid:100x100", true);
    let kron = generated("kron:12:16", true);
    let w = auto::several_gpus_warning::<bfs::Program>(&grid, 0).expect("a grid warns");
    assert!(w.contains("one GPU") && w.contains("tiles"), "{w}");
    assert!(auto::several_gpus_warning::<sssp::sssp::Program>(&grid, 0).is_some());
    let src = first_with_edges(&kron);
    assert_eq!(auto::several_gpus_warning::<bfs::Program>(&kron, src), None);
}

#[test]
fn auto_picks_resident_or_tiles_on_grids_and_chains_only() {
    let grid = generated("grid:100x100", true);
    let kron = generated("kron:12:16", true);
    // BFS on a grid that fits shared memory: the tiled kernel (message rings
    // made it faster than the resident one).
    let c = auto::choose::<bfs::Program>(&grid, 0);
    assert_eq!(c.kernel, BfsKernel::Tiles, "{}", c.reason);
    // SSSP on a grid that fits shared memory: the tiled kernel.
    let c = auto::choose::<sssp::sssp::Program>(&grid, 0);
    assert_eq!(c.kernel, BfsKernel::Tiles, "{}", c.reason);
    assert!(c.delta.is_some());
    // Label propagation (every vertex starts) on a grid: tiles too.
    let c = auto::choose::<cc::Program>(&grid, 0);
    assert_eq!(c.kernel, BfsKernel::Tiles, "{}", c.reason);
    // So are widest paths (no priority, but not BFS-like either).
    let c = auto::choose::<widest::Program>(&grid, 0);
    assert_eq!(c.kernel, BfsKernel::Tiles, "{}", c.reason);
    assert!(c.delta.is_none());
    // ... but not with a hub: a tile relaxes a row on one thread.
    let mut el = EdgeList::<u32> {
        num_vertices: 10_000 + 5_000,
        edges: (0..grid.num_vertices() as u32)
            .flat_map(|v| grid.csr().neighbors(v).iter().map(move |&t| [v, t]))
            .collect(),
        weights: None,
    };
    el.edges.extend((10_000..15_000).map(|leaf| [9_999, leaf]));
    let hubbed = build(&el, BuildOptions::undirected()).unwrap();
    let c = auto::choose::<cc::Program>(&hubbed, 0);
    assert_eq!(c.kernel, BfsKernel::Resident, "{}", c.reason);
    let c = auto::choose::<sssp::sssp::Program>(&hubbed, 0);
    assert_eq!(c.kernel, BfsKernel::Resident, "{}", c.reason);
    let c = auto::choose::<bfs::Program>(&hubbed, 0);
    assert_eq!(c.kernel, BfsKernel::Resident, "{}", c.reason);
    let s = first_with_edges(&kron);
    let c = auto::choose::<bfs::Program>(&kron, s);
    assert_eq!(c.kernel, BfsKernel::Direction, "{}", c.reason);
    let c = auto::choose::<cc::Program>(&kron, s);
    assert_eq!(c.kernel, BfsKernel::Direction, "{}", c.reason);
    let r =
        emulate::<cc::Program>(kron.csr(), s, &c.options(ProgramOptions::default()), 4).unwrap();
    assert_eq!(r.states, oracle::components(kron.csr()));
    let c = auto::choose::<sssp::sssp::Program>(&kron, s);
    assert_eq!(c.kernel, BfsKernel::Balanced, "{}", c.reason);
    // From DIRECTION_MIN_EDGES edges, SSSP's low-diameter levels take the direction kernel.
    let min = auto::DIRECTION_MIN_EDGES;
    assert_eq!(
        auto::without_graph::<sssp::sssp::Program>(min),
        BfsKernel::Direction
    );
    assert_eq!(
        auto::without_graph::<sssp::sssp::Program>(min - 1),
        BfsKernel::Balanced
    );
    assert_eq!(auto::without_graph::<cc::Program>(1), BfsKernel::Direction);
    // Whatever auto picks gives the oracle's answer.
    for g in [&grid, &kron] {
        let s = first_with_edges(g);
        let c = auto::choose::<sssp::sssp::Program>(g, s);
        let o = ProgramOptions {
            kernel: c.kernel,
            delta: c.delta,
            ..ProgramOptions::default()
        };
        let r = emulate::<sssp::sssp::Program>(g.csr(), s, &o, 4).unwrap();
        assert_eq!(r.states, oracle::dijkstra(g.csr(), s));
    }
}

#[test]
fn auto_on_meshes_and_scattered_ids() {
    // A 65,536-point mesh: ~110 BFS levels, more than the bounded probe walks
    // before its edge budget ends; the level estimate sends BFS to tiles, and
    // SSSP (persistent kernels only from ~150 levels) to edge chunks.
    let mesh = generated("mesh:65536", true);
    let c = auto::choose::<bfs::Program>(&mesh, 0);
    assert_eq!(c.kernel, BfsKernel::Tiles, "{}", c.reason);
    let c = auto::choose::<sssp::sssp::Program>(&mesh, 0);
    assert_eq!(c.kernel, BfsKernel::Balanced, "{}", c.reason);
    // A grid with its ids scattered: still high-diameter, but tiles' buckets
    // would trade most edges through the rings, so SSSP gets the resident kernel.
    let grid = generated("grid:200x200", true);
    let perm = runtime::generate::random_permutation(grid.num_vertices(), 5, 0);
    let el = EdgeList::<u32> {
        num_vertices: grid.num_vertices(),
        edges: (0..grid.num_vertices() as u32)
            .flat_map(|v| {
                let perm = &perm;
                grid.csr()
                    .neighbors(v)
                    .iter()
                    .map(move |&t| [perm[v as usize], perm[t as usize]])
            })
            .collect(),
        weights: None,
    };
    let scattered = build(&el, BuildOptions::undirected()).unwrap();
    let s = perm[0];
    let c = auto::choose::<sssp::sssp::Program>(&scattered, s);
    assert_eq!(c.kernel, BfsKernel::Resident, "{}", c.reason);
    let c = auto::choose::<bfs::Program>(&scattered, s);
    assert_eq!(c.kernel, BfsKernel::Tiles, "{}", c.reason);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]
    #[test]
    fn random_small_graphs(
        n in 1u32..40,
        raw in prop::collection::vec((0u32..40, 0u32..40, 1u32..20), 0..120),
        undirected in any::<bool>(),
        shape in 0usize..5,
        delta in 1u64..30,
    ) {
        let edges: Vec<[u32; 2]> = raw.iter().map(|&(a, b, _)| [a % n, b % n]).collect();
        let weights: Vec<u32> = raw.iter().map(|&(_, _, w)| w).collect();
        let bo = if undirected { BuildOptions::undirected() } else { BuildOptions::default() };
        let g = build(&EdgeList { num_vertices: n as usize, edges, weights: Some(weights) }, bo).unwrap();
        let (b, t, sm, small) = SHAPES[shape];
        let r = emulate_resident::<bfs::Program>(g.csr(), 0, &opts(None), b, t, sm, small).unwrap();
        prop_assert_eq!(r.states, oracle::bfs_levels(g.csr(), 0));
        let r = emulate_resident::<sssp::sssp::Program>(g.csr(), 0, &opts(Some(delta)), b, t, sm, small).unwrap();
        prop_assert_eq!(r.states, oracle::dijkstra(g.csr(), 0));
        let r = emulate_resident::<widest::Program>(g.csr(), 0, &opts(None), b, t, sm, small).unwrap();
        prop_assert_eq!(r.states, oracle::widest(g.csr(), 0));
        if undirected {
            let r = emulate_resident::<cc::Program>(g.csr(), 0, &opts(None), b, t, sm, small).unwrap();
            prop_assert_eq!(r.states, oracle::components(g.csr()));
        }
    }
}
