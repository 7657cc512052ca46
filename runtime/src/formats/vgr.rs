//! `.vgr`: the binary snapshot of a built graph, loaded with mmap and no copy.
//!
//! Layout (little-endian, every array 8-byte aligned so it can be viewed in place):
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0  | 8 | magic `VERTEXG\0` |
//! | 8  | 4 | format version (1) |
//! | 12 | 4 | flags: bit 0 weighted, bit 1 symmetric |
//! | 16 | 4 | weight type code ([`WeightKind::code`]), 0 if unweighted |
//! | 20 | 4 | reserved (0) |
//! | 24 | 8 | vertex count n |
//! | 32 | 8 | edge count m |
//! | 40 | 8 | xxh3-64 of every byte after the header |
//! | 48 | 8 | xxh3-64 of bytes 0..48 (catches a corrupt header before sizes are trusted) |
//! | 56 | 8 | reserved (0) |
//! | 64 | 8(n+1) | offsets |
//! | …  | 4m, padded to 8 | targets |
//! | …  | size(W)·m | weights (if weighted) |
//!
//! Writes go to a temporary file in the same directory, are synced, then renamed
//! over the real name: a crash leaves either the old file or the new one, never half.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;
use std::sync::Arc;

use memmap2::Mmap;
use xxhash_rust::xxh3::{xxh3_64, Xxh3};

use crate::error::{Error, Result};
use crate::graph::{Buf, Csr, Graph, Weight, WeightKind};

const MAGIC: &[u8; 8] = b"VERTEXG\0";
const VERSION: u32 = 1;
const HEADER: usize = 64;
const FLAG_WEIGHTED: u32 = 1;
const FLAG_SYMMETRIC: u32 = 2;

/// What the header of a `.vgr` file says, read without touching the arrays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VgrHeader {
    pub num_vertices: u64,
    pub num_edges: u64,
    pub weight_kind: Option<WeightKind>,
    pub symmetric: bool,
    data_checksum: u64,
}

impl VgrHeader {
    fn targets_offset(&self) -> u64 {
        HEADER as u64 + 8 * (self.num_vertices + 1)
    }
    fn weights_offset(&self) -> u64 {
        self.targets_offset() + (4 * self.num_edges).div_ceil(8) * 8
    }
    fn file_len(&self) -> Option<u64> {
        let w = self.weight_kind.map_or(0, |k| k.size() as u64);
        self.num_edges
            .checked_mul(w)?
            .checked_add(self.weights_offset())
    }

    fn encode(&self) -> [u8; HEADER] {
        let mut h = [0u8; HEADER];
        h[0..8].copy_from_slice(MAGIC);
        h[8..12].copy_from_slice(&VERSION.to_le_bytes());
        let flags = if self.weight_kind.is_some() {
            FLAG_WEIGHTED
        } else {
            0
        } | if self.symmetric { FLAG_SYMMETRIC } else { 0 };
        h[12..16].copy_from_slice(&flags.to_le_bytes());
        h[16..20].copy_from_slice(&self.weight_kind.map_or(0, |k| k.code()).to_le_bytes());
        h[24..32].copy_from_slice(&self.num_vertices.to_le_bytes());
        h[32..40].copy_from_slice(&self.num_edges.to_le_bytes());
        h[40..48].copy_from_slice(&self.data_checksum.to_le_bytes());
        let hc = xxh3_64(&h[0..48]);
        h[48..56].copy_from_slice(&hc.to_le_bytes());
        h
    }

