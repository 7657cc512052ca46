//! Floyd–Warshall on the CPU: the textbook triple loop (the oracle) and the
//! cache-blocked three-phase version on rayon.
//!
//! Blocked FW (Venkataraman, Sahni & Mukhopadhyaya, "A blocked all-pairs
//! shortest-paths algorithm", 2003; the GPU form is Katz & Kider, 2008): the matrix
//! is cut into `B × B` tiles and, for each tile-row `kb` of intermediates,
//!
//! 1. the diagonal tile `(kb, kb)` runs plain FW on itself;
//! 2. the tiles of row `kb` and column `kb` are updated from it (parallel);
//! 3. every other tile `(i, j)` gets `C ⊕= A(i, kb) ⊗ B(kb, j)` — a semiring matrix
//!    product with no dependence inside, the O(n³) bulk of the work (parallel).
//!
//! Tiles are stored contiguously (tile-major) so that rayon can hand out disjoint
//! `&mut` tiles without `unsafe`; the row and column of phase 3 are copied out
//! first (O(n·B) per round). The phase-3 kernel keeps a 4 × 16 block of `C` in
//! registers across the whole `k` loop, so the inner loop is one broadcast, two
//! vector loads of `B` and four select-add-min lanes; it is compiled once for
//! AVX2 and picked at run time when the CPU has it.

use rayon::prelude::*;

use super::matrix::{DistMatrix, NO_HOP};
use super::semiring::Semiring;
use crate::error::{Error, Result};

/// Tile sizes the blocked kernel is instantiated for.
pub const TILES: &[usize] = &[32, 64, 128];

/// The tile size used when none is asked for (measured: see docs/results/apsp-cpu.json).
pub const DEFAULT_TILE: usize = 64;

/// The textbook `k, i, j` loop, sequential: the oracle for every other engine.
/// Updates `next` (the next-hop matrix, see [`super::matrix::initial_next`]) if given.
pub fn naive<S: Semiring>(m: &mut DistMatrix<S::T>, mut next: Option<&mut [u32]>) {
    let n = m.n();
    let d = m.as_mut_slice();
    for k in 0..n {
        for i in 0..n {
            let dik = d[i * n + k];
            if S::is_zero(dik) {
                continue;
            }
            for j in 0..n {
                let cand = S::mul(dik, d[k * n + j]);
                if S::improves(cand, d[i * n + j]) {
                    d[i * n + j] = S::add(d[i * n + j], cand);
                    if let Some(nx) = next.as_deref_mut() {
                        nx[i * n + j] = nx[i * n + k];
                    }
                }
            }
        }
    }
}

/// Blocked Floyd–Warshall with tile size `tile` (one of [`TILES`]) on the current
/// rayon pool; updates `next` too if given.
pub fn blocked<S: Semiring>(
    m: &mut DistMatrix<S::T>,
    next: Option<&mut [u32]>,
    tile: usize,
) -> Result<()> {
    match tile {
        32 => blocked_b::<S, 32>(m, next),
        64 => blocked_b::<S, 64>(m, next),
        128 => blocked_b::<S, 128>(m, next),
        _ => {
            return Err(Error::InvalidArgument(format!(
                "tile size {tile} is not one of {TILES:?}"
            )))
        }
    }
    Ok(())
}

/// Row-major `n × n` → tile-major `np × np` (`np` = `n` rounded up to `B`), padded
/// with `pad` (padding vertices are isolated, so they change nothing).
fn to_tiles<T: Copy + Send + Sync, const B: usize>(src: &[T], n: usize, pad: T) -> Vec<T> {
    let nt = n.div_ceil(B);
    let mut out = vec![pad; nt * nt * B * B];
    out.par_chunks_mut(B * B).enumerate().for_each(|(t, tile)| {
        let (ti, tj) = (t / nt, t % nt);
        for r in 0..B {
            let i = ti * B + r;
            if i >= n {
                break;
            }
            let j0 = tj * B;
            let w = B.min(n.saturating_sub(j0));
            tile[r * B..r * B + w].copy_from_slice(&src[i * n + j0..i * n + j0 + w]);
        }
    });
    out
}

