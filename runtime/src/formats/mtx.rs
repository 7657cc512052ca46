//! Matrix Market (`.mtx`) coordinate files, the SuiteSparse collection's format.
//!
//! Supported: `matrix coordinate` with field `pattern`, `integer` or `real` (`double`
//! accepted as real) and symmetry `general` or `symmetric`. A `symmetric` file lists
//! one triangle; we expand every off-diagonal entry to both directions and keep
//! diagonal entries once. Ids count from 1. Dense `array` files, `complex` values and
//! `hermitian`/`skew-symmetric` matrices have no graph meaning we could honour
//! without guessing, so they are refused with a clear message.

use std::io::Write;
use std::path::Path;

use indicatif::ProgressBar;
use rayon::prelude::*;

use super::text::{
    chunk_target, concat, first_byte, last_line, nth_record, one_based, par_chunks, push_u64,
    push_weight, show, split_lines, Bad, Part, Scanner,
};
use super::write::{io_err, write_rows};
use super::{Parsed, ProbeInfo, ReadOptions};
use crate::error::{Error, Result};
use crate::graph::{EdgeList, Graph, Weight, WeightKind, MAX_VERTICES};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Field {
    Pattern,
    Integer,
    Real,
}

impl Field {
    fn kind(self) -> Option<WeightKind> {
        match self {
            Field::Pattern => None,
            Field::Integer => Some(WeightKind::I64),
            Field::Real => Some(WeightKind::F64),
        }
    }
}

struct Header {
    field: Field,
    symmetric: bool,
    n: u64,
    nnz: u64,
    /// Offset of the size line (for messages) and of the first entry line.
    size_at: usize,
    body: usize,
}

const BANNER: &str = "%%MatrixMarket matrix coordinate <pattern|integer|real> <general|symmetric>";

fn header(b: &[u8]) -> Result<Header, Bad> {
    let mut s = Scanner::new(b, 0..b.len());
    let (at, tok) = s.token();
    if !tok.eq_ignore_ascii_case(b"%%MatrixMarket") {
        return Err(Bad::new(
            at,
            format!("missing Matrix Market banner: the first line must be `{BANNER}`"),
        ));
    }
    let mut words = Vec::new();
    for what in ["object", "format", "field", "symmetry"] {
        let (at, tok) = s.token();
        if tok.is_empty() {
            return Err(Bad::new(
                at,
                format!("banner is missing the {what}: expected `{BANNER}`"),
            ));
        }
        words.push((at, tok.to_ascii_lowercase()));
    }
    s.end_line(&format!(" in the banner (expected `{BANNER}`)"))?;
    let (at, object) = &words[0];
    if object != b"matrix" {
        return Err(Bad::new(
            *at,
            format!(
                "unsupported object `{}`: only `matrix` is a graph",
                show(object)
            ),
        ));
    }
    let (at, fmt) = &words[1];
    match fmt.as_slice() {
        b"coordinate" => {}
        b"array" => {
            return Err(Bad::new(
                *at,
                "unsupported format `array` (dense matrix): only `coordinate` files are graphs",
            ))
        }
        other => {
            return Err(Bad::new(
                *at,
                format!("unknown format `{}`: expected `coordinate`", show(other)),
            ))
        }
    }
    let (at, field) = &words[2];
    let field = match field.as_slice() {
        b"pattern" => Field::Pattern,
        b"integer" => Field::Integer,
        b"real" | b"double" => Field::Real,
        b"complex" => {
            return Err(Bad::new(
                *at,
                "unsupported field `complex`: edge weights must be real numbers",
            ))
        }
        other => {
            return Err(Bad::new(
                *at,
                format!(
                    "unknown field `{}`: expected pattern, integer or real",
                    show(other)
                ),
            ))
        }
    };
    let (at, sym) = &words[3];
    let symmetric = match sym.as_slice() {
        b"general" => false,
        b"symmetric" => true,
        b"hermitian" | b"skew-symmetric" => {
            return Err(Bad::new(
                *at,
                format!(
                    "unsupported symmetry `{}`: only general and symmetric matrices are graphs",
                    show(sym)
                ),
            ))
        }
        other => {
            return Err(Bad::new(
                *at,
                format!(
                    "unknown symmetry `{}`: expected general or symmetric",
                    show(other)
                ),
            ))
        }
    };
    // Comments and blank lines, then the size line.
    loop {
        if s.done() {
            return Err(Bad::new(
                b.len(),
                "file ends before the size line `rows columns entries`",
            ));
        }
        if s.blank_line() {
            continue;
        }
        if s.peek() == Some(b'%') {
            s.skip_line();
            continue;
        }
        break;
    }
    let size_at = s.pos;
    let (_, rows) = s.uint("row count")?;
    let (_, cols) = s.uint("column count")?;
    let (_, nnz) = s.uint("entry count")?;
    s.end_line(" after the size line `rows columns entries`")?;
    if rows != cols {
        return Err(Bad::new(
            size_at,
            format!("matrix is {rows}×{cols}: a graph needs a square matrix"),
        ));
    }
    if rows > MAX_VERTICES as u64 {
        return Err(Bad::new(
            size_at,
            format!("{rows} vertices do not fit 32-bit vertex ids"),
        ));
    }
    Ok(Header {
        field,
        symmetric,
        n: rows,
        nnz,
        size_at,
        body: s.pos,
    })
}

