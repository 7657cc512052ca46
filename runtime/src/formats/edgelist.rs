//! Edge lists: `.el` (`u v` per line) and `.wel` (`u v w`), also SNAP `.txt` files.
//!
//! Ids are 0-based and taken as written; the vertex count is the largest id + 1,
//! unless a leading SNAP-style comment `# Nodes: N ...` says more (so trailing
//! isolated vertices survive a write/read round trip — our writer emits that line).
//! Lines starting with `#` or `%` are comments; tokens are separated by any blanks.

use std::io::Write;
use std::path::Path;

use indicatif::ProgressBar;

use super::text::{
    chunk_target, concat, line_start_at, par_chunks, push_u64, push_weight, split_lines, Bad, Part,
    Scanner,
};
use super::write::write_rows;
use super::{kind_from_tokens, Parsed, ProbeInfo, ReadOptions};
use crate::error::Result;
use crate::graph::{EdgeList, Graph, Weight, MAX_VERTICES};

/// The vertex count stated by a leading `# Nodes: N` comment, if any.
fn header_nodes(b: &[u8]) -> Result<Option<u64>, Bad> {
    let mut s = Scanner::new(b, 0..b.len());
    let mut nodes = None;
    while !s.done() {
        if s.blank_line() {
            continue;
        }
        if !matches!(s.peek(), Some(b'#' | b'%')) {
            break;
        }
        let line_start = s.pos;
        s.skip_line();
        let line = &b[line_start..s.pos];
        let mut t = Scanner::new(line, 0..line.len());
        loop {
            let (_, tok) = t.token();
            if tok.is_empty() {
                break;
            }
            if tok == b"Nodes:" {
                let (at, n) = t.uint("vertex count after `Nodes:`").map_err(|e| Bad {
                    offset: line_start + e.offset,
                    msg: e.msg,
                })?;
                if n > MAX_VERTICES as u64 {
                    return Err(Bad::new(
                        line_start + at,
                        format!("{n} vertices do not fit 32-bit vertex ids"),
                    ));
                }
                nodes = Some(n);
            }
        }
    }
    Ok(nodes)
}

fn chunk<W: Weight>(
    b: &[u8],
    r: std::ops::Range<usize>,
    has_weight: bool,
    opts: ReadOptions,
) -> Result<Part<W>, Bad> {
    let weighted = has_weight && !opts.ignore_weights;
    let hint = if has_weight {
        " (.wel lines are `u v w`)"
    } else {
        " (.el lines are `u v`; weighted edge lists use the .wel extension)"
    };
    let mut p = Part::new();
    // Lines are at least 4 bytes (`0 1\n`); most are longer: one growth at most.
    p.edges.reserve(r.len() / 8);
    if weighted {
        p.weights.reserve(r.len() / 8);
    }
    // Largest id + 1 (0: no edge yet).
    let mut bound = 0u64;
    let mut s = Scanner::new(b, r);
    while !s.done() {
        if s.blank_line() {
            continue;
        }
        if matches!(s.peek(), Some(b'#' | b'%')) {
            s.skip_line();
            continue;
        }
        let (at, u) = s.uint("source vertex")?;
        if u > u32::MAX as u64 {
            return Err(Bad::new(at, format!("vertex id {u} does not fit 32 bits")));
        }
        let (at, v) = s.uint("target vertex")?;
        if v > u32::MAX as u64 {
            return Err(Bad::new(at, format!("vertex id {v} does not fit 32 bits")));
        }
        if weighted {
            let (w, f) = s.weight::<W>()?;
            p.float_like |= f;
            p.weights.push(w);
        } else if has_weight {
            s.skip_token("weight")?;
        }
        s.end_line(hint)?;
        bound = bound.max(u.max(v) + 1);
        p.edges.push([u as u32, v as u32]);
        p.records += 1;
    }
    p.max_id = bound.checked_sub(1).map(|m| m as u32);
    Ok(p)
}

/// The `# Nodes:` header's count and the parsed chunks of the lines in
/// `lines` (which begins at a line start and ends at one or at the end):
/// the body of [`parse`] (the whole file) and [`parse_part`] (one rank's).
fn parse_lines<W: Weight>(
    b: &[u8],
    lines: std::ops::Range<usize>,
    path: &Path,
    opts: ReadOptions,
    has_weight: bool,
    bar: &ProgressBar,
) -> Result<(Option<u64>, Vec<Part<W>>)> {
    let nodes = header_nodes(b).map_err(|e| e.into_error(b, path))?;
    let upto = &b[..lines.end];
    let chunks = split_lines(upto, lines.start, chunk_target(lines.len()));
    let parts = par_chunks(&chunks, bar, |_, r| chunk::<W>(upto, r, has_weight, opts))
        .map_err(|e| e.into_error(b, path))?;
    Ok((nodes, parts))
}

pub(super) fn parse<W: Weight>(
    b: &[u8],
    path: &Path,
    opts: ReadOptions,
    has_weight: bool,
    bar: &ProgressBar,
) -> Result<Parsed<W>> {
    let (nodes, parts) = parse_lines::<W>(b, 0..b.len(), path, opts, has_weight, bar)?;
    let max_id = parts.iter().filter_map(|p| p.max_id).max();
    let float_like = parts.iter().any(|p| p.float_like);
    let n = max_id.map_or(0, |m| m as u64 + 1).max(nodes.unwrap_or(0));
    let weighted = has_weight && !opts.ignore_weights;
    let (edges, weights) = concat(parts, weighted);
    Ok(Parsed {
        edges: EdgeList {
            num_vertices: n as usize,
            edges,
            weights,
        },
        symmetric: false,
        file_weight_kind: weighted.then(|| kind_from_tokens(float_like)),
    })
}

