//! Generator specs: `kron:20`, `uniform:1000000:8000000`, `grid:1000x1000@7`,
//! `mesh:1000000`.
//!
//! Anywhere the CLI reads a graph it accepts one of these instead of a file, so a
//! benchmark needs no data on disk. [`GenSpec::parse`] tells three cases apart:
//! not a spec at all (a file path), a well-formed spec, and a string that starts
//! like a spec but is malformed — the last is an error with a message, not a
//! "file not found" about a file the user never meant. (A file whose name really
//! starts with `kron:` can still be read as `./kron:…`.)
//!
//! Grammar (numbers may use `_` separators, e.g. `1_000_000`):
//! * `kron:S` or `kron:S:E` — Graph500 Kronecker, scale `S` (1..=32), edge factor
//!   `E` (default 16);
//! * `uniform:N:M` — `M` uniformly random edges over `N` vertices;
//! * `urand:S` or `urand:S:D` — gapbs's name for that shape: `uniform:2^S:D·2^S`
//!   (`D` default 16, as gapbs's `-u S`);
//! * `grid:WxH` — road-like `W × H` grid with weights 1..=100;
//! * `mesh:N` — Delaunay triangulation of `N` random points in the unit square
//!   (`N` ≥ 3), weights 1..=100;
//! * any of them with `@SEED` appended (default seed 0).

use std::fmt;

use super::grid::Grid;
use super::kronecker::{Kronecker, MAX_SCALE};
use super::mesh::{Mesh, MIN_MESH_POINTS};
use crate::error::{Error, Result};
use crate::graph::{BuildOptions, EdgeList, WeightKind, MAX_VERTICES};

/// Seed used when a spec has no `@SEED`.
pub const DEFAULT_SEED: u64 = 0;
/// Kronecker edge factor when a spec gives only the scale (the Graph500 value).
pub const DEFAULT_EDGEFACTOR: u64 = 16;

/// An in-memory graph source.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GenSpec {
    /// Graph500 Kronecker: `2^scale` vertices, `edgefactor · 2^scale` edges.
    Kron {
        scale: u32,
        edgefactor: u64,
        seed: u64,
    },
    /// Uniform random: `m` edges over `n` vertices.
    Uniform { n: usize, m: usize, seed: u64 },
    /// Road-like `w × h` grid, weights 1..=100.
    Grid { w: usize, h: usize, seed: u64 },
    /// Planar mesh: the Delaunay triangulation of `n` random points, weights 1..=100.
    Mesh { n: usize, seed: u64 },
}

impl GenSpec {
    /// `None` if `s` is not a generator spec (treat it as a path), `Some(Err)` if it
    /// looks like one but is malformed or too large, `Some(Ok)` otherwise.
    pub fn parse(s: &str) -> Option<Result<GenSpec>> {
        let (kind, rest) = s.split_once(':')?;
        let spec = match kind {
            "kron" => parse_kron(rest),
            "uniform" => parse_uniform(rest),
            "urand" => parse_urand(rest),
            "grid" => parse_grid(rest),
            "mesh" => parse_mesh(rest),
            _ => return None,
        };
        Some(spec.map_err(|msg| Error::InvalidArgument(format!("bad generator spec `{s}`: {msg}"))))
    }

    /// Generates the edge list (unweighted for `kron` and `uniform`, weighted
    /// 1..=100 for `grid` and `mesh`).
    pub fn generate(&self) -> Result<EdgeList<u32>> {
        match *self {
            GenSpec::Kron {
                scale,
                edgefactor,
                seed,
            } => Kronecker::graph500(scale, edgefactor, seed).generate(),
            GenSpec::Uniform { n, m, seed } => super::uniform(n, m, seed),
            GenSpec::Grid { w, h, seed } => Grid::road(w, h, seed).generate(),
            GenSpec::Mesh { n, seed } => Mesh::new(n, seed).generate(),
        }
    }

    /// How to build the generated list: all four are undirected simple graphs
    /// (symmetrize, drop self-loops, drop duplicates keeping the smallest weight).
    pub fn default_build_options(&self) -> BuildOptions {
        BuildOptions::undirected()
    }

    /// The weight type the generator produces: `u32` for grids and meshes, none
    /// otherwise.
    pub fn default_weight_kind(&self) -> Option<WeightKind> {
        match self {
            GenSpec::Grid { .. } | GenSpec::Mesh { .. } => Some(WeightKind::U32),
            _ => None,
        }
    }

