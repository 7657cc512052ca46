//! Graph files: reading and writing the text formats (Matrix Market, DIMACS `.gr`,
//! edge lists, METIS), gzip transparently, and (in [`vgr`]) the binary snapshot.
//!
//! Every reader produces an [`EdgeList`] in the conventions of the whole project:
//! 0-based ids (formats that count from 1 are shifted), every explicit entry is an
//! edge (a stored 0 weight included), pattern entries are unweighted (weight 1), and
//! files that declare themselves undirected (`symmetric` Matrix Market, METIS) are
//! expanded so that the list holds both directions of every edge.
//!
//! Readers are built for files of 10^8 edges: the whole (decompressed) file is held
//! in memory (mapped when plain), split at line boundaries and parsed on all threads;
//! line numbers are only computed when an error is reported. Every malformed file is
//! an [`Error::Parse`] naming `file:line` and the problem, or an [`Error::Format`] for
//! whole-file problems — never a panic and never a silently different graph.

mod compress;
mod dimacs;
mod edgelist;
mod metis;
mod mtx;
#[cfg(test)]
mod test_parse;
mod text;
mod write;

pub mod vgr;

#[cfg(test)]
mod tests;

use std::io::Write;
use std::path::Path;

use indicatif::ProgressBar;

use crate::error::{Error, Result};
use crate::graph::{EdgeList, Graph, Weight, WeightKind};

/// A graph file format, chosen by file extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// `.mtx`: Matrix Market coordinate (pattern/integer/real, general/symmetric).
    MatrixMarket,
    /// `.gr`: DIMACS shortest-path (`p sp N M`, `a u v w`).
    Dimacs,
    /// `.el` (and SNAP `.txt`): `u v` per line, 0-based.
    EdgeList,
    /// `.wel`: `u v w` per line, 0-based.
    WeightedEdgeList,
    /// `.graph`: METIS adjacency lists.
    Metis,
    /// `.vgr`: vertex's binary snapshot (see [`vgr`]).
    Vgr,
}

/// Every format, for tests and help texts.
pub const ALL_FORMATS: [Format; 6] = [
    Format::MatrixMarket,
    Format::Dimacs,
    Format::EdgeList,
    Format::WeightedEdgeList,
    Format::Metis,
    Format::Vgr,
];

impl Format {
    /// The format named by `path`'s extension, and whether the name ends in `.gz`.
    ///
    /// `.txt` is read as a (SNAP) edge list and `.metis` as METIS.
    pub fn from_path(path: &Path) -> Result<(Format, bool)> {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().to_ascii_lowercase())
            .unwrap_or_default();
        let (stem, gz) = match name.strip_suffix(".gz") {
            Some(s) => (s, true),
            None => (name.as_str(), false),
        };
        let ext = stem.rsplit_once('.').map_or("", |(_, e)| e);
        let format = match ext {
            "mtx" => Format::MatrixMarket,
            "gr" => Format::Dimacs,
            "el" | "txt" => Format::EdgeList,
            "wel" => Format::WeightedEdgeList,
            "graph" | "metis" => Format::Metis,
            "vgr" => Format::Vgr,
            _ => {
                let shown = if ext.is_empty() {
                    "no extension".to_string()
                } else {
                    format!("unknown extension `.{ext}`")
                };
                // `kronn:20` is a mistyped generator far more often than a file.
                let generator = if path.to_str().is_some_and(|s| s.contains(':')) && !path.exists()
                {
                    "; or, for a generated graph, kron:S[:E], uniform:N:M, urand:S[:D], grid:WxH or mesh:N"
                } else {
                    ""
                };
                return Err(Error::format(
                    path,
                    format!(
                        "cannot tell the graph format ({shown}): use .mtx, .gr, .el, .txt \
                         (SNAP edge list), .wel, .graph (METIS) or .vgr, optionally \
                         followed by .gz{generator}"
                    ),
                ));
            }
        };
        Ok((format, gz))
    }

    /// The canonical extension (without the dot).
    pub fn extension(self) -> &'static str {
        match self {
            Format::MatrixMarket => "mtx",
            Format::Dimacs => "gr",
            Format::EdgeList => "el",
            Format::WeightedEdgeList => "wel",
            Format::Metis => "graph",
            Format::Vgr => "vgr",
        }
    }

    /// A human name for messages.
    pub fn name(self) -> &'static str {
        match self {
            Format::MatrixMarket => "Matrix Market",
            Format::Dimacs => "DIMACS shortest-path",
            Format::EdgeList => "edge list",
            Format::WeightedEdgeList => "weighted edge list",
            Format::Metis => "METIS",
            Format::Vgr => "vgr snapshot",
        }
    }
}

impl std::fmt::Display for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// How to read a text file.
#[derive(Clone, Copy, Debug, Default)]
pub struct ReadOptions {
    /// Skip weight tokens (they must still be present) and return an unweighted list.
    pub ignore_weights: bool,
}

