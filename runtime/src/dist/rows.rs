//! The two bulk steps of building a rank's part, in parallel: sorting items
//! into per-rank messages ([`scatter`]) and building CSR rows from
//! `(row, value)` pairs ([`bucket_rows`]). A rank holds hundreds of millions of
//! edges at Graph500 scale 24 and up: these run on all its cores.

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

/// At most `2^BUCKET_BITS` buckets of consecutive rows in [`bucket_rows`]:
/// few enough write streams per thread for its first pass to stay in cache.
const BUCKET_BITS: u32 = 10;

/// CSR rows `0..rows` from `(row, value)` pairs, every row sorted, and with
/// `dedup` repeats dropped. Each `row` must be below `rows`. `pairs()` is
/// walked once: each thread appends its pairs to per-bucket runs (buckets of
/// `2^shift` consecutive rows), then each bucket is counted, placed and
/// sorted on its own, where its rows fit in cache. (Placing every pair at its
/// row's cursor directly costs two random atomic operations a pair over the
/// rank's whole rows: 4 of the 6 s a rank took to build Kronecker 22's rows.)
pub(crate) fn bucket_rows<I>(
    rows: usize,
    pairs: impl Fn() -> I,
    dedup: bool,
) -> (Vec<u64>, Vec<u32>)
where
    I: ParallelIterator<Item = (u32, u32)>,
{
    let bits = usize::BITS - rows.saturating_sub(1).leading_zeros();
    let shift = bits.saturating_sub(BUCKET_BITS);
    let buckets = rows.div_ceil(1 << shift).max(1);
    // Each thread's runs, per bucket.
    let runs: Vec<Vec<Vec<(u32, u32)>>> = pairs()
        .fold(
            || vec![Vec::new(); buckets],
            |mut acc, (r, v)| {
                acc[(r >> shift) as usize].push((r, v));
                acc
            },
        )
        .collect();
    // Per bucket: its rows' lengths and values, in row order.
    let done: Vec<(Vec<u64>, Vec<u32>)> = (0..buckets)
        .into_par_iter()
        .map(|b| {
            let first = b << shift;
            let len = (rows - first).min(1 << shift);
            let mut counts = vec![0u64; len + 1];
            for (r, _) in runs.iter().flat_map(|t| &t[b]) {
                counts[*r as usize - first + 1] += 1;
            }
            for i in 0..len {
                counts[i + 1] += counts[i];
            }
            let mut values = vec![0u32; counts[len] as usize];
            let mut cursor = counts.clone();
            for &(r, v) in runs.iter().flat_map(|t| &t[b]) {
                let at = &mut cursor[r as usize - first];
                values[*at as usize] = v;
                *at += 1;
            }
            let mut lengths = Vec::with_capacity(len);
            let mut kept = 0usize;
            for i in 0..len {
                let (lo, hi) = (counts[i] as usize, counts[i + 1] as usize);
                values[lo..hi].sort_unstable();
                let keep = match dedup {
                    true => crate::graph::dedup_row(&mut values[lo..hi], |&t| t),
                    false => hi - lo,
                };
                values.copy_within(lo..lo + keep, kept);
                kept += keep;
                lengths.push(keep as u64);
            }
            values.truncate(kept);
            (lengths, values)
        })
        .collect();
    drop(runs);
    let mut offsets = Vec::with_capacity(rows + 1);
    offsets.push(0u64);
    let mut acc = 0u64;
    for (lengths, _) in &done {
        for &l in lengths {
            acc += l;
            offsets.push(acc);
        }
    }
    // Each bucket's values copied to its place, in parallel.
    let mut out = vec![0u32; acc as usize];
    let mut rest = out.as_mut_slice();
    let mut places = Vec::with_capacity(done.len());
    for (_, v) in &done {
        let (head, tail) = rest.split_at_mut(v.len());
        places.push(head);
        rest = tail;
    }
    places
        .into_par_iter()
        .zip(&done)
        .for_each(|(to, (_, v))| to.copy_from_slice(v));
    (offsets, out)
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

    proptest::proptest! {
        /// Against sorting the pairs: any number of rows (one bucket or
        /// many, a last bucket cut short), repeats, empty rows.
        #[test]
        fn rows_equal_the_sorted_pairs(
            rows in 1usize..5000,
            raw in proptest::collection::vec((0u32..u32::MAX, 0u32..50), 0..3000),
            dedup in proptest::bool::ANY,
        ) {
            let pairs: Vec<(u32, u32)> =
                raw.iter().map(|&(r, v)| (r % rows as u32, v)).collect();
            let (o, v) = bucket_rows(rows, || pairs.par_iter().copied(), dedup);
            let mut want = pairs.clone();
            want.sort_unstable();
            if dedup {
                want.dedup();
            }
            let mut offsets = vec![0u64; rows + 1];
            for &(r, _) in &want {
                offsets[r as usize + 1] += 1;
            }
            for i in 0..rows {
                offsets[i + 1] += offsets[i];
            }
            proptest::prop_assert_eq!(o, offsets);
            proptest::prop_assert_eq!(v, want.iter().map(|p| p.1).collect::<Vec<_>>());
        }
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