fn chunk<W: Weight>(
    b: &[u8],
    r: std::ops::Range<usize>,
    h: &Header,
    opts: ReadOptions,
) -> Result<Part<W>, Bad> {
    let has_value = h.field != Field::Pattern;
    let weighted = has_value && !opts.ignore_weights;
    let hint = if has_value {
        " (entries are `row column value`)"
    } else {
        " (pattern entries are `row column`)"
    };
    let mut p = Part::new();
    let per_entry = if h.symmetric { 2 } else { 1 };
    p.edges.reserve(r.len() / 8 * per_entry);
    if weighted {
        p.weights.reserve(r.len() / 8 * per_entry);
    }
    let mut s = Scanner::new(b, r);
    while !s.done() {
        if s.blank_line() {
            continue;
        }
        if s.peek() == Some(b'%') {
            s.skip_line();
            continue;
        }
        let (at, i) = s.uint("row index")?;
        let u = one_based(at, i, h.n, "row index")?;
        let (at, j) = s.uint("column index")?;
        let v = one_based(at, j, h.n, "column index")?;
        let mut w = W::ONE;
        if weighted {
            let (x, f) = s.weight::<W>()?;
            p.float_like |= f;
            w = x;
        } else if has_value {
            s.skip_token("value")?;
        }
        s.end_line(hint)?;
        p.records += 1;
        p.edges.push([u, v]);
        if weighted {
            p.weights.push(w);
        }
        if h.symmetric && u != v {
            p.edges.push([v, u]);
            if weighted {
                p.weights.push(w);
            }
        }
    }
    Ok(p)
}

fn is_entry(line: &[u8]) -> bool {
    !matches!(first_byte(line), None | Some(b'%'))
}

pub(super) fn parse<W: Weight>(
    b: &[u8],
    path: &Path,
    opts: ReadOptions,
    bar: &ProgressBar,
) -> Result<Parsed<W>> {
    let h = header(b).map_err(|e| e.into_error(b, path))?;
    let chunks = split_lines(b, h.body, chunk_target(b.len() - h.body));
    let parts = par_chunks(&chunks, bar, |_, r| chunk::<W>(b, r, &h, opts))
        .map_err(|e| e.into_error(b, path))?;
    let records: u64 = parts.iter().map(|p| p.records).sum();
    let size_line = super::text::line_of(b, h.size_at);
    if records > h.nnz {
        let at = nth_record(b, h.body, h.nnz, is_entry).unwrap_or(b.len());
        return Err(Bad::new(
            at,
            format!(
                "more entries than the {} declared on line {size_line}",
                h.nnz
            ),
        )
        .into_error(b, path));
    }
    if records < h.nnz {
        return Err(Error::parse(
            path,
            last_line(b),
            format!(
                "file ends after {records} of the {} entries declared on line {size_line} \
                 (truncated?)",
                h.nnz
            ),
        ));
    }
    let weighted = h.field != Field::Pattern && !opts.ignore_weights;
    let (edges, weights) = concat(parts, weighted);
    Ok(Parsed {
        edges: EdgeList {
            num_vertices: h.n as usize,
            edges,
            weights,
        },
        symmetric: h.symmetric,
        file_weight_kind: h.field.kind(),
    })
}

pub(super) fn probe(b: &[u8], _complete: bool) -> Result<ProbeInfo, Bad> {
    let h = header(b)?;
    Ok(ProbeInfo {
        weighted: h.field != Field::Pattern,
        weight_kind: h.field.kind(),
        symmetric: h.symmetric,
        num_vertices: Some(h.n),
        num_entries: Some(h.nnz),
    })
}

pub(super) fn write<W: Weight>(
    g: &Graph<W>,
    out: &mut dyn Write,
    path: &Path,
    bar: &ProgressBar,
) -> Result<()> {
    let csr = g.csr();
    let n = csr.num_vertices();
    let sym = g.is_symmetric();
    let weights = csr.weights();
    let field = match weights {
        None => "pattern",
        Some(_) if W::KIND.is_float() => "real",
        Some(_) => "integer",
    };
    // A symmetric graph is written as its lower triangle (row >= column).
    let nnz: u64 = if sym {
        (0..n)
            .into_par_iter()
            .map(|u| {
                csr.neighbors(u as u32)
                    .iter()
                    .filter(|&&v| v as usize <= u)
                    .count() as u64
            })
            .sum()
    } else {
        csr.num_edges()
    };
    let symmetry = if sym { "symmetric" } else { "general" };
    write!(
        out,
        "%%MatrixMarket matrix coordinate {field} {symmetry}\n% written by vertex\n{n} {n} {nnz}\n"
    )
    .map_err(io_err(path))?;
    write_rows(csr, out, path, bar, |u, buf| {
        let r = csr.edge_range(u);
        for e in r {
            let v = csr.targets()[e];
            if sym && v > u {
                continue;
            }
            push_u64(buf, u as u64 + 1);
            buf.push(b' ');
            push_u64(buf, v as u64 + 1);
            if let Some(w) = weights {
                buf.push(b' ');
                push_weight(buf, w[e]);
            }
            buf.push(b'\n');
        }
    })
}

