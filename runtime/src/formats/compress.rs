//! Getting a file's bytes into memory: memory-mapped when plain, decompressed when
//! gzip (`.gz` name or gzip magic bytes), and the gzip side of writing.
//!
//! Readers want the whole text as one slice so they can split it into chunks and
//! parse in parallel. A plain file is mapped rather than read, which costs no copy
//! and lets the page cache do the work; a gzip file must be inflated (one thread,
//! flate2's `MultiGzDecoder` so concatenated members such as `cat a.gz b.gz` work).

use std::fs::File;
use std::io::{Read, Write};
use std::ops::Deref;
use std::path::Path;

use flate2::read::MultiGzDecoder;
use indicatif::ProgressBar;
use memmap2::Mmap;

use crate::error::{Error, Result};
use crate::progress;

/// The two bytes every gzip member starts with.
pub(crate) const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// Files at least this big get a progress bar (when on a terminal).
pub(crate) const BAR_BYTES: u64 = 32 << 20;

/// Whether `bytes` starts like a gzip stream.
pub(crate) fn is_gzip(bytes: &[u8]) -> bool {
    bytes.len() >= 2 && bytes[..2] == GZIP_MAGIC
}

/// A whole input file in memory.
pub(crate) enum Input {
    Empty,
    Mapped(Mmap),
    Owned(Vec<u8>),
}

impl Deref for Input {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Input::Empty => &[],
            Input::Mapped(m) => m,
            Input::Owned(v) => v,
        }
    }
}

/// A progress bar over `len` bytes, hidden for small inputs.
pub(crate) fn bytes_bar(len: u64, msg: &str) -> ProgressBar {
    if len >= BAR_BYTES {
        progress::bar(len, msg)
    } else {
        ProgressBar::hidden()
    }
}

/// `path` mapped read-only, and its length (`None`: an empty file, which
/// cannot be mapped). `populate` reads every page in now (a whole-file parse);
/// without it only the pages a reader touches are read (one rank's part).
pub(crate) fn map(path: &Path, populate: bool) -> Result<Option<(Mmap, u64)>> {
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    let len = file.metadata().map_err(|e| Error::io(path, e))?.len();
    if len == 0 {
        return Ok(None);
    }
    let mut opts = memmap2::MmapOptions::new();
    if populate {
        opts.populate();
    }
    // SAFETY: `Mmap::map` is unsafe because another process could change the file
    // while it is mapped, changing bytes behind a `&[u8]`. The map is read-only, it
    // lives only while this file is parsed, and the bytes are only parsed (every value
    // is range-checked), never trusted as pointers or lengths; modifying an input file
    // while vertex reads it is unsupported, as for any reader.
    let map = unsafe { opts.map(&file) }.map_err(|e| Error::io(path, e))?;
    Ok(Some((map, len)))
}

/// Reads `path` into memory; gzip data (by magic bytes) is decompressed. A name
/// ending in `.gz` whose content is not gzip is an error rather than a guess.
pub(crate) fn load(path: &Path, gz_name: bool) -> Result<Input> {
    let Some((map, len)) = map(path, true)? else {
        if gz_name {
            return Err(Error::format(path, "empty file is not a gzip stream"));
        }
        return Ok(Input::Empty);
    };
    if is_gzip(&map) {
        let bar = bytes_bar(len, "inflating");
        let out = gunzip(&map, path, &bar)?;
        bar.finish_and_clear();
        return Ok(Input::Owned(out));
    }
    if gz_name {
        return Err(Error::format(
            path,
            "the name ends in .gz but the content is not gzip (no 1f 8b magic bytes)",
        ));
    }
    Ok(Input::Mapped(map))
}

/// A reader over a slice that advances a progress bar.
struct Counting<'a> {
    rest: &'a [u8],
    bar: &'a ProgressBar,
}

impl Read for Counting<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.rest.read(buf)?;
        self.bar.inc(n as u64);
        Ok(n)
    }
}

/// Decompresses a whole gzip stream (one or more members).
pub(crate) fn gunzip(bytes: &[u8], path: &Path, bar: &ProgressBar) -> Result<Vec<u8>> {
    // The gzip footer stores the size mod 2^32; use it as a capacity hint, bounded by
    // deflate's maximum ratio so a corrupt footer cannot make us reserve gigabytes.
    let hint = if bytes.len() >= 18 {
        let t = &bytes[bytes.len() - 4..];
        u32::from_le_bytes([t[0], t[1], t[2], t[3]]) as usize
    } else {
        0
    };
    let hint = hint.min(bytes.len().saturating_mul(1032));
    let mut out = Vec::with_capacity(hint);
    let mut dec = MultiGzDecoder::new(Counting { rest: bytes, bar });
    dec.read_to_end(&mut out)
        .map_err(|e| Error::format(path, format!("bad gzip stream: {e}")))?;
    Ok(out)
}

