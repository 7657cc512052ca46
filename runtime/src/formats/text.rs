//! The shared fast path of every text reader: a byte scanner, chunking at line
//! boundaries, parallel chunk parsing, and lazy line numbers.
//!
//! Graph files reach 10^8 lines, so the hot loop must not allocate, must not go
//! through `str`, and must not count lines. A parser works on the whole (decompressed)
//! file as one byte slice; positions are absolute byte offsets, and a failure is
//! reported as a [`Bad`] carrying the offset. Only when an error is actually returned
//! do we count the newlines before that offset ([`line_of`]) to name the 1-based line.

use std::ops::Range;
use std::path::Path;

use indicatif::ProgressBar;
use rayon::prelude::*;

use crate::error::Error;
use crate::graph::Weight;

/// A parse failure at byte `offset`; turned into [`Error::Parse`] by [`Bad::into_error`].
#[derive(Debug)]
pub(crate) struct Bad {
    pub offset: usize,
    pub msg: String,
}

impl Bad {
    pub fn new(offset: usize, msg: impl Into<String>) -> Self {
        Bad {
            offset,
            msg: msg.into(),
        }
    }

    /// Names the file and the 1-based line containing the failing byte.
    pub fn into_error(self, bytes: &[u8], path: &Path) -> Error {
        Error::parse(path, line_of(bytes, self.offset), self.msg)
    }
}

/// The 1-based line number of byte `offset` (counts newlines before it). Offsets
/// at or past the end name the last line.
pub(crate) fn line_of(bytes: &[u8], offset: usize) -> u64 {
    if offset >= bytes.len() {
        return last_line(bytes);
    }
    bytes[..offset].iter().filter(|&&b| b == b'\n').count() as u64 + 1
}

/// The 1-based number of the last line of the file (for "file ends early" errors).
pub(crate) fn last_line(bytes: &[u8]) -> u64 {
    let newlines = bytes.iter().filter(|&&b| b == b'\n').count() as u64;
    let n = if bytes.last() == Some(&b'\n') {
        newlines
    } else {
        newlines + 1
    };
    n.max(1)
}

/// Shows a token in an error message: at most 40 characters, lossy UTF-8.
pub(crate) fn show(tok: &[u8]) -> String {
    let s = String::from_utf8_lossy(&tok[..tok.len().min(40)]).into_owned();
    if tok.len() > 40 {
        format!("{s}…")
    } else {
        s
    }
}

#[inline]
fn is_blank(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | 0x0b | 0x0c)
}

/// Whether a weight token is written as a non-integer (has a point, exponent, inf, nan).
#[inline]
pub(crate) fn float_like(tok: &[u8]) -> bool {
    tok.iter()
        .any(|&b| !(b.is_ascii_digit() || b == b'-' || b == b'+'))
}

/// A cursor over `bytes[pos..end]` that reads whitespace-separated tokens line by line.
pub(crate) struct Scanner<'a> {
    bytes: &'a [u8],
    pub pos: usize,
    end: usize,
}

impl<'a> Scanner<'a> {
    pub fn new(bytes: &'a [u8], range: Range<usize>) -> Self {
        Scanner {
            bytes,
            pos: range.start,
            end: range.end.min(bytes.len()),
        }
    }

    /// Whether the whole range has been consumed.
    #[inline]
    pub fn done(&self) -> bool {
        self.pos >= self.end
    }

    /// Skips spaces and tabs (not newlines).
    #[inline]
    pub fn skip_blank(&mut self) {
        let rest = &self.bytes[self.pos..self.end];
        let n = rest.iter().take_while(|&&b| is_blank(b)).count();
        self.pos += n;
    }

    /// The next byte, if any.
    #[inline]
    pub fn peek(&self) -> Option<u8> {
        (self.pos < self.end).then(|| self.bytes[self.pos])
    }

    /// Skips blanks; then, if at a newline or the end, consumes it and returns true.
    /// Used to pass over empty lines.
    #[inline]
    pub fn blank_line(&mut self) -> bool {
        self.skip_blank();
        match self.peek() {
            None => true,
            Some(b'\n') => {
                self.pos += 1;
                true
            }
            _ => false,
        }
    }

    /// Moves past the next newline (or to the end).
    #[inline]
    pub fn skip_line(&mut self) {
        match self.bytes[self.pos..self.end]
            .iter()
            .position(|&b| b == b'\n')
        {
            Some(p) => self.pos += p + 1,
            None => self.pos = self.end,
        }
    }