/// What a reader produced.
#[derive(Clone, Debug)]
pub struct Parsed<W: Weight> {
    /// The edges. For a file that declares itself undirected this already holds both
    /// directions of every edge (self-loops once): build it *without* symmetrizing
    /// again, and mark the graph symmetric (e.g. `Graph::new(g.into_csr(), true)`);
    /// symmetrizing would double every edge unless duplicates are removed.
    pub edges: EdgeList<W>,
    /// The file declares itself undirected: `symmetric` Matrix Market, or METIS whose
    /// adjacency lists hold every edge both ways (checked).
    pub symmetric: bool,
    /// What the file stores: Matrix Market `integer` → I64, `real` → F64, `pattern`
    /// → None; `.wel`/`.gr`/weighted METIS → F64 if any weight is written as a
    /// non-integer, else I64; None for unweighted files and for weights skipped under
    /// `ignore_weights` (except Matrix Market, whose header says it).
    pub file_weight_kind: Option<WeightKind>,
}

/// A cheap look at a file: its header and first lines (at most 1 MiB).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Probe {
    pub format: Format,
    /// The content is gzip-compressed.
    pub gzip: bool,
    /// The file carries weights.
    pub weighted: bool,
    /// The weight type to read it with: from the header (Matrix Market: integer → I64,
    /// real → F64) or, for `.wel`/`.gr`/METIS, F64 if a weight in the first 1 MiB is
    /// written as a non-integer, else I64. None when unweighted. A guess from the first
    /// lines can be wrong for later lines; reading then fails naming the line.
    pub weight_kind: Option<WeightKind>,
    /// The file declares itself undirected (Matrix Market `symmetric`, METIS).
    pub symmetric: bool,
    /// Vertex count from the header (or the SNAP `# Nodes:` comment), if any.
    pub num_vertices: Option<u64>,
    /// Entry/edge count from the header, if any (as the file counts them).
    pub num_entries: Option<u64>,
}

/// What a format module reports from a header and sample.
pub(crate) struct ProbeInfo {
    pub weighted: bool,
    pub weight_kind: Option<WeightKind>,
    pub symmetric: bool,
    pub num_vertices: Option<u64>,
    pub num_entries: Option<u64>,
}

/// The weight kind a file holds, by whether some weight looked non-integer.
pub(crate) fn kind_from_tokens(float_like: bool) -> WeightKind {
    if float_like {
        WeightKind::F64
    } else {
        WeightKind::I64
    }
}

const PROBE_BYTES: usize = 1 << 20;

fn vgr_not_text(path: &Path) -> Error {
    Error::format(
        path,
        "a .vgr file is a binary snapshot: load it with formats::vgr, not the text readers",
    )
}

/// Looks at the header and the first lines of a text graph file: its format, whether
/// it is compressed, whether it is weighted and with what type. `.vgr` files are
/// refused (their header is read by [`vgr::read_header`]).
pub fn probe(path: &Path) -> Result<Probe> {
    let (format, gz_name) = Format::from_path(path)?;
    if format == Format::Vgr {
        return Err(vgr_not_text(path));
    }
    let (mut sample, complete, gzip) = compress::read_prefix(path, gz_name, PROBE_BYTES)?;
    if !complete {
        // Look at whole lines only.
        let keep = sample
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |p| p + 1);
        sample.truncate(keep);
    }
    let info = match format {
        Format::MatrixMarket => mtx::probe(&sample, complete),
        Format::Dimacs => dimacs::probe(&sample, complete),
        Format::EdgeList => edgelist::probe(&sample, false),
        Format::WeightedEdgeList => edgelist::probe(&sample, true),
        Format::Metis => metis::probe(&sample, complete),
        Format::Vgr => return Err(vgr_not_text(path)),
    }
    .map_err(|b| b.into_error(&sample, path))?;
    Ok(Probe {
        format,
        gzip,
        weighted: info.weighted,
        weight_kind: info.weight_kind,
        symmetric: info.symmetric,
        num_vertices: info.num_vertices,
        num_entries: info.num_entries,
    })
}

/// Reads any text graph file (gzip transparently; the format follows the name).
/// `.vgr` snapshots are refused: load them with [`vgr::load`].
pub fn read_edges<W: Weight>(path: &Path, opts: ReadOptions) -> Result<Parsed<W>> {
    let (format, gz_name) = Format::from_path(path)?;
    if format == Format::Vgr {
        return Err(vgr_not_text(path));
    }
    let input = compress::load(path, gz_name)?;
    parse_plain(format, &input, path, opts)
}

/// What [`read_edge_list_part`] read.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EdgeListPart {
    /// The part's edges, as listed.
    pub edges: Vec<[u32; 2]>,
    /// The largest vertex id in them (`None`: no edge).
    pub max_id: Option<u32>,
    /// The vertex count of the file's `# Nodes:` header, if any.
    pub header_nodes: Option<u64>,
}

