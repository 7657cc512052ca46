//! Leftovers of a bug hunt, on the command line: `-o -` writes the result to
//! stdout (and the summary to stderr), options that a run does not read say so
//! on stderr, and the JSON reports numbers as numbers and the threads a CPU run
//! used.

use std::path::Path;
use std::process::{Command, Output};

/// Runs `vertex` in `dir`, so that a file named `-` would land there.
fn run_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_vertex"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("the vertex binary runs")
}

fn ok(dir: &Path, args: &[&str]) -> Output {
    let out = run_in(dir, args);
    assert!(
        out.status.success(),
        "{args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn json(dir: &Path, args: &[&str]) -> serde_json::Value {
    let out = ok(dir, args);
    serde_json::from_slice(&out.stdout).expect("JSON on stdout")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn dash_writes_the_result_to_stdout_and_the_summary_to_stderr() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let g = "kron:6";
    for (args, vertices) in [
        (vec!["bfs", g, "--backend", "cpu", "-s", "0"], 64),
        (vec!["sssp", g, "--backend", "cpu", "-s", "0"], 64),
        (vec!["cc", g, "--backend", "cpu"], 64),
        (
            vec!["cc", g, "--backend", "cpu", "--algorithm", "label"],
            64,
        ),
        (vec!["pr", g, "--backend", "cpu"], 64),
        (vec!["kcore", g, "--backend", "cpu"], 64),
        (vec!["bc", g, "--backend", "cpu"], 64),
        (vec!["lcc", g, "--backend", "cpu"], 64),
    ] {
        let mut a = args.clone();
        a.extend(["--validate", "-o", "-"]);
        let out = ok(d, &a);
        let text = String::from_utf8(out.stdout).unwrap();
        // Only the result on stdout: an optional `#` header, then `vertex value`.
        let lines: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
        assert_eq!(lines.len(), vertices, "{args:?}: {text}");
        for (v, l) in lines.iter().enumerate() {
            let mut f = l.split_whitespace();
            assert_eq!(f.next(), Some(v.to_string().as_str()), "{args:?}: {l}");
            assert!(f.next().is_some(), "{args:?}: {l}");
        }
        // The summary went to stderr, without a `wrote -` line.
        let err = stderr(&ok(d, &a));
        assert!(err.contains("oracle       agrees"), "{args:?}: {err}");
        assert!(!err.contains("wrote"), "{args:?}: {err}");
        assert!(!d.join("-").exists(), "{args:?} wrote a file named `-`");
    }
    // A file is still a file, and the summary says so on stdout.
    let out = ok(d, &["bfs", g, "--backend", "cpu", "-o", "levels.txt"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("wrote        levels.txt"));
    assert!(d.join("levels.txt").exists());
}

#[test]
fn dash_is_refused_where_it_cannot_work() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // --json and the result would both go to stdout.
    for args in [
        vec!["bfs", "kron:6", "--backend", "cpu"],
        vec!["cc", "kron:6", "--backend", "cpu"],
        vec!["pr", "kron:6", "--backend", "cpu"],
        vec!["bc", "kron:6", "--backend", "cpu"],
        vec!["lcc", "kron:6", "--backend", "cpu"],
    ] {
        let mut a = args.clone();
        a.extend(["--json", "-o", "-"]);
        let out = run_in(d, &a);
        assert!(!out.status.success(), "{args:?} accepted --json -o -");
        let e = stderr(&out);
        assert!(
            e.contains("--json and -o - both write to stdout"),
            "{args:?}: {e}"
        );
    }
    // Formats chosen by extension: stdout has none.
    for args in [
        vec!["convert", "kron:6", "-"],
        vec!["gen", "grid", "--width", "4", "--height", "4", "-o", "-"],
        vec!["apsp", "grid:4x4", "--backend", "cpu", "-o", "-"],
    ] {
        let out = run_in(d, &args);
        assert!(!out.status.success(), "{args:?} accepted -o -");
        let e = stderr(&out);
        assert!(
            e.contains("-o -") && e.contains("give a file name"),
            "{args:?}: {e}"
        );
        assert!(!d.join("-").exists(), "{args:?} wrote a file named `-`");
    }
}

#[test]
fn options_a_run_does_not_read_are_named_on_stderr() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let g = "kron:6";
    for (args, option) in [
        (
            vec![
                "sssp",
                g,
                "--backend",
                "cpu",
                "--schedule",
                "sync",
                "--delta",
                "4",
            ],
            "--delta 4",
        ),
        (
            vec!["bfs", g, "--backend", "cpu", "--delta", "4"],
            "--delta 4",
        ),
        (
            vec!["bfs", g, "--backend", "cpu", "--kernel", "balanced"],
            "--kernel balanced",
        ),
        (
            vec!["bfs", g, "--backend", "cpu", "--max-edge-count", "3"],
            "--max-edge-count 3",
        ),
        (
            vec!["bfs", g, "--backend", "cpu", "--weights", "1..9"],
            "--weights 1..9",
        ),
        (
            vec![
                "cc",
                g,
                "--backend",
                "cpu",
                "--algorithm",
                "label",
                "-s",
                "3",
            ],
            "--source",
        ),
        (
            vec!["cc", g, "--backend", "cpu", "--schedule", "sync"],
            "--schedule sync",
        ),
        (
            vec!["kcore", g, "--backend", "cpu", "--tolerance", "0.1"],
            "--tolerance 0.1",
        ),
        (
            vec!["pr", g, "--backend", "cpu", "--max-edge-count", "3"],
            "--max-edge-count 3",
        ),
        (
            vec![
                "pr-delta",
                g,
                "--backend",
                "cpu",
                "--schedule",
                "async",
                "--max-rounds",
                "5",
            ],
            "--max-rounds 5",
        ),
        (
            vec![
                "apsp",
                "grid:4x4",
                "--backend",
                "cpu",
                "--algorithm",
                "johnson",
                "--tile",
                "32",
            ],
            "--tile 32",
        ),
    ] {
        let e = stderr(&ok(d, &args));
        assert!(
            e.contains(&format!("warning: {option} has no effect: ")),
            "{args:?}: {e}"
        );
    }
    // Options that are read say nothing.
    for args in [
        vec![
            "sssp",
            g,
            "--backend",
            "cpu",
            "--schedule",
            "obim",
            "--delta",
            "4",
        ],
        vec![
            "bfs",
            g,
            "--backend",
            "cpu",
            "--schedule",
            "sync",
            "--threads",
            "2",
        ],
        vec!["pr", g, "--backend", "cpu", "--tolerance", "0.001"],
    ] {
        let e = stderr(&ok(d, &args));
        assert!(!e.contains("warning"), "{args:?}: {e}");
    }
}