/// Inverse of [`to_tiles`].
fn from_tiles<T: Copy + Send + Sync, const B: usize>(tiles: &[T], dst: &mut [T], n: usize) {
    let nt = n.div_ceil(B);
    dst.par_chunks_mut(n).enumerate().for_each(|(i, row)| {
        let (ti, r) = (i / B, i % B);
        for tj in 0..nt {
            let j0 = tj * B;
            let w = B.min(n - j0);
            let t = &tiles[(ti * nt + tj) * B * B..][..B * B];
            row[j0..j0 + w].copy_from_slice(&t[r * B..r * B + w]);
        }
    });
}

/// Next hops and hop counts of one tile, kept side by side with its values.
///
/// Why hop counts: blocked FW lets `d[i][k] ⊗ d[k][j]` use a `k → j` path that
/// already runs through `i` (phase 2 finished the whole block first). With a
/// zero-weight cycle that detour ties with the direct path, and taking the
/// detour's next hop makes the next-hop walk circle forever. Comparing
/// `(value, hops)` lexicographically breaks every tie towards the path with fewer
/// edges, so each step of the walk strictly shortens the rest: it always ends.
struct PathTile<'a> {
    next: &'a mut [u32],
    hops: &'a mut [u32],
}

/// Hop count of "no path" (never compared: ties need a finite value).
const NO_HOPS: u32 = u32::MAX;

/// `cand` (with `ch` edges) beats `cur` (with `h` edges): strictly better value,
/// or the same value on fewer edges.
#[inline(always)]
fn better<S: Semiring>(cand: S::T, ch: u32, cur: S::T, h: u32) -> bool {
    S::improves(cand, cur) || (cand == cur && ch < h)
}

/// Initial hop counts from the initial next hops: 0 on the diagonal, 1 on an edge.
fn initial_hops(next: &[u32], n: usize) -> Vec<u32> {
    (0..n * n)
        .map(|p| {
            if p / n == p % n {
                0
            } else if next[p] == NO_HOP {
                NO_HOPS
            } else {
                1
            }
        })
        .collect()
}

