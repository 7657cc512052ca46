//! Writing an APSP result: a binary matrix (streamed row block by row block, so
//! `n²` larger than memory works), CSV/text for small `n`, and the summary.
//!
//! # Binary layout (`.apsp`, any extension other than `.csv`/`.txt`)
//!
//! All integers little-endian. A 64-byte header, then the data:
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 8 | magic `VXAPSP\0\x01` |
//! | 8 | 4 | format version, `1` |
//! | 12 | 4 | element type: the `.vgr` weight code (1 u32, 2 i32, 3 u64, 4 i64, 5 f32, 6 f64) |
//! | 16 | 8 | `n`, the number of vertices |
//! | 24 | 8 | flags: bit 0 = a next-hop matrix follows the distances |
//! | 32 | 8 | the ∞ sentinel: the element's bytes, zero-padded to 8 (`i32::MAX`, `i64::MAX`, `+inf`; `0` for max-min/or-and) |
//! | 40 | 8 | xxh3-64 of every byte after the header |
//! | 48 | 16 | reserved, zero |
//! | 64 | `n²·size` | distances, row-major: entry `(i, j)` at `64 + (i·n + j)·size` |
//! | … | `n²·4` | (flag bit 0) next hops, u32 row-major, `u32::MAX` = none |
//!
//! The file is written to a temporary beside the target and renamed over it only
//! when complete (as `.vgr` snapshots are): a crash or an error never leaves a
//! truncated matrix under the requested name.
//!
//! # Text layout (`.csv`, `.txt`)
//!
//! A `#` comment line (`# vertex apsp: n=…, semiring=…, element=…`), then one line
//! per source vertex with its `n` distances separated by `,` (csv) or a space
//! (txt); no path is written `inf`.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use xxhash_rust::xxh3::Xxh3;

use super::matrix::DistMatrix;
use super::semiring::{Elem, Semiring};
use crate::error::{Error, Result};
use crate::graph::{Weight, WeightKind};

pub const MAGIC: [u8; 8] = *b"VXAPSP\0\x01";
pub const VERSION: u32 = 1;
pub const HEADER_BYTES: usize = 64;
pub const FLAG_NEXT_HOP: u64 = 1;

/// The parsed header of a binary matrix file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    pub kind: WeightKind,
    pub n: u64,
    pub flags: u64,
    pub infinity: [u8; 8],
    pub checksum: u64,
}

impl Header {
    fn encode(&self) -> [u8; HEADER_BYTES] {
        let mut b = [0u8; HEADER_BYTES];
        b[0..8].copy_from_slice(&MAGIC);
        b[8..12].copy_from_slice(&VERSION.to_le_bytes());
        b[12..16].copy_from_slice(&self.kind.code().to_le_bytes());
        b[16..24].copy_from_slice(&self.n.to_le_bytes());
        b[24..32].copy_from_slice(&self.flags.to_le_bytes());
        b[32..40].copy_from_slice(&self.infinity);
        b[40..48].copy_from_slice(&self.checksum.to_le_bytes());
        b
    }

    fn decode(path: &Path, b: &[u8; HEADER_BYTES]) -> Result<Header> {
        if b[0..8] != MAGIC {
            return Err(Error::format(path, "not a vertex APSP matrix (bad magic)"));
        }
        let u32_at = |o: usize| u32::from_le_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]]);
        let u64_at = |o: usize| {
            let mut x = [0u8; 8];
            x.copy_from_slice(&b[o..o + 8]);
            u64::from_le_bytes(x)
        };
        let version = u32_at(8);
        if version != VERSION {
            return Err(Error::format(
                path,
                format!("APSP matrix format version {version}, this build reads {VERSION}"),
            ));
        }
        let kind = WeightKind::from_code(u32_at(12)).ok_or_else(|| {
            Error::format(path, format!("unknown element type code {}", u32_at(12)))
        })?;
        let mut infinity = [0u8; 8];
        infinity.copy_from_slice(&b[32..40]);
        Ok(Header {
            kind,
            n: u64_at(16),
            flags: u64_at(24),
            infinity,
            checksum: u64_at(40),
        })
    }
}

/// Output format chosen by extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    Binary,
    Text(u8),
}

impl Layout {
    pub fn of(path: &Path) -> Layout {
        match path.extension().and_then(|e| e.to_str()) {
            Some("csv") => Layout::Text(b','),
            Some("txt") => Layout::Text(b' '),
            _ => Layout::Binary,
        }
    }
}