    /// Whether only blanks remain on this line.
    #[inline]
    pub fn at_line_end(&mut self) -> bool {
        self.skip_blank();
        matches!(self.peek(), None | Some(b'\n'))
    }

    /// The next token on this line (empty at the end of the line) and its offset.
    #[inline]
    pub fn token(&mut self) -> (usize, &'a [u8]) {
        self.skip_blank();
        let start = self.pos;
        let rest = &self.bytes[start..self.end];
        let len = rest
            .iter()
            .position(|&b| b == b'\n' || is_blank(b))
            .unwrap_or(rest.len());
        self.pos = start + len;
        (start, &rest[..len])
    }

    /// Requires the line to end here and consumes the newline.
    #[inline]
    pub fn end_line(&mut self, hint: &str) -> Result<(), Bad> {
        self.skip_blank();
        match self.peek() {
            None => Ok(()),
            Some(b'\n') => {
                self.pos += 1;
                Ok(())
            }
            Some(_) => {
                let (at, tok) = self.token();
                Err(Bad::new(
                    at,
                    format!("unexpected extra token `{}`{hint}", show(tok)),
                ))
            }
        }
    }

    /// A non-negative decimal integer; `what` names it in error messages.
    ///
    /// The fast path handles up to 19 digits (always fits u64) on local variables;
    /// anything else (20 digits, junk, a missing token) goes to [`Self::uint_slow`].
    #[inline(always)]
    pub fn uint(&mut self, what: &str) -> Result<(usize, u64), Bad> {
        let rest = &self.bytes[self.pos..self.end];
        let mut i = 0;
        while i < rest.len() && is_blank(rest[i]) {
            i += 1;
        }
        let start = i;
        let mut v: u64 = 0;
        while i < rest.len() {
            let d = rest[i].wrapping_sub(b'0');
            if d > 9 {
                break;
            }
            v = v.wrapping_mul(10).wrapping_add(d as u64);
            i += 1;
        }
        let digits = i - start;
        let clean_end = i == rest.len() || rest[i] == b'\n' || is_blank(rest[i]);
        if digits == 0 || digits > 19 || !clean_end {
            return self.uint_slow(what);
        }
        let at = self.pos + start;
        self.pos += i;
        Ok((at, v))
    }

    /// [`Self::uint`] for long numbers and every error.
    #[cold]
    #[inline(never)]
    fn uint_slow(&mut self, what: &str) -> Result<(usize, u64), Bad> {
        let (at, tok) = self.token();
        if tok.is_empty() {
            return Err(Bad::new(at, format!("missing {what}")));
        }
        if !tok.iter().all(u8::is_ascii_digit) {
            return Err(Bad::new(
                at,
                format!("{what} `{}` is not a non-negative integer", show(tok)),
            ));
        }
        let v = tok.iter().try_fold(0u64, |v, &d| {
            v.checked_mul(10)?.checked_add((d - b'0') as u64)
        });
        match v {
            Some(v) => Ok((at, v)),
            None => Err(Bad::new(at, format!("{what} `{}` is too large", show(tok)))),
        }
    }

    /// A weight token parsed exactly as `W`; also says whether it looked non-integer.
    #[inline]
    pub fn weight<W: Weight>(&mut self) -> Result<(W, bool), Bad> {
        let (at, tok) = self.token();
        if tok.is_empty() {
            return Err(Bad::new(at, "missing weight"));
        }
        let parsed = std::str::from_utf8(tok).ok().and_then(W::parse_token);
        match parsed {
            Some(w) => Ok((w, float_like(tok))),
            None => {
                // A negative integer read as an unsigned type: say what would take it.
                let hint = if tok.first() == Some(&b'-')
                    && matches!(
                        W::KIND,
                        crate::graph::WeightKind::U32 | crate::graph::WeightKind::U64
                    ) {
                    " (negative: it needs a signed or float weight type)"
                } else {
                    ""
                };
                Err(Bad::new(
                    at,
                    format!(
                        "weight `{}` is not a valid {} value{hint}",
                        show(tok),
                        W::KIND
                    ),
                ))
            }
        }
    }

    /// Skips a token that must be present (a weight under `ignore_weights`).
    #[inline]
    pub fn skip_token(&mut self, what: &str) -> Result<(), Bad> {
        let (at, tok) = self.token();
        if tok.is_empty() {
            return Err(Bad::new(at, format!("missing {what}")));
        }
        Ok(())
    }
}