#[cfg(test)]
mod tests {
    use super::super::{parse_edges, Format, ReadOptions};
    use std::path::Path;

    fn read(text: &str) -> crate::Result<super::Parsed<u32>> {
        super::super::test_parse::read(Format::MatrixMarket, "t.mtx", text)
    }

    fn fails(text: &str, line: u64, what: &str) {
        super::super::test_parse::fails(Format::MatrixMarket, "t.mtx", text, line, what)
    }

    #[test]
    fn reads_symmetric_expanding_off_diagonal() {
        let p = read(
            "%%MatrixMarket matrix coordinate integer symmetric\n% c\n3 3 3\n2 1 5\n3 3 0\n3 1 7\n",
        )
        .unwrap();
        assert!(p.symmetric);
        assert_eq!(p.edges.num_vertices, 3);
        assert_eq!(p.edges.edges, vec![[1, 0], [0, 1], [2, 2], [2, 0], [0, 2]]);
        assert_eq!(p.edges.weights, Some(vec![5, 5, 0, 7, 7]));
        assert_eq!(p.file_weight_kind, Some(crate::graph::WeightKind::I64));
    }

    #[test]
    fn pattern_is_unweighted_and_ignore_weights_skips() {
        let p = read("%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 2\n").unwrap();
        assert_eq!(p.edges.weights, None);
        assert_eq!(p.file_weight_kind, None);
        let p = parse_edges::<u32>(
            Format::MatrixMarket,
            b"%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2 0.5\n",
            Path::new("t.mtx"),
            ReadOptions {
                ignore_weights: true,
            },
        )
        .unwrap();
        assert_eq!(p.edges.weights, None);
        assert_eq!(p.edges.edges, vec![[0, 1]]);
    }

    #[test]
    fn malformed_inputs_name_line_and_problem() {
        fails(
            "%%MatrixMarkt matrix coordinate real general\n",
            1,
            "banner",
        );
        fails("1 1 1\n1 1\n", 1, "banner");
        fails(
            "%%MatrixMarket matrix coordinate real\n",
            1,
            "missing the symmetry",
        );
        fails(
            "%%MatrixMarket matrix array real general\n2 2\n",
            1,
            "array",
        );
        fails(
            "%%MatrixMarket matrix coordinate complex general\n",
            1,
            "complex",
        );
        fails(
            "%%MatrixMarket matrix coordinate real hermitian\n",
            1,
            "hermitian",
        );
        fails(
            "%%MatrixMarket matrix coordinate real skew-symmetric\n",
            1,
            "skew-symmetric",
        );
        fails(
            "%%MatrixMarket matrix coordinate reals general\n",
            1,
            "unknown field",
        );
        fails(
            "%%MatrixMarket matrix coordinate pattern general\n% only\n",
            2,
            "size line",
        );
        fails(
            "%%MatrixMarket matrix coordinate pattern general\n2 3 1\n",
            2,
            "square",
        );
        fails(
            "%%MatrixMarket matrix coordinate pattern general\n2 x 1\n",
            2,
            "column count `x`",
        );
        // id out of range, 0 included
        fails(
            "%%MatrixMarket matrix coordinate pattern general\n2 2 2\n1 2\n0 1\n",
            4,
            "row index 0 out of range 1..=2",
        );
        fails(
            "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 3\n",
            3,
            "column index 3 out of range",
        );
        // non-numeric, missing and extra tokens
        fails(
            "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 b\n",
            3,
            "column index `b`",
        );
        fails(
            "%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 2\n",
            3,
            "missing weight",
        );
        fails(
            "%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 2 1.5\n",
            3,
            "`1.5` is not a valid u32",
        );
        fails(
            "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 2 3\n",
            3,
            "extra token `3`",
        );
        // wrong counts vs the size line
        fails(
            "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 2\n2 1\n",
            4,
            "more entries than the 1 declared on line 2",
        );
        fails(
            "%%MatrixMarket matrix coordinate pattern general\n2 2 3\n1 2\n2 1\n",
            4,
            "2 of the 3 entries",
        );
        // truncated mid-line
        fails(
            "%%MatrixMarket matrix coordinate integer general\n2 2 2\n1 2 4\n2 ",
            4,
            "missing column index",
        );
    }
}
