//! `vertex bench pr-gpu`: its options, the checks that run before any GPU
//! work, and what it does on a machine without a usable GPU (a clear error
//! naming the GPU, no panic, no result files); on a GPU machine the same call
//! must run and validate.

use std::path::Path;
use std::process::{Command, Output};

fn vertex(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_vertex"))
        .args(args)
        .output()
        .unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn options_parse() {
    let o = vertex(&["bench", "pr-gpu", "--help"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let help = String::from_utf8_lossy(&o.stdout);
    for opt in [
        "--hand",
        "--gapbs",
        "--trials",
        "--tolerance",
        "--max-rounds",
        "--peak-gbps",
        "--label",
        "--out",
        "--work",
        "--json",
    ] {
        assert!(help.contains(opt), "{opt} missing from:\n{help}");
    }
    // A graph is required; trials and rounds start at 1 (clap's usage errors: 2).
    for bad in [
        &["bench", "pr-gpu"][..],
        &["bench", "pr-gpu", "grid:4x4", "--trials", "0"],
        &["bench", "pr-gpu", "grid:4x4", "--max-rounds", "0"],
        &["bench", "pr-gpu", "grid:4x4", "--tolerance", "x"],
    ] {
        let o = vertex(bad);
        assert_eq!(o.status.code(), Some(2), "{bad:?}: {}", stderr(&o));
    }
}

#[test]
fn bad_values_are_refused_before_any_work() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let outs = out.to_str().unwrap();
    let missing = dir.path().join("no-such-pr_pull");
    for (args, want) in [
        (
            vec!["--hand", missing.to_str().unwrap()],
            "no-such-pr_pull: no such file",
        ),
        (
            vec!["--gapbs", dir.path().to_str().unwrap()],
            "pr not found",
        ),
        (vec!["--tolerance", "0"], "--tolerance 0"),
        (vec!["--peak-gbps=-1"], "--peak-gbps -1"),
    ] {
        let mut a = vec!["bench", "pr-gpu", "grid:4x4", "--out", outs];
        a.extend(args.iter().copied());
        let o = vertex(&a);
        let e = stderr(&o);
        assert!(!o.status.success(), "{a:?}");
        assert!(e.contains(want), "{a:?}: want {want:?} in {e}");
        assert!(!e.contains("panicked"), "{e}");
    }
    assert!(!out.exists(), "nothing should be written");
}

#[test]
fn without_a_gpu_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let (out, work) = (dir.path().join("out"), dir.path().join("work"));
    let o = vertex(&[
        "bench",
        "pr-gpu",
        "grid:30x30",
        "--trials",
        "1",
        "--label",
        "test",
        "--out",
        out.to_str().unwrap(),
        "--work",
        work.to_str().unwrap(),
    ]);
    let e = stderr(&o);
    assert!(!e.contains("panicked"), "{e}");
    if o.status.success() {
        // A GPU machine: ours alone, validated against the oracle.
        let text = std::fs::read_to_string(Path::new(&out).join("pr-gpu-test.json")).unwrap();
        let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
        let row = &doc["rows"][0];
        assert_eq!(row["verified"], true, "{row}");
        assert_eq!(row["vertices"], 900);
        assert!(row["ratio_vs_best_hand"].is_null(), "{row}");
    } else {
        assert!(e.contains("needs a GPU"), "{e}");
        assert!(!out.join("pr-gpu-test.json").exists());
    }
}
