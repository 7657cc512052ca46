//! Checks of a closure against the CPU's: equal values (floats within 1e-9
//! relative: the GPU's tiles may associate ⊗ differently) and next hops whose
//! walks reach their target with the cell's value. Used by the tests (emulated
//! kernels), by the benchmark (device results) and by anyone adding a semiring.

use crate::dense::fw_cpu;
use crate::dense::matrix::{initial_next, path_from_next, DistMatrix, NO_HOP};
use crate::dense::semiring::{Elem, Semiring};
use crate::error::{Error, Result};

use super::{emulate, GpuSemiring};

/// Whether two values agree: exactly for integers, within 1e-9 relative for floats.
pub fn close<T: Elem>(a: T, b: T) -> bool {
    if a == b {
        return true;
    }
    if a.to_i128().is_some() {
        return false;
    }
    let (x, y) = (a.to_f64(), b.to_f64());
    (x - y).abs() <= 1e-9 * x.abs().max(y.abs())
}

fn mismatch(what: &str, detail: String) -> Error {
    Error::InvalidArgument(format!("{what}: {detail}"))
}

/// Compares rows `rows` of `got` with `want`.
pub fn compare_rows<T: Elem>(
    got: &DistMatrix<T>,
    want: &DistMatrix<T>,
    rows: impl IntoIterator<Item = usize>,
    what: &str,
) -> Result<()> {
    for i in rows {
        for j in 0..got.n() {
            let (g, w) = (got.get(i, j), want.get(i, j));
            if !close(g, w) {
                return Err(mismatch(
                    what,
                    format!("({i}, {j}) is {g:?}, the CPU says {w:?}"),
                ));
            }
        }
    }
    Ok(())
}

/// Checks that the next-hop walk `i → j` of every row in `rows` reaches `j` with
/// the value `closed` holds, multiplying the edges of the initial matrix `m0`.
pub fn check_walks<S: Semiring>(
    m0: &DistMatrix<S::T>,
    closed: &DistMatrix<S::T>,
    next: &[u32],
    rows: impl IntoIterator<Item = usize>,
    what: &str,
) -> Result<()> {
    let n = m0.n();
    for i in rows {
        for j in 0..n {
            let want = closed.get(i, j);
            match path_from_next(next, n, i as u32, j as u32) {
                None if S::is_zero(want) => {}
                None => {
                    return Err(mismatch(what, format!("no walk {i} → {j}, value {want:?}")));
                }
                Some(p) => {
                    let v = p.windows(2).fold(S::one(), |v, e| {
                        S::mul(v, m0.get(e[0] as usize, e[1] as usize))
                    });
                    if !close(v, want) {
                        return Err(mismatch(
                            what,
                            format!(
                                "walk {i} → {j} ({} hops) gives {v:?}, value {want:?}",
                                p.len() - 1
                            ),
                        ));
                    }
                }
            }
        }
    }
    Ok(())
}

/// Checks, for every row in `rows`, that each next hop `h` of `(i, j)` starts a
/// best path: `m0(i, h) ⊗ closed(h, j) = closed(i, j)` (and that unreachable cells
/// have none). Holds for any semiring, where a full walk may not (see
/// [`emulated_equals_cpu`]).
pub fn check_hops<S: Semiring>(
    m0: &DistMatrix<S::T>,
    closed: &DistMatrix<S::T>,
    next: &[u32],
    rows: impl IntoIterator<Item = usize>,
    what: &str,
) -> Result<()> {
    let n = m0.n();
    for i in rows {
        for j in (0..n).filter(|&j| j != i) {
            let (h, want) = (next[i * n + j], closed.get(i, j));
            let ok = if h == NO_HOP {
                S::is_zero(want)
            } else {
                let h = h as usize;
                h < n && close(S::mul(m0.get(i, h), closed.get(h, j)), want)
            };
            if !ok {
                return Err(mismatch(
                    what,
                    format!("next hop {h} of ({i}, {j}) does not start a path of value {want:?}"),
                ));
            }
        }
    }
    Ok(())
}

/// Emulates `S`'s closure of `m0` without and with next hops and checks both
/// against the CPU's blocked FW with the GPU's tile: every cell, and the next
/// hops equal to the CPU's (the same phases in the same `k` order decide every
/// cell the same way). `walks`: also follow every next-hop walk. Next hops walk
/// to their target when ⊗ is cancellative (min-plus, max-times over positive
/// values): then ties broken by edge count make every step shorten the rest.
/// Max-min and or-and are not (`min(a, b) = min(a, c)` for `b ≠ c`): edge
/// counts of tied paths can go stale and a walk can circle, on the CPU as on
/// the GPU, so their hops are checked against the CPU's and hop by hop
/// ([`check_hops`]).
pub fn emulated_equals_cpu<S: GpuSemiring>(
    m0: &DistMatrix<S::T>,
    walks: bool,
    what: &str,
) -> Result<()> {
    let n = m0.n();
    let mut want = m0.clone();
    let mut want_next = initial_next::<S>(m0);
    fw_cpu::blocked::<S>(
        &mut want,
        Some(&mut want_next),
        kernels_rs::closure::TILE as usize,
    )?;
    let mut got = m0.clone();
    emulate::<S>(&mut got, None)?;
    compare_rows(&got, &want, 0..n, what)?;
    let mut got = m0.clone();
    let mut next = initial_next::<S>(m0);
    emulate::<S>(&mut got, Some(&mut next))?;
    let what = format!("{what} with next hops");
    compare_rows(&got, &want, 0..n, &what)?;
    if let Some(p) = (0..n * n).find(|&p| next[p] != want_next[p]) {
        return Err(mismatch(
            &what,
            format!(
                "next hop of ({}, {}) is {}, the CPU's {}",
                p / n,
                p % n,
                next[p],
                want_next[p]
            ),
        ));
    }
    if walks {
        check_walks::<S>(m0, &got, &next, 0..n, &what)
    } else {
        check_hops::<S>(m0, &got, &next, 0..n, &what)
    }
}
