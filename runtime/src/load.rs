//! One entry point for "give me a graph": a file in any format, or a generator spec.
//!
//! Everywhere the CLI takes a GRAPH argument it goes through [`load_graph`], so
//! `kron:20`, `grid:1000x1000`, `mesh:1000000`, `uniform:N:M`, `road.gr.gz` and
//! `g.vgr` all work the same way.

use std::path::Path;
use std::time::{Duration, Instant};

use crate::error::Result;
use crate::formats::{self, vgr, Format, ReadOptions};
use crate::generate::{self, GenSpec};
use crate::graph::{build_relabeled, BuildOptions, EdgeList, Graph, Weight, WeightKind};

/// How to load.
#[derive(Clone, Debug, Default)]
pub struct LoadOptions {
    /// Make the graph undirected (adds reverse edges).
    pub symmetrize: bool,
    /// Build options to use instead of the source's defaults.
    pub build: Option<BuildOptions>,
    /// Ignore weights stored in the file (traversals such as BFS do not need them).
    pub ignore_weights: bool,
    /// Replace or add weights, uniform in `lo..=hi` (same weight both ways on an
    /// undirected graph), seeded.
    pub random_weights: Option<(u64, u64, u64)>,
}

/// A loaded graph and how it was obtained.
pub struct Loaded<W: Weight> {
    pub graph: Graph<W>,
    /// `new_to_old` ids if the build relabelled vertices.
    pub new_to_old: Option<Vec<u32>>,
    /// Time spent reading/generating (excludes building).
    pub read_time: Duration,
    /// Time spent building the CSR.
    pub build_time: Duration,
    /// Human-readable origin: the path or the generator spec.
    pub source: String,
}

/// What kind of weights a graph source holds, to choose `W` before loading.
pub fn weight_kind_of(spec: &str) -> Result<Option<WeightKind>> {
    if let Some(g) = GenSpec::parse(spec) {
        return Ok(g?.default_weight_kind());
    }
    let path = Path::new(spec);
    let (format, _) = Format::from_path(path)?;
    if format == Format::Vgr {
        return Ok(vgr::read_header(path)?.weight_kind);
    }
    Ok(formats::probe(path)?.weight_kind)
}

/// Loads a graph from a file or a generator spec.
pub fn load_graph<W: Weight>(spec: &str, opts: &LoadOptions) -> Result<Loaded<W>> {
    let t0 = Instant::now();
    let mut declared_symmetric = false;
    let (el, default_build): (EdgeList<W>, BuildOptions) = if let Some(g) = GenSpec::parse(spec) {
        let g = g?;
        let el = g.generate()?;
        let el: EdgeList<W> = if opts.ignore_weights {
            EdgeList {
                num_vertices: el.num_vertices,
                edges: el.edges,
                weights: None,
            }
        } else {
            el.map_weights(|w| W::from_u64(w as u64))
        };
        (el, g.default_build_options())
    } else {
        let path = Path::new(spec);
        let (format, _) = Format::from_path(path)?;
        if format == Format::Vgr
            && opts.build.is_none()
            && !opts.symmetrize
            && opts.random_weights.is_none()
        {
            let graph = if opts.ignore_weights {
                // An unweighted view: load the structure under any weight type.
                let h = vgr::read_header(path)?;
                match h.weight_kind {
                    None => vgr::load::<W>(path, Default::default())?,
                    Some(_) => strip_weights(path)?,
                }
            } else {
                load_vgr::<W>(path)?
            };
            return Ok(Loaded {
                graph,
                new_to_old: None,
                read_time: t0.elapsed(),
                build_time: Duration::ZERO,
                source: spec.to_string(),
            });
        }
        let parsed = if format == Format::Vgr {
            let g = load_vgr::<W>(path)?;
            formats::Parsed {
                symmetric: g.is_symmetric(),
                file_weight_kind: g.csr().is_weighted().then_some(W::KIND),
                edges: edge_list_of(&g),
            }
        } else {
            formats::read_edges::<W>(
                path,
                ReadOptions {
                    ignore_weights: opts.ignore_weights,
                },
            )?
        };
        // A file that declares itself undirected already lists both
        // directions of every edge (`formats::Parsed::edges`): it is built as
        // listed and marked symmetric below, never symmetrized again (that
        // doubled every edge of a symmetric Matrix Market or METIS file).
        declared_symmetric = parsed.symmetric;
        (parsed.edges, BuildOptions::default())
    };
    let mut el = el;
    if let Some((lo, hi, seed)) = opts.random_weights {
        // `Weight::from_u64` would wrap a bound the weight type cannot hold.
        for bound in [lo, hi] {
            if W::parse_token(&bound.to_string()).is_none() {
                return Err(crate::Error::InvalidArgument(format!(
                    "random weights {lo}..{hi}: {bound} is not a {} value, the weight type \
                     this program takes",
                    W::KIND
                )));
            }
        }
        el.weights = Some(generate::weights_for_edges::<W>(
            &el.edges, lo, hi, seed, true,
        ));
    }
    let mut b = opts.build.unwrap_or(default_build);
    if opts.symmetrize {
        // The undirected graph of the input: an edge listed both ways, or
        // twice, is one undirected edge (as gapbs's builder squishes), not two.
        b.symmetrize = true;
        b.dedup = true;
    }
    if declared_symmetric {
        b.symmetrize = false;
    }
    let read_time = t0.elapsed();
    let t1 = Instant::now();
    let pb = crate::progress::spinner("building CSR");
    let built = build_relabeled(&el, b)?;
    pb.finish_and_clear();
    let graph = if declared_symmetric && !built.graph.is_symmetric() {
        built.graph.declared_symmetric()
    } else {
        built.graph
    };
    Ok(Loaded {
        graph,
        new_to_old: built.new_to_old,
        read_time,
        build_time: t1.elapsed(),
        source: spec.to_string(),
    })
}

