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
    states_with(program, graph, schedule, "1..50", out)
}

/// [`states`] with random weights `weights` (`""`: the graph's own).
fn states_with(
    program: &str,
    graph: &str,
    schedule: &str,
    weights: &str,
    out: &Path,
) -> (String, serde_json::Value) {
    let mut args = vec![program, graph];
    if program == "cc" {
        args.extend(["--algorithm", "label"]);
    }
    if !weights.is_empty() {
        args.extend(["--weights", weights]);
    }
    let o = out.to_str().unwrap();
    args.extend([
        "--backend",
        "cpu",
        "--schedule",
        schedule,
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
    for graph in ["kron:10", "grid:40x40", "mesh:1500", file.as_str()] {
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

/// Integer SSSP says which distance width ran; every schedule agrees with auto
/// in 32 and in 64 bits, weights at the limits of 32 bits included.
#[test]
fn sssp_takes_32_bit_distances_only_where_they_fit() {
    let dir = tempfile::tempdir().unwrap();
    let limit = |name: &str, w: u32| {
        let f = dir.path().join(name);
        std::fs::write(&f, format!("0 1 {w}\n")).unwrap();
        f.to_str().unwrap().to_string()
    };
    let fits = limit("fits.wel", u32::MAX - 1);
    let over = limit("over.wel", u32::MAX);
    for (graph, weights, bits, max) in [
        ("kron:10", "1..50", "32-bit", None),
        ("grid:30x30", "1..4000000000", "64-bit", None),
        (fits.as_str(), "", "32-bit", Some(u32::MAX - 1)),
        (over.as_str(), "", "64-bit", Some(u32::MAX)),
    ] {
        let (auto, json) = states_with("sssp", graph, "auto", weights, &dir.path().join("a"));
        let note = json["states_note"].as_str().unwrap_or_default();
        assert!(note.starts_with(bits), "{graph}: {json}");
        if let Some(m) = max {
            assert_eq!(json["max_value"], m, "{graph}: {json}");
        }
        for s in ["sync", "async", "obim"] {
            let (other, json) = states_with("sssp", graph, s, weights, &dir.path().join("x"));
            assert!(json["states_note"].as_str().unwrap().starts_with(bits));
            assert_eq!(auto, other, "sssp on {graph}: auto vs {s}");
        }
    }
    let text = vertex(&["sssp", "kron:10", "--backend", "cpu"]);
    assert!(text.contains("states       32-bit distances"), "{text}");
}

#[test]
fn auto_uses_the_level_engine_for_bfs_on_a_grid_and_on_kronecker() {
    let grid = vertex(&["bfs", "grid:200x200", "--backend", "cpu", "--json"]);
    let grid: serde_json::Value = serde_json::from_str(&grid).unwrap();
    assert_eq!(grid["schedule"], "sync", "{grid}");
    assert!(
        grid["schedule_note"]
            .as_str()
            .is_some_and(|n| n.contains("high diameter")),
        "{grid}"
    );
    let text = vertex(&["bfs", "grid:200x200", "--backend", "cpu"]);
    assert!(text.contains("schedule     sync (auto: "), "{text}");
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
