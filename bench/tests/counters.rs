//! `vertex-counters`: a command's counters as one JSON object; its exit code
//! passed on; a clear usage error without a command.

use std::process::Command;

#[cfg(target_os = "linux")]
#[test]
fn counts_a_command_and_passes_its_exit_code_on() {
    let out = Command::new(env!("CARGO_BIN_EXE_vertex-counters"))
        .args(["--", "sh", "-c", "echo hi; exit 0"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let stdout = String::from_utf8(out.stdout).unwrap();
    let mut lines = stdout.lines();
    assert_eq!(lines.next(), Some("hi"));
    let j: serde_json::Value = serde_json::from_str(lines.next().unwrap()).unwrap();
    assert_eq!(j["exit_code"], 0);
    // Resource usage always comes back; hardware events may be `null` (VMs).
    for key in [
        "voluntary_switches",
        "involuntary_switches",
        "minor_faults",
        "wall_s",
    ] {
        assert!(j[key].is_number(), "{key} in {j}");
    }
    assert!(j.get("cycles").is_some());

    let out = Command::new(env!("CARGO_BIN_EXE_vertex-counters"))
        .args(["--", "sh", "-c", "exit 3"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
}

#[test]
fn without_a_command_it_says_how_to_use_it() {
    let out = Command::new(env!("CARGO_BIN_EXE_vertex-counters"))
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("usage: vertex-counters"), "{err}");
}
