//! METIS graph files (`.graph`): a header `n m [fmt [ncon]]`, then one line per vertex
//! listing its 1-based neighbours.
//!
//! `fmt` has up to three binary digits: vertex sizes, vertex weights (`ncon` of them),
//! edge weights; vertex sizes and weights are skipped (a graph here has none), edge
//! weights follow each neighbour. `%` lines are comments; a blank line is a vertex
//! without neighbours, so the vertex count is checked against `n`.
//!
//! METIS counts each undirected edge once in `m` and lists it under both endpoints;
//! we check that the lists really are symmetric (same edge, same weight, both ways)
//! and report the graph as undirected. Some files in the wild (gapbs's test graphs)
//! list every edge once with `m` = number of entries: those are read as directed, as
//! gapbs reads them. Any other entry count is an error. gapbs's files also say
//! `fmt = 100` (vertex sizes) with no sizes on the lines; when reading with sizes
//! fails, we read again without them and keep that reading if it is consistent.

use std::io::Write;
use std::ops::Range;
use std::path::Path;

use indicatif::ProgressBar;
use rayon::prelude::*;

use super::text::{
    chunk_target, concat, last_line, line_of, one_based, par_chunks, push_u64, push_weight, show,
    split_lines, Bad, Part, Scanner,
};
use super::write::{io_err, write_rows};
use super::{kind_from_tokens, Parsed, ProbeInfo, ReadOptions};
use crate::error::{Error, Result};
use crate::graph::{EdgeList, Graph, Weight, MAX_VERTICES};

#[derive(Clone, Copy)]
struct Header {
    n: u64,
    m: u64,
    vsize: bool,
    /// Vertex weights per line (0 if none).
    vwgt: u64,
    ewgt: bool,
    at: usize,
    body: usize,
}

fn header(b: &[u8]) -> Result<Header, Bad> {
    let mut s = Scanner::new(b, 0..b.len());
    loop {
        if s.done() {
            return Err(Bad::new(b.len(), "missing header line `n m [fmt [ncon]]`"));
        }
        if s.peek() == Some(b'%') {
            s.skip_line();
            continue;
        }
        if s.blank_line() {
            continue;
        }
        break;
    }
    let at = s.pos;
    let (_, n) = s.uint("vertex count n")?;
    let (_, m) = s.uint("edge count m")?;
    let (fat, fmt) = s.token();
    let mut h = Header {
        n,
        m,
        vsize: false,
        vwgt: 0,
        ewgt: false,
        at,
        body: 0,
    };
    if !fmt.is_empty() {
        if fmt.len() > 3 || !fmt.iter().all(|&c| c == b'0' || c == b'1') {
            return Err(Bad::new(
                fat,
                format!(
                    "unsupported METIS fmt `{}`: expected up to three binary digits \
                     (vertex sizes, vertex weights, edge weights)",
                    show(fmt)
                ),
            ));
        }
        let digit = |k: usize| fmt.len() > k && fmt[fmt.len() - 1 - k] == b'1';
        h.ewgt = digit(0);
        let has_vwgt = digit(1);
        h.vsize = digit(2);
        let mut ncon = 1;
        if !s.at_line_end() {
            ncon = s.uint("ncon (number of vertex weights)")?.1;
        }
        if has_vwgt {
            h.vwgt = ncon;
        }
    }
    s.end_line(" after the header `n m [fmt [ncon]]`")?;
    if n > MAX_VERTICES as u64 {
        return Err(Bad::new(
            at,
            format!("{n} vertices do not fit 32-bit vertex ids"),
        ));
    }
    h.body = s.pos;
    Ok(h)
}

/// Vertex (non-comment) lines in `b[r]`; `r` starts at a line start.
fn count_vertex_lines(b: &[u8], r: Range<usize>) -> u64 {
    let mut count = 0;
    let mut pos = r.start;
    while pos < r.end {
        if b[pos] != b'%' {
            count += 1;
        }
        pos = match b[pos..r.end].iter().position(|&c| c == b'\n') {
            Some(p) => pos + p + 1,
            None => r.end,
        };
    }
    count
}