    fn decode(bytes: &[u8], path: &Path) -> Result<Self> {
        let bad = |msg: String| Error::format(path, msg);
        if bytes.len() < HEADER {
            return Err(bad(format!(
                "truncated: {} bytes, a .vgr header alone is {HEADER}",
                bytes.len()
            )));
        }
        if bytes.starts_with(&[0x1f, 0x8b]) {
            return Err(bad(
                "gzip-compressed: .vgr snapshots are memory-mapped and cannot be compressed \
                 (gunzip it first)"
                    .into(),
            ));
        }
        if &bytes[0..8] != MAGIC {
            return Err(bad("not a .vgr file (bad magic number)".into()));
        }
        let u32_at = |o: usize| u32::from_le_bytes(bytes[o..o + 4].try_into().expect("4 bytes"));
        let u64_at = |o: usize| u64::from_le_bytes(bytes[o..o + 8].try_into().expect("8 bytes"));
        let version = u32_at(8);
        if version != VERSION {
            return Err(bad(format!(
                "unsupported .vgr version {version} (this build reads version {VERSION})"
            )));
        }
        if xxh3_64(&bytes[0..48]) != u64_at(48) {
            return Err(bad("header checksum mismatch (file corrupt)".into()));
        }
        if bytes[56..64].iter().any(|&b| b != 0) || u32_at(20) != 0 {
            return Err(bad(
                "reserved header bytes are not zero (file corrupt or from a newer writer)".into(),
            ));
        }
        let flags = u32_at(12);
        if flags & !(FLAG_WEIGHTED | FLAG_SYMMETRIC) != 0 {
            return Err(bad(format!("unknown header flags {flags:#x}")));
        }
        let code = u32_at(16);
        let weight_kind = if flags & FLAG_WEIGHTED != 0 {
            Some(
                WeightKind::from_code(code)
                    .ok_or_else(|| bad(format!("unknown weight type code {code}")))?,
            )
        } else {
            None
        };
        let h = VgrHeader {
            num_vertices: u64_at(24),
            num_edges: u64_at(32),
            weight_kind,
            symmetric: flags & FLAG_SYMMETRIC != 0,
            data_checksum: u64_at(40),
        };
        if h.num_vertices > crate::graph::MAX_VERTICES as u64 {
            return Err(bad(format!(
                "{} vertices do not fit 32-bit ids",
                h.num_vertices
            )));
        }
        Ok(h)
    }
}

/// Options for [`load`].
#[derive(Clone, Copy, Debug)]
pub struct VgrLoadOptions {
    /// Hash every byte against the stored checksum (one fast sequential pass).
    pub verify_checksum: bool,
}

impl Default for VgrLoadOptions {
    fn default() -> Self {
        VgrLoadOptions {
            verify_checksum: true,
        }
    }
}

/// Reads only the header.
pub fn read_header(path: &Path) -> Result<VgrHeader> {
    use std::io::Read;
    let mut f = File::open(path).map_err(|e| Error::io(path, e))?;
    let mut buf = Vec::with_capacity(HEADER);
    Read::by_ref(&mut f)
        .take(HEADER as u64)
        .read_to_end(&mut buf)
        .map_err(|e| Error::io(path, e))?;
    VgrHeader::decode(&buf, path)
}

/// Maps a `.vgr` file and checks its header and its length against it.
fn map_checked(path: &Path) -> Result<(Mmap, VgrHeader)> {
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    // SAFETY: the mapping is read-only. Another process truncating or rewriting the
    // file while it is mapped could change what we read; our own writer never does
    // that (it replaces files by rename, leaving the mapped inode intact).
    let map = unsafe { Mmap::map(&file) }.map_err(|e| Error::io(path, e))?;
    let h = VgrHeader::decode(&map, path)?;
    let expected = h
        .file_len()
        .ok_or_else(|| Error::format(path, "header sizes overflow"))?;
    if map.len() as u64 != expected {
        return Err(Error::format(
            path,
            format!(
                "file is {} bytes but its header ({} vertices, {} edges{}) needs {expected} (truncated or corrupt)",
                map.len(),
                h.num_vertices,
                h.num_edges,
                h.weight_kind.map_or(String::new(), |k| format!(", {k} weights"))
            ),
        ));
    }
    Ok((map, h))
}

