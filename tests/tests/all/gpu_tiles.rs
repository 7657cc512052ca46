//! The tiled asynchronous kernel (`kernels_rs::tiles`) on the host: the generated
//! `vx_<program>_tiles` body run by one OS thread per simulated GPU thread,
//! against the sequential oracles, on the graphs it is for (grids, long paths, a
//! 100,000-vertex chain) and the ones it must survive (Kronecker hubs, isolated
//! sources, a star glued to a path, more tiles than vertices), with grid shapes
//! from one thread to several blocks of several threads.

use proptest::prelude::*;
use runtime::gpu::program::emulate;
use runtime::gpu::tiles::{chains, emulate_tiles, emulate_tiles_with, RowRoom, TilesKnobs};
use runtime::gpu::{BfsKernel, ProgramOptions};
use runtime::graph::{build, BuildOptions, EdgeList, Graph};
use vertex_examples::programs::{bfs, cc, sssp, widest};
use vertex_tests as oracle;
use vertex_tests::{first_with_edges, generated, star_and_path};

/// `(blocks, threads, room for rows in shared memory)`: several tiles of
/// several threads, one tile, one thread, many one-thread tiles; rows copied
/// as they are, copied narrow, or read from the graph.
const SHAPES: [(u32, u32, RowRoom); 6] = [
    (3, 4, RowRoom::Wide),
    (3, 4, RowRoom::None),
    (3, 4, RowRoom::Narrow),
    (1, 6, RowRoom::Wide),
    (1, 1, RowRoom::Narrow),
    (7, 1, RowRoom::Wide),
];

fn opts() -> ProgramOptions {
    ProgramOptions {
        kernel: BfsKernel::Tiles,
        ..ProgramOptions::default()
    }
}

fn check_all(g: &Graph<u32>, gw: &Graph<u32>, src: u32) {
    let levels = oracle::bfs_levels(g.csr(), src);
    let comps = oracle::components(g.csr());
    let dist = oracle::dijkstra(gw.csr(), src);
    let wide = oracle::widest(gw.csr(), src);
    for (b, t, rows) in SHAPES {
        let shape = format!("{b}x{t} rows {rows:?}");
        let r = emulate_tiles::<bfs::Program>(g.csr(), src, &opts(), b, t, rows).unwrap();
        assert_eq!(r.states, levels, "BFS {shape}");
        let stats = r.tiles.unwrap();
        let reached = levels.iter().filter(|&&l| l != oracle::UNREACHED).count();
        assert!(stats.pops as usize >= reached, "{stats:?}");
        let copied = stats.rows_wide + stats.rows_narrow;
        match rows {
            RowRoom::None => assert_eq!(copied, 0, "{shape} {stats:?}"),
            RowRoom::Wide => assert_eq!(stats.rows_wide, b, "{shape} {stats:?}"),
            // Narrow room still holds a sparse tile as it is.
            RowRoom::Narrow => assert_eq!(copied, b, "{shape} {stats:?}"),
        }
        let r = emulate_tiles::<cc::Program>(g.csr(), src, &opts(), b, t, rows).unwrap();
        assert_eq!(r.states, comps, "CC {shape}");
        // 64-bit distances travel beside the message word, 32-bit ones in it.
        let r = emulate_tiles::<sssp::sssp::Program>(gw.csr(), src, &opts(), b, t, rows).unwrap();
        assert_eq!(r.states, dist, "SSSP {shape}");
        let r = emulate_tiles::<sssp::sssp32::Program>(gw.csr(), src, &opts(), b, t, rows).unwrap();
        assert_eq!(r.states, dist32(&dist), "SSSP 32 {shape}");
        let r = emulate_tiles::<widest::Program>(gw.csr(), src, &opts(), b, t, rows).unwrap();
        assert_eq!(r.states, wide, "widest {shape}");
    }
}

/// Runs `P`'s tiled kernel with `knobs` and checks it against `want`.
fn agrees<P>(
    g: &Graph<u32>,
    src: u32,
    (b, t): (u32, u32),
    knobs: TilesKnobs,
    want: &[<P as runtime::program::VertexProgram>::State],
    what: &str,
) -> runtime::gpu::program::TileStats
where
    P: runtime::gpu::program::GpuProgram + runtime::program::VertexProgram<Weight = u32>,
{
    let r = emulate_tiles_with::<P>(g.csr(), src, &opts(), b, t, RowRoom::Wide, knobs).unwrap();
    assert!(r.states == want, "{what} {b}x{t} {knobs:?}");
    r.tiles.unwrap()
}