/// Maps a `.vgr` snapshot as a `Graph<W>`. A snapshot whose weights are stored
/// as another type (`vertex convert` keeps a text file's weights as `i64`) is
/// converted when every weight has an exact `W` value, by the rule text files
/// are read with (integers refuse fractions and out-of-range values); otherwise
/// the error names the first edge that does not fit. Without this, `vertex
/// convert road.wel road.vgr` followed by `vertex sssp road.vgr` was refused.
pub fn load_vgr<W: Weight>(path: &Path) -> Result<Graph<W>> {
    macro_rules! convert {
        ($t:ty) => {{
            convert_weights::<$t, W>(vgr::load::<$t>(path, Default::default())?, path)?
        }};
    }
    let stored = vgr::read_header(path)?.weight_kind;
    Ok(match stored {
        None => vgr::load::<W>(path, Default::default())?,
        Some(k) if k == W::KIND => vgr::load::<W>(path, Default::default())?,
        Some(WeightKind::U32) => convert!(u32),
        Some(WeightKind::I32) => convert!(i32),
        Some(WeightKind::U64) => convert!(u64),
        Some(WeightKind::I64) => convert!(i64),
        Some(WeightKind::F32) => convert!(f32),
        Some(WeightKind::F64) => convert!(f64),
    })
}

/// `g` with its weights converted to `W` exactly (see [`load_vgr`]).
fn convert_weights<S: Weight, W: Weight>(g: Graph<S>, path: &Path) -> Result<Graph<W>> {
    use rayon::prelude::*;
    use std::fmt::Write;
    let c = g.csr();
    let Some(ws) = c.weights() else {
        // `load_vgr` converts only snapshots whose header declares weights,
        // and `vgr::load` maps them.
        return Err(crate::Error::format(
            path,
            "declares weights but holds none",
        ));
    };
    let exact = |text: &mut String, w: &S| {
        text.clear();
        // Writing to a `String` cannot fail.
        let _ = write!(text, "{w}");
        W::parse_token(text)
    };
    let Some(converted) = ws
        .par_iter()
        .map_init(String::new, exact)
        .collect::<Option<Vec<W>>>()
    else {
        let mut text = String::new();
        let e = ws
            .iter()
            .position(|w| exact(&mut text, w).is_none())
            .unwrap_or(0);
        let u = c.offsets().partition_point(|&o| o <= e as u64) - 1;
        return Err(crate::Error::format(
            path,
            format!(
                "edge {e} ({u} -> {}) has weight {}, which does not fit the {} weights \
                 this program takes (the file stores {} weights)",
                c.targets()[e],
                ws[e],
                W::KIND,
                S::KIND
            ),
        ));
    };
    // The structure stays in the mapping (shared, not copied or checked again).
    Ok(Graph::new(c.with_weights(converted)?, g.is_symmetric()))
}

fn strip_weights<W: Weight>(path: &Path) -> Result<Graph<W>> {
    macro_rules! strip {
        ($t:ty) => {{
            let g = vgr::load::<$t>(path, Default::default())?;
            let sym = g.is_symmetric();
            let c = g.into_csr();
            let csr = crate::graph::Csr::<W>::from_parts(
                c.offsets().to_vec().into(),
                c.targets().to_vec().into(),
                None,
            )?;
            Graph::new(csr, sym)
        }};
    }
    let h = vgr::read_header(path)?;
    Ok(match h.weight_kind {
        Some(WeightKind::U32) | None => strip!(u32),
        Some(WeightKind::I32) => strip!(i32),
        Some(WeightKind::U64) => strip!(u64),
        Some(WeightKind::I64) => strip!(i64),
        Some(WeightKind::F32) => strip!(f32),
        Some(WeightKind::F64) => strip!(f64),
    })
}

