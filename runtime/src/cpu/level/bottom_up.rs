//! The bottom-up (pull) word scans of [`super`]'s levels, and of the generic
//! rounds' pull levels ([`super::super::sync`]): per 64-vertex word of the next
//! frontier, the candidates that may still change and the first in-neighbour
//! found in the current frontier.

use core::sync::atomic::{AtomicU64, Ordering};

use super::super::frontier::Bitmap;
use super::super::operator::combine;
use super::super::prefetch::prefetch;
use crate::graph::Csr;
use crate::program::{AtomicState, VertexProgram};

/// Vertices ahead whose in-edge lists a pull level prefetches. A bottom-up scan
/// reads a few sources of each unvisited vertex and skips the rest of its list
/// and the lists of visited vertices: the hardware prefetcher loses that stream,
/// and the first source of a vertex was the loop's main stall (Kronecker 22, one
/// thread, 2-core machine: 127 → 99 ms; 8 ahead gave 110, 32–128 the same 99;
/// prefetching the frontier word of that first source as well cost 2–7 %).
const PULL_AHEAD: usize = 64;

/// The vertices of word `w` that `cand` can still improve and that have
/// in-edges (bit `i`: vertex `64w + i`), from their states and offsets. A pull
/// level only ever looks at these; the first one computes them, later ones
/// read what the previous left in `remaining`.
#[inline]
pub(super) fn candidates<P: VertexProgram>(
    offsets: &[u64],
    cells: &[<P::State as AtomicState>::Atomic],
    cand: P::State,
    w: usize,
) -> u64 {
    let lo = w * 64;
    let hi = (lo + 64).min(cells.len());
    let offs = &offsets[lo..=hi];
    let mut mask = 0u64;
    for (i, cell) in cells[lo..hi].iter().enumerate() {
        let cur = P::State::load(cell);
        let open = combine::<P>(cur, cand) != cur && offs[i + 1] > offs[i];
        mask |= u64::from(open) << i;
    }
    mask
}

/// Bottom-up over the candidates `cands` of word `w` (see [`candidates`]; a
/// superset is fine: each one's state is checked first). Returns the word of
/// vertices that took `cand`, the candidates still open after this level (for
/// `remaining`) and the edges tested. While scanning it prefetches the first
/// in-edges of `ahead`, the next word's candidates.
///
/// Why a candidate mask: a vertex that `cand` cannot improve now never can
/// later (the level engine's candidates only get worse under the combine), and
/// one without in-edges never finds a parent. gapbs's bottom-up step reads
/// every vertex's parent word each level (and so did this engine, plus its
/// offsets); after the first pull level of a Kronecker graph most vertices are
/// reached or isolated, and a word with no candidate left costs one load.
#[inline]
pub(super) fn pull_word_masked<P: VertexProgram>(
    csc: &Csr<P::Weight>,
    cells: &[<P::State as AtomicState>::Atomic],
    cand: P::State,
    front: &Bitmap,
    w: usize,
    cands: u64,
    ahead: u64,
) -> (u64, u64, u64) {
    let offsets = csc.offsets();
    let sources = csc.targets();
    let words = front.words();
    let n = cells.len();
    assert!(
        words.len() * 64 >= n,
        "the frontier bitmap covers every vertex"
    );
    let lo = w * 64;
    let (mut bits, mut still, mut edges) = (0u64, cands, 0u64);
    let (mut rest, mut pf) = (cands, ahead);
    // One prefetch of the next word's candidates per candidate scanned here, so
    // a dense word keeps about 64 vertices of lookahead and a sparse one does
    // not flood the memory system; the rest after the loop.
    let prefetch_next = |pf: &mut u64| {
        if *pf != 0 {
            let v = lo + 64 + pf.trailing_zeros() as usize;
            *pf &= *pf - 1;
            if let Some(&o) = offsets.get(v) {
                prefetch(sources, o as usize);
            }
        }
    };
    while rest != 0 {
        let i = rest.trailing_zeros() as usize;
        rest &= rest - 1;
        prefetch_next(&mut pf);
        let v = lo + i;
        let cell = &cells[v];
        let cur = P::State::load(cell);
        if combine::<P>(cur, cand) == cur {
            still &= !(1u64 << i); // reached by a push level since
            continue;
        }
        let ins = &sources[offsets[v] as usize..offsets[v + 1] as usize];
        // SAFETY: every in-neighbour is below `n` (a `Csr`'s targets are below
        // its vertex count, one cell per vertex), and `words.len() * 64 >= n`
        // was asserted above.
        let hit = unsafe { first_in_front(ins, words) };
        if let Some(tested) = hit {
            P::State::store(cell, combine::<P>(cur, cand));
            bits |= 1u64 << i;
            still &= !(1u64 << i);
            edges += tested as u64;
        } else {
            edges += ins.len() as u64;
        }
    }
    while pf != 0 {
        prefetch_next(&mut pf);
    }
    (bits, still, edges)
}

