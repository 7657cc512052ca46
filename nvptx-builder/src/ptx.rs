//! Reading what rustc left behind: the `.s` PTX file, its kernel names, and the
//! diagnostics worth showing when it did not work.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// `deps/<lib_name>.s` inside the inner target directory.
pub fn asm_path(target_dir: &Path, lib_name: &str) -> PathBuf {
    target_dir
        .join(crate::cargo_cmd::TARGET)
        .join("release/deps")
        .join(format!("{lib_name}.s"))
}

/// Modification time of `path`, if it exists.
pub fn mtime(path: &Path) -> Option<SystemTime> {
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}

/// Names of the `.entry` (kernel) functions in a PTX module, in file order.
pub fn kernel_names(ptx: &str) -> Vec<String> {
    ptx.lines()
        .filter_map(|l| {
            let l = l.trim_start();
            let rest = l
                .strip_prefix(".visible .entry ")
                .or_else(|| l.strip_prefix(".entry "))?;
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '$')
                .collect();
            (!name.is_empty()).then_some(name)
        })
        .collect()
}

/// Whether the PTX looks like what the NVPTX back end writes.
pub fn looks_like_ptx(ptx: &str) -> bool {
    ptx.contains(".version") && ptx.contains(".target")
}

/// The expected outcome of the inner build: the only errors are about the missing
/// `llvm-bitcode-linker` (or linking in general), which we replace ourselves.
pub fn only_link_errors(stderr: &str) -> bool {
    let errors: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("error"))
        .filter(|l| !is_summary(l))
        .collect();
    !errors.is_empty() && errors.iter().all(|l| is_link_error(l))
}

fn is_summary(line: &str) -> bool {
    line.starts_with("error: could not compile") || line.starts_with("error: aborting due to")
}

fn is_link_error(line: &str) -> bool {
    line.contains("llvm-bitcode-linker")
        || line.contains("rust-ptx-linker")
        || line.starts_with("error: linking with")
        || (line.starts_with("error: linker `") && line.contains("not found"))
}

/// rustc's diagnostics without warnings, link-step noise and cargo progress lines:
/// what a person needs to fix the kernel crate.
pub fn real_diagnostics(stderr: &str) -> String {
    let mut blocks: Vec<Vec<&str>> = Vec::new();
    let mut cur: Vec<&str> = Vec::new();
    for line in stderr.lines() {
        let starts_block = line.starts_with("error") || line.starts_with("warning");
        if starts_block && !cur.is_empty() {
            blocks.push(std::mem::take(&mut cur));
        }
        let progress = line.trim_start().starts_with("Compiling ")
            || line.trim_start().starts_with("Finished ")
            || line.trim_start().starts_with("Blocking ");
        if !progress {
            cur.push(line);
        }
    }
    if !cur.is_empty() {
        blocks.push(cur);
    }
    let kept: Vec<String> = blocks
        .into_iter()
        .filter(|b| {
            let head = b[0];
            head.starts_with("error") && !is_link_error(head)
        })
        .map(|b| b.join("\n").trim_end().to_string())
        .collect();
    if kept.is_empty() {
        stderr.trim().to_string()
    } else {
        kept.join("\n\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LINK_ONLY: &str = "   Compiling k v0.1.0 (/tmp/k)\nerror: linker `llvm-bitcode-linker` not found\n  |\n  = note: No such file or directory (os error 2)\n\nerror: could not compile `k` (lib) due to 1 previous error\n";

    #[test]
    fn link_only_failure_is_recognised() {
        assert!(only_link_errors(LINK_ONLY));
        let real = "error[E0425]: cannot find value `x` in this scope\n --> src/lib.rs:3:5\n\nerror: linker `llvm-bitcode-linker` not found\nerror: could not compile `k`\n";
        assert!(!only_link_errors(real));
        assert!(!only_link_errors(""));
    }

    #[test]
    fn diagnostics_keep_errors_drop_warnings_and_link_noise() {
        let s = "   Compiling k v0.1.0\nwarning: unused variable `y`\n --> src/lib.rs:1:1\n\nerror[E0425]: cannot find value `x`\n --> src/lib.rs:3:5\n  |\n3 |     x\n\nerror: linker `llvm-bitcode-linker` not found\nerror: could not compile `k`\n";
        let d = real_diagnostics(s);
        assert!(d.contains("E0425"));
        assert!(d.contains("src/lib.rs:3:5"));
        assert!(!d.contains("unused variable"));
        assert!(!d.contains("llvm-bitcode-linker"));
        assert!(!d.contains("Compiling"));
    }

    #[test]
    fn finds_entry_points() {
        let ptx = ".version 7.8\n.target sm_90\n.visible .entry bfs_init(\n.param .u64 a\n)\n.func helper()\n.visible .entry bfs_level(\n";
        assert_eq!(kernel_names(ptx), vec!["bfs_init", "bfs_level"]);
        assert!(looks_like_ptx(ptx));
    }
}
