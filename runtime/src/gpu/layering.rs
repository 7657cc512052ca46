//! Keeps `runtime::gpu` easy to see (issue 19): no source file over
//! [`MAX_LINES`] lines, and no import cycles among its modules.
//!
//! The test reads `src/gpu/**/*.rs`, strips comments and literals, and collects
//! every path a module names inside `gpu`: `use` trees and inline paths that
//! start at `crate::gpu::`, `super::` or `self::`. Each path is resolved to the
//! deepest file module it reaches (names re-exported by `gpu/mod.rs` to the
//! module they come from). A module naming its own submodules (declaring and
//! re-exporting them) is structure, not a dependency, and is not an edge; the
//! root `gpu/mod.rs`, the façade, is not a node. The graph must be acyclic both
//! over file modules and over the top-level modules of `gpu`, and the bottom
//! layer ([`BOTTOM`]) may only use itself.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The most lines a source file under `src/gpu` may have.
const MAX_LINES: usize = 800;

/// The bottom layer: CUDA calls, the PTX, the emulator's launcher, the one
/// launcher trait over both backends, the level loop protocol, the kernel
/// settings, and the device with its graphs.
const BOTTOM: &[&str] = &[
    "cuda",
    "cuda_error",
    "graphs",
    "ptx",
    "launch",
    "launcher",
    "driver",
    "options",
    "device",
];

/// Top-level edges that still close a cycle, each with the change that removes
/// it. The test fails once an edge is gone, so the list only shrinks.
/// (Empty: the last one, `program_api` → `resident`, went when `ResidentStats`
/// moved into `program_api`.)
const PENDING: &[(&str, &str)] = &[];

type Module = Vec<String>;

fn gpu_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src/gpu")
}

/// Every `.rs` file under `dir`, with its module path below `gpu`.
fn files(dir: &Path, module: &Module, out: &mut Vec<(PathBuf, Module)>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        let name = p.file_stem().unwrap().to_string_lossy().into_owned();
        let mut m = module.clone();
        if p.is_dir() {
            m.push(name);
            files(&p, &m, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            if name != "mod" {
                m.push(name);
            }
            out.push((p, m));
        }
    }
}

/// Identifiers, `::` and single punctuation characters of `src`, without
/// comments, string and character literals.
fn tokens(src: &str) -> Vec<String> {
    let c: Vec<char> = src.chars().collect();
    let (mut out, mut i) = (Vec::new(), 0);
    while i < c.len() {
        let at = |k: usize| c.get(k).copied().unwrap_or('\0');
        match c[i] {
            '/' if at(i + 1) == '/' => {
                while i < c.len() && c[i] != '\n' {
                    i += 1;
                }
            }
            '/' if at(i + 1) == '*' => {
                let mut depth = 0;
                loop {
                    if at(i) == '/' && at(i + 1) == '*' {
                        depth += 1;
                        i += 2;
                    } else if at(i) == '*' && at(i + 1) == '/' {
                        depth -= 1;
                        i += 2;
                        if depth == 0 {
                            break;
                        }
                    } else if i >= c.len() {
                        break;
                    } else {
                        i += 1;
                    }
                }
            }
            'r' | 'b'
                if matches!(
                    (at(i + 1), at(i + 2)),
                    ('"', _) | ('#', _) | ('r', '"' | '#')
                ) =>
            {
                // Raw or byte string: skip the prefix, then the hashes and quote.
                i += if c[i] == 'b' && at(i + 1) == 'r' {
                    2
                } else {
                    1
                };
                let raw = c[i - 1] == 'r';
                let mut hashes = 0;
                while at(i) == '#' {
                    hashes += 1;
                    i += 1;
                }
                i += 1;
                while i < c.len() {
                    if c[i] == '\\' && !raw {
                        i += 2;
                    } else if c[i] == '"' && (0..hashes).all(|h| at(i + 1 + h) == '#') {
                        i += 1 + hashes;
                        break;
                    } else {
                        i += 1;
                    }
                }
            }
            '"' => {
                i += 1;
                while i < c.len() && c[i] != '"' {
                    i += if c[i] == '\\' { 2 } else { 1 };
                }
                i += 1;
            }
            '\'' if at(i + 1) == '\\' => {
                i += 2;
                while i < c.len() && c[i] != '\'' {
                    i += 1;
                }
                i += 1;
            }
            '\'' if at(i + 2) == '\'' => i += 3,
            ch if ch.is_alphanumeric() || ch == '_' => {
                let s = i;
                while i < c.len() && (c[i].is_alphanumeric() || c[i] == '_') {
                    i += 1;
                }
                out.push(c[s..i].iter().collect());
            }
            ':' if at(i + 1) == ':' => {
                out.push("::".into());
                i += 2;
            }
            ch if ch.is_whitespace() => i += 1,
            ch => {
                out.push(ch.to_string());
                i += 1;
            }
        }
    }
    out
}

