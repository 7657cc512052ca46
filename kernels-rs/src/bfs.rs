//! BFS as a [`Program`]: state = level, `u32::MAX` = not reached.
//!
//! Two combines, to compare the costs the program model lets a user choose
//! between: [`Bfs`] stores `level + 1` when the target is still unreached (plain
//! load + store, as in seed 000; racing writers all store the same value), and
//! [`BfsAtomicMin`] uses an atomic minimum (`atom.global.min.u32`), the general
//! monotone combine.

use core::sync::atomic::AtomicU32;

use crate::combine;
use crate::program::Program;

/// Level of a vertex that was not reached.
pub const UNREACHED: u32 = u32::MAX;

/// BFS with the guarded plain store.
pub struct Bfs;

impl Program for Bfs {
    type State = u32;
    type Weight = ();
    const PARENTS_VALID: bool = true;

    #[inline(always)]
    fn init(v: u32, source: u32) -> u32 {
        if v == source {
            0
        } else {
            UNREACHED
        }
    }
    #[inline(always)]
    fn is_active(level: u32, iter: u32) -> bool {
        level == iter
    }
    #[inline(always)]
    fn relax(level: u32, _w: (), _iter: u32) -> Option<u32> {
        Some(level + 1)
    }
    #[inline(always)]
    fn combine(slot: &AtomicU32, cand: u32) -> bool {
        combine::store_if_unset::<u32>(slot, UNREACHED, cand)
    }
    #[inline(always)]
    fn improves(level: u32, _cand: u32) -> bool {
        level == UNREACHED
    }
}

/// BFS with the atomic-min combine.
pub struct BfsAtomicMin;

impl Program for BfsAtomicMin {
    type State = u32;
    type Weight = ();
    const PARENTS_VALID: bool = true;

    #[inline(always)]
    fn init(v: u32, source: u32) -> u32 {
        Bfs::init(v, source)
    }
    #[inline(always)]
    fn is_active(level: u32, iter: u32) -> bool {
        level == iter
    }
    #[inline(always)]
    fn relax(level: u32, _w: (), _iter: u32) -> Option<u32> {
        Some(level + 1)
    }
    #[inline(always)]
    fn combine(slot: &AtomicU32, cand: u32) -> bool {
        combine::min::<u32>(slot, cand)
    }
    #[inline(always)]
    fn improves(level: u32, cand: u32) -> bool {
        cand < level
    }
}