/// Up to `limit` bytes from the start of the (decompressed) file, whether that is
/// the whole file, and whether it was gzip. Used by `probe` to look at headers cheaply.
pub(crate) fn read_prefix(
    path: &Path,
    gz_name: bool,
    limit: usize,
) -> Result<(Vec<u8>, bool, bool)> {
    let mut file = File::open(path).map_err(|e| Error::io(path, e))?;
    let mut magic = Vec::with_capacity(2);
    (&mut file)
        .take(2)
        .read_to_end(&mut magic)
        .map_err(|e| Error::io(path, e))?;
    let mut head = magic.clone();
    if is_gzip(&magic) {
        let dec = MultiGzDecoder::new(std::io::Cursor::new(magic).chain(file));
        let mut out = Vec::new();
        dec.take(limit as u64 + 1)
            .read_to_end(&mut out)
            .map_err(|e| Error::format(path, format!("bad gzip stream: {e}")))?;
        let complete = out.len() <= limit;
        out.truncate(limit);
        return Ok((out, complete, true));
    }
    if gz_name {
        return Err(Error::format(
            path,
            "the name ends in .gz but the content is not gzip (no 1f 8b magic bytes)",
        ));
    }
    file.take(limit as u64 + 1)
        .read_to_end(&mut head)
        .map_err(|e| Error::io(path, e))?;
    let complete = head.len() <= limit;
    head.truncate(limit);
    Ok((head, complete, false))
}

/// An output stream, plain or gzip-compressed.
pub(crate) enum Sink<Wr: Write> {
    Plain(Wr),
    Gzip(flate2::write::GzEncoder<Wr>),
}

impl<Wr: Write> Sink<Wr> {
    pub fn new(inner: Wr, gzip: bool) -> Self {
        if gzip {
            // Level 1: big graphs are written for speed; the ratio on text edge lists
            // is within a few percent of the default level at several times the speed.
            Sink::Gzip(flate2::write::GzEncoder::new(
                inner,
                flate2::Compression::fast(),
            ))
        } else {
            Sink::Plain(inner)
        }
    }

    /// Writes the gzip trailer (if any) and returns the inner writer.
    pub fn finish(self) -> std::io::Result<Wr> {
        match self {
            Sink::Plain(w) => Ok(w),
            Sink::Gzip(g) => g.finish(),
        }
    }
}

impl<Wr: Write> Write for Sink<Wr> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self {
            Sink::Plain(w) => w.write(buf),
            Sink::Gzip(g) => g.write(buf),
        }
    }
    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        match self {
            Sink::Plain(w) => w.write_all(buf),
            Sink::Gzip(g) => g.write_all(buf),
        }
    }
    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            Sink::Plain(w) => w.flush(),
            Sink::Gzip(g) => g.flush(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gz(data: &[u8]) -> Vec<u8> {
        let mut s = Sink::new(Vec::new(), true);
        s.write_all(data).unwrap();
        s.finish().unwrap()
    }

    #[test]
    fn gunzip_round_trip_and_multi_member() {
        let mut two = gz(b"0 1\n");
        two.extend(gz(b"1 2\n"));
        let out = gunzip(&two, Path::new("x.el.gz"), &ProgressBar::hidden()).unwrap();
        assert_eq!(out, b"0 1\n1 2\n");
    }

    #[test]
    fn bad_gzip_is_a_format_error() {
        let mut data = gz(b"0 1\n1 2\n2 3\n");
        data.truncate(data.len() - 6);
        let e = gunzip(&data, Path::new("x.el.gz"), &ProgressBar::hidden()).unwrap_err();
        assert!(e.to_string().contains("bad gzip stream"), "{e}");
        let mut data = gz(b"0 1\n");
        data[12] ^= 0xff;
        assert!(gunzip(&data, Path::new("x.el.gz"), &ProgressBar::hidden()).is_err());
    }

    #[test]
    fn load_checks_gz_names() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.el.gz");
        std::fs::write(&p, b"0 1\n").unwrap();
        let e = load(&p, true).err().unwrap();
        assert!(e.to_string().contains("not gzip"), "{e}");
        // Magic bytes win over a plain name.
        let q = dir.path().join("b.el");
        std::fs::write(&q, gz(b"0 1\n")).unwrap();
        assert_eq!(&*load(&q, false).unwrap(), b"0 1\n");
        let (head, complete, gz) = read_prefix(&q, false, 2).unwrap();
        assert_eq!((head.as_slice(), complete, gz), (&b"0 "[..], false, true));
    }
}
