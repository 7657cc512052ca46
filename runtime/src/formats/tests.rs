//! Tests across formats: the gapbs test graphs, write→read round trips of every
//! format (weighted and not, gzip included), probing, and fuzz-style robustness
//! (random and mutated input must give `Ok` or `Err`, never a panic).
//!
//! In test builds the readers split files into tiny chunks (see
//! `text::chunk_target`), so these small inputs also exercise the parallel paths.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use proptest::prelude::*;

use super::*;
use crate::graph::{build, BuildOptions, EdgeList, Graph, Weight, WeightKind};

// ---------------------------------------------------------------- gapbs graphs

fn gapbs_dir() -> Option<PathBuf> {
    let d = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/peers/gapbs/test/graphs");
    if d.is_dir() {
        Some(d)
    } else {
        eprintln!(
            "note: {} is absent; skipping the gapbs test graphs",
            d.display()
        );
        None
    }
}

/// The gapbs test graphs: (file, entries in the file, weighted).
///
/// Expected counts were obtained by building gapbs (a copy of ../shared/peers/gapbs in
/// /tmp, `make bfs`) and running `./bfs -f test/graphs/FILE -n 1`, which prints
/// "Graph has 14 nodes and 53 directed edges" for every one of these files, and
/// `./bfs -f test/graphs/FILE -s -n 1`, which prints "Graph has 14 nodes and 53
/// undirected edges" (gapbs stores 2 × 53 = 106 arcs). gapbs drops self-loops and
/// duplicate edges when building, so we compare with a build that does the same. The
/// entry counts are the data lines of each file (`wc -l` minus header lines; the
/// `.graph` files list 53 adjacency entries for `m = 53`, i.e. one direction only).
const GAPBS: [(&str, usize, bool); 7] = [
    ("4.el", 256, false),
    ("4.gr", 256, true),
    ("4.graph", 53, false),
    ("4.mtx", 256, false),
    ("4.wel", 256, true),
    ("4w.graph", 53, true),
    ("4w.mtx", 256, true),
];
const GAPBS_NODES: usize = 14;
const GAPBS_DIRECTED_EDGES: u64 = 53;
const GAPBS_UNDIRECTED_EDGES: u64 = 53;

#[test]
fn gapbs_test_graphs_load_with_gapbs_counts() {
    let Some(dir) = gapbs_dir() else { return };
    for (name, entries, weighted) in GAPBS {
        let p = read_edges::<i64>(&dir.join(name), ReadOptions::default())
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(p.edges.len(), entries, "{name}");
        assert_eq!(p.edges.weights.is_some(), weighted, "{name}");
        assert_eq!(
            p.file_weight_kind,
            weighted.then_some(WeightKind::I64),
            "{name}"
        );
        assert!(!p.symmetric, "{name}");
        let simple = BuildOptions {
            remove_self_loops: true,
            dedup: true,
            ..Default::default()
        };
        let g = build(&p.edges, simple).unwrap();
        assert_eq!(g.num_vertices(), GAPBS_NODES, "{name}");
        assert_eq!(g.num_edges(), GAPBS_DIRECTED_EDGES, "{name}");
        let u = build(&p.edges, BuildOptions::undirected()).unwrap();
        assert_eq!(u.num_edges(), 2 * GAPBS_UNDIRECTED_EDGES, "{name}");

        let probe = probe(&dir.join(name)).unwrap();
        assert_eq!(probe.weighted, weighted, "{name}");
        assert_eq!(
            probe.weight_kind,
            weighted.then_some(WeightKind::I64),
            "{name}"
        );
        assert!(!probe.gzip);
    }
    // .wel and .gr hold the same weighted edges (0- vs 1-based), .el the same edges.
    let wel = read_edges::<u32>(&dir.join("4.wel"), ReadOptions::default()).unwrap();
    let gr = read_edges::<u32>(&dir.join("4.gr"), ReadOptions::default()).unwrap();
    let el = read_edges::<u32>(&dir.join("4.el"), ReadOptions::default()).unwrap();
    assert_eq!(wel.edges, gr.edges);
    assert_eq!(el.edges.edges, wel.edges.edges);
}