fn chunk<W: Weight>(
    b: &[u8],
    r: Range<usize>,
    h: &Header,
    first_vertex: u64,
    opts: ReadOptions,
) -> Result<Part<W>, Bad> {
    let weighted = h.ewgt && !opts.ignore_weights;
    let header_line = || line_of(b, h.at);
    let mut p = Part::new();
    let mut k = first_vertex;
    let mut s = Scanner::new(b, r);
    while !s.done() {
        if s.peek() == Some(b'%') {
            s.skip_line();
            continue;
        }
        if k >= h.n {
            // Past the last vertex only blank lines may follow.
            if s.blank_line() {
                k += 1;
                continue;
            }
            let (at, tok) = s.token();
            return Err(Bad::new(
                at,
                format!(
                    "`{}` after the last of the {} vertex lines declared on line {}",
                    show(tok),
                    h.n,
                    header_line()
                ),
            ));
        }
        if h.vsize {
            s.skip_token("vertex size (fmt says vertex sizes come first)")?;
        }
        for _ in 0..h.vwgt {
            s.skip_token("vertex weight (fmt says vertex weights come first)")?;
        }
        while !s.at_line_end() {
            let (at, v) = s.uint("neighbour")?;
            let v = one_based(at, v, h.n, "neighbour")?;
            if h.ewgt {
                if weighted {
                    let (w, f) = s.weight::<W>().map_err(|e| {
                        if e.msg == "missing weight" {
                            Bad::new(e.offset, format!("neighbour {} has no edge weight", v + 1))
                        } else {
                            e
                        }
                    })?;
                    p.float_like |= f;
                    p.weights.push(w);
                } else {
                    s.skip_token("edge weight")?;
                }
            }
            // k < n <= 2^32.
            p.edges.push([k as u32, v]);
            p.records += 1;
        }
        s.end_line("")?;
        k += 1;
    }
    Ok(p)
}

/// An order-independent fingerprint of the edge multiset, and of its reverse.
fn fingerprints<W: Weight>(edges: &[[u32; 2]], weights: Option<&[W]>) -> (u64, u64) {
    fn mix(mut x: u64) -> u64 {
        x ^= x >> 30;
        x = x.wrapping_mul(0xbf58476d1ce4e5b9);
        x ^= x >> 27;
        x = x.wrapping_mul(0x94d049bb133111eb);
        x ^ (x >> 31)
    }
    let h =
        |u: u32, v: u32, wb: u64| mix(((u as u64) << 32 | v as u64) ^ mix(wb ^ 0x9e3779b97f4a7c15));
    let bits = |i: usize| -> u64 {
        weights.map_or(0, |w| {
            let mut a = [0u8; 8];
            let src = bytemuck::bytes_of(&w[i]);
            a[..src.len()].copy_from_slice(src);
            u64::from_le_bytes(a)
        })
    };
    edges
        .par_iter()
        .enumerate()
        .map(|(i, e)| {
            let wb = bits(i);
            (h(e[0], e[1], wb), h(e[1], e[0], wb))
        })
        .reduce(
            || (0, 0),
            |a, b| (a.0.wrapping_add(b.0), a.1.wrapping_add(b.1)),
        )
}

