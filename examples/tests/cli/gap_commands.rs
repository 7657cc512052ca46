//! `vertex bc|tc|cc` (and `bench graph500 --json`) as a user runs them: validated
//! results on small graphs, and clear refusals of bad input (exit status non-zero,
//! the problem named once).

use std::process::{Command, Output};

fn vertex(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_vertex"))
        .args(args)
        .output()
        .expect("the vertex binary runs")
}

fn ok(args: &[&str]) -> String {
    let out = vertex(args);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{args:?} failed: {}{}",
        text,
        String::from_utf8_lossy(&out.stderr)
    );
    text
}

fn refused(args: &[&str], needle: &str) {
    let out = vertex(args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{args:?} was accepted");
    assert!(err.contains(needle), "{args:?}: {err}");
    assert!(!err.contains("panicked"), "{args:?}: {err}");
}

#[test]
fn kernels_validate_on_small_graphs() {
    for g in ["kron:8", "grid:12x10"] {
        let bc = ok(&["bc", g, "--backend", "cpu", "--sources", "3", "--validate"]);
        assert!(bc.contains("oracle       agrees"), "{bc}");
        // Exact: every vertex with out-edges is a source.
        let all = ok(&[
            "bc",
            g,
            "--backend",
            "cpu",
            "--sources",
            "all",
            "--validate",
            "--json",
        ]);
        let all: serde_json::Value = serde_json::from_str(&all).unwrap();
        assert_eq!(all["validated"], true);
        assert!(all["source_count"].as_u64().unwrap() > 64, "{all}");
        let tc = ok(&["tc", g, "--backend", "cpu", "--validate", "--json"]);
        let tc: serde_json::Value = serde_json::from_str(&tc).unwrap();
        assert_eq!(tc["validated"], true);
        let cc = ok(&["cc", g, "--backend", "cpu", "--validate", "--json"]);
        let cc: serde_json::Value = serde_json::from_str(&cc).unwrap();
        assert_eq!(cc["validated"], true);
    }
}

#[test]
fn bad_input_is_refused_clearly() {
    refused(
        &["bc", "kron:4", "--sources", "100", "--backend", "cpu"],
        "--sources 100",
    );
    refused(
        &["bc", "kron:4", "--source", "99", "--backend", "cpu"],
        "16 vertices",
    );
    refused(
        &["bc", "kron:4", "--sources", "0", "--backend", "cpu"],
        "at least one",
    );
    refused(
        &["bc", "kron:4", "--sources", "most", "--backend", "cpu"],
        "expected a count or `all`",
    );
    refused(
        &["tc", "no-such-file.el", "--backend", "cpu"],
        "no-such-file.el",
    );
    // A schedule the program cannot take is named as the user typed it.
    refused(
        &["kcore", "kron:4", "--schedule", "async", "--backend", "cpu"],
        "--schedule async: `kcore` runs in rounds only",
    );
    refused(
        &["pr", "kron:4", "--schedule", "obim", "--backend", "cpu"],
        "--schedule obim: `pagerank` runs in rounds only",
    );
}

#[test]
fn bench_graph500_prints_json() {
    let out = std::env::temp_dir().join(format!("vertex-g500-json-{}", std::process::id()));
    let text = ok(&[
        "bench",
        "graph500",
        "--scale",
        "8",
        "--roots",
        "2",
        "--json",
        "--out",
        out.to_str().expect("a UTF-8 temp path"),
    ]);
    let v: serde_json::Value = serde_json::from_str(&text).expect("one JSON object on stdout");
    assert_eq!(v["runs"].as_array().map(Vec::len), Some(1));
    let _ = std::fs::remove_dir_all(&out);
}
