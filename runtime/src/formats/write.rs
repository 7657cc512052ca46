//! The shared half of every text writer: atomic replacement of the output file and
//! parallel formatting of CSR rows.
//!
//! A writer formats blocks of vertices into byte buffers on all threads and writes
//! the buffers in order, so the output is identical to a sequential writer's while
//! formatting (the expensive part) runs in parallel. The file appears under its real
//! name only when complete: we write a temporary file in the same directory, sync it,
//! then rename it over the target, so a failure or a crash never leaves half a file.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::ops::Range;
use std::path::Path;

use indicatif::ProgressBar;
use rayon::prelude::*;

use super::compress::Sink;
use crate::error::{Error, Result};
use crate::graph::{Csr, Weight};

/// Writes `path` atomically: `f` writes the (uncompressed) content to the given
/// stream; on success the data is gzip-finished if asked, synced and renamed into
/// place. On any error the temporary file is removed and `path` is untouched.
pub(super) fn atomic_write(
    path: &Path,
    gzip: bool,
    f: impl FnOnce(&mut dyn Write) -> Result<()>,
) -> Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let prefix = format!(".{name}.");
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(".tmp");
    #[cfg(unix)]
    {
        // NamedTempFile defaults to 0600; a graph file should be as readable as any
        // other file the user writes (the umask still applies).
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o644));
    }
    let tmp = builder.tempfile_in(dir).map_err(|e| Error::io(dir, e))?;
    {
        let buffered = BufWriter::with_capacity(1 << 20, tmp.as_file());
        let mut sink = Sink::new(buffered, gzip);
        f(&mut sink)?;
        let buffered = sink.finish().map_err(|e| Error::io(path, e))?;
        let file: &File = buffered
            .into_inner()
            .map_err(|e| Error::io(path, e.into_error()))?;
        file.sync_all().map_err(|e| Error::io(path, e))?;
    }
    tmp.persist(path).map_err(|e| Error::io(path, e.error))?;
    Ok(())
}

/// Maps an I/O error while writing `path`.
pub(super) fn io_err(path: &Path) -> impl Fn(std::io::Error) -> Error + '_ {
    move |e| Error::io(path, e)
}

/// Vertex ranges of roughly equal output size (edges + one per vertex).
fn blocks<W: Weight>(csr: &Csr<W>, per_block: u64) -> Vec<Range<usize>> {
    let n = csr.num_vertices();
    let offsets = csr.offsets();
    let mut out = Vec::new();
    let mut start = 0usize;
    while start < n {
        // The smallest `end` whose load (edges + vertices since `start`) reaches
        // `per_block`; the load grows with `end`, so binary search.
        let load = |end: usize| (offsets[end] - offsets[start]) + (end - start) as u64;
        let (mut lo, mut hi) = (start + 1, n);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if load(mid) >= per_block {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        let end = lo;
        out.push(start..end);
        start = end;
    }
    out
}

/// Formats every vertex's row with `row` (in parallel, by blocks) and writes the
/// bytes in vertex order. `bar` advances by edges written.
pub(super) fn write_rows<W: Weight>(
    csr: &Csr<W>,
    out: &mut dyn Write,
    path: &Path,
    bar: &ProgressBar,
    row: impl Fn(u32, &mut Vec<u8>) + Sync,
) -> Result<()> {
    let blocks = blocks(csr, 1 << 16);
    let batch = rayon::current_num_threads().max(1) * 4;
    let offsets = csr.offsets();
    for group in blocks.chunks(batch) {
        let bufs: Vec<Vec<u8>> = group
            .par_iter()
            .map(|r| {
                let edges = offsets[r.end] - offsets[r.start];
                let mut buf = Vec::with_capacity((edges as usize + r.len()) * 12);
                for v in r.clone() {
                    // Vertex ids are below num_vertices <= 2^32.
                    row(v as u32, &mut buf);
                }
                buf
            })
            .collect();
        for (buf, r) in bufs.iter().zip(group) {
            out.write_all(buf).map_err(io_err(path))?;
            bar.inc(offsets[r.end] - offsets[r.start]);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::{build, BuildOptions, EdgeList};

    #[test]
    fn blocks_cover_all_vertices() {
        let el = EdgeList::<u32> {
            num_vertices: 1000,
            edges: (0..5000u32).map(|i| [i % 7, i % 1000]).collect(),
            weights: None,
        };
        let g = build(&el, BuildOptions::default()).unwrap();
        for per in [1, 3, 100, 1 << 20] {
            let b = blocks(g.csr(), per);
            assert_eq!(b.first().unwrap().start, 0);
            assert_eq!(b.last().unwrap().end, 1000);
            for w in b.windows(2) {
                assert_eq!(w[0].end, w[1].start);
            }
        }
    }

    #[test]
    fn failed_write_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("g.el");
        std::fs::write(&p, b"old").unwrap();
        let r = atomic_write(&p, false, |w| {
            w.write_all(b"partial").map_err(io_err(&p))?;
            Err(Error::InvalidArgument("boom".into()))
        });
        assert!(r.is_err());
        assert_eq!(std::fs::read(&p).unwrap(), b"old");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
        atomic_write(&p, false, |w| w.write_all(b"new").map_err(io_err(&p))).unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"new");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}