/// Checks a 1-based id against `1..=n` and returns it 0-based.
#[inline]
pub(crate) fn one_based(at: usize, id: u64, n: u64, what: &str) -> Result<u32, Bad> {
    if id == 0 || id > n {
        return Err(Bad::new(
            at,
            format!("{what} {id} out of range 1..={n} (ids in this format count from 1)"),
        ));
    }
    Ok((id - 1) as u32)
}

/// The first line start at or after byte `pos` (the end if none).
pub(crate) fn line_start_at(b: &[u8], pos: usize) -> usize {
    if pos == 0 || pos >= b.len() {
        return pos.min(b.len());
    }
    if b[pos - 1] == b'\n' {
        return pos;
    }
    b[pos..]
        .iter()
        .position(|&c| c == b'\n')
        .map_or(b.len(), |p| pos + p + 1)
}

/// Splits `bytes[start..]` into ranges of about `target` bytes that begin at line
/// starts (every range but the last ends just after a newline).
pub(crate) fn split_lines(bytes: &[u8], start: usize, target: usize) -> Vec<Range<usize>> {
    let len = bytes.len();
    let target = target.max(1);
    let mut out = Vec::new();
    let mut s = start.min(len);
    while s < len {
        let e = line_start_at(bytes, s.saturating_add(target));
        out.push(s..e);
        s = e;
    }
    out
}

/// Chunk size for parallel parsing: a few chunks per thread, 256 KiB to 8 MiB.
#[cfg(not(test))]
pub(crate) fn chunk_target(len: usize) -> usize {
    let threads = rayon::current_num_threads().max(1);
    (len / (threads * 8)).clamp(256 << 10, 8 << 20)
}

/// Unit tests use tiny files; tiny chunks make them exercise the multi-chunk paths
/// (concatenation, per-chunk vertex numbering, earliest-error selection) too.
#[cfg(test)]
pub(crate) fn chunk_target(len: usize) -> usize {
    (len / 7).clamp(16, 4096)
}

/// Runs `f` on every chunk in parallel and returns the results in file order, or the
/// error of the earliest failing chunk. Advances `bar` by each chunk's bytes.
pub(crate) fn par_chunks<T, F>(
    chunks: &[Range<usize>],
    bar: &ProgressBar,
    f: F,
) -> Result<Vec<T>, Bad>
where
    T: Send,
    F: Fn(usize, Range<usize>) -> Result<T, Bad> + Sync,
{
    let results: Vec<Result<T, Bad>> = chunks
        .par_iter()
        .enumerate()
        .map(|(i, r)| {
            let res = f(i, r.clone());
            bar.inc(r.len() as u64);
            res
        })
        .collect();
    results.into_iter().collect()
}

/// What one chunk of a file produced.
pub(crate) struct Part<W> {
    pub edges: Vec<[u32; 2]>,
    pub weights: Vec<W>,
    /// Records (entries, arcs, vertex lines…) read; formats with counts check these.
    pub records: u64,
    /// Largest vertex id seen (0-based), for formats without a vertex count.
    pub max_id: Option<u32>,
    /// Whether some weight token was written as a non-integer.
    pub float_like: bool,
}

impl<W> Part<W> {
    pub fn new() -> Self {
        Part {
            edges: Vec::new(),
            weights: Vec::new(),
            records: 0,
            max_id: None,
            float_like: false,
        }
    }
}

/// Concatenates chunk outputs in order (in parallel, freeing each part once copied).
pub(crate) fn concat<W: Weight>(
    parts: Vec<Part<W>>,
    weighted: bool,
) -> (Vec<[u32; 2]>, Option<Vec<W>>) {
    let mut parts = parts;
    if parts.len() == 1 {
        let p = parts.pop().unwrap_or_else(Part::new);
        return (p.edges, weighted.then_some(p.weights));
    }
    let total: usize = parts.iter().map(|p| p.edges.len()).sum();
    let mut edges = vec![[0u32; 2]; total];
    let mut weights = if weighted {
        vec![W::default(); total]
    } else {
        Vec::new()
    };
    {
        let mut e_rest: &mut [[u32; 2]] = &mut edges;
        let mut w_rest: &mut [W] = &mut weights;
        let mut jobs = Vec::with_capacity(parts.len());
        for p in parts {
            let k = p.edges.len();
            let (e, er) = e_rest.split_at_mut(k);
            e_rest = er;
            let w = if weighted {
                let (w, wr) = w_rest.split_at_mut(k);
                w_rest = wr;
                w
            } else {
                &mut []
            };
            jobs.push((p, e, w));
        }
        jobs.into_par_iter().for_each(|(p, e, w)| {
            e.copy_from_slice(&p.edges);
            if weighted {
                w.copy_from_slice(&p.weights);
            }
        });
    }
    (edges, weighted.then_some(weights))
}