    /// Number of vertices the graph will have (saturating, for specs built by hand
    /// with out-of-range values; [`GenSpec::generate`] rejects those).
    pub fn num_vertices(&self) -> usize {
        match *self {
            GenSpec::Kron { scale, .. } => 1usize.checked_shl(scale).unwrap_or(usize::MAX),
            GenSpec::Uniform { n, .. } => n,
            GenSpec::Grid { w, h, .. } => w.saturating_mul(h),
            GenSpec::Mesh { n, .. } => n,
        }
    }

    /// The seed.
    pub fn seed(&self) -> u64 {
        match *self {
            GenSpec::Kron { seed, .. }
            | GenSpec::Uniform { seed, .. }
            | GenSpec::Grid { seed, .. }
            | GenSpec::Mesh { seed, .. } => seed,
        }
    }
}

/// The canonical spelling, which parses back to the same spec.
impl fmt::Display for GenSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GenSpec::Kron {
                scale,
                edgefactor,
                seed,
            } => write!(f, "kron:{scale}:{edgefactor}@{seed}"),
            GenSpec::Uniform { n, m, seed } => write!(f, "uniform:{n}:{m}@{seed}"),
            GenSpec::Grid { w, h, seed } => write!(f, "grid:{w}x{h}@{seed}"),
            GenSpec::Mesh { n, seed } => write!(f, "mesh:{n}@{seed}"),
        }
    }
}

type Parsed = std::result::Result<GenSpec, String>;

/// A non-negative integer, `_` separators allowed.
fn number(tok: &str) -> Option<u64> {
    let t = tok.trim();
    if t.is_empty() || t.starts_with('_') || !t.bytes().all(|b| b.is_ascii_digit() || b == b'_') {
        return None;
    }
    t.replace('_', "").parse().ok()
}

/// Splits `body@seed`.
fn split_seed(rest: &str) -> std::result::Result<(&str, u64), String> {
    match rest.split_once('@') {
        None => Ok((rest, DEFAULT_SEED)),
        Some((body, seed)) => number(seed)
            .map(|s| (body, s))
            .ok_or_else(|| format!("@SEED expects a non-negative integer, got `{seed}`")),
    }
}

/// `S` or `S:F` of `kind:S[:F]`: a scale in `1..=max_scale` and a factor of at
/// least 1 (`default` when absent), `factor` naming it in messages (`E`, an edge
/// factor).
fn scale_and_factor(
    body: &str,
    kind: &str,
    max_scale: u64,
    factor: (&str, &str),
    default: u64,
) -> std::result::Result<(u64, u64), String> {
    let (letter, what) = factor;
    let parts: Vec<&str> = body.split(':').collect();
    if parts.len() > 2 {
        return Err(format!(
            "expected {kind}:S or {kind}:S:{letter}, got {} fields",
            parts.len()
        ));
    }
    let scale = number(parts[0])
        .filter(|s| (1..=max_scale).contains(s))
        .ok_or_else(|| {
            format!(
                "{kind}:S expects a scale 1..={max_scale} (vertex ids are 32-bit), got `{}`",
                parts[0]
            )
        })?;
    let f = match parts.get(1) {
        None => default,
        Some(f) => number(f)
            .filter(|&f| f >= 1)
            .ok_or_else(|| format!("{kind}:S:{letter} expects {what} of at least 1, got `{f}`"))?,
    };
    Ok((scale, f))
}

fn parse_kron(rest: &str) -> Parsed {
    let (body, seed) = split_seed(rest)?;
    let (scale, edgefactor) = scale_and_factor(
        body,
        "kron",
        MAX_SCALE as u64,
        ("E", "an edge factor"),
        DEFAULT_EDGEFACTOR,
    )?;
    let scale = scale as u32;
    Kronecker::graph500(scale, edgefactor, seed)
        .num_edges()
        .map_err(|e| e.to_string())?;
    Ok(GenSpec::Kron {
        scale,
        edgefactor,
        seed,
    })
}

fn parse_uniform(rest: &str) -> Parsed {
    let (body, seed) = split_seed(rest)?;
    let parts: Vec<&str> = body.split(':').collect();
    if parts.len() != 2 {
        return Err(format!(
            "expected uniform:N:M (vertices, edges), got {} field{}",
            parts.len(),
            if parts.len() == 1 { "" } else { "s" }
        ));
    }
    let n = number(parts[0])
        .filter(|&n| n >= 1 && n <= MAX_VERTICES as u64)
        .ok_or_else(|| {
            format!(
                "uniform:N:M expects a vertex count 1..={MAX_VERTICES}, got `{}`",
                parts[0]
            )
        })? as usize;
    let m = number(parts[1])
        .and_then(|m| usize::try_from(m).ok())
        .ok_or_else(|| format!("uniform:N:M expects an edge count, got `{}`", parts[1]))?;
    super::uniform::check(n, m).map_err(|e| e.to_string())?;
    Ok(GenSpec::Uniform { n, m, seed })
}

