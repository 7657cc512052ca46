//! A GPU with the built-in kernels loaded ([`Device`]) and graphs uploaded to it
//! ([`DeviceGraph`]): the owning types every strategy runs on. Strategies add
//! their own `impl Device` blocks (`bfs`, `program`, `resident`, `direction`'s
//! memory checks, `multi`'s part uploads); this module only opens the device and
//! moves graphs onto it.

use cudarc::driver::CudaFunction;

use super::cuda::{DevBuf, DeviceInfo, Gpu};
use crate::error::Result;
use crate::graph::{Csr, Graph, Weight};

/// A graph resident on the device (CSR: `u64` offsets, `u32` targets).
pub struct DeviceGraph {
    pub(super) n: u64,
    pub(super) m: u64,
    pub(super) offsets: DevBuf<u64>,
    pub(super) targets: DevBuf<u32>,
    /// Edge weights as bytes (only uploaded for programs that read them).
    pub(super) weights: Option<DevBuf<u8>>,
    /// `weights`' device pointer, or 0 (null) without weights: the kernel
    /// argument, kept here so that [`Self::weighted_csr_args`] can lend it.
    weights_ptr: u64,
    /// Host copy of the offsets, for counting traversed edges.
    pub(super) host_offsets: Vec<u64>,
    /// The largest out-degree (which resident kernel to launch).
    pub(super) max_degree: u64,
    /// Where bottom-up levels find in-edges.
    pub(super) incoming: Incoming,
}

/// In-edges of a device graph, which bottom-up traversal reads.
pub(super) enum Incoming {
    /// Uploaded from a bare CSR: not known (bottom-up is not used).
    Unknown,
    /// Symmetric graph: the CSR is its own transpose.
    Symmetric,
    /// The transpose, uploaded next to the CSR.
    Transpose {
        offsets: DevBuf<u64>,
        sources: DevBuf<u32>,
    },
}

impl DeviceGraph {
    pub fn num_vertices(&self) -> u64 {
        self.n
    }
    pub fn num_edges(&self) -> u64 {
        self.m
    }

    /// The first five parameters of every traversal kernel, `(n, m, offsets,
    /// targets, weights)` (weights null when none were uploaded).
    pub(super) fn program_args(&self) -> [super::launcher::Arg; 5] {
        super::launcher::graph_args(
            self.n,
            self.m,
            self.offsets.ptr,
            self.targets.ptr,
            self.weights_ptr,
        )
    }

    /// Device pointers of the in-edge offsets and sources and their count, if known.
    pub(super) fn incoming(&self) -> Option<(u64, u64, u64)> {
        match &self.incoming {
            Incoming::Unknown => None,
            Incoming::Symmetric => Some((self.offsets.ptr, self.targets.ptr, self.m)),
            Incoming::Transpose { offsets, sources } => {
                Some((offsets.ptr, sources.ptr, sources.len as u64))
            }
        }
    }
}

/// A GPU with the vertex kernels loaded; reusable across graphs and runs.
pub struct Device {
    pub(super) gpu: Gpu,
    pub(super) k: Kernels,
}

/// The built-in kernels (BFS levels, the BFS tree check, direction planning),
/// loaded once per device.
pub(super) struct Kernels {
    pub(super) init: CudaFunction,
    pub(super) td_chunks: CudaFunction,
    pub(super) td_select: CudaFunction,
    pub(super) td_relax: CudaFunction,
    pub(super) bottom_up: CudaFunction,
    pub(super) level: CudaFunction,
    pub(super) td_scan: CudaFunction,
    pub(super) build_sv: CudaFunction,
    pub(super) check_tree: CudaFunction,
    /// The multi-GPU exchange over peer access (`multi::peer`).
    pub(super) peer_gather: CudaFunction,
    pub(super) plan: CudaFunction,
    pub(super) plan_pass: CudaFunction,
    pub(super) stamped_queue: CudaFunction,
    pub(super) naive: CudaFunction,
    pub(super) balanced: CudaFunction,
    pub(super) min_naive: CudaFunction,
    pub(super) min_balanced: CudaFunction,
}

impl Device {
    /// Opens CUDA device `ordinal` and loads the kernels.
    pub fn open(ordinal: usize) -> Result<Device> {
        let ptx = super::ptx::source()?;
        let gpu = Gpu::open(ordinal, &ptx)?;
        let k = Kernels {
            init: gpu.function("bfs_init")?,
            td_chunks: gpu.function("bfs_td_chunks")?,
            td_select: gpu.function("bfs_td_select")?,
            td_relax: gpu.function("bfs_td_relax")?,
            bottom_up: gpu.function("bfs_bottom_up")?,
            level: gpu.function("bfs_level")?,
            td_scan: gpu.function("bfs_td_scan")?,
            build_sv: gpu.function("vertex_build_sv")?,
            check_tree: gpu.function("vertex_check_bfs_tree")?,
            peer_gather: gpu.function("vertex_peer_gather")?,
            plan: gpu.function("vertex_plan_level")?,
            plan_pass: gpu.function("vertex_plan_pass")?,
            stamped_queue: gpu.function("vertex_stamped_queue")?,
            naive: gpu.function("bfs_naive_level")?,
            balanced: gpu.function("bfs_balanced_level")?,
            min_naive: gpu.function("bfs_min_naive_level")?,
            min_balanced: gpu.function("bfs_min_balanced_level")?,
        };
        Ok(Device { gpu, k })
    }

