//! The CLI on the smallest and oddest inputs a user can hand it: a graph of one
//! vertex, fewer vertices than a default asks for, a weight that is not a number.
//! Each either gives the right answer or an error naming the problem and where.

use std::path::Path;
use std::process::{Command, Output};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_vertex"))
        .args(args)
        .output()
        .expect("the vertex binary runs")
}

fn ok_json(args: &[&str]) -> serde_json::Value {
    let out = run(args);
    assert!(
        out.status.success(),
        "{args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON on stdout")
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.to_str().unwrap().to_string()
}

#[test]
fn the_source_of_a_one_vertex_graph_is_reached() {
    let dir = tempfile::tempdir().unwrap();
    let g = write(dir.path(), "loop.wel", "0 0 3\n");
    for program in ["bfs", "sssp", "widest"] {
        let out = dir.path().join(format!("{program}.txt"));
        let json = ok_json(&[
            program,
            &g,
            "--backend",
            "cpu",
            "--validate",
            "--json",
            "-o",
            out.to_str().unwrap(),
        ]);
        assert_eq!(json["reached"], 1, "{program}: {json}");
        assert_eq!(json["validated"], true, "{program}: {json}");
        let text = std::fs::read_to_string(&out).unwrap();
        assert!(
            !text.contains("inf"),
            "{program} wrote the source as unreached: {text}"
        );
    }
}