/// Maps a `.vgr` file; the returned graph's arrays point into the mapping.
///
/// `W` must match the stored weight type (an unweighted file loads as any `W`).
pub fn load<W: Weight>(path: &Path, opts: VgrLoadOptions) -> Result<Graph<W>> {
    let (map, h) = map_checked(path)?;
    if let Some(k) = h.weight_kind {
        if k != W::KIND {
            return Err(Error::format(
                path,
                format!("stored weights are {k}, but {} was requested", W::KIND),
            ));
        }
    }
    if opts.verify_checksum && xxh3_64(&map[HEADER..]) != h.data_checksum {
        return Err(Error::format(path, "data checksum mismatch (file corrupt)"));
    }
    let map = Arc::new(map);
    let n = h.num_vertices as usize;
    let m = h.num_edges as usize;
    let corrupt = || Error::format(path, "array out of bounds or misaligned");
    let offsets = Buf::mapped(map.clone(), HEADER, n + 1).ok_or_else(corrupt)?;
    let targets = Buf::mapped(map.clone(), h.targets_offset() as usize, m).ok_or_else(corrupt)?;
    let weights = match h.weight_kind {
        Some(_) => {
            Some(Buf::mapped(map.clone(), h.weights_offset() as usize, m).ok_or_else(corrupt)?)
        }
        None => None,
    };
    let csr = Csr::from_parts(offsets, targets, weights)
        .map_err(|e| Error::format(path, e.to_string()))?;
    Ok(Graph::new(csr, h.symmetric))
}

/// Rows of a `.vgr` file read by one rank of several ([`read_rows`]).
#[derive(Clone, Debug)]
pub struct VgrRows {
    pub header: VgrHeader,
    /// Offsets of the rows read, from 0 (`rows + 1` entries).
    pub offsets: Vec<u64>,
    pub targets: Vec<u32>,
}

/// Rows `rows` of a `.vgr` file (their offsets and targets, weights left
/// out), read through a map that touches only their pages and the header's:
/// what each rank of a distributed run reads of a snapshot of the whole
/// graph. The file's length is checked against its header and the rows'
/// offsets and targets against the file, but the whole-file checksum is not
/// (that would read every byte on every rank).
pub fn read_rows(path: &Path, rows: std::ops::Range<usize>) -> Result<VgrRows> {
    let (map, h) = map_checked(path)?;
    let n = h.num_vertices as usize;
    if rows.start > rows.end || rows.end > n {
        return Err(Error::InvalidArgument(format!(
            "rows {rows:?} of a graph of {n} vertices ({})",
            path.display()
        )));
    }
    let word = |at: usize| u64::from_le_bytes(map[at..at + 8].try_into().expect("8 bytes"));
    let offsets: Vec<u64> = (rows.start..=rows.end)
        .map(|v| word(HEADER + 8 * v))
        .collect();
    let (lo, hi) = (offsets[0], offsets[offsets.len() - 1]);
    if offsets.windows(2).any(|w| w[0] > w[1]) || hi > h.num_edges {
        return Err(Error::format(
            path,
            format!("offsets of rows {rows:?} decrease or pass the edge count (file corrupt)"),
        ));
    }
    let at = h.targets_offset() as usize + 4 * lo as usize;
    let targets: Vec<u32> = map[at..at + 4 * (hi - lo) as usize]
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes")))
        .collect();
    if let Some(t) = targets.iter().find(|&&t| t as usize >= n) {
        return Err(Error::format(
            path,
            format!("edge target {t} out of range in rows {rows:?} ({n} vertices; file corrupt)"),
        ));
    }
    Ok(VgrRows {
        header: h,
        offsets: offsets.iter().map(|o| o - lo).collect(),
        targets,
    })
}

/// Writes `g` atomically (temporary file + fsync + rename).
pub fn save<W: Weight>(g: &Graph<W>, path: &Path) -> Result<()> {
    let csr = g.csr();
    let pad =
        vec![0u8; (4 * csr.num_edges() as usize).div_ceil(8) * 8 - 4 * csr.num_edges() as usize];
    let sections: [&[u8]; 4] = [
        bytemuck::cast_slice(csr.offsets()),
        bytemuck::cast_slice(csr.targets()),
        &pad,
        csr.weights().map_or(&[][..], |w| bytemuck::cast_slice(w)),
    ];
    let mut hasher = Xxh3::new();
    for s in sections {
        hasher.update(s);
    }
    let header = VgrHeader {
        num_vertices: csr.num_vertices() as u64,
        num_edges: csr.num_edges(),
        weight_kind: csr.is_weighted().then_some(W::KIND),
        symmetric: g.is_symmetric(),
        data_checksum: hasher.digest(),
    };
    let total: u64 = HEADER as u64 + sections.iter().map(|s| s.len() as u64).sum::<u64>();
    let pb = crate::progress::bar(total, "writing");
    atomic_write(path, |w| {
        w.write_all(&header.encode())?;
        for s in sections {
            for chunk in s.chunks(1 << 24) {
                w.write_all(chunk)?;
                pb.inc(chunk.len() as u64);
            }
        }
        Ok(())
    })?;
    pb.finish_and_clear();
    Ok(())
}

