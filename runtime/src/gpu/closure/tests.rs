//! The emulated closure kernels against the CPU closure, values and next hops.

use super::*;
use crate::apsp::{fw_cpu, matrix::initial_next, path_from_next};
use rand::{Rng, SeedableRng};

/// A random matrix over `S`: 1̄ on the diagonal, an edge with probability `p`
/// carrying `w(rng)`, 0̄ elsewhere.
fn random<S: Semiring>(
    n: usize,
    p: f64,
    seed: u64,
    mut w: impl FnMut(&mut rand_pcg::Pcg64) -> S::T,
) -> DistMatrix<S::T> {
    let mut rng = rand_pcg::Pcg64::seed_from_u64(seed);
    let mut m = DistMatrix::filled(n, S::zero()).unwrap();
    for i in 0..n {
        for j in 0..n {
            if i == j {
                m.set(i, j, S::one());
            } else if rng.gen_bool(p) {
                let x = w(&mut rng);
                m.set(i, j, x);
            }
        }
    }
    m
}

/// Whether two values agree: exactly, or within 1e-9 relative for floats.
pub(crate) fn close<T: Elem>(a: T, b: T) -> bool {
    if a.to_i128().is_some() || a == b {
        return a == b;
    }
    let (x, y) = (a.to_f64(), b.to_f64());
    (x - y).abs() <= 1e-9 * x.abs().max(y.abs())
}

/// Checks `got` (and its next hops) against the CPU closure of `m0`: equal
/// values, and every next-hop walk ends at its target with the cell's value.
pub(crate) fn check_against_cpu<S: Semiring>(
    m0: &DistMatrix<S::T>,
    got: &DistMatrix<S::T>,
    next: Option<&[u32]>,
    what: &str,
) {
    let n = m0.n();
    let mut want = m0.clone();
    fw_cpu::blocked::<S>(&mut want, None, 32).unwrap();
    for i in 0..n {
        for j in 0..n {
            let (g, w) = (got.get(i, j), want.get(i, j));
            assert!(close(g, w), "{what}: ({i}, {j}) got {g:?}, CPU {w:?}");
        }
    }
    let Some(next) = next else { return };
    for i in 0..n {
        for j in 0..n {
            let path = path_from_next(next, n, i as u32, j as u32);
            match path {
                None => assert!(
                    S::is_zero(want.get(i, j)),
                    "{what}: no walk {i} → {j} but value {:?}",
                    want.get(i, j)
                ),
                Some(p) => {
                    let mut v = S::one();
                    for e in p.windows(2) {
                        v = S::mul(v, m0.get(e[0] as usize, e[1] as usize));
                    }
                    assert!(
                        close(v, want.get(i, j)),
                        "{what}: walk {i} → {j} {p:?} gives {v:?}, CPU {:?}",
                        want.get(i, j)
                    );
                }
            }
        }
    }
}

/// Emulates `S`'s closure of `m0` with and without next hops and checks both.
pub(crate) fn emulated_equals_cpu<S: GpuSemiring>(m0: &DistMatrix<S::T>, what: &str) {
    let mut got = m0.clone();
    emulate::<S>(&mut got, None).unwrap();
    check_against_cpu::<S>(m0, &got, None, what);
    let mut got = m0.clone();
    let mut next = initial_next::<S>(m0);
    emulate::<S>(&mut got, Some(&mut next)).unwrap();
    check_against_cpu::<S>(m0, &got, Some(&next), &format!("{what} with next hops"));
}

#[test]
fn builtin_min_plus_every_type() {
    for (n, p) in [(1, 0.5), (5, 0.5), (64, 0.05), (97, 0.04), (130, 0.03)] {
        let s = n as u64;
        let m = random::<MinPlus<i32>>(n, p, s, |r| r.gen_range(-5..100));
        // Potentials keep negative edges free of negative cycles: small values only.
        let m = {
            let mut m = m;
            for x in m.as_mut_slice().iter_mut() {
                if *x < 0 {
                    *x = 0;
                }
            }
            m
        };
        emulated_equals_cpu::<MinPlus<i32>>(&m, &format!("i32 n {n}"));
        let m = random::<MinPlus<i64>>(n, p, s, |r| r.gen_range(0..1i64 << 40));
        emulated_equals_cpu::<MinPlus<i64>>(&m, &format!("i64 n {n}"));
        let m = random::<MinPlus<f32>>(n, p, s, |r| r.gen_range(0..64) as f32 * 0.25);
        emulated_equals_cpu::<MinPlus<f32>>(&m, &format!("f32 n {n}"));
        let m = random::<MinPlus<f64>>(n, p, s, |r| r.gen::<f64>());
        emulated_equals_cpu::<MinPlus<f64>>(&m, &format!("f64 n {n}"));
    }
}

#[test]
fn zero_weight_cycles_keep_next_hop_walks_finite() {
    // Many equal paths: ties must go to fewer edges or walks circle.
    let m = random::<MinPlus<i32>>(100, 0.08, 3, |_| 0);
    emulated_equals_cpu::<MinPlus<i32>>(&m, "zero weights");
}

#[test]
fn fast_path_is_only_for_exact_i32_min_plus() {
    let m = random::<MinPlus<i32>>(10, 0.3, 1, |r| r.gen_range(0..9));
    assert!(fast_i32::<MinPlus<i32>>(m.as_slice(), 10, false).is_some());
    assert!(fast_i32::<MinPlus<i32>>(m.as_slice(), 10, true).is_none());
    let f = random::<MinPlus<f32>>(10, 0.3, 1, |_| 1.0);
    assert!(fast_i32::<MinPlus<f32>>(f.as_slice(), 10, false).is_none());
    let mut neg = m.clone();
    neg.set(0, 1, -1);
    assert!(fast_i32::<MinPlus<i32>>(neg.as_slice(), 10, false).is_none());
}

#[test]
fn sizes_and_bad_input() {
    assert_eq!(padded(0), 64);
    assert_eq!(padded(65), 128);
    assert_eq!(device_bytes(100, 8, false), 128 * 128 * 8);
    assert_eq!(device_bytes(100, 8, true), 128 * 128 * 16);
    let mut m = random::<MinPlus<f64>>(5, 0.5, 1, |_| 1.0);
    let mut short = vec![0u32; 3];
    assert!(emulate::<MinPlus<f64>>(&mut m, Some(&mut short)).is_err());
}
