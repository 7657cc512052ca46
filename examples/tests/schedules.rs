//! `--schedule auto` (the default of `vertex bfs|sssp|widest|cc --algorithm label`)
//! computes what every explicit schedule computes, on Kronecker, grid and file
//! graphs, and says which schedule it picked and from which source.

use std::path::Path;
use std::process::Command;

fn vertex(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_vertex"))
        .args(args)
        .output()
        .expect("the vertex binary runs");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{args:?} failed: {text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    text
}

/// Runs `program` on `graph` under `schedule`, writing the states to `out`.
fn states(program: &str, graph: &str, schedule: &str, out: &Path) -> (String, serde_json::Value) {
    let mut args = vec![program, graph];
    if program == "cc" {
        args.extend(["--algorithm", "label"]);
    }
    let o = out.to_str().unwrap();
    args.extend([
        "--backend",
        "cpu",
        "--schedule",
        schedule,
        "--weights",
        "1..50",
        "--validate",
        "--json",
        "-o",
        o,
    ]);
    let json: serde_json::Value = serde_json::from_str(&vertex(&args)).unwrap();
    assert_eq!(json["validated"], true, "{args:?}");
    (std::fs::read_to_string(out).unwrap(), json)
}

#[test]
fn auto_agrees_with_every_explicit_schedule() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("road.el");
    vertex(&[
        "gen",
        "grid",
        "--width",
        "30",
        "--height",
        "20",
        "-o",
        file.to_str().unwrap(),
    ]);
    let file = file.to_str().unwrap().to_string();
    for graph in ["kron:10", "grid:40x40", file.as_str()] {
        for (program, explicit) in [
            ("bfs", &["sync", "async"][..]),
            ("sssp", &["sync", "async", "obim"][..]),
            ("widest", &["sync", "async"][..]),
            ("cc", &["sync"][..]),
        ] {
            let (auto, json) = states(program, graph, "auto", &dir.path().join("auto.txt"));
            let picked = json["schedule"].as_str().expect("the schedule is named");
            assert!(
                json["schedule_note"]
                    .as_str()
                    .is_some_and(|n| !n.is_empty()),
                "{json}"
            );
            if program == "sssp" {
                assert_eq!(picked, "obim", "a priority means obim");
            }
            for s in explicit {
                let (other, json) = states(program, graph, s, &dir.path().join("x.txt"));
                assert_eq!(json["schedule"], *s);
                assert!(json["schedule_note"].is_null());
                assert_eq!(auto, other, "{program} on {graph}: auto ({picked}) vs {s}");
            }
        }
    }
}

#[test]
fn auto_uses_async_for_bfs_on_a_grid_and_sync_on_kronecker() {
    let grid = vertex(&["bfs", "grid:200x200", "--backend", "cpu", "--json"]);
    let grid: serde_json::Value = serde_json::from_str(&grid).unwrap();
    assert_eq!(grid["schedule"], "async", "{grid}");
    let kron = vertex(&["bfs", "kron:12", "--backend", "cpu", "--json"]);
    let kron: serde_json::Value = serde_json::from_str(&kron).unwrap();
    assert_eq!(kron["schedule"], "sync", "{kron}");
}

#[test]
fn the_default_source_has_out_edges_and_is_named() {
    // Kronecker ids are permuted: vertex 0 is often isolated.
    for g in ["kron:10", "kron:12"] {
        let text = vertex(&["bfs", g, "--backend", "cpu"]);
        assert!(text.contains("the first with out-edges"), "{text}");
        let json: serde_json::Value =
            serde_json::from_str(&vertex(&["bfs", g, "--backend", "cpu", "--json"])).unwrap();
        assert!(json["reached"].as_u64().unwrap() > 1, "{json}");
    }
    // An explicit isolated source still runs and reaches itself only.
    let json: serde_json::Value = serde_json::from_str(&vertex(&[
        "bfs",
        "kron:10",
        "--backend",
        "cpu",
        "--json",
        "--source",
        &isolated("kron:10"),
    ]))
    .unwrap();
    assert_eq!(json["reached"], 1);
    assert!(json["source_note"].is_null());
}

/// An isolated vertex of `graph` (from `vertex info --json`'s degree listing is not
/// available, so: run BFS from every small id until one reaches only itself).
fn isolated(graph: &str) -> String {
    for v in 0..64u32 {
        let s = v.to_string();
        let json: serde_json::Value = serde_json::from_str(&vertex(&[
            "bfs",
            graph,
            "--backend",
            "cpu",
            "--json",
            "--source",
            &s,
        ]))
        .unwrap();
        if json["reached"] == 1 {
            return s;
        }
    }
    panic!("no isolated vertex among the first 64 of {graph}");
}