/// Streams a matrix to `path` through a temporary file renamed into place by
/// [`MatrixWriter::finish`]; dropping an unfinished writer deletes the temporary.
pub struct MatrixWriter<S: Semiring> {
    path: PathBuf,
    layout: Layout,
    tmp: tempfile::NamedTempFile,
    hasher: Xxh3,
    n: u64,
    rows: u64,
    next_rows: u64,
    with_next: bool,
    _s: std::marker::PhantomData<S>,
}

impl<S: Semiring> MatrixWriter<S> {
    /// Starts a file for an `n × n` result (`with_next`: a next-hop section follows).
    pub fn create(path: &Path, n: usize, with_next: bool) -> Result<Self> {
        let dir = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        let tmp = tempfile::Builder::new()
            .prefix(".vertex-")
            .suffix(".tmp")
            .tempfile_in(dir)
            .map_err(|e| Error::io(dir, e))?;
        let layout = Layout::of(path);
        if with_next && layout != Layout::Binary {
            return Err(Error::InvalidArgument(
                "next hops can only be stored in the binary layout".into(),
            ));
        }
        let mut w = MatrixWriter {
            path: path.to_path_buf(),
            layout,
            tmp,
            hasher: Xxh3::new(),
            n: n as u64,
            rows: 0,
            next_rows: 0,
            with_next,
            _s: std::marker::PhantomData,
        };
        match layout {
            Layout::Binary => {
                let h = w.header(0);
                w.raw(&h.encode())?;
            }
            Layout::Text(_) => {
                let line = format!(
                    "# vertex apsp: n={n}, semiring={}, element={}; row i = distances from vertex i, inf = no path\n",
                    S::name(),
                    S::T::KIND
                );
                w.raw(line.as_bytes())?;
            }
        }
        Ok(w)
    }

    fn header(&self, checksum: u64) -> Header {
        let mut infinity = [0u8; 8];
        let z = S::zero();
        let zb = bytemuck::bytes_of(&z);
        infinity[..zb.len()].copy_from_slice(zb);
        Header {
            kind: S::T::KIND,
            n: self.n,
            flags: if self.with_next { FLAG_NEXT_HOP } else { 0 },
            infinity,
            checksum,
        }
    }

    fn raw(&mut self, b: &[u8]) -> Result<()> {
        self.tmp
            .as_file_mut()
            .write_all(b)
            .map_err(|e| Error::io(&self.path, e))
    }

    fn data(&mut self, b: &[u8]) -> Result<()> {
        self.hasher.update(b);
        self.raw(b)
    }

    /// Appends whole rows (`rows.len()` a multiple of `n`), in order.
    pub fn write_rows(&mut self, rows: &[S::T]) -> Result<()> {
        let n = self.n as usize;
        if n == 0 {
            return Ok(());
        }
        let k = (rows.len() / n) as u64;
        if self.rows + k > self.n || rows.len() % n != 0 {
            return Err(Error::InvalidArgument(
                "too many or partial rows for the matrix".into(),
            ));
        }
        match self.layout {
            Layout::Binary => self.data(bytemuck::cast_slice(rows))?,
            Layout::Text(sep) => {
                let mut s = String::with_capacity(rows.len() * 6);
                for row in rows.chunks(n) {
                    for (j, &x) in row.iter().enumerate() {
                        if j > 0 {
                            s.push(sep as char);
                        }
                        if S::is_zero(x) {
                            s.push_str("inf");
                        } else {
                            s.push_str(&x.to_string());
                        }
                    }
                    s.push('\n');
                }
                self.raw(s.as_bytes())?;
            }
        }
        self.rows += k;
        Ok(())
    }

    /// Appends next-hop rows after all distance rows.
    pub fn write_next_rows(&mut self, next: &[u32]) -> Result<()> {
        if !self.with_next || self.rows != self.n {
            return Err(Error::InvalidArgument(
                "next hops go after all distance rows, in a file created for them".into(),
            ));
        }
        self.next_rows += next.len() as u64 / self.n.max(1);
        self.data(bytemuck::cast_slice(next))
    }

    /// Completes the file: header checksum, sync, rename over the target.
    pub fn finish(mut self) -> Result<PathBuf> {
        if self.rows != self.n || (self.with_next && self.next_rows != self.n) {
            return Err(Error::InvalidArgument(format!(
                "matrix incomplete: {} of {} rows written",
                self.rows, self.n
            )));
        }
        if self.layout == Layout::Binary {
            let h = self.header(self.hasher.digest());
            let f = self.tmp.as_file_mut();
            f.seek(SeekFrom::Start(0))
                .and_then(|_| f.write_all(&h.encode()))
                .map_err(|e| Error::io(&self.path, e))?;
        }
        #[cfg(unix)]
        {
            // tempfile creates 0600; a result file is as readable as any other.
            use std::os::unix::fs::PermissionsExt;
            self.tmp
                .as_file()
                .set_permissions(std::fs::Permissions::from_mode(0o644))
                .map_err(|e| Error::io(&self.path, e))?;
        }
        self.tmp
            .as_file()
            .sync_all()
            .map_err(|e| Error::io(&self.path, e))?;
        let path = self.path.clone();
        self.tmp
            .persist(&path)
            .map_err(|e| Error::io(&path, e.error))?;
        Ok(path)
    }
}