/// The leaves of the `use` tree starting at `t[*i]`, each prefixed by `prefix`;
/// leaves `*i` after the tree.
fn use_tree(t: &[String], i: &mut usize, prefix: Module, out: &mut Vec<Module>) {
    let mut path = prefix;
    while *i < t.len() {
        match t[*i].as_str() {
            "{" => {
                *i += 1;
                while *i < t.len() && t[*i] != "}" {
                    use_tree(t, i, path.clone(), out);
                    if t.get(*i).is_some_and(|s| s == ",") {
                        *i += 1;
                    }
                }
                *i += 1;
                return;
            }
            "::" => *i += 1,
            "*" => {
                *i += 1;
                break;
            }
            "as" => *i += 2,
            "," | "}" | ";" => break,
            s => {
                path.push(s.to_string());
                *i += 1;
            }
        }
    }
    out.push(path);
}

/// Paths into `gpu` named by a file of module `file`: `(module the path is
/// written in, its segments)`.
fn paths(src: &str, file: &Module) -> Vec<(Module, Module)> {
    let t = tokens(src);
    let mut out = Vec::new();
    // Inline modules (`mod tests { ... }`): their names and the brace depth inside.
    let (mut inline, mut depth): (Vec<(String, usize)>, usize) = (Vec::new(), 0);
    let mut i = 0;
    while i < t.len() {
        let here = || {
            let mut m = file.clone();
            m.extend(inline.iter().map(|(n, _)| n.clone()));
            m
        };
        match t[i].as_str() {
            "{" => depth += 1,
            "}" => {
                if inline.last().is_some_and(|&(_, d)| d == depth) {
                    inline.pop();
                }
                depth -= 1;
            }
            "mod" if t.get(i + 2).is_some_and(|s| s == "{") => {
                depth += 1;
                inline.push((t[i + 1].clone(), depth));
                i += 3;
                continue;
            }
            "use" => {
                i += 1;
                let mut leaves = Vec::new();
                use_tree(&t, &mut i, Vec::new(), &mut leaves);
                let m = here();
                out.extend(leaves.into_iter().map(|l| (m.clone(), l)));
                continue;
            }
            "crate" | "super" | "self" if t.get(i + 1).is_some_and(|s| s == "::") => {
                let mut p = vec![t[i].clone()];
                while t.get(i + 1).is_some_and(|s| s == "::")
                    && t.get(i + 2)
                        .is_some_and(|s| s.starts_with(char::is_alphabetic))
                {
                    p.push(t[i + 2].clone());
                    i += 2;
                }
                out.push((here(), p));
            }
            _ => {}
        }
        i += 1;
    }
    out
}

/// The module a path written in `from` names, if inside `gpu`: the deepest
/// known module it reaches, through the root's re-exports.
fn resolve(
    from: &Module,
    path: &[String],
    known: &BTreeSet<Module>,
    root_exports: &BTreeMap<String, Module>,
) -> Option<Module> {
    let (mut abs, rest): (Module, &[String]) = match path.first().map(String::as_str) {
        Some("crate") if path.get(1).is_some_and(|s| s == "gpu") => (Vec::new(), &path[2..]),
        Some("self") => (from.clone(), &path[1..]),
        Some("super") => {
            let mut m = from.clone();
            let mut k = 0;
            while path.get(k).is_some_and(|s| s == "super") {
                m.pop()?;
                k += 1;
            }
            (m, &path[k..])
        }
        _ => return None,
    };
    let mut rest = rest.to_vec();
    if abs.is_empty() {
        if let Some(m) = rest.first().and_then(|s| root_exports.get(s)) {
            rest.remove(0);
            let mut p = m.clone();
            p.extend(rest);
            rest = p;
        }
    }
    for s in rest {
        let mut next = abs.clone();
        next.push(s);
        if !known.contains(&next) {
            break;
        }
        abs = next;
    }
    Some(abs)
}

/// A cycle of `edges`, if there is one.
fn find_cycle<N: Ord + Clone>(edges: &BTreeMap<N, BTreeSet<N>>) -> Option<Vec<N>> {
    fn visit<N: Ord + Clone>(
        n: &N,
        edges: &BTreeMap<N, BTreeSet<N>>,
        state: &mut BTreeMap<N, bool>,
        stack: &mut Vec<N>,
    ) -> Option<Vec<N>> {
        match state.get(n) {
            Some(true) => return None,
            Some(false) => {
                let at = stack.iter().position(|s| s == n).unwrap_or(0);
                let mut c = stack[at..].to_vec();
                c.push(n.clone());
                return Some(c);
            }
            None => {}
        }
        state.insert(n.clone(), false);
        stack.push(n.clone());
        for m in edges.get(n).into_iter().flatten() {
            if let Some(c) = visit(m, edges, state, stack) {
                return Some(c);
            }
        }
        stack.pop();
        state.insert(n.clone(), true);
        None
    }
    let mut state = BTreeMap::new();
    edges
        .keys()
        .find_map(|n| visit(n, edges, &mut state, &mut Vec::new()))
}