/// One part of a plain (not gzip) `.el`/`.wel` file for a run over several
/// ranks: the lines whose first byte lies in the part's byte range
/// (`len·part/parts ..`), so that the parts tile the file and each rank
/// reads only its bytes (weights skipped). Errors name the file and line as
/// [`read_edges`]'s do.
pub fn read_edge_list_part(path: &Path, part: usize, parts: usize) -> Result<EdgeListPart> {
    let (format, gz_name) = Format::from_path(path)?;
    let has_weight = match format {
        Format::EdgeList => false,
        Format::WeightedEdgeList => true,
        _ => {
            return Err(Error::format(
                path,
                "a run over several ranks reads edge lists (.el, .wel) by byte ranges; convert this file first (`vertex convert`)",
            ))
        }
    };
    if gz_name {
        return Err(Error::format(
            path,
            "a gzip stream cannot be split by byte ranges: decompress it for a run over several ranks",
        ));
    }
    // Not populated: each rank touches the pages of its own range (and the header).
    let Some((map, _)) = compress::map(path, false)? else {
        return Ok(EdgeListPart::default());
    };
    if compress::is_gzip(&map) {
        return Err(Error::format(
            path,
            "gzip data cannot be split by byte ranges: decompress it for a run over several ranks",
        ));
    }
    edgelist::parse_part(&map, path, has_weight, part, parts)
}

/// Parses an in-memory file of the given format; gzip data (by magic bytes) is
/// decompressed first. `name` is used in error messages only.
pub fn parse_edges<W: Weight>(
    format: Format,
    bytes: &[u8],
    name: &Path,
    opts: ReadOptions,
) -> Result<Parsed<W>> {
    if format == Format::Vgr {
        return Err(vgr_not_text(name));
    }
    if compress::is_gzip(bytes) {
        let plain = compress::gunzip(bytes, name, &ProgressBar::hidden())?;
        return parse_plain(format, &plain, name, opts);
    }
    parse_plain(format, bytes, name, opts)
}

fn parse_plain<W: Weight>(
    format: Format,
    bytes: &[u8],
    name: &Path,
    opts: ReadOptions,
) -> Result<Parsed<W>> {
    let bar = compress::bytes_bar(bytes.len() as u64, "reading");
    let out = match format {
        Format::MatrixMarket => mtx::parse(bytes, name, opts, &bar),
        Format::Dimacs => dimacs::parse(bytes, name, opts, &bar),
        Format::EdgeList => edgelist::parse(bytes, name, opts, false, &bar),
        Format::WeightedEdgeList => edgelist::parse(bytes, name, opts, true, &bar),
        Format::Metis => metis::parse(bytes, name, opts, &bar),
        Format::Vgr => Err(vgr_not_text(name)),
    };
    bar.finish_and_clear();
    out
}

/// Writes `g` in the text format named by `path`'s extension, gzip-compressed if the
/// name ends in `.gz`. The file is replaced atomically (temporary file + rename).
///
/// Unweighted graphs get weight 1 in `.wel`/`.gr`; weights are dropped in `.el`.
/// Matrix Market is written `symmetric` (lower triangle) when `g.is_symmetric()`,
/// else `general`. METIS requires a symmetric graph. `.vgr` is refused here: write
/// snapshots with [`vgr::save`].
pub fn write_graph<W: Weight>(g: &Graph<W>, path: &Path) -> Result<()> {
    let (format, gzip) = Format::from_path(path)?;
    if format == Format::Vgr {
        return Err(Error::InvalidArgument(format!(
            "{}: write .vgr snapshots with formats::vgr::save, not the text writers",
            path.display()
        )));
    }
    if format == Format::Metis && !g.is_symmetric() {
        return Err(metis::needs_symmetric(path));
    }
    write::atomic_write(path, gzip, |out| write_text(g, format, out, path))
}

/// Writes `g` as text of `format` to any stream (no compression, not atomic).
/// `name` is used in error messages only.
pub fn write_text<W: Weight>(
    g: &Graph<W>,
    format: Format,
    out: &mut dyn Write,
    name: &Path,
) -> Result<()> {
    let bar = if g.num_edges() >= (4 << 20) {
        crate::progress::bar(g.num_edges(), "writing")
    } else {
        ProgressBar::hidden()
    };
    let r = match format {
        Format::MatrixMarket => mtx::write(g, out, name, &bar),
        Format::Dimacs => dimacs::write(g, out, name, &bar),
        Format::EdgeList => edgelist::write(g, out, name, false, &bar),
        Format::WeightedEdgeList => edgelist::write(g, out, name, true, &bar),
        Format::Metis => metis::write(g, out, name, &bar),
        Format::Vgr => Err(Error::InvalidArgument(format!(
            "{}: .vgr is not a text format; use formats::vgr::save",
            name.display()
        ))),
    };
    bar.finish_and_clear();
    r
}
