//! The two bulk steps of building a rank's part, in parallel: sorting items
//! into per-rank messages ([`scatter`]) and building CSR rows from
//! `(row, value)` pairs ([`bucket_rows`]). A rank holds hundreds of millions of
//! edges at Graph500 scale 24 and up: these run on all its cores.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

use rayon::prelude::*;

/// Items per parallel piece of [`scatter`]'s input.
const PIECE: usize = 1 << 16;
/// Rows per parallel block when sorting rows.
const BLOCK: usize = 4096;

/// Per destination rank, the bytes of the items `emit` sends there:
/// `emit(i, send)` runs for every `i` in `0..len` (in parallel pieces, each
/// piece in order) and calls `send(rank, item)` for each item it sends.
pub(crate) fn scatter<T: bytemuck::Pod + Send + Sync>(
    world: usize,
    len: usize,
    emit: impl Fn(usize, &mut dyn FnMut(usize, T)) + Sync,
) -> Vec<Vec<u8>> {
    let pieces: Vec<Vec<Vec<T>>> = (0..len.div_ceil(PIECE))
        .into_par_iter()
        .map(|p| {
            let mut out: Vec<Vec<T>> = (0..world).map(|_| Vec::new()).collect();
            for i in p * PIECE..((p + 1) * PIECE).min(len) {
                emit(i, &mut |d, x| out[d].push(x));
            }
            out
        })
        .collect();
    (0..world)
        .into_par_iter()
        .map(|d| {
            let items: usize = pieces.iter().map(|p| p[d].len()).sum();
            let mut bytes = Vec::with_capacity(items * std::mem::size_of::<T>());
            for p in &pieces {
                bytes.extend_from_slice(bytemuck::cast_slice(&p[d]));
            }
            bytes
        })
        .collect()
}

/// CSR rows `0..rows` from `(row, value)` pairs: `pairs()` is walked twice
/// (counted, then placed), every row is then sorted, and with `dedup`
/// repeats are dropped. Each `row` must be below `rows`.
pub(crate) fn bucket_rows<I>(
    rows: usize,
    pairs: impl Fn() -> I,
    dedup: bool,
) -> (Vec<u64>, Vec<u32>)
where
    I: ParallelIterator<Item = (u32, u32)>,
{
    let counts: Vec<AtomicU64> = (0..rows)
        .into_par_iter()
        .map(|_| AtomicU64::new(0))
        .collect();
    pairs().for_each(|(r, _)| {
        counts[r as usize].fetch_add(1, Ordering::Relaxed);
    });
    let mut offsets = Vec::with_capacity(rows + 1);
    offsets.push(0u64);
    let mut acc = 0u64;
    for c in &counts {
        acc += c.load(Ordering::Relaxed);
        offsets.push(acc);
    }
    let cursor: Vec<AtomicU64> = offsets[..rows]
        .par_iter()
        .map(|&o| AtomicU64::new(o))
        .collect();
    drop(counts);
    let placed: Vec<AtomicU32> = (0..acc as usize)
        .into_par_iter()
        .map(|_| AtomicU32::new(0))
        .collect();
    pairs().for_each(|(r, v)| {
        let at = cursor[r as usize].fetch_add(1, Ordering::Relaxed);
        placed[at as usize].store(v, Ordering::Relaxed);
    });
    drop(cursor);
    let mut values: Vec<u32> = placed.into_par_iter().map(AtomicU32::into_inner).collect();
    // Sort (and deduplicate) each row in blocks of rows; `kept[b]`: what each
    // row of block b keeps.
    let kept: Vec<Vec<u64>> = blocks(&offsets, &mut values)
        .into_par_iter()
        .map(|(b, end, block)| {
            (b..end)
                .map(|r| {
                    let lo = (offsets[r] - offsets[b]) as usize;
                    let hi = (offsets[r + 1] - offsets[b]) as usize;
                    let row = &mut block[lo..hi];
                    row.sort_unstable();
                    match dedup {
                        true => crate::graph::dedup_row(row, |&t| t) as u64,
                        false => row.len() as u64,
                    }
                })
                .collect()
        })
        .collect();
    if !dedup {
        return (offsets, values);
    }
    let mut new_offsets = Vec::with_capacity(rows + 1);
    new_offsets.push(0u64);
    let mut acc = 0u64;
    for k in kept.iter().flatten() {
        acc += k;
        new_offsets.push(acc);
    }
    let mut out = vec![0u32; acc as usize];
    blocks(&new_offsets, &mut out)
        .into_par_iter()
        .for_each(|(b, end, block)| {
            for r in b..end {
                let from = offsets[r] as usize;
                let to = (new_offsets[r] - new_offsets[b]) as usize;
                let len = (new_offsets[r + 1] - new_offsets[r]) as usize;
                block[to..to + len].copy_from_slice(&values[from..from + len]);
            }
        });
    (new_offsets, out)
}