/// Part `part` of `parts` of an edge list held in `b`: the lines whose first
/// byte lies in `len·part/parts .. len·(part+1)/parts`, parsed as [`parse`]
/// parses them (weights skipped), with the same `file:line` errors, and the
/// `# Nodes:` count of the header (every part reads the header: it is the
/// file's first lines).
pub(super) fn parse_part(
    b: &[u8],
    path: &Path,
    has_weight: bool,
    part: usize,
    parts: usize,
) -> Result<super::EdgeListPart> {
    let parts = parts.max(1);
    let cut = |k: usize| line_start_at(b, ((b.len() as u128 * k as u128) / parts as u128) as usize);
    let opts = ReadOptions {
        ignore_weights: true,
    };
    let (nodes, got) = parse_lines::<u32>(
        b,
        cut(part)..cut(part + 1),
        path,
        opts,
        has_weight,
        &ProgressBar::hidden(),
    )?;
    let max_id = got.iter().filter_map(|p| p.max_id).max();
    let (edges, _) = concat(got, false);
    Ok(super::EdgeListPart {
        edges,
        max_id,
        header_nodes: nodes,
    })
}

pub(super) fn probe(b: &[u8], has_weight: bool) -> Result<ProbeInfo, Bad> {
    let nodes = header_nodes(b)?;
    let p = chunk::<f64>(b, 0..b.len(), has_weight, ReadOptions::default())?;
    Ok(ProbeInfo {
        weighted: has_weight,
        weight_kind: has_weight.then(|| kind_from_tokens(p.float_like)),
        symmetric: false,
        num_vertices: nodes,
        num_entries: None,
    })
}

pub(super) fn write<W: Weight>(
    g: &Graph<W>,
    out: &mut dyn Write,
    path: &Path,
    has_weight: bool,
    bar: &ProgressBar,
) -> Result<()> {
    // Plain lines only, no `#` header: gapbs and most edge-list readers do not skip
    // comments (gapbs then reads an empty graph and loops forever picking a
    // source). The price: trailing isolated vertices are not representable, the
    // reader counts max id + 1 vertices; .vgr, .mtx and .gr keep the count.
    let csr = g.csr();
    let weights = csr.weights();
    write_rows(csr, out, path, bar, |u, buf| {
        for e in csr.edge_range(u) {
            push_u64(buf, u as u64);
            buf.push(b' ');
            push_u64(buf, csr.targets()[e] as u64);
            if has_weight {
                buf.push(b' ');
                match weights {
                    Some(w) => push_weight(buf, w[e]),
                    None => push_weight(buf, W::ONE),
                }
            }
            buf.push(b'\n');
        }
    })
}

#[cfg(test)]
mod tests {
    use super::super::{parse_edges, Format, ReadOptions};
    use std::path::Path;

    fn read(text: &str, weighted: bool) -> crate::Result<super::Parsed<i32>> {
        let (f, name) = if weighted {
            (Format::WeightedEdgeList, "t.wel")
        } else {
            (Format::EdgeList, "t.el")
        };
        parse_edges::<i32>(f, text.as_bytes(), Path::new(name), ReadOptions::default())
    }

    fn fails(text: &str, weighted: bool, line: u64, what: &str) {
        let e = read(text, weighted).expect_err(text).to_string();
        let name = if weighted { "t.wel" } else { "t.el" };
        assert!(e.starts_with(&format!("{name}:{line}:")), "{e}");
        assert!(e.contains(what), "{e}");
    }

    #[test]
    fn reads_snap_style_files() {
        let p = read(
            "# Directed graph\n# Nodes: 10 Edges: 3\n# FromNodeId\tToNodeId\n0\t1\n\n% x\n  4 2  \r\n1 1\n",
            false,
        )
        .unwrap();
        assert_eq!(p.edges.num_vertices, 10);
        assert_eq!(p.edges.edges, vec![[0, 1], [4, 2], [1, 1]]);
        assert_eq!(p.edges.weights, None);
        assert_eq!(p.file_weight_kind, None);
        let p = read("3 0 -2\n0 1 0\n", true).unwrap();
        assert_eq!(p.edges.num_vertices, 4);
        assert_eq!(p.edges.weights, Some(vec![-2, 0]));
        let p = read("", false).unwrap();
        assert_eq!((p.edges.num_vertices, p.edges.edges.len()), (0, 0));
    }

    #[test]
    fn malformed_inputs_name_line_and_problem() {
        fails("0 1\n1 x\n", false, 2, "target vertex `x`");
        fails("0 1\n-1 2\n", false, 2, "source vertex `-1`");
        fails("0 1\n1\n", false, 2, "missing target vertex");
        fails("0 1\n1 2 3\n", false, 2, "extra token `3`");
        fails("0 1 5\n1 2\n", true, 2, "missing weight");
        fails("0 1 5\n1 2 2.5\n", true, 2, "`2.5` is not a valid i32");
        fails("0 1 5\n1 2 3 4\n", true, 2, "extra token `4`");
        fails("0 4294967296\n", false, 1, "does not fit 32 bits");
        fails("# Nodes: many\n0 1\n", false, 1, "`many`");
        fails("0 1 5\n1 2 9999999999\n", true, 2, "not a valid i32");
        fails("0 1\n1 2\n3", false, 3, "missing target vertex");
    }
}