fn parse_urand(rest: &str) -> Parsed {
    let (body, seed) = split_seed(rest)?;
    let (scale, degree) =
        scale_and_factor(body, "urand", 31, ("D", "a degree"), DEFAULT_EDGEFACTOR)?;
    let n = 1usize << scale;
    let m = degree
        .checked_mul(n as u64)
        .and_then(|m| usize::try_from(m).ok())
        .ok_or_else(|| format!("urand:{scale}:{degree}: too many edges"))?;
    super::uniform::check(n, m).map_err(|e| e.to_string())?;
    Ok(GenSpec::Uniform { n, m, seed })
}

fn parse_grid(rest: &str) -> Parsed {
    let (body, seed) = split_seed(rest)?;
    let Some((w, h)) = body.split_once(['x', 'X']) else {
        return Err(format!(
            "grid:WxH expects two sizes like `grid:100x200`, got `{body}`"
        ));
    };
    let side = |t: &str, what: &str| {
        number(t)
            .filter(|&v| v >= 1)
            .and_then(|v| usize::try_from(v).ok())
            .ok_or_else(|| format!("grid:WxH expects a {what} of at least 1, got `{t}`"))
    };
    let (w, h) = (side(w, "width")?, side(h, "height")?);
    Grid::road(w, h, seed)
        .lattice_edges()
        .map_err(|e| e.to_string())?;
    Ok(GenSpec::Grid { w, h, seed })
}

fn parse_mesh(rest: &str) -> Parsed {
    let (body, seed) = split_seed(rest)?;
    let n = number(body)
        .filter(|&n| n >= MIN_MESH_POINTS as u64 && n <= MAX_VERTICES as u64)
        .ok_or_else(|| {
            format!(
                "mesh:N expects a point count {MIN_MESH_POINTS}..={MAX_VERTICES} (a triangle \
                 needs 3; vertex ids are 32-bit), got `{body}`"
            )
        })? as usize;
    Ok(GenSpec::Mesh { n, seed })
}