fn parse_with<W: Weight>(
    b: &[u8],
    path: &Path,
    opts: ReadOptions,
    bar: &ProgressBar,
    h: &Header,
) -> Result<Parsed<W>> {
    let chunks = split_lines(b, h.body, chunk_target(b.len() - h.body));
    let counts: Vec<u64> = chunks
        .par_iter()
        .map(|r| count_vertex_lines(b, r.clone()))
        .collect();
    let mut firsts = Vec::with_capacity(counts.len());
    let mut total = 0u64;
    for c in &counts {
        firsts.push(total);
        total += c;
    }
    let parts = par_chunks(&chunks, bar, |i, r| chunk::<W>(b, r, h, firsts[i], opts))
        .map_err(|e| e.into_error(b, path))?;
    let header_line = line_of(b, h.at);
    if total < h.n {
        return Err(Error::parse(
            path,
            last_line(b),
            format!(
                "file ends after {total} of the {} vertex lines declared on line {header_line} \
                 (truncated?)",
                h.n
            ),
        ));
    }
    let entries: u64 = parts.iter().map(|p| p.records).sum();
    let loops: u64 = parts
        .par_iter()
        .map(|p| p.edges.iter().filter(|e| e[0] == e[1]).count() as u64)
        .sum();
    let float_like = parts.iter().any(|p| p.float_like);
    let weighted = h.ewgt && !opts.ignore_weights;
    let (edges, weights) = concat(parts, weighted);
    let two_m = h.m.checked_mul(2);
    let symmetric = if Some(entries + loops) == two_m || Some(entries) == two_m {
        let (fwd, rev) = fingerprints(&edges, weights.as_deref());
        if fwd != rev {
            return Err(Error::format(
                path,
                format!(
                    "the adjacency lists are not symmetric: METIS lists every edge under both \
                     endpoints with the same weight ({entries} entries for the {} edges \
                     declared on line {header_line})",
                    h.m
                ),
            ));
        }
        true
    } else if entries == h.m {
        false
    } else {
        return Err(Error::parse(
            path,
            header_line,
            format!(
                "header declares {} edges but the adjacency lists hold {entries} entries \
                 (METIS counts each undirected edge once and lists it under both endpoints, \
                 so {} entries were expected)",
                h.m,
                two_m.map_or_else(|| "2m".to_string(), |x| x.to_string())
            ),
        ));
    };
    Ok(Parsed {
        edges: EdgeList {
            num_vertices: h.n as usize,
            edges,
            weights,
        },
        symmetric,
        file_weight_kind: weighted.then(|| kind_from_tokens(float_like)),
    })
}

pub(super) fn parse<W: Weight>(
    b: &[u8],
    path: &Path,
    opts: ReadOptions,
    bar: &ProgressBar,
) -> Result<Parsed<W>> {
    let h = header(b).map_err(|e| e.into_error(b, path))?;
    match parse_with(b, path, opts, bar, &h) {
        Ok(p) => Ok(p),
        Err(first) if h.vsize => {
            let plain = Header { vsize: false, ..h };
            parse_with(b, path, opts, &ProgressBar::hidden(), &plain).map_err(|_| first)
        }
        Err(e) => Err(e),
    }
}

pub(super) fn probe(b: &[u8], complete: bool) -> Result<ProbeInfo, Bad> {
    let h = header(b)?;
    let mut float_like = false;
    if h.ewgt {
        let sample = |h: &Header| chunk::<f64>(b, h.body..b.len(), h, 0, ReadOptions::default());
        let p = match sample(&h) {
            Err(first) if h.vsize => sample(&Header { vsize: false, ..h }).map_err(|_| first)?,
            r => r?,
        };
        float_like = p.float_like;
    }
    let _ = complete;
    Ok(ProbeInfo {
        weighted: h.ewgt,
        weight_kind: h.ewgt.then(|| kind_from_tokens(float_like)),
        symmetric: true,
        num_vertices: Some(h.n),
        num_entries: Some(h.m),
    })
}

/// The error for writing a directed graph as METIS.
pub(super) fn needs_symmetric(path: &Path) -> Error {
    Error::InvalidArgument(format!(
        "{}: METIS files hold undirected graphs; make it undirected first \
         (`vertex convert --symmetrize`, or `vertex gen` without --directed)",
        path.display()
    ))
}