#[test]
fn json_numbers_are_numbers_and_cpu_runs_report_their_threads() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let wel = d.join("w.wel");
    std::fs::write(&wel, "0 1 1.5\n1 2 2.25\n").unwrap();
    let wel = wel.to_str().unwrap();
    let path = d.join("p.el");
    std::fs::write(&path, "0 1\n1 2\n2 3\n").unwrap();
    let path = path.to_str().unwrap();
    for (args, max) in [
        (vec!["bfs", path, "-s", "0"], Some(3.0)),
        (vec!["sssp", wel, "-s", "0"], Some(3.75)),
        (
            vec!["widest", path, "-s", "0", "--weights", "5..5"],
            Some(u32::MAX as f64),
        ),
        (vec!["cc", path], Some(0.0)),
        (vec!["cc", path, "--algorithm", "label"], Some(0.0)),
    ] {
        let mut a = args.clone();
        a.extend(["--backend", "cpu", "--threads", "2", "--json"]);
        let j = json(d, &a);
        if let Some(m) = max {
            assert_eq!(j["max_value"].as_f64(), Some(m), "{args:?}: {j}");
            assert!(j["max_value"].is_number(), "{args:?}: {j}");
        }
        assert_eq!(j["threads"], 2, "{args:?}: {j}");
    }
    for args in [
        vec!["pr", path],
        vec!["kcore", path, "--symmetrize"],
        vec!["bc", path],
        vec!["tc", path],
        vec!["lcc", path],
    ] {
        let mut a = args.clone();
        a.extend(["--backend", "cpu", "--threads", "2", "--json"]);
        let j = json(d, &a);
        assert_eq!(j["threads"], 2, "{args:?}: {j}");
    }
    let j = json(d, &["apsp", path, "--backend", "cpu", "--json"]);
    assert!(j["threads"].as_u64().is_some_and(|t| t >= 1), "{j}");
    // No path: `distance` is null like `path` and `hops`, not the string "inf".
    let j = json(d, &["path", path, "3", "0", "--backend", "cpu", "--json"]);
    assert!(
        j["distance"].is_null() && j["path"].is_null() && j["hops"].is_null(),
        "{j}"
    );
    let j = json(d, &["path", path, "0", "3", "--backend", "cpu", "--json"]);
    assert_eq!(j["distance"], 3, "{j}");
}
