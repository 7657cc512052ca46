//! `vertex bench gap` end to end on tiny graphs: our side alone, and against a
//! fake gapbs (shell scripts printing gapbs's lines) that passes or fails its
//! verification.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!(
        "vertex-bench-gap-test-{}-{name}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn gap(dir: &Path, extra: &[&str]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_vertex"));
    c.args([
        "bench",
        "gap",
        "kron:8",
        "grid:20x20",
        "--threads",
        "1,2",
        "--trials",
        "1",
    ])
    .args(["--roots", "2", "--no-gpu", "--label", "test"])
    .arg("--work")
    .arg(dir.join("work"))
    .arg("--out")
    .arg(dir.join("out"))
    .args(extra);
    c.output().unwrap()
}

fn results(dir: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(dir.join("out/gap-test.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

#[test]
fn ours_alone_every_kernel_verified() {
    let dir = scratch("ours");
    let out = gap(&dir, &[]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("kron:8") && stdout.contains("grid:20x20"),
        "{stdout}"
    );
    let doc = results(&dir);
    let rows = doc["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 12);
    for r in rows {
        assert_eq!(r["ours_verified"], true, "{r}");
        assert!(r["gapbs_verified"].is_null(), "{r}");
        assert!(r["gpu"].is_null(), "{r}");
        assert_eq!(r["points"].as_array().unwrap().len(), 2, "{r}");
        assert!(r["points"][0]["gapbs"].is_null(), "{r}");
    }
    assert!(doc["host"]["command_line"]
        .as_str()
        .unwrap()
        .contains("bench gap"));
    assert!(dir.join("out/gap-test.svg").is_file());
    assert!(dir.join("work/kron-8.sg").is_file());
    assert!(dir.join("work/grid-20x20.wsg").is_file());
}

/// gapbs binaries that print a trial time and, with `-v`, `verdict`.
#[cfg(unix)]
fn fake_gapbs(dir: &Path, verdict: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let bin = dir.join("gapbs");
    std::fs::create_dir_all(&bin).unwrap();
    for k in ["bfs", "sssp", "pr", "cc", "bc", "tc"] {
        let p = bin.join(k);
        let script = format!(
            "#!/bin/sh\necho 'Trial Time:          0.00100'\n\
             for a in \"$@\"; do [ \"$a\" = -v ] && echo 'Verification:           {verdict}'; done\n\
             test -f \"$2\"\n"
        );
        std::fs::write(&p, script).unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    bin
}

#[cfg(unix)]
#[test]
fn against_a_gapbs_that_passes() {
    let dir = scratch("pass");
    let bin = fake_gapbs(&dir, "PASS");
    let out = gap(
        &dir,
        &["--kernels", "bfs,cc", "--gapbs", bin.to_str().unwrap()],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc = results(&dir);
    for r in doc["rows"].as_array().unwrap() {
        assert_eq!(r["gapbs_verified"], true, "{r}");
        let p = &r["points"][1];
        assert_eq!(p["gapbs"], 0.001, "{r}");
        assert!(p["ratio"].as_f64().unwrap() > 0.0, "{r}");
    }
}

#[cfg(unix)]
#[test]
fn a_failed_verification_exits_non_zero_after_writing() {
    let dir = scratch("fail");
    let bin = fake_gapbs(&dir, "FAIL");
    let out = gap(&dir, &["--kernels", "tc", "--gapbs", bin.to_str().unwrap()]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("tc on kron:8"), "{err}");
    let doc = results(&dir);
    assert_eq!(doc["rows"][0]["gapbs_verified"], false);
    assert_eq!(doc["rows"][0]["ours_verified"], true);
}

#[test]
fn a_missing_gapbs_binary_is_named() {
    let dir = scratch("missing");
    let out = gap(&dir, &["--kernels", "bc", "--gapbs", dir.to_str().unwrap()]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("`bc`") && err.contains(dir.to_str().unwrap()),
        "{err}"
    );
}