pub(super) fn write<W: Weight>(
    g: &Graph<W>,
    out: &mut dyn Write,
    path: &Path,
    bar: &ProgressBar,
) -> Result<()> {
    if !g.is_symmetric() {
        return Err(needs_symmetric(path));
    }
    let csr = g.csr();
    let n = csr.num_vertices();
    let weights = csr.weights();
    let loops: u64 = (0..n)
        .into_par_iter()
        .map(|u| {
            csr.neighbors(u as u32)
                .iter()
                .filter(|&&v| v as usize == u)
                .count() as u64
        })
        .sum();
    let m = (csr.num_edges() - loops) / 2 + loops;
    if weights.is_some() {
        writeln!(out, "{n} {m} 1")
    } else {
        writeln!(out, "{n} {m}")
    }
    .map_err(io_err(path))?;
    write_rows(csr, out, path, bar, |u, buf| {
        let mut first = true;
        for e in csr.edge_range(u) {
            if !first {
                buf.push(b' ');
            }
            first = false;
            push_u64(buf, csr.targets()[e] as u64 + 1);
            if let Some(w) = weights {
                buf.push(b' ');
                push_weight(buf, w[e]);
            }
        }
        buf.push(b'\n');
    })
}

#[cfg(test)]
mod tests {
    use super::super::Format;

    fn read(text: &str) -> crate::Result<super::Parsed<u32>> {
        super::super::test_parse::read(Format::Metis, "t.graph", text)
    }

    fn fails(text: &str, line: u64, what: &str) {
        super::super::test_parse::fails(Format::Metis, "t.graph", text, line, what)
    }

    #[test]
    fn reads_symmetric_weighted_with_vertex_weights() {
        // 3 vertices, path 1-2-3, vertex weights (fmt 011, ncon 2), edge weights.
        let p = read("% c\n3 2 011 2\n7 8 2 5\n0 0 1 5 3 0\n% mid\n1 1 2 0\n").unwrap();
        assert!(p.symmetric);
        assert_eq!(p.edges.num_vertices, 3);
        assert_eq!(p.edges.edges, vec![[0, 1], [1, 0], [1, 2], [2, 1]]);
        assert_eq!(p.edges.weights, Some(vec![5, 5, 0, 0]));
    }

    #[test]
    fn blank_lines_are_isolated_vertices_and_gapbs_style_is_directed() {
        let p = read("4 1\n2\n1\n\n\n").unwrap();
        assert!(p.symmetric);
        assert_eq!(p.edges.num_vertices, 4);
        let p = read("3 2 100\n2 3\n\n\n").unwrap();
        assert!(!p.symmetric);
        assert_eq!(p.edges.edges, vec![[0, 1], [0, 2]]);
    }

    #[test]
    fn malformed_inputs_name_line_and_problem() {
        fails("% only comments\n", 1, "missing header");
        fails("3\n", 1, "missing edge count");
        fails("3 x\n", 1, "edge count m `x`");
        fails("3 1 2\n", 1, "unsupported METIS fmt `2`");
        fails("3 1 0 1 9\n", 1, "extra token `9`");
        fails("3 1\n2\n1\n4\n", 4, "neighbour 4 out of range 1..=3");
        fails("3 1\n0\n1\n\n", 2, "neighbour 0 out of range");
        fails("3 1\n2\n1 a\n\n", 3, "neighbour `a`");
        fails("3 1 1\n2 4\n1\n\n", 3, "neighbour 1 has no edge weight");
        fails("3 1 1\n2 4.5\n1 4.5\n\n", 2, "`4.5` is not a valid u32");
        fails("3 1 010\n\n1\n\n", 2, "missing vertex weight");
        fails(
            "3 1\n2\n1\n",
            3,
            "2 of the 3 vertex lines declared on line 1",
        );
        fails("2 1\n2\n1\n1\n", 4, "after the last of the 2 vertex lines");
        fails(
            "3 3\n2\n1\n\n",
            1,
            "header declares 3 edges but the adjacency lists hold 2 entries",
        );
        let e = read("3 1\n2\n3\n\n").unwrap_err().to_string();
        assert!(e.contains("not symmetric"), "{e}");
        let e = read("2 1 1\n2 4\n1 5\n").unwrap_err().to_string();
        assert!(e.contains("not symmetric"), "{e}");
    }
}