/// The module graph of `gpu`: file module → modules it names.
fn graph() -> BTreeMap<Module, BTreeSet<Module>> {
    let mut fs = Vec::new();
    files(&gpu_dir(), &Vec::new(), &mut fs);
    let known: BTreeSet<Module> = fs.iter().map(|(_, m)| m.clone()).collect();
    let sources: Vec<(Module, String)> = fs
        .iter()
        .map(|(p, m)| (m.clone(), std::fs::read_to_string(p).unwrap()))
        .collect();
    // Names the root re-exports (`pub use bfs::{Device, ...}`) and where from.
    let mut root_exports = BTreeMap::new();
    for (from, path) in paths(
        &sources.iter().find(|(m, _)| m.is_empty()).unwrap().1,
        &vec![],
    ) {
        if from.is_empty() && path.len() >= 2 && known.contains(&path[..1]) {
            root_exports.insert(path.last().unwrap().clone(), path[..1].to_vec());
        }
    }
    let mut edges: BTreeMap<Module, BTreeSet<Module>> = BTreeMap::new();
    for (m, src) in &sources {
        if m.is_empty() {
            continue;
        }
        let e = edges.entry(m.clone()).or_default();
        for (from, path) in paths(src, m) {
            let Some(to) = resolve(&from, &path, &known, &root_exports) else {
                continue;
            };
            // Not an edge: the root, the module itself, its own submodules.
            if !to.is_empty() && !to.starts_with(m) {
                e.insert(to);
            }
        }
    }
    edges
}

#[test]
fn no_gpu_source_file_is_long() {
    let mut fs = Vec::new();
    files(&gpu_dir(), &Vec::new(), &mut fs);
    assert!(fs.len() > 20, "found only {} files under src/gpu", fs.len());
    let long: Vec<String> = fs
        .iter()
        .map(|(p, _)| (p, std::fs::read_to_string(p).unwrap().lines().count()))
        .filter(|&(_, n)| n > MAX_LINES)
        .map(|(p, n)| format!("{} ({n} lines)", p.display()))
        .collect();
    assert!(
        long.is_empty(),
        "over {MAX_LINES} lines: {long:?}; split them by what they do"
    );
}

#[test]
fn gpu_modules_import_each_other_without_cycles() {
    let mut files = graph();
    for &(a, b) in PENDING {
        let mut present = false;
        for (_, to) in files.iter_mut().filter(|(m, _)| m[0] == a) {
            let before = to.len();
            to.retain(|t| t[0] != b);
            present |= to.len() < before;
        }
        assert!(present, "{a} → {b} is gone: remove it from PENDING");
    }
    let name = |m: &Module| m.join("::");
    if let Some(c) = find_cycle(&files) {
        panic!(
            "import cycle: {}",
            c.iter().map(name).collect::<Vec<_>>().join(" → ")
        );
    }
    let mut top: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (m, to) in &files {
        let e = top.entry(m[0].clone()).or_default();
        e.extend(to.iter().map(|t| t[0].clone()).filter(|t| *t != m[0]));
    }
    for (m, to) in &top {
        println!(
            "{m} → {}",
            to.iter().cloned().collect::<Vec<_>>().join(", ")
        );
    }
    if let Some(c) = find_cycle(&top) {
        panic!("import cycle among gpu's modules: {}", c.join(" → "));
    }
    for (m, to) in &top {
        if BOTTOM.contains(&m.as_str()) {
            let up: Vec<&String> = to
                .iter()
                .filter(|t| !BOTTOM.contains(&t.as_str()))
                .collect();
            assert!(up.is_empty(), "bottom-layer module {m} uses {up:?}");
        }
    }
}

#[test]
fn the_checker_sees_use_trees_inline_paths_and_test_modules() {
    let src = "use super::{a::X, b::{self, Y}};\n// super::c::Z\nfn f() { crate::gpu::d::g(\"super::e\"); }\n#[cfg(test)]\nmod tests { use super::*; fn h() { super::super::f::k(); } }";
    let got: Vec<(String, String)> = paths(src, &vec!["m".to_string()])
        .into_iter()
        .map(|(from, p)| (from.join("::"), p.join("::")))
        .collect();
    let want = [
        ("m", "super::a::X"),
        ("m", "super::b::self"),
        ("m", "super::b::Y"),
        ("m", "crate::gpu::d::g"),
        ("m::tests", "super"),
        ("m::tests", "super::super::f::k"),
    ];
    let want: Vec<(String, String)> = want
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    assert_eq!(got, want);
    let edges = BTreeMap::from([(1, BTreeSet::from([2])), (2, BTreeSet::from([1]))]);
    assert!(find_cycle(&edges).is_some());
}