/// Bottom-up over the 64 vertices of word `w`: each one `cand` can still improve
/// scans its in-neighbours (`csc`) for a member of `front`, stops at the first,
/// and takes `cand`. Returns the word of vertices that did, the edges tested and
/// how many vertices changed. The caller owns word `w` (no one else writes
/// those vertices' states during the level).
#[inline]
pub(in crate::cpu) fn pull_word<P: VertexProgram>(
    csc: &Csr<P::Weight>,
    cells: &[<P::State as AtomicState>::Atomic],
    cand: P::State,
    front: &Bitmap,
    w: usize,
    n: usize,
) -> (u64, u64, u64) {
    let offsets = csc.offsets();
    let sources = csc.targets();
    let words = front.words();
    assert!(
        words.len() * 64 >= n,
        "the frontier bitmap covers every vertex"
    );
    let (mut bits, mut edges, mut found) = (0u64, 0u64, 0u64);
    let lo = w * 64;
    let hi = (lo + 64).min(n);
    // Slices of exactly this word's vertices: no bounds checks per vertex.
    let offs = &offsets[lo..=hi];
    for (i, cell) in cells[lo..hi].iter().enumerate() {
        if let Some(&o) = offsets.get(lo + i + PULL_AHEAD) {
            prefetch(sources, o as usize);
        }
        let cur = P::State::load(cell);
        if combine::<P>(cur, cand) == cur {
            continue;
        }
        let ins = &sources[offs[i] as usize..offs[i + 1] as usize];
        // SAFETY: as in `pull_word_masked`: in-neighbours are below `n`, and
        // `words.len() * 64 >= n` was asserted above.
        let hit = unsafe { first_in_front(ins, words) };
        if let Some(tested) = hit {
            P::State::store(cell, combine::<P>(cur, cand));
            bits |= 1u64 << i;
            found += 1;
            edges += tested as u64;
        } else {
            edges += ins.len() as u64;
        }
    }
    (bits, edges, found)
}

/// gapbs's bottom-up loop: one bitmap test per in-neighbour, out at the first
/// that is in the frontier (`words`). Returns how many were tested up to and
/// including it, or `None` when none is.
///
/// # Safety
/// Every id in `ins` is below `words.len() * 64` (the bitmap tests skip
/// bounds checks: this loop is the bottom-up level's whole cost).
#[inline(always)]
unsafe fn first_in_front(ins: &[u32], words: &[AtomicU64]) -> Option<usize> {
    for (k, &u) in ins.iter().enumerate() {
        debug_assert!((u as usize) < words.len() * 64);
        // SAFETY: the caller's contract makes `u / 64` a valid word index.
        let word = unsafe { words.get_unchecked(u as usize / 64) };
        if word.load(Ordering::Relaxed) & (1u64 << (u % 64)) != 0 {
            return Some(k + 1);
        }
    }
    None
}