fn blocked_b<S: Semiring, const B: usize>(m: &mut DistMatrix<S::T>, next: Option<&mut [u32]>) {
    let n = m.n();
    if n == 0 {
        return;
    }
    let nt = n.div_ceil(B);
    let bb = B * B;
    let mut d = to_tiles::<_, B>(m.as_slice(), n, S::zero());
    let path = next.is_some();
    let (mut nx, mut hx) = match &next {
        Some(x) => (
            to_tiles::<_, B>(x, n, NO_HOP),
            to_tiles::<_, B>(&initial_hops(x, n), n, NO_HOPS),
        ),
        None => (Vec::new(), Vec::new()),
    };
    let mut col = vec![S::zero(); nt * bb];
    let mut row = vec![S::zero(); nt * bb];
    let (mut ncol, mut hcol, mut hrow) = if path {
        (
            vec![NO_HOP; nt * bb],
            vec![NO_HOPS; nt * bb],
            vec![NO_HOPS; nt * bb],
        )
    } else {
        (Vec::new(), Vec::new(), Vec::new())
    };
    for kb in 0..nt {
        // Phase 1: the diagonal tile.
        let di = (kb * nt + kb) * bb;
        if path {
            let t = PathTile {
                next: &mut nx[di..di + bb],
                hops: &mut hx[di..di + bb],
            };
            diag_tile_path::<S, B>(&mut d[di..di + bb], t);
        } else {
            diag_tile::<S, B>(&mut d[di..di + bb]);
        }
        let diag: Vec<S::T> = d[di..di + bb].to_vec();
        let (ndiag, hdiag): (Vec<u32>, Vec<u32>) = if path {
            (nx[di..di + bb].to_vec(), hx[di..di + bb].to_vec())
        } else {
            (Vec::new(), Vec::new())
        };
        // Phase 2: row kb and column kb.
        let on_cross = |t: usize| (t / nt == kb) != (t % nt == kb);
        if path {
            d.par_chunks_mut(bb)
                .zip(nx.par_chunks_mut(bb))
                .zip(hx.par_chunks_mut(bb))
                .enumerate()
                .filter(|(t, _)| on_cross(*t))
                .for_each(|(t, ((c, next), hops))| {
                    let pt = PathTile { next, hops };
                    if t / nt == kb {
                        row_tile_path::<S, B>(c, pt, &diag, &ndiag, &hdiag);
                    } else {
                        col_tile_path::<S, B>(c, pt, &diag, &hdiag);
                    }
                });
        } else {
            d.par_chunks_mut(bb)
                .enumerate()
                .filter(|(t, _)| on_cross(*t))
                .for_each(|(t, c)| {
                    if t / nt == kb {
                        row_tile::<S, B>(c, &diag);
                    } else {
                        col_tile::<S, B>(c, &diag);
                    }
                });
        }
        // Phase 3: everything else, from copies of column kb and row kb.
        for t in 0..nt {
            let (ct, rt) = ((t * nt + kb) * bb, (kb * nt + t) * bb);
            col[t * bb..(t + 1) * bb].copy_from_slice(&d[ct..][..bb]);
            row[t * bb..(t + 1) * bb].copy_from_slice(&d[rt..][..bb]);
            if path {
                ncol[t * bb..(t + 1) * bb].copy_from_slice(&nx[ct..][..bb]);
                hcol[t * bb..(t + 1) * bb].copy_from_slice(&hx[ct..][..bb]);
                hrow[t * bb..(t + 1) * bb].copy_from_slice(&hx[rt..][..bb]);
            }
        }
        let off_cross = |t: usize| t / nt != kb && t % nt != kb;
        if path {
            d.par_chunks_mut(bb)
                .zip(nx.par_chunks_mut(bb))
                .zip(hx.par_chunks_mut(bb))
                .enumerate()
                .filter(|(t, _)| off_cross(*t))
                .for_each(|(t, ((c, next), hops))| {
                    let (ti, tj) = (t / nt, t % nt);
                    let (a, b) = (ti * bb..(ti + 1) * bb, tj * bb..(tj + 1) * bb);
                    mul_tile_path::<S, B>(
                        c,
                        PathTile { next, hops },
                        (&col[a.clone()], &hcol[a.clone()], &ncol[a]),
                        (&row[b.clone()], &hrow[b]),
                    );
                });
        } else {
            d.par_chunks_mut(bb)
                .enumerate()
                .filter(|(t, _)| off_cross(*t))
                .for_each(|(t, c)| {
                    let (ti, tj) = (t / nt, t % nt);
                    mul_tile::<S, B>(c, &col[ti * bb..][..bb], &row[tj * bb..][..bb]);
                });
        }
    }
    from_tiles::<_, B>(&d, m.as_mut_slice(), n);
    if let Some(x) = next {
        from_tiles::<_, B>(&nx, x, n);
    }
}

/// Phase 1: plain FW inside one tile.
fn diag_tile<S: Semiring, const B: usize>(c: &mut [S::T]) {
    for k in 0..B {
        let rk: [S::T; B] = row_copy::<S::T, B>(&c[k * B..]);
        for i in 0..B {
            let a = c[i * B + k];
            if S::is_zero(a) {
                continue;
            }
            for (cij, &bkj) in c[i * B..(i + 1) * B].iter_mut().zip(&rk) {
                *cij = S::add(*cij, S::mul(a, bkj));
            }
        }
    }
}