/// The edges of a built graph as an edge list (CSR order).
pub fn edge_list_of<W: Weight>(g: &Graph<W>) -> EdgeList<W> {
    let c = g.csr();
    let mut edges = Vec::with_capacity(c.num_edges() as usize);
    for u in 0..c.num_vertices() as u32 {
        edges.extend(c.neighbors(u).iter().map(|&v| [u, v]));
    }
    EdgeList {
        num_vertices: c.num_vertices(),
        edges,
        weights: c.weights().map(|w| w.to_vec()),
    }
}

/// Writes a graph; the format follows the extension (`.vgr` snapshot or a text format).
pub fn save_graph<W: Weight>(g: &Graph<W>, path: &Path) -> Result<()> {
    let (format, gz) = Format::from_path(path)?;
    if format == Format::Vgr {
        if gz {
            return Err(crate::Error::InvalidArgument(format!(
                "{}: .vgr snapshots are memory-mapped and cannot be compressed",
                path.display()
            )));
        }
        return vgr::save(g, path);
    }
    formats::write_graph(g, path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::{build, BuildOptions};

    fn snapshot<W: Weight>(dir: &Path, name: &str, weights: Vec<W>) -> std::path::PathBuf {
        let el = EdgeList {
            num_vertices: 3,
            edges: vec![[0, 1], [1, 2], [2, 0]],
            weights: Some(weights),
        };
        let g = build(&el, BuildOptions::default()).unwrap();
        let path = dir.join(name);
        vgr::save(&g, &path).unwrap();
        path
    }

    /// A snapshot written with one weight type loads as another when every
    /// weight fits, and names the edge that does not otherwise.
    #[test]
    fn vgr_weights_convert_exactly_or_name_the_edge() {
        let dir = tempfile::tempdir().unwrap();
        let wide = snapshot::<i64>(dir.path(), "wide.vgr", vec![5, 7, 9]);
        let g = load_graph::<u32>(wide.to_str().unwrap(), &LoadOptions::default()).unwrap();
        assert_eq!(g.graph.csr().weights().unwrap(), &[5u32, 7, 9][..]);
        let f = load_graph::<f64>(wide.to_str().unwrap(), &LoadOptions::default()).unwrap();
        assert_eq!(f.graph.csr().weights().unwrap(), &[5.0, 7.0, 9.0][..]);

        let negative = snapshot::<i64>(dir.path(), "neg.vgr", vec![5, -7, 9]);
        let e = load_graph::<u32>(negative.to_str().unwrap(), &LoadOptions::default())
            .err()
            .unwrap()
            .to_string();
        assert!(
            e.contains("neg.vgr") && e.contains("edge 1 (1 -> 2)"),
            "{e}"
        );
        assert!(
            e.contains("-7") && e.contains("u32") && e.contains("i64"),
            "{e}"
        );

        let fraction = snapshot::<f64>(dir.path(), "frac.vgr", vec![1.0, 2.5, 3.0]);
        let e = load_graph::<u32>(fraction.to_str().unwrap(), &LoadOptions::default())
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("edge 1") && e.contains("2.5"), "{e}");
    }

    /// Files that declare themselves undirected list both directions once
    /// loaded: they are built as listed (a path of 3 edges is 6 directed ones,
    /// a self-loop one), never symmetrized a second time; `--symmetrize` of a
    /// list that has some edges both ways makes each one undirected edge.
    #[test]
    fn undirected_files_are_not_doubled() {
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, text: &str| {
            let p = dir.path().join(name);
            std::fs::write(&p, text).unwrap();
            p.to_str().unwrap().to_string()
        };
        let metis = write("path.graph", "4 3\n2\n1 3\n2 4\n3\n");
        let mtx = write(
            "path.mtx",
            "%%MatrixMarket matrix coordinate pattern symmetric\n4 4 4\n2 1\n3 2\n4 3\n3 3\n",
        );
        for (spec, edges) in [(metis, 6), (mtx, 7)] {
            let g = load_graph::<u32>(&spec, &LoadOptions::default())
                .unwrap()
                .graph;
            assert_eq!(g.num_edges(), edges, "{spec}");
            assert!(g.is_symmetric(), "{spec}");
            assert_eq!(g.csr().neighbors(1), &[0, 2], "{spec}");
            // Asking for an undirected graph changes nothing.
            let opts = LoadOptions {
                symmetrize: true,
                ..LoadOptions::default()
            };
            let again = load_graph::<u32>(&spec, &opts).unwrap().graph;
            assert_eq!(again.num_edges(), edges, "{spec} --symmetrize");
        }
        let both = write("both.el", "0 1\n1 0\n1 2\n");
        let opts = LoadOptions {
            symmetrize: true,
            ..LoadOptions::default()
        };
        let g = load_graph::<u32>(&both, &opts).unwrap().graph;
        assert_eq!(g.num_edges(), 4);
        assert_eq!(g.csr().neighbors(1), &[0, 2]);
    }
}
