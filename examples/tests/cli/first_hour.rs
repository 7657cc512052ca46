//! What a newcomer sees first: the demo (`vertex` with no arguments runs it) and
//! `vertex compare`'s GPU column, on machines with and without a GPU.

use std::process::Command;

fn vertex(args: &[&str]) -> (String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_vertex"))
        .args(args)
        .output()
        .expect("the vertex binary runs");
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    );
    assert!(out.status.success(), "{args:?} failed: {stdout}{stderr}");
    (stdout, stderr)
}

#[test]
fn demo_shows_the_three_worlds_and_what_to_try_next() {
    let (out, _) = vertex(&["demo", "kron:8", "--apsp-graph", "grid:6x6"]);
    for step in ["[1/3] bfs", "[2/3] sssp", "[3/3] all-pairs", "Try next:"] {
        assert!(out.contains(step), "missing {step:?} in:\n{out}");
    }
    // Exactly one line about the GPU: its name, or why it is not used.
    let gpu_lines = out.lines().filter(|l| l.starts_with("GPU: ")).count();
    assert_eq!(gpu_lines, 1, "{out}");
    assert_eq!(out.matches("all runs agree").count(), 2, "{out}");
    assert!(!out.contains("RUNS DISAGREE"), "{out}");
}

#[test]
fn compare_has_a_gpu_column_or_says_why_not() {
    let (out, _) = vertex(&[
        "compare",
        "sssp",
        "kron:8",
        "--threads",
        "1",
        "--repeats",
        "1",
        "--json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&out).expect("one JSON object");
    let rows = v["comparison"]["rows"].as_array().expect("rows");
    let gpu = rows
        .iter()
        .find(|r| r["schedule"] == "gpu")
        .expect("a gpu row by default");
    assert!(gpu["threads"].is_null());
    if gpu["error"].is_null() {
        assert_eq!(gpu["agrees"], true, "{gpu}");
        assert!(gpu["edges_relaxed"].is_null(), "the GPU counts no edges");
    } else {
        assert!(!gpu["error"].as_str().unwrap().is_empty());
    }
    assert_eq!(v["comparison"]["all_agree"], true);
}

#[test]
fn compare_refuses_unknown_schedules_naming_the_choices() {
    let out = Command::new(env!("CARGO_BIN_EXE_vertex"))
        .args(["compare", "bfs", "kron:6", "--schedules", "sync,warp"])
        .output()
        .expect("runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(err.contains("`warp`") && err.contains("gpu"), "{err}");
}