// ------------------------------------------------------------------ round trips

fn graph<W: Weight>(n: usize, edges: &[[u32; 2]], weights: Option<Vec<W>>, sym: bool) -> Graph<W> {
    let el = EdgeList {
        num_vertices: n,
        edges: edges.to_vec(),
        weights,
    };
    build(
        &el,
        BuildOptions {
            symmetrize: sym,
            ..Default::default()
        },
    )
    .unwrap()
}

/// Builds what a reader returned, the way a loader should: no second symmetrization.
fn rebuild<W: Weight>(p: &Parsed<W>) -> Graph<W> {
    let g = build(&p.edges, BuildOptions::default()).unwrap();
    Graph::new(g.into_csr(), p.symmetric)
}

fn bits<W: Weight>(w: Option<&[W]>) -> Option<Vec<Vec<u8>>> {
    w.map(|w| w.iter().map(|x| bytemuck::bytes_of(x).to_vec()).collect())
}

/// What reading back `g` written as `format` must give.
fn expected<W: Weight>(g: &Graph<W>, format: Format) -> Option<Vec<W>> {
    let w = g.csr().weights().map(|w| w.to_vec());
    match format {
        Format::EdgeList => None,
        Format::WeightedEdgeList | Format::Dimacs => {
            Some(w.unwrap_or_else(|| vec![W::ONE; g.num_edges() as usize]))
        }
        _ => w,
    }
}

fn check_same<W: Weight>(g: &Graph<W>, back: &Parsed<W>, format: Format) {
    let h = rebuild(back);
    let (a, b) = (g.csr(), h.csr());
    if matches!(format, Format::EdgeList | Format::WeightedEdgeList) {
        // Plain lines (no `# Nodes:` header, for gapbs): trailing isolated vertices
        // are not representable; the reader counts max id + 1.
        let used = (0..a.num_vertices() as u32)
            .flat_map(|u| a.neighbors(u).iter().map(move |&v| u.max(v) as usize + 1))
            .max()
            .unwrap_or(0);
        assert_eq!(b.num_vertices(), used, "{format}");
        assert_eq!(&a.offsets()[..=used], b.offsets(), "{format}");
    } else {
        assert_eq!(a.num_vertices(), b.num_vertices(), "{format}");
        assert_eq!(a.offsets(), b.offsets(), "{format}");
    }
    assert_eq!(a.targets(), b.targets(), "{format}");
    assert_eq!(
        bits(expected(g, format).as_deref()),
        bits(b.weights()),
        "{format}"
    );
    if matches!(format, Format::MatrixMarket | Format::Metis) {
        assert_eq!(back.symmetric, g.is_symmetric(), "{format}");
    } else {
        assert!(!back.symmetric);
    }
}

