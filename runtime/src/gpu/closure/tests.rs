//! The emulated closure kernels against the CPU closure, values and next hops.

use super::*;
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

fn emulated_equals_cpu<S: GpuSemiring>(m0: &DistMatrix<S::T>, what: &str) {
    if let Err(e) = verify::emulated_equals_cpu::<S>(m0, true, what) {
        panic!("{e}");
    }
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
