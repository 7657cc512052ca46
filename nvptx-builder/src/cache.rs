//! Rebuild only when the kernel sources change.
//!
//! Cargo cannot do this for us: the inner build always "fails" at the link step, so
//! cargo never records the unit as fresh and would re-run rustc every time. Instead
//! we keep a stamp next to the PTX: the list of source files rustc read (from the
//! dep-info `.d` files it writes, sysroot files left out) and one hash over the
//! build settings and those files' contents. Same hash → reuse the PTX.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use xxhash_rust::xxh3::Xxh3;

/// The inputs a build depended on, and their combined hash.
#[derive(Debug, PartialEq, Eq)]
pub struct Stamp {
    pub hash: u64,
    pub inputs: Vec<PathBuf>,
}

impl Stamp {
    /// Reads a stamp written by [`Stamp::write`]; `None` if absent or garbled.
    pub fn read(path: &Path) -> Option<Stamp> {
        let text = std::fs::read_to_string(path).ok()?;
        let mut lines = text.lines();
        let hash = u64::from_str_radix(lines.next()?.trim(), 16).ok()?;
        let inputs = lines.filter(|l| !l.is_empty()).map(PathBuf::from).collect();
        Some(Stamp { hash, inputs })
    }

    /// Writes the stamp (hash on the first line, one input per line after).
    pub fn write(&self, path: &Path) -> std::io::Result<()> {
        let mut s = format!("{:016x}\n", self.hash);
        for p in &self.inputs {
            s.push_str(&p.to_string_lossy());
            s.push('\n');
        }
        std::fs::write(path, s)
    }
}

/// Hash of the settings string and of each input's path and contents (a missing
/// file hashes as missing, so deleting a source also invalidates).
pub fn hash_inputs(settings: &str, inputs: &[PathBuf]) -> u64 {
    let mut h = Xxh3::new();
    h.update(settings.as_bytes());
    for p in inputs {
        h.update(p.to_string_lossy().as_bytes());
        match std::fs::read(p) {
            Ok(bytes) => {
                h.update(&(bytes.len() as u64).to_le_bytes());
                h.update(&bytes);
            }
            Err(_) => h.update(b"\0missing"),
        }
    }
    h.digest()
}

/// Source files named in the rustc dep-info files of `deps_dir`, resolved to
/// absolute paths, without files under `exclude` (sysroot, registry sources).
///
/// Relative paths in dep-info are relative to the directory rustc ran in (the
/// workspace root of the kernel crate), which we find by trying `crate_dir` and
/// its ancestors.
pub fn dep_info_inputs(deps_dir: &Path, crate_dir: &Path, exclude: &[PathBuf]) -> Vec<PathBuf> {
    let mut files = BTreeSet::new();
    let Ok(entries) = std::fs::read_dir(deps_dir) else {
        return Vec::new();
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.extension().and_then(|e| e.to_str()) != Some("d") {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        for dep in parse_dep_info(&text) {
            let Some(abs) = resolve(&dep, crate_dir) else {
                continue;
            };
            if exclude.iter().any(|x| abs.starts_with(x)) {
                continue;
            }
            files.insert(abs);
        }
    }
    files.into_iter().collect()
}

fn resolve(dep: &Path, crate_dir: &Path) -> Option<PathBuf> {
    if dep.is_absolute() {
        return Some(dep.to_path_buf());
    }
    crate_dir
        .ancestors()
        .map(|a| a.join(dep))
        .find(|p| p.exists())
}

/// The prerequisites of every rule in a Makefile-style dep-info file (rustc writes
/// `target: dep dep ...` lines, spaces in paths escaped as `\ `).
pub fn parse_dep_info(text: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for line in text.lines() {
        // Skip `# env-dep:` comments and blank lines.
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let Some(colon) = find_rule_colon(line) else {
            continue;
        };
        let rest = &line[colon + 1..];
        let mut cur = String::new();
        let mut chars = rest.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '\\' if chars.peek() == Some(&' ') => {
                    cur.push(' ');
                    chars.next();
                }
                ' ' | '\t' => {
                    if !cur.is_empty() {
                        out.push(PathBuf::from(std::mem::take(&mut cur)));
                    }
                }
                _ => cur.push(c),
            }
        }
        if !cur.is_empty() {
            out.push(PathBuf::from(cur));
        }
    }
    out
}

/// The `:` that ends the target list (an unescaped colon followed by a space or
/// the end of the line, so `C:\...` style paths are not split).
fn find_rule_colon(line: &str) -> Option<usize> {
    let bytes = line.as_bytes();
    (0..bytes.len()).find(|&i| {
        bytes[i] == b':'
            && (i == 0 || bytes[i - 1] != b'\\')
            && bytes.get(i + 1).is_none_or(|&b| b == b' ' || b == b'\t')
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_rustc_dep_info() {
        let text = "/t/deps/k.s: src/lib.rs src/a\\ b.rs\n\n/t/deps/k.d: src/lib.rs\n\nsrc/lib.rs:\n# env-dep:X=1\n";
        let deps = parse_dep_info(text);
        assert!(deps.contains(&PathBuf::from("src/lib.rs")));
        assert!(deps.contains(&PathBuf::from("src/a b.rs")));
        assert_eq!(deps.len(), 3);
    }

    #[test]
    fn stamp_round_trip_and_hash_tracks_contents() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("lib.rs");
        std::fs::write(&f, "fn a() {}").unwrap();
        let inputs = vec![f.clone()];
        let h1 = hash_inputs("sm_90", &inputs);
        assert_eq!(h1, hash_inputs("sm_90", &inputs));
        assert_ne!(h1, hash_inputs("sm_80", &inputs));
        let stamp = Stamp {
            hash: h1,
            inputs: inputs.clone(),
        };
        let sp = dir.path().join("x.stamp");
        stamp.write(&sp).unwrap();
        assert_eq!(Stamp::read(&sp).unwrap(), stamp);
        std::fs::write(&f, "fn b() {}").unwrap();
        assert_ne!(h1, hash_inputs("sm_90", &inputs));
        std::fs::remove_file(&f).unwrap();
        let h_missing = hash_inputs("sm_90", &inputs);
        assert_ne!(h1, h_missing);
    }

    #[test]
    fn dep_info_inputs_resolves_relative_to_an_ancestor_and_excludes() {
        let ws = tempfile::tempdir().unwrap();
        let krate = ws.path().join("k");
        std::fs::create_dir_all(krate.join("src")).unwrap();
        std::fs::write(krate.join("src/lib.rs"), "").unwrap();
        let deps = ws.path().join("deps");
        std::fs::create_dir_all(&deps).unwrap();
        let sys = ws.path().join("sysroot");
        std::fs::create_dir_all(&sys).unwrap();
        std::fs::write(sys.join("core.rs"), "").unwrap();
        std::fs::write(
            deps.join("k.d"),
            format!("x.s: k/src/lib.rs {}\n", sys.join("core.rs").display()),
        )
        .unwrap();
        let got = dep_info_inputs(&deps, &krate, std::slice::from_ref(&sys));
        assert_eq!(got, vec![krate.join("src/lib.rs")]);
    }
}