#[test]
fn bc_takes_every_source_a_small_graph_has_unless_asked_for_more() {
    let dir = tempfile::tempdir().unwrap();
    let g = write(dir.path(), "path.el", "0 1\n1 2\n");
    let out = run(&["bc", &g, "--backend", "cpu"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("using them all"));
    let out = run(&["bc", &g, "--backend", "cpu", "--sources", "3"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("only 2 vertices"));
}

#[test]
fn a_weight_that_is_not_a_number_is_refused_at_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let g = write(dir.path(), "nan.wel", "0 1 2.5\n1 2 nan\n");
    let out = run(&["sssp", &g, "--backend", "cpu"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("nan.wel:2") && err.contains("`nan`"), "{err}");
}

#[test]
fn an_empty_graph_has_no_top_vertex() {
    let dir = tempfile::tempdir().unwrap();
    let g = write(dir.path(), "empty.el", "");
    let json = ok_json(&["pr", &g, "--backend", "cpu", "--json"]);
    assert!(json["top_vertex"].is_null(), "{json}");
}

#[test]
fn kcore_takes_an_edge_list_that_lists_each_edge_both_ways() {
    let dir = tempfile::tempdir().unwrap();
    // A triangle 0-1-2 with a tail 2-3, each edge written in both directions
    // (as SNAP's undirected graphs are): undirected already.
    let both = write(
        dir.path(),
        "both.el",
        "0 1\n1 0\n1 2\n2 1\n0 2\n2 0\n2 3\n3 2\n",
    );
    let out = run(&["kcore", &both, "--backend", "cpu", "--validate"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("agrees"), "{text}");
    // One direction only: still asks for --symmetrize.
    let one = write(dir.path(), "one.el", "0 1\n1 2\n0 2\n2 3\n");
    let out = run(&["kcore", &one, "--backend", "cpu"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--symmetrize"));
}

fn err_text(args: &[&str]) -> String {
    let out = run(args);
    assert!(!out.status.success(), "{args:?} should fail");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Inputs that once gave a wrong answer, a hang or an unexplained refusal
/// (a bug hunt of 2026-11-27): each now answers right or names the problem.
#[test]
fn odd_inputs_found_by_a_bug_hunt() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // A METIS path 1-2-3-4 has 3 undirected edges, core number 1 (it was loaded
    // with every edge twice: core number 2, and `--validate` agreed).
    let path = write(d, "path.graph", "4 3\n2\n1 3\n2 4\n3\n");
    let json = ok_json(&["kcore", &path, "--backend", "cpu", "--validate", "--json"]);
    assert_eq!(json["edges"], 6, "{json}");
    assert_eq!(json["max_core"], 1, "{json}");

    // A converted snapshot keeps working for SSSP (its weights are stored as i64).
    let wel = write(d, "w.wel", "0 1 3\n1 2 4\n");
    let vgr = d.join("w.vgr");
    let vgr = vgr.to_str().unwrap();
    assert!(run(&["convert", &wel, vgr]).status.success());
    let json = ok_json(&["sssp", vgr, "--backend", "cpu", "-s", "0", "--json"]);
    assert_eq!(json["max_value"], 7, "{json}");

    // A negative cycle is named, not relaxed forever.
    let cycle = write(d, "cycle.wel", "0 1 -2.5\n1 0 1.5\n");
    let e = err_text(&["sssp", &cycle, "--backend", "cpu", "-s", "0"]);
    assert!(e.contains("negative cycle"), "{e}");

    // Random weights the program's type cannot hold are refused, not wrapped.
    let el = write(d, "p.el", "0 1\n1 2\n");
    let e = err_text(&[
        "sssp",
        &el,
        "--backend",
        "cpu",
        "--weights",
        "4294967296..4294967296",
    ]);
    assert!(e.contains("4294967296") && e.contains("u32"), "{e}");

    // `compare` counts the source as reached, as `vertex bfs` does.
    let iso = write(d, "iso.el", "1 2\n");
    let one = ok_json(&["bfs", &iso, "--backend", "cpu", "-s", "0", "--json"]);
    let cmp = ok_json(&[
        "compare",
        "bfs",
        &iso,
        "--source",
        "0",
        "--schedules",
        "sync",
        "--json",
    ]);
    assert_eq!(one["reached"], 1, "{one}");
    assert_eq!(cmp["comparison"]["reached"], one["reached"], "{cmp}");

    // PageRank's comparison skips the GPU column of the default list.
    assert!(run(&["compare", "pr", "kron:6", "--repeats", "1"])
        .status
        .success());
}

/// A differential hunt against networkx and gapbs (session 13).
#[test]
fn kcore_pr_and_bc_on_self_loops_and_repeated_edges() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // A symmetric Matrix Market path 0-1-2 with entry (2,1) twice: its core
    // numbers were 2, 2, 1 and `--validate` agreed (the check for a simple graph
    // was skipped for files that declare themselves undirected). Now refused,
    // and `--symmetrize` gives the path's 1, 1, 1.
    let mtx = write(
        d,
        "dup.mtx",
        "%%MatrixMarket matrix coordinate pattern symmetric\n3 3 3\n2 1\n2 1\n3 2\n",
    );
    let e = err_text(&["kcore", &mtx, "--backend", "cpu"]);
    assert!(
        e.contains("simple graph") && e.contains("--symmetrize"),
        "{e}"
    );
    let json = ok_json(&[
        "kcore",
        &mtx,
        "--backend",
        "cpu",
        "--symmetrize",
        "--validate",
        "--json",
    ]);
    assert_eq!(json["max_core"], 1, "{json}");
    // A METIS triangle with a pendant vertex carrying a self-loop: refused too.
    let loops = write(d, "loop.graph", "4 5\n2 3\n1 3\n1 2 4\n3 4\n");
    let e = err_text(&["kcore", &loops, "--backend", "cpu"]);
    assert!(e.contains("simple graph"), "{e}");

    // gapbs drops self-loops and repeated edges from every graph: `bc` counted
    // a repeated edge as a second shortest path (1 → 3 weighed twice 2 → 3).
    let bc = write(d, "bc.el", "0 1\n0 1\n0 2\n1 3\n2 3\n");
    let json = ok_json(&["bc", &bc, "--backend", "cpu", "--source", "0", "--json"]);
    assert_eq!(json["edges"], 4, "{json}");
    let out = run(&["bc", &bc, "--backend", "cpu", "--source", "0", "-o", "-"]);
    let text = String::from_utf8(out.stdout).unwrap();
    let score = |v: &str| -> f64 {
        text.lines()
            .find_map(|l| l.strip_prefix(&format!("{v} ")))
            .unwrap()
            .parse()
            .unwrap()
    };
    assert!((score("1") - score("2")).abs() < 1e-12, "{text}");
    // `pr` on a repeated edge and a self-loop: the ranks of the simple graph.
    let dup = write(d, "pr.el", "0 1\n0 1\n0 0\n0 2\n1 2\n2 0\n");
    let simple = write(d, "pr-simple.el", "0 1\n0 2\n1 2\n2 0\n");
    let a = run(&["pr", &dup, "--backend", "cpu", "-o", "-"]);
    let b = run(&["pr", &simple, "--backend", "cpu", "-o", "-"]);
    let ranks = |o: &Output| -> Vec<String> {
        String::from_utf8(o.stdout.clone())
            .unwrap()
            .lines()
            .filter(|l| !l.starts_with('#'))
            .map(str::to_owned)
            .collect()
    };
    assert_eq!(ranks(&a), ranks(&b));
    assert_eq!(ranks(&a).len(), 3);

    // An infinite weight: APSP says why it refuses it (f64 holds ∞; it was
    // "does not fit the f64 matrix element type").
    let inf = write(d, "inf.wel", "0 1 inf\n1 2 1.5\n");
    for algorithm in ["fw", "johnson"] {
        let e = err_text(&["apsp", &inf, "--algorithm", algorithm, "--backend", "cpu"]);
        assert!(e.contains("infinite weight") && e.contains("0 → 1"), "{e}");
    }
    // Overflowing and minus-infinite float weights are refused at their line.
    let big = write(d, "big.wel", "0 1 1e400\n");
    let e = err_text(&["sssp", &big, "--backend", "cpu", "-s", "0"]);
    assert!(e.contains("big.wel:1"), "{e}");
}

/// `vertex bfs -o` writes `vertex level parent` (ARCHITECTURE.md): the source is
/// its own parent, every other reached vertex's parent is an in-neighbour one
/// level up, unreached vertices read `inf -`; the same on every schedule.
#[test]
fn bfs_output_has_a_parent_column_forming_a_bfs_tree() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // Directed: 3 reaches 2 but is not reached from 0; 4 is isolated.
    let file = write(d, "d.el", "0 1\n1 2\n3 2\n0 5\n5 2\n4 4\n");
    let mut first = None;
    for (graph, src) in [(file.as_str(), "0"), ("kron:8", "1"), ("grid:7x5", "3")] {
        for schedule in ["sync", "async"] {
            let out = run(&[
                "bfs",
                graph,
                "--backend",
                "cpu",
                "-s",
                src,
                "--schedule",
                schedule,
                "-o",
                "-",
            ]);
            assert!(out.status.success(), "{out:?}");
            let text = String::from_utf8(out.stdout).unwrap();
            let rows: Vec<Vec<String>> = text
                .lines()
                .filter(|l| !l.starts_with('#'))
                .map(|l| l.split_whitespace().map(str::to_owned).collect())
                .collect();
            let level = |v: usize| rows[v][1].parse::<u32>().ok();
            let file_edges = [(0, 1), (1, 2), (3, 2), (0, 5), (5, 2), (4, 4)];
            for (v, r) in rows.iter().enumerate() {
                assert_eq!(r.len(), 3, "{graph}: {r:?}");
                match (level(v), r[2].as_str()) {
                    (None, p) => assert_eq!(p, "-", "{graph} {v}"),
                    (Some(0), p) => assert_eq!(p, src, "{graph}: the source is its own parent"),
                    (Some(l), p) => {
                        let u: usize = p.parse().unwrap();
                        assert_eq!(level(u), Some(l - 1), "{graph}: parent of {v}");
                        if graph == file {
                            assert!(file_edges.contains(&(u, v)), "{u} -> {v} is no edge");
                        }
                    }
                }
            }
            if graph == file {
                let expect = first.get_or_insert_with(|| text.clone());
                assert_eq!(*expect, text, "the same file on every schedule");
                assert_eq!(rows[2][2], "1", "smallest in-neighbour one level up");
                assert_eq!(rows[3][1..], ["inf", "-"]);
            }
        }
    }
}

/// `--weights LO..HI` (inclusive, `LO..=HI` too): an empty or malformed range
/// is refused with the text it could not read.
#[test]
fn weight_ranges_are_read_or_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("g.wel");
    let gen = |weights: &str| {
        run(&[
            "gen",
            "grid",
            "--width",
            "2",
            "--height",
            "2",
            "--weights",
            weights,
            "--output",
            out.to_str().unwrap(),
        ])
    };
    for ok in ["1..255", "1..=3", " 2 .. 2"] {
        let o = gen(ok);
        assert!(
            o.status.success(),
            "{ok}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
    for (bad, says) in [
        ("5..1", "empty range 5..1"),
        ("x", "expected LO..HI"),
        ("a..3", "bad lower bound `a`"),
        ("1..b", "bad upper bound `b`"),
    ] {
        let o = gen(bad);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success() && err.contains(says), "{bad}: {err}");
    }
}

#[test]
fn an_exchange_route_without_several_gpus_is_refused_by_name() {
    // `--exchange` picks how several GPUs exchange: refused on one, by name,
    // by the traversals, the gather programs and Graph500 alike (no GPU needed).
    for args in [
        &["bfs", "kron:8", "--exchange", "nccl"][..],
        &["pr", "kron:8", "--exchange", "peer"][..],
        &[
            "bench",
            "graph500",
            "--scale",
            "8",
            "--backend",
            "cpu",
            "--exchange",
            "nccl",
        ][..],
    ] {
        let out = run(args);
        assert!(!out.status.success(), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("--exchange picks how several GPUs exchange"),
            "{args:?}: {err}"
        );
    }
    let out = run(&["bfs", "kron:8", "--gpus", "2", "--exchange", "fast"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("possible values: peer, nccl"));
}

#[test]
fn cuda_graphs_with_several_gpus_are_refused_by_name() {
    // The multi-GPU levels exchange between launches and are never captured:
    // comparing graphs on and off there would compare nothing (no GPU needed).
    let out = run(&[
        "bench",
        "graph500",
        "--scale",
        "8",
        "--backend",
        "gpu",
        "--gpus",
        "2",
        "--cuda-graphs",
        "on,off",
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--cuda-graphs applies to one GPU"), "{err}");
}

#[test]
fn the_direction_switch_points_are_checked_before_any_work() {
    // `--alpha`/`--beta` are the GPU direction kernel's: zero is refused by
    // Graph500 before the graph is built, and by the one run call on the CPU.
    let out = run(&[
        "bench",
        "graph500",
        "--scale",
        "8",
        "--backend",
        "gpu",
        "--alpha",
        "15,0",
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("at least 1"), "{err}");
    let out = run(&["run", "bfs", "kron:8", "--backend", "cpu", "--alpha", "100"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("heuristic: GPU settings"), "{err}");
}
