//! `vertex launch -n N -- vertex bfs kron:S`: ranks as processes on this
//! host, the same answer as one process, and a failing rank ending the run
//! with its name instead of a hang.

use std::process::{Command, Output};
use std::time::{Duration, Instant};

fn vertex(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_vertex"))
        .args(args)
        .output()
        .expect("the vertex binary runs")
}

/// Rank 0's JSON of `vertex launch -n N -- vertex ARGS --json --validate`.
fn ranks(n: usize, args: &[&str]) -> serde_json::Value {
    let exe = env!("CARGO_BIN_EXE_vertex");
    let n = n.to_string();
    let mut all = vec!["launch", "-n", &n, "--", exe];
    all.extend_from_slice(args);
    all.extend(["--json", "--validate"]);
    json(&vertex(&all))
}

fn json(out: &Output) -> serde_json::Value {
    assert!(
        out.status.success(),
        "failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("rank 0's JSON on stdout")
}

#[test]
fn ranks_find_what_one_process_finds() {
    let exe = env!("CARGO_BIN_EXE_vertex");
    let one = json(&vertex(&["bfs", "kron:12", "--backend", "cpu", "--json"]));
    for n in ["1", "2", "3"] {
        let out = vertex(&[
            "launch",
            "-n",
            n,
            "--",
            exe,
            "bfs",
            "kron:12",
            "--json",
            "--validate",
        ]);
        let many = json(&out);
        if n == "1" {
            // One rank is a plain run (WORLD_SIZE=1).
            assert_eq!(many["validated"], serde_json::Value::Bool(true), "{many}");
        } else {
            assert_eq!(many["valid"], serde_json::Value::Bool(true), "{many}");
            assert_eq!(many["ranks"].as_u64(), Some(n.parse().unwrap()));
        }
        assert_eq!(many["source"], one["source"], "{many} vs {one}");
        assert_eq!(many["reached"], one["reached"], "{many} vs {one}");
    }
}

#[test]
fn ranks_read_an_edge_list_by_parts_and_follow_its_directions() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("chain.el");
    // A directed chain 0→1→…→299 plus shortcuts forward only, and a comment.
    let mut text = String::from("# a directed test graph\n");
    for v in 0..299 {
        text.push_str(&format!("{v} {}\n", v + 1));
        if v % 10 == 0 && v + 5 < 300 {
            text.push_str(&format!("{v} {}\n", v + 5));
        }
    }
    std::fs::write(&path, text).unwrap();
    let p = path.to_str().unwrap();
    for source in ["0", "150"] {
        let one = json(&vertex(&[
            "bfs",
            p,
            "-s",
            source,
            "--backend",
            "cpu",
            "--json",
        ]));
        let many = ranks(3, &["bfs", p, "-s", source]);
        assert_eq!(many["valid"], serde_json::Value::Bool(true), "{many}");
        assert_eq!(many["reached"], one["reached"], "{many} vs {one}");
        assert_eq!(
            many["levels"].as_u64(),
            one["max_value"].as_u64().map(|d| d + 1)
        );
    }
}

#[test]
fn ranks_count_the_components_one_process_counts() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("pieces.el");
    // Directed pieces: weak components join them whatever the direction.
    let mut text = String::new();
    for v in 0..500u32 {
        if v % 7 != 0 {
            text.push_str(&format!("{} {v}\n", v + 1));
        }
    }
    std::fs::write(&path, text).unwrap();
    for g in [path.to_str().unwrap(), "kron:12"] {
        let one = json(&vertex(&["cc", g, "--backend", "cpu", "--json"]));
        let many = ranks(3, &["cc", g]);
        assert_eq!(many["valid"], serde_json::Value::Bool(true), "{many}");
        assert_eq!(
            many["components"], one["components"],
            "{g}: {many} vs {one}"
        );
        assert_eq!(
            many["largest"], one["largest_component"],
            "{g}: {many} vs {one}"
        );
    }
}

#[test]
fn ranks_run_pagerank_as_one_process_does() {
    let exe = env!("CARGO_BIN_EXE_vertex");
    for extra in [&[][..], &["--symmetrize"][..]] {
        let mut one_args = vec!["pr", "kron:12", "--backend", "cpu", "--json"];
        one_args.extend_from_slice(extra);
        let one = json(&vertex(&one_args));
        let mut args = vec!["launch", "-n", "3", "--", exe, "pr", "kron:12", "--json"];
        args.extend_from_slice(extra);
        let many = json(&vertex(&args));
        assert_eq!(many["rounds"], one["rounds"], "{many} vs {one}");
        assert_eq!(many["top_vertex"], one["top_vertex"], "{many} vs {one}");
        let close =
            |k: &str, l: &str| (many[k].as_f64().unwrap() - one[l].as_f64().unwrap()).abs() < 1e-12;
        assert!(
            close("top_rank", "top_rank") && close("sum", "rank_sum"),
            "{many} vs {one}"
        );
    }
}