/// Writes `f`'s output to a temporary file beside `path`, syncs it, and renames it
/// over `path`. On any error the temporary file is removed and `path` is untouched.
pub fn atomic_write(
    path: &Path,
    f: impl FnOnce(&mut BufWriter<&mut File>) -> std::io::Result<()>,
) -> Result<()> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let mut tmp = tempfile::Builder::new()
        .prefix(".vertex-")
        .suffix(".tmp")
        .tempfile_in(dir)
        .map_err(|e| Error::io(dir, e))?;
    {
        let mut w = BufWriter::with_capacity(1 << 20, tmp.as_file_mut());
        f(&mut w).map_err(|e| Error::io(path, e))?;
        w.flush().map_err(|e| Error::io(path, e))?;
    }
    // Temporary files are created private (0600); a result file gets the usual
    // permissions of a new file (0644 before the umask).
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        tmp.as_file()
            .set_permissions(std::fs::Permissions::from_mode(0o644))
            .map_err(|e| Error::io(path, e))?;
    }
    tmp.as_file().sync_all().map_err(|e| Error::io(path, e))?;
    tmp.persist(path).map_err(|e| Error::io(path, e.error))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::{build, BuildOptions, EdgeList};
    use proptest::prelude::*;

    fn sample(weighted: bool) -> Graph<f32> {
        let el = EdgeList::<f32> {
            num_vertices: 5,
            edges: vec![[0, 1], [1, 2], [3, 1]],
            weights: weighted.then(|| vec![0.5, 2.0, 0.0]),
        };
        build(&el, BuildOptions::default()).unwrap()
    }

    #[test]
    fn round_trip_is_zero_copy() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("g.vgr");
        for weighted in [false, true] {
            let g = sample(weighted);
            save(&g, &p).unwrap();
            let h = read_header(&p).unwrap();
            assert_eq!(h.num_vertices, 5);
            let back = load::<f32>(&p, VgrLoadOptions::default()).unwrap();
            assert!(back.csr().is_mapped());
            assert_eq!(back.csr().offsets(), g.csr().offsets());
            assert_eq!(back.csr().targets(), g.csr().targets());
            assert_eq!(back.csr().weights(), g.csr().weights());
        }
        // only the final file remains: no temporaries left behind
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names.len(), 1, "{names:?}");
    }

    #[test]
    fn wrong_weight_type_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("g.vgr");
        save(&sample(true), &p).unwrap();
        let e = load::<u32>(&p, VgrLoadOptions::default())
            .unwrap_err()
            .to_string();
        assert!(e.contains("stored weights are f32"), "{e}");
    }

    #[test]
    fn failed_write_leaves_old_file() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("g.vgr");
        std::fs::write(&p, b"old").unwrap();
        let r = atomic_write(&p, |w| {
            w.write_all(b"partial")?;
            Err(std::io::Error::other("disk full"))
        });
        assert!(r.is_err());
        assert_eq!(std::fs::read(&p).unwrap(), b"old");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    proptest! {
        /// Any corruption of any byte or any truncation is caught, never a panic.
        #[test]
        fn corruption_is_detected(pos in 0usize..200, flip in 1u8..=255, cut in 0usize..200) {
            let dir = tempfile::tempdir().unwrap();
            let p = dir.path().join("g.vgr");
            save(&sample(true), &p).unwrap();
            let good = std::fs::read(&p).unwrap();
            let mut bytes = good.clone();
            let pos = pos % bytes.len();
            bytes[pos] ^= flip;
            std::fs::write(&p, &bytes).unwrap();
            prop_assert!(load::<f32>(&p, VgrLoadOptions::default()).is_err());
            std::fs::write(&p, &good[..cut % good.len()]).unwrap();
            prop_assert!(load::<f32>(&p, VgrLoadOptions::default()).is_err());
        }
    }
}