/// Each row of `values` (rows at `offsets`) sorted by `key`, in parallel
/// blocks of rows.
pub(crate) fn sort_rows_by_key<K: Ord>(
    offsets: &[u64],
    values: &mut [u32],
    key: impl Fn(&u32) -> K + Sync,
) {
    blocks(offsets, values)
        .into_par_iter()
        .for_each(|(b, end, block)| {
            for r in b..end {
                let lo = (offsets[r] - offsets[b]) as usize;
                let hi = (offsets[r + 1] - offsets[b]) as usize;
                block[lo..hi].sort_unstable_by_key(&key);
            }
        });
}

/// `f(row, value)` for every value of every row (rows at `offsets`), in
/// parallel blocks of rows: a per-edge array beside a CSR's targets.
pub(crate) fn map_rows<T: Send>(
    offsets: &[u64],
    values: &[u32],
    f: impl Fn(usize, u32) -> T + Sync,
) -> Vec<T> {
    let rows = offsets.len() - 1;
    let pieces: Vec<Vec<T>> = (0..rows.div_ceil(BLOCK))
        .into_par_iter()
        .map(|b| {
            let (lo, hi) = (b * BLOCK, ((b + 1) * BLOCK).min(rows));
            (lo..hi)
                .flat_map(|r| {
                    values[offsets[r] as usize..offsets[r + 1] as usize]
                        .iter()
                        .map(move |&x| (r, x))
                })
                .map(|(r, x)| f(r, x))
                .collect()
        })
        .collect();
    pieces.into_iter().flatten().collect()
}

/// `values` cut at the row blocks of `offsets`: (first row, end row, slice).
fn blocks<'a>(offsets: &[u64], values: &'a mut [u32]) -> Vec<(usize, usize, &'a mut [u32])> {
    let rows = offsets.len() - 1;
    let mut rest = values;
    let mut out = Vec::with_capacity(rows.div_ceil(BLOCK));
    for b in (0..rows).step_by(BLOCK) {
        let end = (b + BLOCK).min(rows);
        let (head, tail) = rest.split_at_mut((offsets[end] - offsets[b]) as usize);
        out.push((b, end, head));
        rest = tail;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_sorted_and_deduplicated() {
        let pairs = vec![(2u32, 5u32), (0, 3), (2, 1), (2, 5), (0, 3), (0, 1)];
        let (o, v) = bucket_rows(4, || pairs.par_iter().copied(), true);
        assert_eq!(o, vec![0, 2, 2, 4, 4]);
        assert_eq!(v, vec![1, 3, 1, 5]);
        let (o, v) = bucket_rows(4, || pairs.par_iter().copied(), false);
        assert_eq!(o, vec![0, 3, 3, 6, 6]);
        assert_eq!(v, vec![1, 3, 3, 1, 5, 5]);
        let (o, v) = bucket_rows(0, || Vec::<(u32, u32)>::new().into_par_iter(), true);
        assert_eq!((o, v), (vec![0], vec![]));
    }

    #[test]
    fn scatter_keeps_each_destination_s_order() {
        let out = scatter::<u32>(3, 200_000, |i, send| send(i % 3, i as u32));
        for (d, bytes) in out.iter().enumerate() {
            let got: Vec<u32> = bytes
                .chunks_exact(4)
                .map(bytemuck::pod_read_unaligned)
                .collect();
            let want: Vec<u32> = (0..200_000u32).filter(|i| *i as usize % 3 == d).collect();
            assert_eq!(got, want);
        }
    }
}
