//! DIMACS shortest-path files (`.gr`), the 9th DIMACS Challenge road networks' format.
//!
//! `c` lines are comments, one problem line `p sp N M` comes before any arc, then
//! exactly `M` arc lines `a u v w` with 1-based ids. Arcs are directed. The arc count
//! is checked because a short file is the usual sign of a truncated download.

use std::io::Write;
use std::path::Path;

use indicatif::ProgressBar;

use super::text::{
    chunk_target, concat, first_byte, last_line, line_of, nth_record, one_based, par_chunks,
    push_u64, push_weight, show, split_lines, Bad, Part, Scanner,
};
use super::write::{io_err, write_rows};
use super::{kind_from_tokens, Parsed, ProbeInfo, ReadOptions};
use crate::error::{Error, Result};
use crate::graph::{EdgeList, Graph, Weight, MAX_VERTICES};

struct Header {
    n: u64,
    m: u64,
    p_at: usize,
    body: usize,
}

fn header(b: &[u8]) -> Result<Header, Bad> {
    let mut s = Scanner::new(b, 0..b.len());
    loop {
        if s.done() {
            return Err(Bad::new(b.len(), "no problem line `p sp N M` in the file"));
        }
        if s.blank_line() {
            continue;
        }
        match s.peek() {
            Some(b'c') => s.skip_line(),
            Some(b'p') => break,
            Some(b'a') => {
                return Err(Bad::new(
                    s.pos,
                    "arc line before the problem line `p sp N M`",
                ))
            }
            _ => {
                let (at, tok) = s.token();
                return Err(Bad::new(
                    at,
                    format!(
                        "unexpected `{}`: DIMACS .gr lines start with c, p or a",
                        show(tok)
                    ),
                ));
            }
        }
    }
    let p_at = s.pos;
    let (_, p) = s.token();
    let (at, kind) = s.token();
    if p != b"p" || kind != b"sp" {
        let found = if p != b"p" { p } else { kind };
        return Err(Bad::new(
            if p != b"p" { p_at } else { at },
            format!(
                "expected the problem line `p sp N M`, found `{}`",
                show(found)
            ),
        ));
    }
    let (_, n) = s.uint("vertex count N")?;
    let (_, m) = s.uint("arc count M")?;
    s.end_line(" after `p sp N M`")?;
    if n > MAX_VERTICES as u64 {
        return Err(Bad::new(
            p_at,
            format!("{n} vertices do not fit 32-bit vertex ids"),
        ));
    }
    Ok(Header {
        n,
        m,
        p_at,
        body: s.pos,
    })
}

fn chunk<W: Weight>(
    b: &[u8],
    r: std::ops::Range<usize>,
    h: &Header,
    opts: ReadOptions,
) -> Result<Part<W>, Bad> {
    let weighted = !opts.ignore_weights;
    let mut p = Part::new();
    // Arc lines are at least 8 bytes (`a 1 2 3\n`).
    p.edges.reserve(r.len() / 12);
    if weighted {
        p.weights.reserve(r.len() / 12);
    }
    let mut s = Scanner::new(b, r);
    while !s.done() {
        if s.blank_line() {
            continue;
        }
        match s.peek() {
            Some(b'c') => {
                s.skip_line();
                continue;
            }
            Some(b'a') => {}
            Some(b'p') => return Err(Bad::new(s.pos, "a second problem line")),
            _ => {
                let (at, tok) = s.token();
                return Err(Bad::new(
                    at,
                    format!(
                        "unexpected `{}`: DIMACS .gr lines start with c, p or a",
                        show(tok)
                    ),
                ));
            }
        }
        let (at, tok) = s.token();
        if tok != b"a" {
            return Err(Bad::new(
                at,
                format!("unexpected `{}`: expected an arc line `a u v w`", show(tok)),
            ));
        }
        let (at, u) = s.uint("arc tail")?;
        let u = one_based(at, u, h.n, "arc tail")?;
        let (at, v) = s.uint("arc head")?;
        let v = one_based(at, v, h.n, "arc head")?;
        if weighted {
            let (w, f) = s.weight::<W>()?;
            p.float_like |= f;
            p.weights.push(w);
        } else {
            s.skip_token("weight")?;
        }
        s.end_line(" (arc lines are `a u v w`)")?;
        p.edges.push([u, v]);
        p.records += 1;
    }
    Ok(p)
}