/// Writes a whole in-memory matrix (and next hops) to `path`.
pub fn write_matrix<S: Semiring>(
    path: &Path,
    m: &DistMatrix<S::T>,
    next: Option<&[u32]>,
) -> Result<PathBuf> {
    let mut w = MatrixWriter::<S>::create(path, m.n(), next.is_some())?;
    let n = m.n().max(1);
    for block in m.as_slice().chunks(n * 1024) {
        w.write_rows(block)?;
    }
    if let Some(nx) = next {
        for block in nx.chunks(n * 1024) {
            w.write_next_rows(block)?;
        }
    }
    w.finish()
}

/// Reads a binary matrix file (checks magic, version, element type, size and
/// checksum); returns the header, the distances and the next hops if stored.
pub fn read_matrix<T: Elem>(path: &Path) -> Result<(Header, DistMatrix<T>, Option<Vec<u32>>)> {
    let mut f = BufWriterless::open(path)?;
    let mut hb = [0u8; HEADER_BYTES];
    f.read_exact(&mut hb)?;
    let h = Header::decode(path, &hb)?;
    if h.kind != T::KIND {
        return Err(Error::format(
            path,
            format!(
                "matrix holds {} elements, {} was asked for",
                h.kind,
                T::KIND
            ),
        ));
    }
    let n = usize::try_from(h.n).map_err(|_| Error::format(path, "n too large"))?;
    let len = super::matrix::dense_len::<T>(n)?;
    let mut data = vec![T::default(); len];
    f.read_exact(bytemuck::cast_slice_mut(&mut data))?;
    let mut hasher = Xxh3::new();
    hasher.update(bytemuck::cast_slice(&data));
    let next = if h.flags & FLAG_NEXT_HOP != 0 {
        let mut nx = vec![0u32; len];
        f.read_exact(bytemuck::cast_slice_mut(&mut nx))?;
        hasher.update(bytemuck::cast_slice(&nx));
        Some(nx)
    } else {
        None
    };
    if hasher.digest() != h.checksum {
        return Err(Error::format(
            path,
            "checksum mismatch: the file is damaged",
        ));
    }
    Ok((h, DistMatrix::from_vec(n, data)?, next))
}

/// A file reader whose errors carry the path.
struct BufWriterless {
    path: PathBuf,
    f: std::io::BufReader<File>,
}

impl BufWriterless {
    fn open(path: &Path) -> Result<Self> {
        let f = File::open(path).map_err(|e| Error::io(path, e))?;
        Ok(BufWriterless {
            path: path.to_path_buf(),
            f: std::io::BufReader::with_capacity(1 << 20, f),
        })
    }
    fn read_exact(&mut self, b: &mut [u8]) -> Result<()> {
        self.f.read_exact(b).map_err(|e| {
            if e.kind() == std::io::ErrorKind::UnexpectedEof {
                Error::format(&self.path, "file is truncated")
            } else {
                Error::io(&self.path, e)
            }
        })
    }
}

/// The summary every APSP run prints: sum of finite entries, ∞ count, diameter.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Summary {
    pub n: u64,
    /// Sum of all finite entries (the diagonal included).
    pub checksum: serde_json::Value,
    /// Ordered pairs `(i, j)` with no path.
    pub unreachable: u64,
    /// Largest finite `d(i, j)`, `i ≠ j` (null if there is none).
    pub diameter: serde_json::Value,
}

/// Accumulates a [`Summary`] row by row.
#[derive(Clone, Debug)]
pub struct SummaryAcc<S: Semiring> {
    n: u64,
    int_sum: i128,
    float_sum: f64,
    unreachable: u64,
    diameter: Option<S::T>,
}

impl<S: Semiring> SummaryAcc<S> {
    pub fn new(n: usize) -> Self {
        SummaryAcc {
            n: n as u64,
            int_sum: 0,
            float_sum: 0.0,
            unreachable: 0,
            diameter: None,
        }
    }

