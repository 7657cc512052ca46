//! Where a multi-GPU level's time goes. Each GPU records three events per level
//! on its stream: before the level's kernels (`a`), after them (`b`, before the
//! NCCL group) and after the exchange (`c`). Events of different GPUs cannot be
//! compared, so the split is read from durations on each GPU:
//!
//! * kernel time `b − a` per GPU: the slowest and fastest GPU's;
//! * the exchange `c − b` per GPU includes waiting for the slower GPU, so the
//!   GPU that arrived last (the shortest `c − b`) measures the all-gather itself,
//!   and the spread of `c − b` over the GPUs is the skew (time a GPU waited);
//! * the host gap: on GPU 0, from the end of one level (`c`) to the start of the
//!   next (`a`) — time the GPU sat idle waiting for the host to launch.

use cudarc::driver::CudaEvent;

use crate::error::Result;
use crate::gpu::cuda::Gpu;

/// One level's events on one GPU.
pub(super) struct Marks {
    pub a: CudaEvent,
    pub b: CudaEvent,
    pub c: CudaEvent,
}

/// One level's split (milliseconds).
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct LevelTime {
    /// Slowest GPU's level kernels (and their memsets).
    pub kernel_max_ms: f64,
    /// Fastest GPU's.
    pub kernel_min_ms: f64,
    /// Which GPU was slowest.
    pub slowest_gpu: usize,
    /// The exchange on the GPU that arrived last (the all-gather's own time).
    pub allgather_ms: f64,
    /// Longest minus shortest exchange span: how long a GPU waited for the other.
    pub wait_ms: f64,
    /// Longest `a → c` span of any GPU (kernels + exchange).
    pub level_ms: f64,
    /// GPU 0 idle before this level: from the previous level's end to this
    /// level's start (host launch latency, counter reads, syncs).
    pub host_gap_ms: f64,
}

/// Sums over a run's levels (milliseconds).
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct TimeSplit {
    pub kernel_max_ms: f64,
    pub kernel_min_ms: f64,
    pub allgather_ms: f64,
    pub wait_ms: f64,
    pub level_ms: f64,
    pub host_gap_ms: f64,
}

impl TimeSplit {
    pub fn of(levels: &[LevelTime]) -> TimeSplit {
        let mut t = TimeSplit::default();
        for l in levels {
            t.kernel_max_ms += l.kernel_max_ms;
            t.kernel_min_ms += l.kernel_min_ms;
            t.allgather_ms += l.allgather_ms;
            t.wait_ms += l.wait_ms;
            t.level_ms += l.level_ms;
            t.host_gap_ms += l.host_gap_ms;
        }
        t
    }
}

/// Splits every level from its per-GPU durations: `kernel[p]` (`b − a`),
/// `exchange[p]` (`c − b`) and GPU 0's gap before it.
pub fn split_level(kernel: &[f64], exchange: &[f64], host_gap_ms: f64) -> LevelTime {
    let (mut kmax, mut kmin, mut slowest) = (0.0f64, f64::INFINITY, 0);
    for (p, &k) in kernel.iter().enumerate() {
        if k > kmax {
            (kmax, slowest) = (k, p);
        }
        kmin = kmin.min(k);
    }
    let xmin = exchange.iter().copied().fold(f64::INFINITY, f64::min);
    let xmax = exchange.iter().copied().fold(0.0f64, f64::max);
    let level = kernel
        .iter()
        .zip(exchange)
        .map(|(k, x)| k + x)
        .fold(0.0f64, f64::max);
    let finite = |x: f64| if x.is_finite() { x } else { 0.0 };
    LevelTime {
        kernel_max_ms: kmax,
        kernel_min_ms: finite(kmin),
        slowest_gpu: slowest,
        allgather_ms: finite(xmin),
        wait_ms: finite(xmax - xmin).max(0.0),
        level_ms: level,
        host_gap_ms,
    }
}

/// Reads the events of a run: `marks[p][l]` for GPU `p`, level `l` (every GPU
/// has the same levels). Waits for the events.
pub(super) fn read(marks: &[Vec<Marks>]) -> Result<Vec<LevelTime>> {
    let levels = marks.first().map_or(0, Vec::len);
    let mut out = Vec::with_capacity(levels);
    for l in 0..levels {
        let mut kernel = Vec::with_capacity(marks.len());
        let mut exchange = Vec::with_capacity(marks.len());
        for gpu in marks {
            let m = &gpu[l];
            kernel.push(Gpu::elapsed_ms(&m.a, &m.b)?);
            exchange.push(Gpu::elapsed_ms(&m.b, &m.c)?);
        }
        let gap = match l {
            0 => 0.0,
            _ => Gpu::elapsed_ms(&marks[0][l - 1].c, &marks[0][l].a)?.max(0.0),
        };
        out.push(split_level(&kernel, &exchange, gap));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_names_the_slowest_gpu_and_the_wait() {
        let t = split_level(&[1.0, 3.0], &[2.5, 0.5], 0.25);
        assert_eq!(t.slowest_gpu, 1);
        assert_eq!(t.kernel_max_ms, 3.0);
        assert_eq!(t.kernel_min_ms, 1.0);
        assert_eq!(t.allgather_ms, 0.5);
        assert_eq!(t.wait_ms, 2.0);
        assert_eq!(t.level_ms, 3.5);
        let s = TimeSplit::of(&[t.clone(), t]);
        assert_eq!(s.kernel_max_ms, 6.0);
        assert_eq!(s.host_gap_ms, 0.5);
        assert_eq!(split_level(&[], &[], 0.0).allgather_ms, 0.0);
    }
}
