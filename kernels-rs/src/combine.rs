//! Atomic merges a program's `combine` is made of.
//!
//! Each returns whether the slot changed. Declared combine kinds map onto these:
//! `min` → [`min`] (a PTX `atom.global.min` for integers), `max` → [`max`], a
//! "first writer wins" BFS-style combine → [`store_if_unset`], and a general
//! function → [`update`] (a compare-and-swap loop).

use crate::word::StateWord;

/// `slot = min(slot, v)`; true if `v` was smaller. Reads first and skips the
/// atomic when it cannot win, which saves most atomics on the GPU.
#[inline(always)]
pub fn min<S: StateWord>(slot: &S::Atomic, v: S) -> bool {
    if S::load(slot) <= v {
        return false;
    }
    min_now::<S>(slot, v)
}

/// [`min`] without the read first: one round trip where [`min`] takes two
/// when `v` wins. For latency-bound phases (the resident kernel's one-block
/// rounds) whose critical path is a thread's chain of dependent loads.
#[inline(always)]
pub fn min_now<S: StateWord>(slot: &S::Atomic, v: S) -> bool {
    S::fetch_min(slot, v) > v
}

/// [`max`] without the read first (see [`min_now`]).
#[inline(always)]
pub fn max_now<S: StateWord>(slot: &S::Atomic, v: S) -> bool {
    S::fetch_max(slot, v) < v
}

/// `slot = max(slot, v)`; true if `v` was larger.
#[inline(always)]
pub fn max<S: StateWord>(slot: &S::Atomic, v: S) -> bool {
    if S::load(slot) >= v {
        return false;
    }
    max_now::<S>(slot, v)
}

/// Writes `v` if the slot still holds `unset`, with a plain store (no atomic
/// read-modify-write). Several threads may all see `unset` and all store; that is
/// correct only when they store the same value (level-synchronous BFS, where every
/// writer in an iteration writes `level + 1`), and then each of them returns true.
#[inline(always)]
pub fn store_if_unset<S: StateWord>(slot: &S::Atomic, unset: S, v: S) -> bool {
    if S::load(slot) == unset {
        S::store(slot, v);
        true
    } else {
        false
    }
}

/// `slot += v` with one hardware atomic (see [`StateWord::fetch_add`]).
#[inline(always)]
pub fn add<S: StateWord>(slot: &S::Atomic, v: S) {
    S::fetch_add(slot, v);
}

/// General combine: `slot = f(slot, v)` by compare-and-swap; true if it changed.
#[inline(always)]
pub fn update<S: StateWord>(slot: &S::Atomic, v: S, f: impl Fn(S, S) -> S) -> bool {
    let mut cur = S::load(slot);
    loop {
        let new = f(cur, v);
        if new == cur {
            return false;
        }
        match S::compare_exchange(slot, cur, new) {
            Ok(_) => return true,
            Err(now) => cur = now,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use core::sync::atomic::{AtomicU32, AtomicU64};

    #[test]
    fn min_max_report_change() {
        let a = AtomicU32::new(10);
        assert!(min::<u32>(&a, 5));
        assert!(!min::<u32>(&a, 5));
        assert!(!min::<u32>(&a, 7));
        assert!(max::<u32>(&a, 9));
        assert_eq!(a.into_inner(), 9);
        let f = AtomicU32::new(2.5f32.to_bits());
        assert!(min::<f32>(&f, 1.5));
        assert!(!min::<f32>(&f, 2.0));
        assert_eq!(f32::from_bits(f.into_inner()), 1.5);
        let d = AtomicU64::new(1.0f64.to_bits());
        assert!(max::<f64>(&d, 3.0));
        assert_eq!(f64::from_bits(d.into_inner()), 3.0);
    }

    #[test]
    fn store_if_unset_and_update() {
        let a = AtomicU32::new(u32::MAX);
        assert!(store_if_unset::<u32>(&a, u32::MAX, 3));
        assert!(!store_if_unset::<u32>(&a, u32::MAX, 4));
        assert!(update::<u32>(&a, 4, |x, y| x + y));
        assert_eq!(a.load(core::sync::atomic::Ordering::Relaxed), 7);
        assert!(!update::<u32>(&a, 0, |x, y| x + y));
    }
}
