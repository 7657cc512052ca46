//! The host side of a level-synchronous traversal, shared by the GPU and the
//! emulation backend: launch levels, watch the frontier flags, stop when empty.
//!
//! Each level kernel reads the flag of its level and raises the flag of the next
//! one when it activates a vertex (see `kernels_rs::skeleton`). Flags live in a
//! ring of `levels_per_sync + 2` words: a kernel for level `l` reads slot
//! `l % R`, raises slot `(l + 1) % R` and clears slot `(l + 2) % R` for the next
//! launch, so the host may launch `levels_per_sync` levels back to back and read all
//! their flags with one copy. Levels launched past the end see a lowered input flag
//! and return at once.

use super::options::Handover;
use crate::error::{Error, Result};

/// What a backend must do for the loop.
pub(crate) trait LevelExec {
    /// Initial state/parents; flag ring = `[1, 0, 0, ...]`.
    fn init(&mut self, source: u32, ring: u32) -> Result<()>;
    /// Builds `SV` (balanced kernel only).
    fn build_sv(&mut self) -> Result<()>;
    /// Launches the level kernel for `iter`.
    fn level(&mut self, iter: u32, slot_in: u32, slot_out: u32) -> Result<()>;
    /// Reads the whole flag ring (a synchronisation point).
    fn read_flags(&mut self) -> Result<Vec<u32>>;
}

/// Counts from one traversal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct LoopStats {
    /// Non-empty levels (the source's level 0 included).
    pub num_levels: u32,
    /// Level kernels launched (≥ `num_levels`; the rest returned at once).
    pub launched: u32,
    /// Host round trips to read the flags.
    pub syncs: u32,
}

/// Size of the flag ring for a batch size.
pub(crate) fn ring_size(levels_per_sync: u32) -> u32 {
    levels_per_sync.max(1) + 2
}

/// Runs the traversal to the end. `max_levels` bounds the loop (BFS on `n`
/// vertices has at most `n` levels); exceeding it means a broken kernel.
pub(crate) fn run_levels(
    exec: &mut impl LevelExec,
    source: u32,
    balanced: bool,
    levels_per_sync: u32,
    max_levels: u64,
) -> Result<LoopStats> {
    let (stats, _) = run_levels_until(exec, source, balanced, levels_per_sync, max_levels, None)?;
    Ok(stats)
}

/// [`run_levels`] that stops early, after a batch, once `handover.levels`
/// levels in a row activated at most `handover.frontier` vertices each (the flags
/// count activations up to `kernels_rs::skeleton::COUNT_CAP`) and the traversal
/// goes on: `true` then, and the last launched level's activations are the
/// frontier the rest starts from (stamp `launched + 1`).
pub(crate) fn run_levels_until(
    exec: &mut impl LevelExec,
    source: u32,
    balanced: bool,
    levels_per_sync: u32,
    max_levels: u64,
    handover: Option<Handover>,
) -> Result<(LoopStats, bool)> {
    let k = levels_per_sync.max(1);
    let ring = ring_size(k);
    exec.init(source, ring)?;
    if balanced {
        exec.build_sv()?;
    }
    let mut next = 0u32;
    let mut syncs = 0u32;
    let mut small_run = 0usize;
    loop {
        let first = next;
        for _ in 0..k {
            exec.level(next, next % ring, (next + 1) % ring)?;
            next += 1;
        }
        let flags = exec.read_flags()?;
        syncs += 1;
        for l in first..next {
            let activated = flags[((l + 1) % ring) as usize];
            if activated == 0 {
                let stats = LoopStats {
                    num_levels: l + 1,
                    launched: next,
                    syncs,
                };
                return Ok((stats, false));
            }
            match handover {
                Some(h) if u64::from(activated) <= h.frontier => small_run += 1,
                _ => small_run = 0,
            }
        }
        if handover.is_some_and(|h| small_run >= h.levels) {
            let stats = LoopStats {
                num_levels: next,
                launched: next,
                syncs,
            };
            return Ok((stats, true));
        }
        if u64::from(next) > max_levels + 1 {
            return Err(Error::InvalidGraph(format!(
                "traversal did not end after {next} levels on a graph of {max_levels} vertices"
            )));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fake backend: a path of `len` levels; checks the ring protocol.
    struct Fake {
        len: u32,
        flags: Vec<u32>,
        calls: Vec<u32>,
    }

    impl LevelExec for Fake {
        fn init(&mut self, _source: u32, ring: u32) -> Result<()> {
            self.flags = vec![0; ring as usize];
            self.flags[0] = 1;
            Ok(())
        }
        fn build_sv(&mut self) -> Result<()> {
            Ok(())
        }
        fn level(&mut self, iter: u32, slot_in: u32, slot_out: u32) -> Result<()> {
            let r = self.flags.len() as u32;
            self.flags[((slot_out + 1) % r) as usize] = 0;
            if self.flags[slot_in as usize] == 0 {
                return Ok(());
            }
            self.calls.push(iter);
            if iter + 1 < self.len {
                self.flags[slot_out as usize] = 1;
            }
            Ok(())
        }
        fn read_flags(&mut self) -> Result<Vec<u32>> {
            Ok(self.flags.clone())
        }
    }

    #[test]
    fn any_batch_size_finds_the_last_level() {
        for len in 1..12 {
            for k in 1..6 {
                let mut f = Fake {
                    len,
                    flags: vec![],
                    calls: vec![],
                };
                let s = run_levels(&mut f, 0, false, k, 100).unwrap();
                assert_eq!(s.num_levels, len, "len {len} k {k}");
                assert_eq!(f.calls, (0..len).collect::<Vec<_>>());
                assert_eq!(s.syncs, len.div_ceil(k));
                assert!(s.launched >= len && s.launched < len + k);
            }
        }
    }

    #[test]
    fn hands_over_after_a_run_of_small_levels() {
        let h = Handover {
            levels: 4,
            frontier: 1,
        };
        for k in 1..6 {
            let mut f = Fake {
                len: 30,
                flags: vec![],
                calls: vec![],
            };
            let (s, stopped) = run_levels_until(&mut f, 0, false, k, 100, Some(h)).unwrap();
            assert!(stopped);
            // At the first batch end with four levels done (each activates one).
            assert_eq!(s.launched, 4_u32.div_ceil(k) * k, "k {k}");
            assert_eq!(f.calls, (0..s.launched).collect::<Vec<_>>());
            // A short traversal ends before any handover.
            let mut f = Fake {
                len: 3,
                flags: vec![],
                calls: vec![],
            };
            let (s, stopped) = run_levels_until(&mut f, 0, false, k, 100, Some(h)).unwrap();
            assert!(!stopped);
            assert_eq!(s.num_levels, 3);
        }
    }
}