#[test]
fn a_failing_rank_ends_the_run_with_its_name() {
    let exe = env!("CARGO_BIN_EXE_vertex");
    let t0 = Instant::now();
    // Rank 1 exits before joining; rank 0 waits at most 2 s for it.
    let script = format!("if [ \"$RANK\" = 1 ]; then exit 3; fi; exec {exe} bfs kron:10");
    let out = vertex(&[
        "launch",
        "-n",
        "2",
        "--timeout",
        "2",
        "--",
        "sh",
        "-c",
        &script,
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("rank 1 of 2 exited with status 3"), "{err}");
    assert!(err.contains("never connected"), "{err}");
    assert!(t0.elapsed() < Duration::from_secs(30));
}

#[test]
fn ranks_refuse_what_they_cannot_split() {
    let exe = env!("CARGO_BIN_EXE_vertex");
    let out = vertex(&["launch", "-n", "2", "--", exe, "bfs", "grid:10x10"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("[rank 0] error:") && err.contains("kron:S"),
        "{err}"
    );
    // One GPU a rank: `--gpus` is refused, not ignored, by every program.
    for prog in ["bfs", "cc", "sssp", "pr"] {
        let out = vertex(&[
            "launch", "-n", "2", "--", exe, prog, "kron:8", "--gpus", "2",
        ]);
        assert!(!out.status.success(), "{prog}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("start more ranks"), "{prog}: {err}");
        // Ranks exchange over NCCL: asking for peer access is refused by name.
        let out = vertex(&[
            "launch",
            "-n",
            "2",
            "--",
            exe,
            prog,
            "kron:8",
            "--exchange",
            "peer",
        ]);
        assert!(!out.status.success(), "{prog}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("ranks (one GPU per process) exchange over NCCL"),
            "{prog}: {err}"
        );
    }
    let bad = Command::new(exe)
        .args(["bfs", "kron:10"])
        .env("WORLD_SIZE", "2")
        .env("RANK", "7")
        .output()
        .unwrap();
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("RANK=7 is out of range"));
}

#[test]
fn ranks_read_a_vgr_snapshot_by_rows() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("k.vgr");
    let p = path.to_str().unwrap();
    let gen = vertex(&["gen", "kron", "--scale", "11", "-o", p]);
    assert!(
        gen.status.success(),
        "{}",
        String::from_utf8_lossy(&gen.stderr)
    );
    let one = json(&vertex(&["bfs", p, "--backend", "cpu", "--json"]));
    let many = ranks(3, &["bfs", p]);
    assert_eq!(many["valid"], serde_json::Value::Bool(true), "{many}");
    assert_eq!(many["source"], one["source"], "{many} vs {one}");
    assert_eq!(many["reached"], one["reached"], "{many} vs {one}");
    let one = json(&vertex(&["cc", p, "--backend", "cpu", "--json"]));
    let many = ranks(2, &["cc", p]);
    assert_eq!(many["components"], one["components"], "{many} vs {one}");
}

#[test]
fn ranks_find_the_shortest_distances_one_process_finds() {
    let one = json(&vertex(&["sssp", "kron:11", "--backend", "cpu", "--json"]));
    let many = ranks(3, &["sssp", "kron:11"]);
    assert_eq!(many["valid"], serde_json::Value::Bool(true), "{many}");
    assert_eq!(many["backend"], "cpu", "{many}");
    assert_eq!(many["source"], one["source"], "{many} vs {one}");
    assert_eq!(many["reached"], one["reached"], "{many} vs {one}");
    assert_eq!(many["max_distance"], one["max_value"], "{many} vs {one}");
}

/// `--bind gpu` binds each rank to the CPUs next to its GPU; where none can be
/// found (no NVIDIA GPU, as on CI) it says so and the ranks run unbound, with
/// the same answer.
#[test]
fn bound_ranks_find_what_unbound_ones_find() {
    let exe = env!("CARGO_BIN_EXE_vertex");
    let run = |bind: &str| {
        vertex(&[
            "launch",
            "-n",
            "2",
            "--bind",
            bind,
            "--",
            exe,
            "bfs",
            "kron:10",
            "--backend",
            "cpu",
            "--json",
            "--validate",
        ])
    };
    let (free, bound) = (run("none"), run("gpu"));
    let (a, b) = (json(&free), json(&bound));
    assert_eq!(a["reached"], b["reached"], "{a} vs {b}");
    assert_eq!(b["valid"], serde_json::Value::Bool(true), "{b}");
    let err = String::from_utf8_lossy(&bound.stderr);
    let gpus = runtime::dist::gpu_cpus::nvidia_gpus_in(std::path::Path::new(
        runtime::dist::gpu_cpus::PCI_DEVICES,
    ))
    .map_or(0, |g| g.len());
    if gpus < 2 {
        assert!(err.contains("runs unbound"), "{err}");
    }
}