/// Rings of one to three messages: senders find them full, wait, and take
/// their own block's messages meanwhile (so two blocks waiting on each
/// other both move); every answer still agrees with the oracle.
#[test]
fn senders_wait_for_room_in_small_rings() {
    let mut waited = 0;
    for spec in ["grid:23x17", "kron:9:8"] {
        let g = generated(spec, false);
        let gw = generated(spec, true);
        let src = first_with_edges(&g);
        let levels = oracle::bfs_levels(g.csr(), src);
        let dist = oracle::dijkstra(gw.csr(), src);
        let comps = oracle::components(g.csr());
        for ring in [1, 2, 3] {
            for shape in [(3, 4), (7, 1), (5, 2), (4, 8)] {
                let knobs = TilesKnobs {
                    ring: Some(ring),
                    ..TilesKnobs::default()
                };
                let what = format!("{spec} ring {ring}");
                waited += agrees::<bfs::Program>(&g, src, shape, knobs, &levels, &what).waits;
                waited += agrees::<sssp::sssp::Program>(&gw, src, shape, knobs, &dist, &what).waits;
                waited += agrees::<cc::Program>(&g, src, shape, knobs, &comps, &what).waits;
            }
        }
    }
    assert!(
        waited > 0,
        "no sender waited: the test does not reach the waiting path"
    );
}

/// Runs every program the tiled kernel takes with each of `runs` (a block
/// shape and knobs) on a grid, a 700-vertex chain, a graph with hubs and a star
/// with a path, against the oracles.
fn every_program_agrees(runs: &[((u32, u32), TilesKnobs)]) {
    let mut graphs: Vec<_> = ["grid:31x9", "grid:700x1", "kron:9:8"]
        .map(|spec| (spec, generated(spec, false), generated(spec, true)))
        .into();
    graphs.push(("star and path", star_and_path(), star_and_path()));
    for (spec, g, gw) in &graphs {
        let src = first_with_edges(g);
        let levels = oracle::bfs_levels(g.csr(), src);
        let dist = oracle::dijkstra(gw.csr(), src);
        let wide = oracle::widest(gw.csr(), src);
        let comps = oracle::components(g.csr());
        for &(shape, knobs) in runs {
            let what = format!("{spec} {knobs:?}");
            agrees::<bfs::Program>(g, src, shape, knobs, &levels, &what);
            agrees::<sssp::sssp::Program>(gw, src, shape, knobs, &dist, &what);
            agrees::<sssp::sssp32::Program>(gw, src, shape, knobs, &dist32(&dist), &what);
            let st = agrees::<widest::Program>(gw, src, shape, knobs, &wide, &what);
            if let Some(chain) = knobs.chain {
                assert_eq!(st.chain, chain, "{what}");
            }
            agrees::<cc::Program>(g, src, shape, knobs, &comps, &what);
        }
    }
}

/// Every split of a block into messenger and workers (one of each, in a
/// block of one thread or two; one and two; two and two; four and five) with
/// roomy and tiny rings agrees with the oracle for every program the kernel
/// runs: the messenger's takes land in the level after the workers' current
/// one whenever they come.
#[test]
fn every_split_of_messenger_and_workers_agrees() {
    let runs = [
        ((3, 4), None),
        ((1, 1), None),
        ((4, 2), Some(1)),
        ((5, 3), Some(2)),
        ((2, 9), Some(1)),
    ]
    .map(|(shape, ring)| {
        let knobs = TilesKnobs {
            ring,
            ..TilesKnobs::default()
        };
        (shape, knobs)
    });
    every_program_agrees(&runs);
}

/// Chains of every length (none, one vertex, two, longer than any tile) and
/// tiny rings agree with the oracle for every program that chains (a priority
/// wider than a level, labels) and for BFS, which never does: a vertex a
/// group keeps for itself is pending in no queue until it is relaxed.
#[test]
fn chains_of_every_length_agree() {
    let mut runs = Vec::new();
    for chain in [0, 1, 2, 1000] {
        for (shape, ring) in [((3, 4), None), ((4, 2), Some(1)), ((2, 9), Some(2))] {
            let chain = Some(chain);
            runs.push((shape, TilesKnobs { ring, chain }));
        }
    }
    every_program_agrees(&runs);
    // By default only the programs whose buckets span many hops chain.
    assert!(chains::<widest::Program>() && chains::<cc::Program>());
    assert!(!chains::<sssp::sssp::Program>() && !chains::<sssp::sssp32::Program>());
}

/// 64-bit oracle distances as the 32-bit program's states.
fn dist32(dist: &[u64]) -> Vec<u32> {
    dist.iter()
        .map(|&d| u32::try_from(d).unwrap_or(u32::MAX))
        .collect()
}