/// The byte offset of the `n`-th (0-based) record line in `bytes[start..]`, where a
/// record line is one for which `is_record(line)` holds. Used on error paths only
/// ("more entries than declared"), so it is sequential.
pub(crate) fn nth_record(
    bytes: &[u8],
    start: usize,
    n: u64,
    is_record: impl Fn(&[u8]) -> bool,
) -> Option<usize> {
    let mut seen = 0u64;
    let mut pos = start;
    while pos < bytes.len() {
        let end = bytes[pos..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(bytes.len(), |p| pos + p);
        if is_record(&bytes[pos..end]) {
            if seen == n {
                return Some(pos);
            }
            seen += 1;
        }
        pos = end + 1;
    }
    None
}

/// The first non-blank byte of a line, if any.
pub(crate) fn first_byte(line: &[u8]) -> Option<u8> {
    line.iter().copied().find(|&b| !is_blank(b))
}

/// Appends the decimal form of `x`.
#[inline]
pub(crate) fn push_u64(buf: &mut Vec<u8>, mut x: u64) {
    let mut tmp = [0u8; 20];
    let mut i = tmp.len();
    loop {
        i -= 1;
        tmp[i] = b'0' + (x % 10) as u8;
        x /= 10;
        if x == 0 {
            break;
        }
    }
    buf.extend_from_slice(&tmp[i..]);
}

/// Appends a weight so that `W::parse_token` reads back the same value (floats use
/// the shortest round-trip form).
#[inline]
pub(crate) fn push_weight<W: Weight>(buf: &mut Vec<u8>, w: W) {
    use std::io::Write;
    // Writing into a Vec cannot fail.
    let _ = if W::KIND.is_float() {
        write!(buf, "{w:?}")
    } else {
        write!(buf, "{w}")
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scanner_reads_tokens_and_lines() {
        let b = b"  12\t7 x\n\n3 99999999999999999999999\n";
        let mut s = Scanner::new(b, 0..b.len());
        assert_eq!(s.uint("a").unwrap().1, 12);
        assert_eq!(s.uint("b").unwrap().1, 7);
        let e = s.end_line("").unwrap_err();
        assert!(e.msg.contains("`x`"), "{}", e.msg);
        assert_eq!(e.offset, 7);
        s.skip_line();
        assert!(s.blank_line());
        assert_eq!(s.uint("c").unwrap().1, 3);
        let e = s.uint("d").unwrap_err();
        assert!(e.msg.contains("too large"), "{}", e.msg);
        assert_eq!(line_of(b, e.offset), 3);
    }

    #[test]
    fn uint_rejects_signs_and_junk() {
        for t in ["-1", "+1", "1.5", "1e3", "abc", "7x"] {
            let b = t.as_bytes();
            let mut s = Scanner::new(b, 0..b.len());
            assert!(s.uint("id").is_err(), "{t}");
        }
        let b = b"18446744073709551615";
        let mut s = Scanner::new(b, 0..b.len());
        assert_eq!(s.uint("id").unwrap().1, u64::MAX);
        let b = b"18446744073709551616";
        let mut s = Scanner::new(b, 0..b.len());
        assert!(s.uint("id").is_err());
    }

    #[test]
    fn split_lines_respects_newlines() {
        let b = b"aaa\nbb\nc\ndddd\n";
        for t in 1..20 {
            let ch = split_lines(b, 0, t);
            assert_eq!(ch.first().unwrap().start, 0);
            assert_eq!(ch.last().unwrap().end, b.len());
            for w in ch.windows(2) {
                assert_eq!(w[0].end, w[1].start);
                assert_eq!(b[w[0].end - 1], b'\n');
            }
        }
        assert!(split_lines(b"", 0, 4).is_empty());
    }

    #[test]
    fn numbers_format_back() {
        let mut v = Vec::new();
        push_u64(&mut v, 0);
        v.push(b' ');
        push_u64(&mut v, u64::MAX);
        assert_eq!(v, b"0 18446744073709551615");
        let mut v = Vec::new();
        push_weight(&mut v, 0.1f32);
        assert_eq!(
            f32::parse_token(std::str::from_utf8(&v).unwrap()),
            Some(0.1f32)
        );
        let mut v = Vec::new();
        push_weight(&mut v, -3i32);
        assert_eq!(v, b"-3");
    }
}
