//! `vertex run`: the shipped programs on the front end `vertex_dsl::cli::App`
//! gives any program crate, each through the one run call.

use std::process::{Command, Output};

fn vertex(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_vertex"))
        .arg("run")
        .args(args)
        .output()
        .expect("the vertex binary runs")
}

fn ok(args: &[&str]) -> String {
    let out = vertex(args);
    assert!(
        out.status.success(),
        "{args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn every_program_with_an_oracle_validates_on_the_cpu() {
    for (program, graph, extra) in [
        ("bfs", "kron:10", &[][..]),
        ("sssp", "kron:10", &[][..]),
        ("widest", "grid:20x20", &[][..]),
        ("cc", "kron:10", &["--symmetrize"][..]),
        ("triangles", "kron:10", &["--symmetrize"][..]),
        ("lcc", "grid:10x10", &["--symmetrize"][..]),
    ] {
        let mut args = vec![program, graph, "--backend", "cpu", "--validate", "--json"];
        args.extend_from_slice(extra);
        let j: serde_json::Value = serde_json::from_str(ok(&args).trim()).unwrap();
        assert_eq!(j["validated"], true, "{program}: {j}");
        assert_eq!(j["report"]["backend"], "cpu", "{program}: {j}");
        assert_eq!(j["report"]["backend_reason"], "asked for", "{program}: {j}");
    }
}

#[test]
fn struct_states_print_a_column_per_field_and_auto_says_why() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("cores.txt");
    let text = ok(&[
        "kcore",
        "grid:6x5",
        "--symmetrize",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(text.contains("backend"), "{text}");
    assert!(
        text.contains("auto: "),
        "auto must say what it chose: {text}"
    );
    let rows = std::fs::read_to_string(&out).unwrap();
    assert!(rows.contains("# vertex core degree level\n"), "{rows}");
    assert_eq!(
        rows.lines().filter(|l| !l.starts_with('#')).count(),
        30,
        "{rows}"
    );
}

#[test]
fn compare_runs_schedules_side_by_side_and_draws_them() {
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("cmp.svg");
    let text = ok(&[
        "compare",
        "bfs",
        "grid:30x30",
        "--schedules",
        "sync,async,obim",
        "--threads",
        "1,2",
        "--repeat",
        "1",
        "--svg",
        svg.to_str().unwrap(),
    ]);
    assert!(text.contains("sync") && text.contains("async"), "{text}");
    // bfs has no priority: obim is refused in its row, not for the whole table.
    assert!(text.contains("priority"), "{text}");
    assert!(std::fs::read_to_string(&svg).unwrap().contains("<svg"));
}

#[test]
fn bad_input_is_an_error_naming_it() {
    let out = vertex(&["bfs", "/nonexistent/road.gr"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with("error: loading /nonexistent/road.gr"),
        "{err}"
    );
    let out = vertex(&["bfs", "kron:8", "--source", "100000", "--backend", "cpu"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("out of range"));
    let out = vertex(&["pagerank", "kron:8", "--validate"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("without an oracle"));
}

#[test]
fn closeness_is_exact_by_default_and_samples_on_request() {
    let run = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_vertex"))
            .arg("closeness")
            .args(args)
            .output()
            .expect("the vertex binary runs");
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice::<serde_json::Value>(&out.stdout).expect("JSON on stdout")
    };
    for extra in [&[][..], &["--harmonic"][..]] {
        let mut args = vec!["kron:10", "--validate", "--json"];
        args.extend_from_slice(extra);
        let j = run(&args);
        assert_eq!(j["exact"], true, "{j}");
        assert_eq!(j["scored"], 1024, "{j}");
        assert_eq!(j["validated"], true, "{j}");
    }
    let j = run(&["grid:30x20", "--sources", "70", "--validate", "--json"]);
    assert_eq!(j["scored"], 70, "{j}");
    assert_eq!(j["batches"], 2, "{j}");
    assert_eq!(j["validated"], true, "{j}");
    // Balls or the order given: the same scores, in the same order (`-o`),
    // with fewer expansions in balls (77,231 against 133,856).
    let dir = std::env::temp_dir().join(format!("vertex-closeness-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut files = Vec::new();
    let mut expanded = Vec::new();
    for order in ["auto", "balls", "given"] {
        let f = dir.join(format!("{order}.txt"));
        let path = f.to_str().unwrap();
        let j = run(&[
            "grid:30x20",
            "--sources",
            "all",
            "--batching",
            order,
            "--count-expansions",
            "--validate",
            "--json",
            "-o",
            path,
        ]);
        assert_eq!(j["validated"], true, "{j}");
        assert_eq!(j["reordered"], order != "given", "{j}");
        expanded.push(j["expansions"].as_u64().unwrap());
        files.push(std::fs::read_to_string(&f).unwrap());
    }
    assert!(files.iter().all(|f| *f == files[0]));
    // (A 30-wide grid's 64 consecutive ids are two rows: compact already.)
    assert!(expanded[0] * 3 < expanded[2] * 2, "{expanded:?}");
    // A time limit that the first slice passes: 2,048 of the 4,096 scored,
    // checked, and the whole run's time projected; a generous one scores all.
    let j = run(&[
        "grid:64x64",
        "--sources",
        "all",
        "--backend",
        "cpu",
        "--time-limit",
        "1e-9",
        "--validate",
        "--json",
    ]);
    assert_eq!(j["scored"], 2048, "{j}");
    assert_eq!(
        (&j["exact"], &j["stopped_early"]),
        (&false.into(), &true.into()),
        "{j}"
    );
    assert_eq!(j["validated"], true, "{j}");
    assert!(j["projected_s"].as_f64().unwrap() >= j["time_s"].as_f64().unwrap() * 1.9);
    let j = run(&[
        "grid:30x20",
        "--backend",
        "cpu",
        "--time-limit",
        "600",
        "--json",
    ]);
    assert_eq!(
        (&j["scored"], &j["exact"]),
        (&600.into(), &true.into()),
        "{j}"
    );
    let out = Command::new(env!("CARGO_BIN_EXE_vertex"))
        .args(["closeness", "kron:8", "--time-limit=-1"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("positive number of seconds"));
    std::fs::remove_dir_all(&dir).ok();
    let out = Command::new(env!("CARGO_BIN_EXE_vertex"))
        .args(["closeness", "kron:8", "--sources", "x"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("expected a count or `all`"));
}
