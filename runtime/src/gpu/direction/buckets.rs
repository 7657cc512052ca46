//! The bucketed (near-far) loops of the direction-optimizing traversal: passes
//! over the pending set below a priority limit instead of levels, with the host
//! ([`drive_buckets`]) or the device ([`drive_buckets_planned`]) moving the limit.

use kernels_rs::direction::{
    CTL_FRONTIER, CTL_LIMIT, CTL_PENDING, CTL_PLAN, CTL_SELECTED, CTL_WORDS, PLAN_DONE, PLAN_STUCK,
};

use super::{DirectionExec, LevelLog, PlannedExec};
use crate::error::{Error, Result};

/// The bucketed (near-far) loop, Davidson et al.'s "near-far" form of
/// Δ-stepping: pass after pass expands the pending vertices whose priority is below
/// the limit (re-improved ones come back in the next pass), and when none is left
/// below it the limit jumps to the lowest pending priority + `delta`.
pub(crate) fn drive_buckets<S>(
    exec: &mut impl DirectionExec<S>,
    n: u64,
    source: Option<u32>,
    first_priority: u64,
    delta: u64,
) -> Result<Vec<LevelLog>> {
    let delta = delta.max(1);
    let mut pending = exec.init(source)?.vertices;
    let mut limit = first_priority.saturating_add(delta);
    let mut log = Vec::new();
    let mut iter = 0u32;
    // Label-correcting passes are bounded by the number of improvements; this only
    // stops a broken kernel from hanging the host.
    let max_passes = n.saturating_mul(64).saturating_add(1024);
    while pending > 0 {
        if u64::from(iter) > max_passes {
            return Err(Error::InvalidGraph(format!(
                "bucketed traversal did not end after {iter} passes on {n} vertices"
            )));
        }
        let pass = exec.near_far(iter, limit)?;
        if pass.selected > pending {
            return Err(Error::InvalidGraph(format!(
                "bucketed pass took {} vertices of {pending} pending",
                pass.selected
            )));
        }
        log.push(LevelLog {
            bottom_up: false,
            frontier: pass.selected,
            frontier_edges: 0,
            bucket_limit: Some(limit),
        });
        pending = pending - pass.selected + pass.inserted;
        iter += 1;
        if pass.selected == 0 {
            match pass.min_pending {
                Some(p) => limit = p.saturating_add(delta).max(limit + 1),
                None => {
                    return Err(Error::InvalidGraph(format!(
                        "{pending} vertices pending but none found in the bitmap"
                    )))
                }
            }
        }
    }
    Ok(log)
}

/// [`drive_buckets`] with each pass planned on the device
/// (`kernels_rs::direction::plan_pass`): the same passes, limits and results,
/// one host wait per `per_sync` passes. Returns the log and the number of waits.
pub(crate) fn drive_buckets_planned<S>(
    exec: &mut impl PlannedExec<S>,
    n: u64,
    source: Option<u32>,
    first_priority: u64,
    delta: u64,
    per_sync: u32,
) -> Result<(Vec<LevelLog>, u32)> {
    let per_sync = per_sync.max(2);
    let delta = delta.max(1);
    let pending = exec.init(source)?.vertices;
    let limit = first_priority.saturating_add(delta);
    let max_passes = n.saturating_mul(64).saturating_add(1024);
    let mut log = Vec::new();
    let (mut iter, mut syncs) = (0u32, 0u32);
    let none: Vec<Option<S>> = (0..per_sync).map(|_| None).collect();
    loop {
        if u64::from(iter) > max_passes {
            return Err(Error::InvalidGraph(format!(
                "bucketed traversal did not end after {iter} passes on {n} vertices"
            )));
        }
        exec.begin_batch(&none)?;
        for slot in 0..per_sync {
            exec.enqueue_pass(iter + slot, slot, pending, limit, delta)?;
        }
        let blocks = exec.finish_batch()?;
        syncs += 1;
        iter += per_sync;
        for b in &blocks {
            match b[CTL_PLAN] {
                PLAN_DONE => return Ok((log, syncs)),
                PLAN_STUCK => {
                    return Err(Error::InvalidGraph(format!(
                        "bucketed pass found {} vertices pending but none in the bitmap \
                         (or took more than were pending)",
                        b[CTL_PENDING]
                    )))
                }
                _ => log.push(LevelLog {
                    bottom_up: false,
                    frontier: b[CTL_SELECTED],
                    frontier_edges: 0,
                    bucket_limit: Some(b[CTL_LIMIT]),
                }),
            }
        }
        let last = blocks.last().copied().unwrap_or([0; CTL_WORDS]);
        if last[CTL_PENDING].saturating_sub(last[CTL_SELECTED]) + last[CTL_FRONTIER] == 0 {
            return Ok((log, syncs));
        }
    }
}

/// [`drive_buckets`] when `levels_per_sync` is 1, else
/// [`drive_buckets_planned`]: the log and the number of host waits.
pub(crate) fn drive_buckets_levels<S>(
    exec: &mut impl PlannedExec<S>,
    n: u64,
    source: Option<u32>,
    first_priority: u64,
    delta: u64,
    levels_per_sync: u32,
) -> Result<(Vec<LevelLog>, u32)> {
    if levels_per_sync > 1 {
        drive_buckets_planned(exec, n, source, first_priority, delta, levels_per_sync)
    } else {
        let log = drive_buckets(exec, n, source, first_priority, delta)?;
        let syncs = log.len() as u32;
        Ok((log, syncs))
    }
}