/// Phase 1 with next hops.
fn diag_tile_path<S: Semiring, const B: usize>(c: &mut [S::T], mut p: PathTile) {
    for k in 0..B {
        let rk: [S::T; B] = row_copy::<S::T, B>(&c[k * B..]);
        let hk: [u32; B] = row_copy::<u32, B>(&p.hops[k * B..]);
        for i in 0..B {
            let a = c[i * B + k];
            if S::is_zero(a) {
                continue;
            }
            let (ha, nik) = (p.hops[i * B + k], p.next[i * B + k]);
            relax_row::<S>(i * B, B, c, &mut p, (a, ha, nik), (&rk, &hk));
        }
    }
}

/// Phase 2, a tile in row `kb`: `c[i][j] ⊕= D[i][k] ⊗ c[k][j]`, `k` in order.
fn row_tile<S: Semiring, const B: usize>(c: &mut [S::T], diag: &[S::T]) {
    for k in 0..B {
        let rk: [S::T; B] = row_copy::<S::T, B>(&c[k * B..]);
        for i in 0..B {
            let a = diag[i * B + k];
            if S::is_zero(a) {
                continue;
            }
            for (cij, &bkj) in c[i * B..(i + 1) * B].iter_mut().zip(&rk) {
                *cij = S::add(*cij, S::mul(a, bkj));
            }
        }
    }
}

/// Phase 2 row tile with next hops: an improvement takes the diagonal's `i → k` hop.
fn row_tile_path<S: Semiring, const B: usize>(
    c: &mut [S::T],
    mut p: PathTile,
    diag: &[S::T],
    ndiag: &[u32],
    hdiag: &[u32],
) {
    for k in 0..B {
        let rk: [S::T; B] = row_copy::<S::T, B>(&c[k * B..]);
        let hk: [u32; B] = row_copy::<u32, B>(&p.hops[k * B..]);
        for i in 0..B {
            let a = diag[i * B + k];
            if S::is_zero(a) {
                continue;
            }
            let (ha, nik) = (hdiag[i * B + k], ndiag[i * B + k]);
            relax_row::<S>(i * B, B, c, &mut p, (a, ha, nik), (&rk, &hk));
        }
    }
}

/// Phase 2, a tile in column `kb`: `c[i][j] ⊕= c[i][k] ⊗ D[k][j]`, `k` in order.
fn col_tile<S: Semiring, const B: usize>(c: &mut [S::T], diag: &[S::T]) {
    for k in 0..B {
        let dk = &diag[k * B..(k + 1) * B];
        for i in 0..B {
            let a = c[i * B + k];
            if S::is_zero(a) {
                continue;
            }
            for (cij, &dkj) in c[i * B..(i + 1) * B].iter_mut().zip(dk) {
                *cij = S::add(*cij, S::mul(a, dkj));
            }
        }
    }
}

/// Phase 2 column tile with next hops: an improvement takes the tile's `i → k` hop.
fn col_tile_path<S: Semiring, const B: usize>(
    c: &mut [S::T],
    mut p: PathTile,
    diag: &[S::T],
    hdiag: &[u32],
) {
    for k in 0..B {
        let (dk, hk) = (&diag[k * B..(k + 1) * B], &hdiag[k * B..(k + 1) * B]);
        for i in 0..B {
            let a = c[i * B + k];
            if S::is_zero(a) {
                continue;
            }
            let (ha, nik) = (p.hops[i * B + k], p.next[i * B + k]);
            relax_row::<S>(i * B, B, c, &mut p, (a, ha, nik), (dk, hk));
        }
    }
}

