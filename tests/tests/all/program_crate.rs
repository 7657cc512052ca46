//! A program crate outside this workspace, made the way a user makes one: copy
//! `templates/program-crate` to a temporary directory, point its path dependencies
//! at this checkout, `cargo run` it, and check what its CPU path prints (its GPU
//! path runs too: on a machine without a GPU it must say why it skipped).
//!
//! Cost: the build shares this workspace's target directory, so the dependencies
//! `cargo test` has already compiled are reused; a fresh target costs a full build
//! of the runtime's dependencies. Its PTX is assembled by `scripts/ptx-check.sh`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// The workspace root (this crate's parent directory).
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ has a parent")
        .to_path_buf()
}

/// The target directory this test binary was built in (`<target>/<profile>/deps/
/// <test>`), so the template reuses the artifacts already there; `CARGO_TARGET_DIR`
/// wins when set, as it does for cargo itself.
fn target_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("CARGO_TARGET_DIR") {
        return PathBuf::from(d);
    }
    let exe = std::env::current_exe().expect("test binary path");
    exe.ancestors()
        .nth(3)
        .map(Path::to_path_buf)
        .unwrap_or_else(|| root().join("target"))
}

/// Copies the template to `dst`, with its `../../` path dependencies made absolute.
fn instantiate(dst: &Path) {
    let src = root().join("templates/program-crate");
    std::fs::create_dir_all(dst.join("src")).unwrap();
    for f in ["build.rs", "src/lib.rs", "src/main.rs"] {
        std::fs::copy(src.join(f), dst.join(f)).unwrap();
    }
    let manifest = std::fs::read_to_string(src.join("Cargo.toml")).unwrap();
    let filled = manifest.replace(
        "path = \"../../",
        &format!("path = \"{}/", root().display()),
    );
    assert_ne!(filled, manifest, "the template's path dependencies moved");
    std::fs::write(dst.join("Cargo.toml"), filled).unwrap();
    // The workspace's lock file: the same dependency versions (so compiled
    // artifacts are shared, and no registry lookup is needed).
    std::fs::copy(root().join("Cargo.lock"), dst.join("Cargo.lock")).unwrap();
}

/// Runs `cargo <args>` on the template copy at `krate`, sharing this
/// workspace's target directory; returns stdout, failing with stderr.
fn cargo(krate: &Path, args: &[&str]) -> String {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let t0 = Instant::now();
    let (sub, rest) = args.split_first().expect("a cargo subcommand");
    let out = Command::new(cargo)
        .arg(sub)
        .arg("--manifest-path")
        .arg(krate.join("Cargo.toml"))
        .arg("--target-dir")
        .arg(target_dir())
        .arg("--quiet")
        .args(rest)
        .env_remove("CARGO_TARGET_DIR")
        .env_remove("RUSTFLAGS")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr);
    eprintln!(
        "cargo {} ({:.1}s)\n{stdout}{stderr}",
        args.join(" "),
        t0.elapsed().as_secs_f64()
    );
    assert!(out.status.success(), "cargo {args:?} failed:\n{stderr}");
    stdout
}

#[test]
fn template_program_crate_builds_and_runs_outside_the_workspace() {
    let tmp = tempfile::tempdir().unwrap();
    let krate = tmp.path().join("my-programs");
    assert!(
        !krate.starts_with(root()),
        "the copy must be outside the workspace"
    );
    instantiate(&krate);

    // Its own test: every kind through the one run call.
    cargo(&krate, &["test"]);

    // The command line its main gives it: a generated graph, --json.
    let out = cargo(
        &krate,
        &[
            "run",
            "--",
            "within_hops",
            "grid:20x10",
            "--backend",
            "cpu",
            "--json",
        ],
    );
    let j: serde_json::Value = serde_json::from_str(out.trim()).expect("one JSON object");
    assert_eq!(j["program"], "within_hops");
    assert_eq!(j["report"]["backend"], "cpu");
    assert_eq!(j["report"]["source"], 0);
    // Within 3 hops of a grid's corner: 1 + 2 + 3 + 4 vertices.
    assert_eq!(j["result"]["reached"], 10);

    // A file, a struct state written as columns with -o, and auto's backend.
    let el = tmp.path().join("g.el");
    std::fs::write(&el, "0 1\n1 2\n2 3\n0 2\n1 3\n").unwrap();
    let rows = tmp.path().join("paths.txt");
    let out = cargo(
        &krate,
        &[
            "run",
            "--",
            "paths",
            el.to_str().unwrap(),
            "--source",
            "0",
            "-o",
            rows.to_str().unwrap(),
        ],
    );
    assert!(out.contains("backend"), "{out}");
    let text = std::fs::read_to_string(&rows).unwrap();
    assert!(text.contains("# vertex depth paths\n"), "{text}");
    assert!(text.ends_with("3 2 2\n"), "{text}");

    // An intersection program; the GPU path runs or says why not.
    let out = cargo(&krate, &["run", "--", "wedges", "grid:4x4", "--json"]);
    let j: serde_json::Value = serde_json::from_str(out.trim()).expect("one JSON object");
    assert_eq!(j["result"]["vertices"], 16);
    let backend = j["report"]["backend"].as_str().unwrap_or_default();
    assert!(
        backend == "gpu"
            || j["report"]["backend_reason"]
                .as_str()
                .is_some_and(|r| r.contains("auto")),
        "the GPU path must run or say why not: {j}"
    );
}