/// Parses a weight range `LO..HI` or `LO..=HI`; both forms include `HI`.
///
/// ```
/// use runtime::generate::parse_weight_range;
/// assert_eq!(parse_weight_range("1..100").unwrap(), (1, 100));
/// assert_eq!(parse_weight_range("5..=5").unwrap(), (5, 5));
/// assert!(parse_weight_range("9..1").is_err());
/// ```
pub fn parse_weight_range(s: &str) -> Result<(u64, u64)> {
    let bad = |why: &str| {
        Error::InvalidArgument(format!(
            "weight range `{s}`: {why} (expected LO..HI, both inclusive, e.g. 1..100)"
        ))
    };
    let (lo, hi) = s.split_once("..").ok_or_else(|| bad("no `..`"))?;
    let hi = hi.strip_prefix('=').unwrap_or(hi);
    let lo = number(lo).ok_or_else(|| bad("LO is not a non-negative integer"))?;
    let hi = number(hi).ok_or_else(|| bad("HI is not a non-negative integer"))?;
    if lo > hi {
        return Err(bad("LO is greater than HI"));
    }
    Ok((lo, hi))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(s: &str) -> GenSpec {
        GenSpec::parse(s).expect("a spec").expect("well formed")
    }

    fn err(s: &str) -> String {
        GenSpec::parse(s).expect("a spec").unwrap_err().to_string()
    }

    #[test]
    fn well_formed() {
        assert_eq!(
            ok("kron:16"),
            GenSpec::Kron {
                scale: 16,
                edgefactor: 16,
                seed: 0
            }
        );
        assert_eq!(
            ok("kron:16:48@7"),
            GenSpec::Kron {
                scale: 16,
                edgefactor: 48,
                seed: 7
            }
        );
        assert_eq!(
            ok("urand:10"),
            GenSpec::Uniform {
                n: 1024,
                m: 16384,
                seed: 0
            }
        );
        assert_eq!(
            ok("urand:10:4@3"),
            GenSpec::Uniform {
                n: 1024,
                m: 4096,
                seed: 3
            }
        );
        assert!(err("urand:0").contains("scale"));
        assert!(err("urand:10:0").contains("degree"));
        assert!(err("urand:10:4:2").contains("fields"));
        assert_eq!(
            ok("uniform:1_000:5000"),
            GenSpec::Uniform {
                n: 1000,
                m: 5000,
                seed: 0
            }
        );
        assert_eq!(
            ok("grid:30x20@3"),
            GenSpec::Grid {
                w: 30,
                h: 20,
                seed: 3
            }
        );
        assert_eq!(
            ok("grid:30X20"),
            GenSpec::Grid {
                w: 30,
                h: 20,
                seed: 0
            }
        );
        assert_eq!(
            ok("mesh:1_000_000@4"),
            GenSpec::Mesh {
                n: 1_000_000,
                seed: 4
            }
        );
        assert_eq!(ok("mesh:3"), GenSpec::Mesh { n: 3, seed: 0 });
        assert_eq!(ok("mesh:4294967296").num_vertices(), MAX_VERTICES);
        assert_eq!(ok("uniform:5:0").num_vertices(), 5);
        for s in ["kron:3:2@9", "uniform:10:20@1", "grid:4x5@2", "mesh:50@3"] {
            assert_eq!(ok(&ok(s).to_string()), ok(s));
        }
    }

    #[test]
    fn not_a_spec() {
        for s in [
            "graph.mtx",
            "kron",
            "road.gr.gz",
            "./kron:3",
            "data/grid:3x3",
            "./mesh:3",
            "meshes:3",
        ] {
            assert!(GenSpec::parse(s).is_none(), "{s}");
        }
    }

    #[test]
    fn malformed() {
        let e = err("kron:x");
        assert!(
            e.contains("kron:S expects a scale 1..=32") && e.contains("`x`"),
            "{e}"
        );
        assert!(err("kron:0").contains("scale"));
        assert!(err("kron:33").contains("scale"));
        assert!(err("kron:").contains("scale"));
        assert!(err("kron:10:0").contains("edge factor"));
        assert!(err("kron:10:-3").contains("edge factor"));
        assert!(err("kron:10:4:5").contains("fields"));
        assert!(err("kron:10@x").contains("@SEED"));
        assert!(err("kron:32:18446744073709551615").contains("more edges than memory"));
        assert!(err("uniform:10").contains("uniform:N:M"));
        assert!(err("uniform:0:5").contains("vertex count"));
        assert!(err("uniform:10:1.5").contains("edge count"));
        assert!(err("uniform:4294967297:1").contains("vertex count"));
        assert!(err("uniform:10:18446744073709551615").contains("memory"));
        assert!(err("grid:10").contains("grid:WxH"));
        assert!(err("grid:0x5").contains("width"));
        assert!(err("grid:5x").contains("height"));
        assert!(err("grid:100000x100000").contains("32-bit"));
        assert!(err("grid:3x3@").contains("@SEED"));
        for s in [
            "mesh:",
            "mesh:0",
            "mesh:2",
            "mesh:x",
            "mesh:-5",
            "mesh:10:5",
            "mesh:1.5",
        ] {
            let e = err(s);
            assert!(e.contains("mesh:N expects a point count 3..="), "{s}: {e}");
        }
        assert!(err("mesh:4294967297").contains("32-bit"));
        assert!(err("mesh:100@seed").contains("@SEED"));
    }

    #[test]
    fn generate_and_build_defaults() {
        let el = ok("kron:8:4@1").generate().unwrap();
        assert_eq!((el.num_vertices, el.len()), (256, 1024));
        assert!(el.weights.is_none());
        let el = ok("uniform:100:300").generate().unwrap();
        assert_eq!((el.num_vertices, el.len()), (100, 300));
        let spec = ok("grid:10x10");
        let el = spec.generate().unwrap();
        assert_eq!(el.num_vertices, 100);
        assert!(el.weights.is_some());
        assert_eq!(spec.default_weight_kind(), Some(WeightKind::U32));
        assert_eq!(ok("kron:3").default_weight_kind(), None);
        let spec = ok("mesh:500@2");
        let el = spec.generate().unwrap();
        assert_eq!(el.num_vertices, 500);
        assert!(el.weights.is_some());
        assert!((2 * (2 * 500 - 3)..=2 * (3 * 500 - 6)).contains(&el.len()));
        assert_eq!(spec.default_weight_kind(), Some(WeightKind::U32));
        let b = spec.default_build_options();
        assert!(b.symmetrize && b.remove_self_loops && b.dedup);
    }

    #[test]
    fn weight_ranges() {
        assert_eq!(
            parse_weight_range("0..=18446744073709551615").unwrap(),
            (0, u64::MAX)
        );
        assert!(parse_weight_range("1-100").is_err());
        assert!(parse_weight_range("a..3").is_err());
        assert!(parse_weight_range("1..").is_err());
    }
}