/// The path variants' inner loop: row `c[base..base + len] ⊕= a ⊗ row` with hop
/// counts; `a` is (value, hops, next hop) of `i → k`, `row` (values, hops) of `k → j`.
#[inline(always)]
fn relax_row<S: Semiring>(
    base: usize,
    len: usize,
    c: &mut [S::T],
    p: &mut PathTile,
    a: (S::T, u32, u32),
    row: (&[S::T], &[u32]),
) {
    for j in 0..len {
        let (cand, ch) = (S::mul(a.0, row.0[j]), a.1.saturating_add(row.1[j]));
        let x = base + j;
        if better::<S>(cand, ch, c[x], p.hops[x]) {
            (c[x], p.hops[x], p.next[x]) = (cand, ch, a.2);
        }
    }
}

#[inline(always)]
fn row_copy<T: Copy, const B: usize>(s: &[T]) -> [T; B] {
    core::array::from_fn(|j| s[j])
}

/// Phase 3 with next hops: `c[i][j] ⊕= a[i][k] ⊗ b[k][j]`; an improvement takes
/// the next hop of `i → k` (from the column tile). `a` is (values, hops, next
/// hops) of the column tile, `b` (values, hops) of the row tile.
fn mul_tile_path<S: Semiring, const B: usize>(
    c: &mut [S::T],
    mut p: PathTile,
    a: (&[S::T], &[u32], &[u32]),
    b: (&[S::T], &[u32]),
) {
    for i in 0..B {
        for k in 0..B {
            let aik = a.0[i * B + k];
            if S::is_zero(aik) {
                continue;
            }
            let (ha, hop) = (a.1[i * B + k], a.2[i * B + k]);
            let r = k * B..(k + 1) * B;
            relax_row::<S>(
                i * B,
                B,
                c,
                &mut p,
                (aik, ha, hop),
                (&b.0[r.clone()], &b.1[r]),
            );
        }
    }
}

/// Phase 3, distances only: dispatches to the AVX2 build when the CPU has it.
fn mul_tile<S: Semiring, const B: usize>(c: &mut [S::T], a: &[S::T], b: &[S::T]) {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU supports AVX2 (checked just above), the only
            // requirement of a `#[target_feature(enable = "avx2")]` function.
            unsafe { mul_tile_avx2::<S, B>(c, a, b) };
            return;
        }
    }
    mul_tile_body::<S, B>(c, a, b)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn mul_tile_avx2<S: Semiring, const B: usize>(c: &mut [S::T], a: &[S::T], b: &[S::T]) {
    mul_tile_body::<S, B>(c, a, b)
}

/// Rows of `C` per register block.
const R: usize = 4;
/// Columns of `C` per register block.
const J: usize = 16;