    /// Adds row `i`.
    pub fn row(&mut self, i: usize, row: &[S::T]) {
        for (j, &x) in row.iter().enumerate() {
            if S::is_zero(x) {
                self.unreachable += 1;
                continue;
            }
            match x.to_i128() {
                Some(v) => self.int_sum += v,
                None => self.float_sum += x.to_f64(),
            }
            if i != j && self.diameter.is_none_or(|d| x > d) {
                self.diameter = Some(x);
            }
        }
    }

    /// Adds consecutive rows starting at row `first`.
    pub fn rows(&mut self, first: usize, rows: &[S::T]) {
        let n = self.n as usize;
        if n == 0 {
            return;
        }
        for (k, r) in rows.chunks(n).enumerate() {
            self.row(first + k, r);
        }
    }

    /// Adds rows known only by their totals: `sum` of their finite entries,
    /// `unreachable` entries, and their largest off-diagonal entry.
    pub fn add_totals(&mut self, sum: i128, unreachable: u64, largest: Option<S::T>) {
        if S::T::KIND.is_float() {
            self.float_sum += sum as f64;
        } else {
            self.int_sum += sum;
        }
        self.unreachable += unreachable;
        self.take_largest(largest);
    }

    /// Adds what another accumulator over other rows of the same matrix saw.
    pub fn merge(&mut self, other: &Self) {
        self.int_sum += other.int_sum;
        self.float_sum += other.float_sum;
        self.unreachable += other.unreachable;
        self.take_largest(other.diameter);
    }

    fn take_largest(&mut self, x: Option<S::T>) {
        if let Some(x) = x {
            if self.diameter.is_none_or(|d| x > d) {
                self.diameter = Some(x);
            }
        }
    }

    pub fn finish(&self) -> Summary {
        let float = S::T::KIND.is_float();
        let num = |i: i128, f: f64| -> serde_json::Value {
            if float {
                serde_json::json!(f)
            } else if let Ok(v) = i64::try_from(i) {
                serde_json::json!(v)
            } else {
                serde_json::json!(i as f64)
            }
        };
        Summary {
            n: self.n,
            checksum: num(self.int_sum, self.float_sum),
            unreachable: self.unreachable,
            diameter: match self.diameter {
                None => serde_json::Value::Null,
                Some(d) => num(d.to_i128().unwrap_or(0), d.to_f64()),
            },
        }
    }
}

/// The summary of an in-memory matrix.
pub fn summarize<S: Semiring>(m: &DistMatrix<S::T>) -> Summary {
    let mut acc = SummaryAcc::<S>::new(m.n());
    acc.rows(0, m.as_slice());
    acc.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::apsp::semiring::MinPlus;

    #[test]
    fn binary_round_trip_and_damage() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("m.apsp");
        let m = DistMatrix::from_vec(2, vec![0i32, 5, i32::MAX, 0]).unwrap();
        let next = vec![u32::MAX, 1, u32::MAX, u32::MAX];
        write_matrix::<MinPlus<i32>>(&p, &m, Some(&next)).unwrap();
        let (h, back, nx) = read_matrix::<i32>(&p).unwrap();
        assert_eq!((h.n, h.kind), (2, WeightKind::I32));
        assert_eq!(back, m);
        assert_eq!(nx.as_deref(), Some(&next[..]));
        assert!(read_matrix::<i64>(&p).is_err());
        let mut bytes = std::fs::read(&p).unwrap();
        bytes[HEADER_BYTES] ^= 1;
        std::fs::write(&p, &bytes).unwrap();
        assert!(matches!(read_matrix::<i32>(&p), Err(Error::Format { .. })));
        std::fs::write(&p, &bytes[..70]).unwrap();
        assert!(read_matrix::<i32>(&p).is_err());
        let s = summarize::<MinPlus<i32>>(&m);
        assert_eq!(
            (s.checksum.as_i64(), s.unreachable, s.diameter.as_i64()),
            (Some(5), 1, Some(5))
        );
    }

    #[test]
    fn csv_and_no_leftovers_on_error() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("m.csv");
        let m = DistMatrix::from_vec(2, vec![0.0f64, 1.5, f64::INFINITY, 0.0]).unwrap();
        write_matrix::<MinPlus<f64>>(&p, &m, None).unwrap();
        let text = std::fs::read_to_string(&p).unwrap();
        assert!(text.ends_with("0,1.5\ninf,0\n"), "{text}");
        // An unfinished writer leaves nothing behind.
        let q = dir.path().join("x.apsp");
        let w = MatrixWriter::<MinPlus<f64>>::create(&q, 3, false).unwrap();
        drop(w);
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1);
    }
}