/// Levels whose remote edges overflow the outbox (256 a level) on a
/// low-diameter graph cut into few tiles: the vertices that do not fit wait
/// for the next level whole, and every answer still agrees.
#[test]
fn a_full_outbox_defers_whole_vertices() {
    let g = generated("uniform:6000:60000", false);
    let gw = generated("uniform:6000:60000", true);
    let src = first_with_edges(&g);
    let levels = oracle::bfs_levels(g.csr(), src);
    let dist = oracle::dijkstra(gw.csr(), src);
    for (b, t) in [(3, 4), (2, 8)] {
        let r = emulate_tiles::<bfs::Program>(g.csr(), src, &opts(), b, t, RowRoom::Wide).unwrap();
        assert_eq!(r.states, levels, "BFS {b}x{t}");
        let stats = r.tiles.unwrap();
        assert!(stats.messages > 512, "{stats:?}");
        let r = emulate_tiles::<sssp::sssp::Program>(gw.csr(), src, &opts(), b, t, RowRoom::None)
            .unwrap();
        assert_eq!(r.states, dist, "SSSP {b}x{t}");
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
fn a_chain_of_100000_vertices() {
    let n = 100_000u32;
    let el = EdgeList::<u32> {
        num_vertices: n as usize,
        edges: (0..n - 1).map(|v| [v, v + 1]).collect(),
        weights: Some((0..n - 1).map(|v| 1 + v % 7).collect()),
    };
    let g = build(&el, BuildOptions::default()).unwrap();
    for (b, t, rows) in [
        (1, 1, RowRoom::None),
        (4, 2, RowRoom::Wide),
        (4, 2, RowRoom::Narrow),
    ] {
        let r = emulate_tiles::<bfs::Program>(g.csr(), 0, &opts(), b, t, rows).unwrap();
        assert_eq!(r.states, oracle::bfs_levels(g.csr(), 0));
        // A chain is relaxed once per vertex: no vertex is reached twice.
        assert_eq!(r.tiles.unwrap().pops, n);
        assert_eq!(r.tiles.unwrap().messages, b - 1);
        let r = emulate_tiles::<sssp::sssp::Program>(g.csr(), 0, &opts(), b, t, rows).unwrap();
        assert_eq!(r.states, oracle::dijkstra(g.csr(), 0));
    }
}

#[test]
fn hubs_isolated_sources_and_errors() {
    // A star glued to a path: one vertex of degree 250, then 550 levels.
    let g = star_and_path();
    check_all(&g, &g, 0);
    check_all(&g, &g, 801); // isolated
    let e = emulate_tiles::<bfs::Program>(g.csr(), 900, &opts(), 1, 2, RowRoom::Wide).unwrap_err();
    assert!(e.to_string().contains("out of range"), "{e}");
    // More tiles than vertices: the last tiles are empty.
    let tiny = generated("grid:2x2", true);
    check_all(&tiny, &tiny, 0);
    let r = emulate_tiles::<bfs::Program>(tiny.csr(), 3, &opts(), 9, 2, RowRoom::Wide).unwrap();
    assert_eq!(r.states, oracle::bfs_levels(tiny.csr(), 3));
    // Parents: the resident kernel records them instead.
    let o = ProgramOptions {
        parents: true,
        ..opts()
    };
    let r = emulate_tiles::<bfs::Program>(g.csr(), 0, &o, 2, 2, RowRoom::None).unwrap();
    assert!(r.parents.is_some() && r.resident.is_some() && r.tiles.is_none());
    // A row longer than an outbox part: the resident kernel too.
    let mut edges: Vec<[u32; 2]> = (1..=300).map(|v| [0, v]).collect();
    edges.push([300, 301]);
    let el = EdgeList::<u32> {
        num_vertices: 302,
        edges,
        weights: None,
    };
    let hub = build(&el, BuildOptions::undirected()).unwrap();
    let r = emulate_tiles::<bfs::Program>(hub.csr(), 0, &opts(), 2, 2, RowRoom::None).unwrap();
    assert_eq!(r.states, oracle::bfs_levels(hub.csr(), 0));
    assert!(r.resident.is_some() && r.tiles.is_none());
    // The level-kernel entry point reaches the tiled kernel too.
    let r = emulate::<bfs::Program>(g.csr(), 0, &opts(), 4).unwrap();
    assert_eq!(r.states, oracle::bfs_levels(g.csr(), 0));
    assert!(r.tiles.is_some());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]
    #[test]
    fn random_small_graphs(
        n in 1u32..40,
        raw in prop::collection::vec((0u32..40, 0u32..40, 1u32..20), 0..120),
        undirected in any::<bool>(),
        shape in 0usize..5,
    ) {
        let edges: Vec<[u32; 2]> = raw.iter().map(|&(a, b, _)| [a % n, b % n]).collect();
        let weights: Vec<u32> = raw.iter().map(|&(_, _, w)| w).collect();
        let bo = if undirected { BuildOptions::undirected() } else { BuildOptions::default() };
        let g = build(&EdgeList { num_vertices: n as usize, edges, weights: Some(weights) }, bo).unwrap();
        let (b, t, rows) = SHAPES[shape];
        let r = emulate_tiles::<bfs::Program>(g.csr(), 0, &opts(), b, t, rows).unwrap();
        prop_assert_eq!(r.states, oracle::bfs_levels(g.csr(), 0));
        let r = emulate_tiles::<sssp::sssp::Program>(g.csr(), 0, &opts(), b, t, rows).unwrap();
        prop_assert_eq!(r.states, oracle::dijkstra(g.csr(), 0));
        let r = emulate_tiles::<widest::Program>(g.csr(), 0, &opts(), b, t, rows).unwrap();
        prop_assert_eq!(r.states, oracle::widest(g.csr(), 0));
        if undirected {
            let r = emulate_tiles::<cc::Program>(g.csr(), 0, &opts(), b, t, rows).unwrap();
            prop_assert_eq!(r.states, oracle::components(g.csr()));
        }
    }
}

#[test]
fn weights_past_sixteen_bits_keep_their_rows_in_the_graph() {
    // A narrow copy halves 4-byte weights; one weight of 2^16 or more in a
    // tile means that tile reads its rows from the graph instead.
    let g = generated("grid:12x9", false);
    let el = EdgeList::<u32> {
        num_vertices: g.num_vertices(),
        edges: (0..g.num_vertices() as u32)
            .flat_map(|v| g.csr().neighbors(v).iter().map(move |&t| [v, t]))
            .collect(),
        weights: None,
    };
    let weights = (0..el.edges.len() as u32)
        .map(|i| if i % 5 == 0 { 70_000 + i } else { 1 + i % 9 })
        .collect();
    let gw = build(
        &EdgeList {
            weights: Some(weights),
            ..el
        },
        BuildOptions::default(),
    )
    .unwrap();
    let want = oracle::dijkstra(gw.csr(), 0);
    for (b, t) in [(3, 4), (1, 2)] {
        let r = emulate_tiles::<sssp::sssp::Program>(gw.csr(), 0, &opts(), b, t, RowRoom::Narrow)
            .unwrap();
        assert_eq!(r.states, want, "{b}x{t}");
        let stats = r.tiles.unwrap();
        assert_eq!(stats.rows_narrow, 0, "{stats:?}");
    }
}

#[test]
fn a_grid_tile_too_big_as_it_is_is_copied_narrow() {
    let gw = generated("grid:30x30", true);
    let src = 0;
    for (b, t) in [(3, 4), (2, 3)] {
        let r =
            emulate_tiles::<bfs::Program>(gw.csr(), src, &opts(), b, t, RowRoom::Narrow).unwrap();
        assert_eq!(r.states, oracle::bfs_levels(gw.csr(), src));
        assert_eq!(r.tiles.unwrap().rows_narrow, b, "BFS {:?}", r.tiles);
        // Integer weights below 2^16: halved in the copy, rebuilt exactly.
        let r = emulate_tiles::<sssp::sssp::Program>(gw.csr(), src, &opts(), b, t, RowRoom::Narrow)
            .unwrap();
        assert_eq!(r.states, oracle::dijkstra(gw.csr(), src));
        assert_eq!(r.tiles.unwrap().rows_narrow, b, "SSSP {:?}", r.tiles);
    }
}

#[test]
fn distances_past_u32_max_stay_pending() {
    // 64-bit distances whose priority saturates at u32::MAX (from the third
    // vertex on): the kernel's "no pending vertex" must not be mistaken for a
    // pending vertex that far away (found on the H100 with a DIMACS-style chain).
    let n = 300u32;
    let gw = build(
        &EdgeList::<u32> {
            num_vertices: n as usize,
            edges: (0..n - 1).map(|i| [i, i + 1]).collect(),
            weights: Some((0..n - 1).map(|i| (1 << 31) + i).collect()),
        },
        BuildOptions::default(),
    )
    .unwrap();
    let want = oracle::dijkstra(gw.csr(), 0);
    assert!(want[2] > u64::from(u32::MAX));
    for (b, t, rows) in SHAPES {
        let r = emulate_tiles::<sssp::sssp::Program>(gw.csr(), 0, &opts(), b, t, rows).unwrap();
        assert_eq!(r.states, want, "{b}x{t} {rows:?}");
    }
}