fn gz(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

const TEXT: [Format; 5] = [
    Format::MatrixMarket,
    Format::Dimacs,
    Format::EdgeList,
    Format::WeightedEdgeList,
    Format::Metis,
];

fn round_trip_in_memory<W: Weight>(g: &Graph<W>, compress: bool) {
    for format in TEXT {
        if format == Format::Metis && !g.is_symmetric() {
            continue;
        }
        let name = PathBuf::from(format!("g.{}", format.extension()));
        let mut text = Vec::new();
        write_text(g, format, &mut text, &name).unwrap();
        let bytes = if compress { gz(&text) } else { text };
        let back = parse_edges::<W>(format, &bytes, &name, ReadOptions::default())
            .unwrap_or_else(|e| panic!("{e}\n{}", String::from_utf8_lossy(&bytes)));
        check_same(g, &back, format);
        let plain = parse_edges::<W>(
            format,
            &bytes,
            &name,
            ReadOptions {
                ignore_weights: true,
            },
        )
        .unwrap();
        assert_eq!(plain.edges.weights, None);
        assert_eq!(plain.edges.edges, back.edges.edges);
    }
}

fn arb_graph() -> impl Strategy<Value = (usize, Vec<[u32; 2]>, Vec<i32>, Vec<f64>)> {
    (1usize..24).prop_flat_map(|n| {
        prop::collection::vec(
            (
                0..n as u32,
                0..n as u32,
                -1000i32..1000,
                prop_oneof![
                    prop::num::f64::NORMAL,
                    prop::num::f64::SUBNORMAL,
                    prop::num::f64::ZERO,
                    prop::num::f64::INFINITE,
                    (-8i32..8).prop_map(|x| x as f64 / 4.0),
                ],
            ),
            0..60,
        )
        .prop_map(move |es| {
            let edges = es.iter().map(|e| [e.0, e.1]).collect();
            let wi = es.iter().map(|e| e.2).collect();
            let wf = es.iter().map(|e| e.3).collect();
            (n + (es.len() % 3), edges, wi, wf)
        })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn every_format_round_trips_in_memory(
        (n, edges, wi, wf) in arb_graph(),
        sym in any::<bool>(),
        compress in any::<bool>(),
    ) {
        round_trip_in_memory(&graph::<u32>(n, &edges, None, sym), compress);
        round_trip_in_memory(&graph(n, &edges, Some(wi.clone()), sym), compress);
        let w64: Vec<i64> = wi.iter().map(|&x| x as i64 * 3_000_000_000).collect();
        round_trip_in_memory(&graph(n, &edges, Some(w64), sym), compress);
        round_trip_in_memory(&graph(n, &edges, Some(wf.clone()), sym), compress);
        let w32: Vec<f32> = wf.iter().map(|&x| x as f32).collect();
        round_trip_in_memory(&graph(n, &edges, Some(w32), sym), compress);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    /// Through real files: atomic write, mmap / gunzip read, probe.
    #[test]
    fn every_format_round_trips_through_files(
        (n, edges, wi, _wf) in arb_graph(),
        sym in any::<bool>(),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let weighted = graph(n, &edges, Some(wi), sym);
        let plain = graph::<i32>(n, &edges, None, sym);
        for format in TEXT {
            if format == Format::Metis && !sym {
                let p = dir.path().join("d.graph");
                let e = write_graph(&weighted, &p).unwrap_err();
                prop_assert!(e.to_string().contains("undirected"), "{}", e);
                prop_assert!(!p.exists());
                continue;
            }
            for (g, tag) in [(&weighted, "w"), (&plain, "u")] {
                for suffix in ["", ".gz"] {
                    let p = dir.path().join(format!("{tag}.{}{suffix}", format.extension()));
                    write_graph(g, &p).unwrap();
                    let back = read_edges::<i32>(&p, ReadOptions::default()).unwrap();
                    check_same(g, &back, format);
                    let pr = probe(&p).unwrap();
                    prop_assert_eq!(pr.format, format);
                    prop_assert_eq!(pr.gzip, !suffix.is_empty());
                    let has_w = match format {
                        Format::EdgeList => false,
                        Format::WeightedEdgeList | Format::Dimacs => true,
                        _ => g.csr().is_weighted(),
                    };
                    prop_assert_eq!(pr.weighted, has_w);
                    prop_assert_eq!(pr.weight_kind, has_w.then_some(WeightKind::I64));
                }
            }
        }
        // Nothing but the final files is left behind.
        for entry in std::fs::read_dir(dir.path()).unwrap() {
            let name = entry.unwrap().file_name().to_string_lossy().into_owned();
            prop_assert!(!name.starts_with('.'), "leftover temp file {}", name);
        }
    }
}

#[test]
fn float_weights_are_probed_as_f64() {
    let dir = tempfile::tempdir().unwrap();
    let g = graph(3, &[[0, 1], [1, 2]], Some(vec![0.5f64, 2.0]), false);
    for ext in ["wel", "gr", "mtx", "wel.gz"] {
        let p = dir.path().join(format!("g.{ext}"));
        write_graph(&g, &p).unwrap();
        assert_eq!(
            probe(&p).unwrap().weight_kind,
            Some(WeightKind::F64),
            "{ext}"
        );
        let back = read_edges::<f64>(&p, ReadOptions::default()).unwrap();
        assert_eq!(back.file_weight_kind, Some(WeightKind::F64));
        // Reading fractional weights as integers is an error naming the line.
        let e = read_edges::<u32>(&p, ReadOptions::default())
            .unwrap_err()
            .to_string();
        assert!(e.contains("`0.5` is not a valid u32"), "{e}");
    }
}

#[test]
fn formats_by_name() {
    let f = |s: &str| Format::from_path(Path::new(s)).map_err(|e| e.to_string());
    assert_eq!(f("a/b.mtx").unwrap(), (Format::MatrixMarket, false));
    assert_eq!(f("b.MTX.GZ").unwrap(), (Format::MatrixMarket, true));
    assert_eq!(f("road.gr.gz").unwrap(), (Format::Dimacs, true));
    assert_eq!(f("x.el").unwrap(), (Format::EdgeList, false));
    assert_eq!(
        f("soc-LiveJournal1.txt.gz").unwrap(),
        (Format::EdgeList, true)
    );
    assert_eq!(f("x.wel").unwrap(), (Format::WeightedEdgeList, false));
    assert_eq!(f("x.graph").unwrap(), (Format::Metis, false));
    assert_eq!(f("x.vgr").unwrap(), (Format::Vgr, false));
    assert!(f("x.csv").unwrap_err().contains("unknown extension `.csv`"));
    assert!(f("x.gz").unwrap_err().contains("no extension"));
    for format in ALL_FORMATS {
        let name = format!("g.{}", format.extension());
        assert_eq!(f(&name).unwrap(), (format, false));
    }
}

#[test]
fn vgr_is_refused_by_the_text_paths() {
    let e = parse_edges::<u32>(Format::Vgr, b"", Path::new("g.vgr"), ReadOptions::default())
        .unwrap_err();
    assert!(e.to_string().contains("snapshot"), "{e}");
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("g.vgr");
    std::fs::write(&p, b"x").unwrap();
    assert!(read_edges::<u32>(&p, ReadOptions::default()).is_err());
    assert!(probe(&p).is_err());
    let g = graph::<u32>(2, &[[0, 1]], None, false);
    assert!(write_graph(&g, &p).is_err());
    assert_eq!(std::fs::read(&p).unwrap(), b"x");
}

#[test]
fn missing_file_and_bad_gzip_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let e = read_edges::<u32>(&dir.path().join("none.el"), ReadOptions::default()).unwrap_err();
    assert!(matches!(e, Error::Io { .. }), "{e}");
    let p = dir.path().join("bad.el.gz");
    let mut data = gz(b"0 1\n1 2\n2 3\n3 4\n");
    data.truncate(data.len() - 9);
    std::fs::write(&p, &data).unwrap();
    let e = read_edges::<u32>(&p, ReadOptions::default()).unwrap_err();
    assert!(e.to_string().contains("bad gzip stream"), "{e}");
    let e = write_graph(
        &graph::<u32>(2, &[[0, 1]], None, false),
        &dir.path().join("no/such/dir.el"),
    )
    .unwrap_err();
    assert!(matches!(e, Error::Io { .. }), "{e}");
}

#[test]
fn empty_and_comment_only_edge_lists() {
    let p = parse_edges::<u32>(
        Format::EdgeList,
        b"# nothing\n\n",
        Path::new("e.el"),
        ReadOptions::default(),
    )
    .unwrap();
    assert_eq!((p.edges.num_vertices, p.edges.len()), (0, 0));
    let g = graph::<u32>(5, &[], None, false);
    let mut text = Vec::new();
    write_text(&g, Format::EdgeList, &mut text, Path::new("e.el")).unwrap();
    let back = parse_edges::<u32>(
        Format::EdgeList,
        &text,
        Path::new("e.el"),
        ReadOptions::default(),
    )
    .unwrap();
    // Plain lines carry no vertex count: five isolated vertices read back as none.
    assert!(!text.contains(&b'#'));
    assert_eq!(back.edges.num_vertices, 0);
}

// ------------------------------------------------------------------------- fuzz

/// Runs every reader on `bytes` with several weight types; a panic fails the test.
/// Whatever is accepted must be a valid edge list.
fn feed(format: Format, bytes: &[u8]) {
    let name = PathBuf::from(format!("fuzz.{}", format.extension()));
    for ignore_weights in [false, true] {
        let opts = ReadOptions { ignore_weights };
        if let Ok(p) = parse_edges::<u32>(format, bytes, &name, opts) {
            p.edges.validate().unwrap();
        }
        if let Ok(p) = parse_edges::<f64>(format, bytes, &name, opts) {
            p.edges.validate().unwrap();
        }
        if let Ok(p) = parse_edges::<i64>(format, bytes, &name, opts) {
            p.edges.validate().unwrap();
        }
    }
}

const TOKENS: [&str; 22] = [
    "0",
    "1",
    "2",
    "-1",
    "4294967296",
    "18446744073709551616",
    "1.5",
    "nan",
    "inf",
    "x",
    "\n",
    " ",
    "\t",
    "%",
    "#",
    "c",
    "a",
    "p sp 3 3",
    "%%MatrixMarket",
    "\r\n",
    "111",
    "\u{fffd}",
];

#[derive(Clone, Debug)]
enum Mutation {
    Flip(usize, u8),
    Truncate(usize),
    Insert(usize, usize),
    Delete(usize, usize),
}

fn arb_mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), any::<u8>()).prop_map(|(p, b)| Mutation::Flip(p, b)),
        any::<usize>().prop_map(Mutation::Truncate),
        (any::<usize>(), 0..TOKENS.len()).prop_map(|(p, t)| Mutation::Insert(p, t)),
        (any::<usize>(), 1usize..6).prop_map(|(p, k)| Mutation::Delete(p, k)),
    ]
}