/// The register-blocked product: an `R × J` block of `C` stays in registers while
/// `k` runs over the whole tile.
#[inline(always)]
fn mul_tile_body<S: Semiring, const B: usize>(c: &mut [S::T], a: &[S::T], b: &[S::T]) {
    let (c, a, b) = (&mut c[..B * B], &a[..B * B], &b[..B * B]);
    for i0 in (0..B).step_by(R) {
        for j0 in (0..B).step_by(J) {
            let mut acc = [[S::zero(); J]; R];
            for r in 0..R {
                acc[r].copy_from_slice(&c[(i0 + r) * B + j0..][..J]);
            }
            for k in 0..B {
                let bk = &b[k * B + j0..][..J];
                for r in 0..R {
                    let aik = a[(i0 + r) * B + k];
                    for j in 0..J {
                        acc[r][j] = S::add(acc[r][j], S::mul(aik, bk[j]));
                    }
                }
            }
            for r in 0..R {
                c[(i0 + r) * B + j0..][..J].copy_from_slice(&acc[r]);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dense::matrix::{initial_next, path_from_next};
    use crate::dense::semiring::{MaxMin, MinPlus, OrAnd};
    use rand::{Rng, SeedableRng};

    fn random<S: Semiring>(
        n: usize,
        p: f64,
        w: impl Fn(&mut rand_pcg::Pcg64) -> S::T,
    ) -> DistMatrix<S::T> {
        let mut rng = rand_pcg::Pcg64::seed_from_u64(n as u64 * 31 + 7);
        let mut m = DistMatrix::filled(n, S::zero()).unwrap();
        for i in 0..n {
            for j in 0..n {
                if i == j {
                    m.set(i, j, S::one());
                } else if rng.gen_bool(p) {
                    m.set(i, j, w(&mut rng));
                }
            }
        }
        m
    }

    fn same<T: crate::dense::semiring::Elem>(a: &DistMatrix<T>, b: &DistMatrix<T>, what: &str) {
        let n = a.n();
        if let Some(p) = (0..n * n).find(|&p| a.as_slice()[p] != b.as_slice()[p]) {
            panic!(
                "{what}: entry ({}, {}) is {:?}, expected {:?}",
                p / n,
                p % n,
                a.as_slice()[p],
                b.as_slice()[p]
            );
        }
    }

    fn check_all_tiles<S: Semiring>(m: &DistMatrix<S::T>) {
        let mut want = m.clone();
        let mut want_next = initial_next::<S>(m);
        naive::<S>(&mut want, Some(&mut want_next));
        for &t in TILES {
            let mut got = m.clone();
            blocked::<S>(&mut got, None, t).unwrap();
            same(&got, &want, &format!("tile {t}, n {}", m.n()));
            let mut got = m.clone();
            let mut nx = initial_next::<S>(m);
            blocked::<S>(&mut got, Some(&mut nx), t).unwrap();
            same(&got, &want, &format!("tile {t} with next hops"));
            // Every reconstructed path has the matrix's value (paths are only
            // promised for min-plus: bottleneck and boolean closures have ties
            // that let next hops wander).
            let n = if S::is_min_plus() { m.n() } else { 0 };
            for i in 0..n.min(9) {
                for j in 0..n {
                    match path_from_next(&nx, n, i as u32, j as u32) {
                        Some(p) => {
                            let mut v = S::one();
                            for e in p.windows(2) {
                                v = S::mul(v, m.get(e[0] as usize, e[1] as usize));
                            }
                            assert_eq!(v, got.get(i, j), "path {i} → {j}: {p:?}");
                        }
                        None => assert!(S::is_zero(got.get(i, j)) || i == j),
                    }
                }
            }
        }
    }

    #[test]
    fn blocked_equals_naive_min_plus_with_negative_edges() {
        for n in [1, 5, 31, 64, 100, 131] {
            // Non-negative weights shifted by a potential: w(i, j) = w' + h(i) − h(j)
            // has negative edges but every cycle keeps its non-negative w' weight.
            let mut m = random::<MinPlus<i32>>(n, 0.1, |r| r.gen_range(0..100));
            let mut rng = rand_pcg::Pcg64::seed_from_u64(3);
            let h: Vec<i32> = (0..n).map(|_| rng.gen_range(0..60)).collect();
            for i in 0..n {
                for j in 0..n {
                    if i != j && m.get(i, j) != i32::MAX {
                        m.set(i, j, m.get(i, j) + h[i] - h[j]);
                    }
                }
            }
            check_all_tiles::<MinPlus<i32>>(&m);
        }
    }

    #[test]
    fn blocked_equals_naive_other_types() {
        // Integer-valued floats: sums are exact whatever the association order.
        check_all_tiles::<MinPlus<f64>>(&random::<MinPlus<f64>>(70, 0.08, |r| {
            r.gen_range(0..1000) as f64
        }));
        check_all_tiles::<MinPlus<i64>>(&random::<MinPlus<i64>>(65, 0.05, |r| {
            r.gen_range(0..1 << 40)
        }));
        check_all_tiles::<MaxMin>(&random::<MaxMin>(80, 0.05, |r| r.gen_range(1..1000)));
        check_all_tiles::<OrAnd>(&random::<OrAnd>(90, 0.02, |_| 1));
    }
}
