//! The kernels' PTX, compiled from `kernels-rs` by `build.rs` and embedded.
//!
//! A build without the nightly toolchain embeds nothing and records why; asking
//! for the GPU then fails with that reason. `VERTEX_PTX_FILE=path.ptx` loads PTX
//! from a file at run time instead (to try a rebuilt module on the GPU machine
//! without relinking the binary).

use crate::error::{Error, Result};

/// The embedded module (empty when the build had no PTX).
pub const EMBEDDED: &str = include_str!(concat!(env!("OUT_DIR"), "/kernels.ptx"));

/// `ok`, or why the build has no PTX.
pub const BUILD_STATUS: &str = env!("VERTEX_PTX_STATUS");

/// Environment variable naming a PTX file that replaces the embedded module.
pub const PTX_FILE_ENV: &str = "VERTEX_PTX_FILE";

/// The PTX to load, or why there is none.
pub fn source() -> Result<std::borrow::Cow<'static, str>> {
    if let Some(path) = std::env::var_os(PTX_FILE_ENV) {
        return std::fs::read_to_string(&path)
            .map(Into::into)
            .map_err(|e| Error::io(&path, e));
    }
    if EMBEDDED.trim().is_empty() {
        return Err(Error::GpuUnavailable(format!(
            "built without PTX kernels: {BUILD_STATUS}"
        )));
    }
    Ok(EMBEDDED.into())
}

/// Environment variable naming a PTX file that replaces the embedded module of
/// every `#[vertex_program]` run (the module a program crate's `build.rs`
/// compiled): a rebuilt programs' module tried on the GPU machine without
/// relinking, as [`PTX_FILE_ENV`] does for the built-in kernels. The file must
/// hold the kernels of each program the process runs.
pub const PROGRAMS_PTX_FILE_ENV: &str = "VERTEX_PROGRAMS_PTX_FILE";

/// The PTX of program `name`'s kernels: [`PROGRAMS_PTX_FILE_ENV`]'s file when
/// set, else `embedded` (its crate's module), else an error saying why the
/// crate has none (`status`).
pub fn program_source(
    name: &str,
    embedded: Option<&'static str>,
    status: &str,
) -> Result<std::borrow::Cow<'static, str>> {
    if let Some(path) = std::env::var_os(PROGRAMS_PTX_FILE_ENV) {
        return std::fs::read_to_string(&path)
            .map(Into::into)
            .map_err(|e| Error::io(&path, e));
    }
    embedded.map(Into::into).ok_or_else(|| {
        Error::GpuUnavailable(format!("program `{name}` has no GPU kernels: {status}"))
    })
}

/// Whether this binary carries PTX.
pub fn embedded() -> bool {
    !EMBEDDED.trim().is_empty()
}

/// Kernels that must run 1,024-thread blocks, by name suffix: the resident
/// kernels' one-block rounds are as wide as their block
/// ([`super::resident::BLOCK`]).
const FULL_BLOCK_KERNELS: [&str; 2] = ["_resident", "_resident_hubs"];

/// `ptx` with `.maxntid 1024, 1, 1` on the entries named in
/// `FULL_BLOCK_KERNELS`: the Rust nvptx target has no launch-bounds
/// attribute, and without the bound the JIT may give such a kernel more than the
/// 64 registers a thread of a 1,024-thread block can have (then the launch falls
/// back to 512-thread blocks, and one-block rounds run at half width).
pub fn adjust_resident_entries(ptx: &str) -> std::borrow::Cow<'_, str> {
    let mut out = String::new();
    let mut rest = ptx;
    while let Some(at) = rest.find(".entry ") {
        let head = &rest[at + ".entry ".len()..];
        let name_end = head.find('(').unwrap_or(head.len());
        let name = head[..name_end].trim();
        // The body opens at the first `{` after the parameter list.
        let Some(body) = head.find("\n{").map(|b| at + ".entry ".len() + b) else {
            break;
        };
        let bounded = rest[..body].contains(".maxntid");
        out.push_str(&rest[..body]);
        if FULL_BLOCK_KERNELS.iter().any(|k| name.ends_with(k)) && !bounded {
            out.push_str("\n.maxntid 1024, 1, 1");
        }
        rest = &rest[body..];
    }
    if out.is_empty() {
        return ptx.into();
    }
    out.push_str(rest);
    out.into()
}

#[cfg(test)]
mod tests {
    use super::{adjust_resident_entries, program_source, PROGRAMS_PTX_FILE_ENV};

    #[test]
    fn resident_entries_get_a_thread_bound() {
        let ptx = ".visible .entry vx_bfs_init(\n.param .u64 a\n)\n{\nld.relaxed.sys.global.u32 %r1, [%rd1];\n}\n\
                   .visible .entry vx_bfs_resident(\n.param .u64 a\n)\n{\nld.relaxed.sys.global.u32 %r1, [%rd1];\nfence.sc.sys;\n}\n\
                   .visible .entry vx_bfs_resident_hubs(\n.param .u64 a\n)\n{\nfence.sc.sys;\n}\n";
        let out = adjust_resident_entries(ptx);
        assert_eq!(out.matches(".maxntid 1024, 1, 1").count(), 2, "{out}");
        assert!(
            out.contains("vx_bfs_resident_hubs(\n.param .u64 a\n)\n.maxntid 1024, 1, 1\n{"),
            "{out}"
        );
        let at = out.find(".maxntid").unwrap();
        assert!(out[..at].contains("vx_bfs_resident("), "{out}");
        assert!(out[at..].starts_with(".maxntid 1024, 1, 1\n{"), "{out}");
        // Idempotent, and a module without such entries is unchanged.
        assert_eq!(adjust_resident_entries(&out), out);
        let plain =
            ".visible .entry vx_bfs_init(\n)\n{\nld.relaxed.sys.global.u32 %r1, [%rd1];\n}\n";
        assert_eq!(adjust_resident_entries(plain), plain);
    }

    #[test]
    fn a_program_without_ptx_says_why() {
        // Only meaningful without the override (the test environment never sets it).
        if std::env::var_os(PROGRAMS_PTX_FILE_ENV).is_some() {
            return;
        }
        assert_eq!(program_source("sssp", Some("ptx"), "ok").unwrap(), "ptx");
        let e = program_source("sssp", None, "no nightly toolchain").unwrap_err();
        let msg = e.to_string();
        assert!(
            msg.contains("`sssp`") && msg.contains("no nightly toolchain"),
            "{msg}"
        );
    }
}