fn mutate(mut data: Vec<u8>, muts: &[Mutation]) -> Vec<u8> {
    for m in muts {
        let len = data.len();
        match *m {
            Mutation::Flip(p, b) if len > 0 => data[p % len] = b,
            Mutation::Truncate(p) => data.truncate(p % (len + 1)),
            Mutation::Insert(p, t) => {
                let at = p % (len + 1);
                data.splice(at..at, TOKENS[t].bytes());
            }
            Mutation::Delete(p, k) if len > 0 => {
                let at = p % len;
                data.drain(at..(at + k).min(len));
            }
            _ => {}
        }
    }
    data
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn random_bytes_never_panic(
        bytes in prop::collection::vec(any::<u8>(), 0..300),
        tokens in prop::collection::vec(0..TOKENS.len(), 0..40),
    ) {
        let text: Vec<u8> = tokens.iter().flat_map(|&t| TOKENS[t].bytes()).collect();
        for format in TEXT {
            feed(format, &bytes);
            feed(format, &text);
        }
    }

    #[test]
    fn mutated_files_never_panic(
        (n, edges, wi, _wf) in arb_graph(),
        sym in any::<bool>(),
        muts in prop::collection::vec(arb_mutation(), 1..5),
        compress in any::<bool>(),
    ) {
        let g = graph(n, &edges, Some(wi), sym);
        for format in TEXT {
            if format == Format::Metis && !sym {
                continue;
            }
            let mut text = Vec::new();
            write_text(&g, format, &mut text, Path::new("m")).unwrap();
            let data = if compress { gz(&text) } else { text };
            feed(format, &mutate(data, &muts));
        }
    }
}