fn is_arc(line: &[u8]) -> bool {
    first_byte(line) == Some(b'a')
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
    let p_line = line_of(b, h.p_at);
    if records > h.m {
        let at = nth_record(b, h.body, h.m, is_arc).unwrap_or(b.len());
        return Err(Bad::new(
            at,
            format!("more arcs than the {} declared on line {p_line}", h.m),
        )
        .into_error(b, path));
    }
    if records < h.m {
        return Err(Error::parse(
            path,
            last_line(b),
            format!(
                "file ends after {records} of the {} arcs declared on line {p_line} (truncated?)",
                h.m
            ),
        ));
    }
    let float_like = parts.iter().any(|p| p.float_like);
    let weighted = !opts.ignore_weights;
    let (edges, weights) = concat(parts, weighted);
    Ok(Parsed {
        edges: EdgeList {
            num_vertices: h.n as usize,
            edges,
            weights,
        },
        symmetric: false,
        file_weight_kind: weighted.then(|| kind_from_tokens(float_like)),
    })
}

pub(super) fn probe(b: &[u8], _complete: bool) -> Result<ProbeInfo, Bad> {
    let h = header(b)?;
    let p = chunk::<f64>(b, h.body..b.len(), &h, ReadOptions::default())?;
    Ok(ProbeInfo {
        weighted: true,
        weight_kind: Some(kind_from_tokens(p.float_like)),
        symmetric: false,
        num_vertices: Some(h.n),
        num_entries: Some(h.m),
    })
}

pub(super) fn write<W: Weight>(
    g: &Graph<W>,
    out: &mut dyn Write,
    path: &Path,
    bar: &ProgressBar,
) -> Result<()> {
    let csr = g.csr();
    let weights = csr.weights();
    write!(
        out,
        "c written by vertex\np sp {} {}\n",
        csr.num_vertices(),
        csr.num_edges()
    )
    .map_err(io_err(path))?;
    write_rows(csr, out, path, bar, |u, buf| {
        for e in csr.edge_range(u) {
            buf.extend_from_slice(b"a ");
            push_u64(buf, u as u64 + 1);
            buf.push(b' ');
            push_u64(buf, csr.targets()[e] as u64 + 1);
            buf.push(b' ');
            match weights {
                Some(w) => push_weight(buf, w[e]),
                None => push_weight(buf, W::ONE),
            }
            buf.push(b'\n');
        }
    })
}

#[cfg(test)]
mod tests {
    use super::super::Format;

    fn read(text: &str) -> crate::Result<super::Parsed<u32>> {
        super::super::test_parse::read(Format::Dimacs, "t.gr", text)
    }

    fn fails(text: &str, line: u64, what: &str) {
        super::super::test_parse::fails(Format::Dimacs, "t.gr", text, line, what)
    }

    #[test]
    fn reads_arcs_one_based() {
        let p = read("c hi\np sp 3 2\nc mid\na 1 3 0\n\na 3 2 9\n").unwrap();
        assert_eq!(p.edges.num_vertices, 3);
        assert_eq!(p.edges.edges, vec![[0, 2], [2, 1]]);
        assert_eq!(p.edges.weights, Some(vec![0, 9]));
        assert_eq!(p.file_weight_kind, Some(crate::graph::WeightKind::I64));
        assert!(!p.symmetric);
    }

    #[test]
    fn malformed_inputs_name_line_and_problem() {
        fails("c x\n", 1, "no problem line");
        fails("c x\na 1 2 3\n", 2, "arc line before the problem line");
        fails("p max 3 2\n", 1, "found `max`");
        fails("p sp 3\n", 1, "missing arc count");
        fails("p sp 3 x\n", 1, "arc count M `x`");
        fails("p sp 3 1\nq 1 2 3\n", 2, "lines start with c, p or a");
        fails("p sp 3 1\np sp 3 1\n", 2, "second problem line");
        fails("p sp 3 1\na 0 2 3\n", 2, "arc tail 0 out of range 1..=3");
        fails("p sp 3 1\na 1 4 3\n", 2, "arc head 4 out of range 1..=3");
        fails("p sp 3 1\na 1 -2 3\n", 2, "arc head `-2`");
        fails("p sp 3 1\na 1 2\n", 2, "missing weight");
        fails("p sp 3 1\na 1 2 x\n", 2, "weight `x` is not a valid u32");
        fails("p sp 3 1\na 1 2 3 4\n", 2, "extra token `4`");
        fails("p sp 3 1\nab 1 2 3\n", 2, "expected an arc line");
        fails(
            "p sp 3 1\na 1 2 3\na 2 3 4\n",
            3,
            "more arcs than the 1 declared on line 1",
        );
        fails(
            "c\np sp 3 3\na 1 2 3\na 2 3 4\n",
            4,
            "2 of the 3 arcs declared on line 2",
        );
        fails("p sp 3 2\na 1 2 3\na 2", 3, "missing arc head");
    }
}