    /// Whether batches of device-planned levels run as CUDA graphs (the
    /// default; `VERTEX_CUDA_GRAPHS=0` starts with them off). Off issues every
    /// launch as it comes, which is what a graph saves: for comparisons.
    pub fn set_cuda_graphs(&self, on: bool) -> Result<()> {
        self.gpu.graphs()?.set_on(on);
        Ok(())
    }

    /// How the batches ran so far: CUDA graphs replayed, captured, or issued
    /// call by call (and why, if so).
    pub fn graph_stats(&self) -> Result<(crate::gpu::graphs::GraphStats, Option<String>)> {
        self.gpu.graph_stats()
    }

    /// Name, memory and so on.
    pub fn info(&self) -> &DeviceInfo {
        &self.gpu.info
    }

    /// Free device memory in bytes.
    pub fn free_memory(&self) -> Result<u64> {
        self.gpu.free_memory()
    }

    /// Measured device-to-device copy bandwidth, GB/s (see [`Gpu::copy_bandwidth_gbs`]).
    pub fn copy_bandwidth_gbs(&self) -> Result<f64> {
        self.gpu.copy_bandwidth_gbs()
    }

    /// Copies a graph's CSR to the device (weights are not needed by BFS and stay
    /// behind). Checks free memory first.
    pub fn upload<W: Weight>(&self, csr: &Csr<W>) -> Result<DeviceGraph> {
        self.upload_graph(csr, false)
    }

    /// Like [`Self::upload`], and the edge weights too (for weighted programs).
    pub fn upload_weighted<W: Weight>(&self, csr: &Csr<W>) -> Result<DeviceGraph> {
        self.upload_graph(csr, true)
    }

    /// Uploads a graph with what direction-optimizing traversal needs: nothing
    /// more for a symmetric graph, the transpose (in-edges) otherwise; weights too
    /// if `weights`. Memory is checked for both before anything is allocated.
    pub fn upload_traversal<W: Weight>(&self, g: &Graph<W>, weights: bool) -> Result<DeviceGraph> {
        if g.is_symmetric() {
            let mut d = self.upload_graph(g.csr(), weights)?;
            d.incoming = Incoming::Symmetric;
            return Ok(d);
        }
        let (n, m) = (g.num_vertices(), g.num_edges() as usize);
        self.gpu.check_fits(
            &format!("graph CSR and transpose ({n} vertices, {m} edges)"),
            2 * (DevBuf::<u64>::bytes_for(n + 1) + DevBuf::<u32>::bytes_for(m)),
        )?;
        let csc = g.csc();
        let offsets = self.gpu.upload(csc.offsets(), "transpose offsets")?;
        let sources = self.gpu.upload(csc.targets(), "transpose sources")?;
        let mut d = self.upload_graph(g.csr(), weights)?;
        d.incoming = Incoming::Transpose { offsets, sources };
        Ok(d)
    }

    pub(super) fn upload_graph<W: Weight>(
        &self,
        csr: &Csr<W>,
        with_weights: bool,
    ) -> Result<DeviceGraph> {
        let n = csr.num_vertices();
        let m = csr.num_edges() as usize;
        let weight_bytes = match (with_weights, csr.weights()) {
            (true, Some(w)) => Some(bytemuck::cast_slice::<W, u8>(w)),
            _ => None,
        };
        let bytes = DevBuf::<u64>::bytes_for(n + 1)
            + DevBuf::<u32>::bytes_for(m)
            + weight_bytes.map_or(0, |w| DevBuf::<u8>::bytes_for(w.len()));
        self.gpu
            .check_fits(&format!("graph CSR ({n} vertices, {m} edges)"), bytes)?;
        let offsets = self.gpu.upload(csr.offsets(), "CSR offsets")?;
        let targets = self.gpu.upload(csr.targets(), "CSR targets")?;
        let weights = match weight_bytes {
            Some(w) => Some(self.gpu.upload(w, "edge weights")?),
            None => None,
        };
        self.gpu.sync("graph upload")?;
        Ok(DeviceGraph {
            n: n as u64,
            m: m as u64,
            offsets,
            targets,
            weights_ptr: weights.as_ref().map_or(0, |w| w.ptr),
            weights,
            host_offsets: csr.offsets().to_vec(),
            max_degree: csr.max_degree(),
            incoming: Incoming::Unknown,
        })
    }
}
