//! What GPU runs keep between calls: the opened device, each program's loaded
//! kernels, and the graphs last uploaded.
//!
//! Opening a device (a CUDA context and the built-in module) takes a good part
//! of a second, loading a program's PTX tens of milliseconds, and uploading a
//! graph of a billion edges seconds; a caller that runs a program from many
//! sources, or several programs on one graph, should pay each once. The cache
//! holds one entry per device, its programs' kernels by program type, and the
//! [`KEEP`] graphs used last, keyed by [`Graph::id`](crate::graph::Graph::id)
//! (so a graph dropped and another built at the same address is never mistaken
//! for it). Runs on one device are serialized by the entry's lock; [`clear`]
//! frees everything held.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use crate::error::Result;
use crate::gpu::multi::{MultiGpu, Route};
use crate::gpu::Device;

/// Uploaded graphs kept per device (the most recently used).
pub const KEEP: usize = 2;

type Shared = Arc<dyn Any + Send + Sync>;

/// One device's cached state (or, for runs over several GPUs, the
/// [`MultiGpu`]'s: [`with_multi`]).
pub struct Slot<D = Device> {
    dev: D,
    kernels: HashMap<TypeId, Shared>,
    /// Most recently used last.
    graphs: Vec<(GraphKey, Shared)>,
}

/// Which upload of which graph: the graph's id, and what was uploaded (with or
/// without weights, for which engine).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GraphKey {
    pub graph: u64,
    pub what: &'static str,
    /// The edge chunk size an upload's chunk owners were built for (0: none).
    pub edges_per_thread: u64,
}

impl<D> Slot<D> {
    fn new(dev: D) -> Slot<D> {
        Slot {
            dev,
            kernels: HashMap::new(),
            graphs: Vec::new(),
        }
    }

    /// The device.
    pub fn device(&self) -> &D {
        &self.dev
    }

    /// The device, to change its settings (a multi-GPU run's exchange route).
    pub fn device_mut(&mut self) -> &mut D {
        &mut self.dev
    }

    /// The kernels of program `P`, loaded by `load` on first use.
    pub fn kernels<P: 'static, K: Send + Sync + 'static>(
        &mut self,
        load: impl FnOnce(&D) -> Result<K>,
    ) -> Result<Arc<K>> {
        let key = TypeId::of::<(P, K)>();
        if let Some(k) = self.kernels.get(&key) {
            if let Ok(k) = Arc::clone(k).downcast::<K>() {
                return Ok(k);
            }
        }
        let k = Arc::new(load(&self.dev)?);
        self.kernels.insert(key, k.clone());
        Ok(k)
    }

    /// The upload `key` names, made by `upload` unless it is still held. Holding
    /// more than [`KEEP`] graphs drops the least recently used first, before
    /// uploading, so the device never holds `KEEP + 1`.
    pub fn graph<G: Send + Sync + 'static>(
        &mut self,
        key: GraphKey,
        upload: impl FnOnce(&D) -> Result<G>,
    ) -> Result<Arc<G>> {
        if let Some(i) = self.graphs.iter().position(|(k, _)| *k == key) {
            let entry = self.graphs.remove(i);
            let held = Arc::clone(&entry.1).downcast::<G>();
            self.graphs.push(entry);
            if let Ok(g) = held {
                return Ok(g);
            }
        }
        while self.graphs.len() >= KEEP {
            self.graphs.remove(0);
        }
        let g = Arc::new(upload(&self.dev)?);
        self.graphs.push((key, g.clone()));
        Ok(g)
    }
}

type Slots = HashMap<usize, Result<Arc<Mutex<Slot>>, String>>;

fn slots() -> &'static Mutex<Slots> {
    static SLOTS: OnceLock<Mutex<Slots>> = OnceLock::new();
    SLOTS.get_or_init(Default::default)
}

/// The cache entry of device `ordinal`, opening the device on first use. A
/// device that failed to open is not tried again (the error is kept: a loop of
/// `auto` runs on a machine without a GPU pays for the attempt once).
fn slot(ordinal: usize) -> Result<Arc<Mutex<Slot>>> {
    let mut slots = slots().lock().unwrap_or_else(PoisonError::into_inner);
    let entry = slots.entry(ordinal).or_insert_with(|| {
        Device::open(ordinal)
            .map(|dev| Arc::new(Mutex::new(Slot::new(dev))))
            // Kept as the text a `GpuUnavailable` carries (errors are not
            // `Clone`): the variant's own message, or another error's whole text.
            .map_err(|e| match e {
                crate::Error::GpuUnavailable(why) => why,
                e => e.to_string(),
            })
    });
    match entry {
        Ok(s) => Ok(Arc::clone(s)),
        Err(why) => Err(crate::Error::GpuUnavailable(why.clone())),
    }
}

/// Runs `f` with device `ordinal`'s cache entry locked (runs on one device are
/// serialized).
pub fn with<R>(ordinal: usize, f: impl FnOnce(&mut Slot) -> Result<R>) -> Result<R> {
    let s = slot(ordinal)?;
    let mut s = s.lock().unwrap_or_else(PoisonError::into_inner);
    f(&mut s)
}

/// The name of device `ordinal`, opening it if needed: the test `auto` makes
/// before choosing the GPU.
pub fn device_name(ordinal: usize) -> Result<String> {
    with(ordinal, |s| Ok(s.device().info().name.clone()))
}

/// The GPUs of the last run over several, with that run's settings: the
/// number of GPUs and the devices `VERTEX_MULTI_DEVICES` named.
struct MultiHeld {
    gpus: usize,
    devices: Option<String>,
    /// The exchange route they opened with (their default).
    route: Route,
    slot: Slot<MultiGpu>,
}

fn multi_held() -> &'static Mutex<Option<MultiHeld>> {
    static HELD: OnceLock<Mutex<Option<MultiHeld>>> = OnceLock::new();
    HELD.get_or_init(Default::default)
}

/// Runs `f` on the GPUs of a run over `gpus` of them, with their programs'
/// kernels and the graphs last uploaded as parts: the GPUs of the previous
/// such run when it asked for as many (opening GPUs, their contexts and NCCL
/// communicator, and partitioning and uploading a graph cost seconds; a caller
/// running several programs on one graph pays them once), else those `open`
/// opens, after the held ones are dropped. Runs over several GPUs are
/// serialized. `f` gets the GPUs' default exchange route, the one they opened
/// with (a run may have picked another). A run that fails with a CUDA error
/// drops them (the next opens them again), as a context may be left unusable.
///
/// The GPUs held here are apart from one GPU's entry ([`with`]): a run on one
/// GPU and a run over several keep their own contexts and uploads.
pub fn with_multi<R>(
    gpus: usize,
    open: impl FnOnce() -> Result<MultiGpu>,
    f: impl FnOnce(&mut Slot<MultiGpu>, Route) -> Result<R>,
) -> Result<R> {
    let mut held = multi_held().lock().unwrap_or_else(PoisonError::into_inner);
    let devices = std::env::var(crate::gpu::multi::ordinals::VAR).ok();
    let h = match held.take() {
        Some(h) if h.gpus == gpus && h.devices == devices => h,
        old => {
            // The old GPUs' memory and communicator go before new ones open.
            drop(old);
            let m = open()?;
            MultiHeld {
                gpus,
                devices,
                route: m.route(),
                slot: Slot::new(m),
            }
        }
    };
    let h = held.insert(h);
    let r = f(&mut h.slot, h.route);
    if let Err(crate::Error::Cuda { .. }) = &r {
        *held = None;
    }
    r
}

/// Drops every cached device, kernel and graph (freeing their device memory),
/// the GPUs of the last multi-GPU run, and forgets devices that failed to open.
pub fn clear() {
    slots()
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .clear();
    *multi_held().lock().unwrap_or_else(PoisonError::into_inner) = None;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// GPUs that fail to open are not held: the error comes back, and the
    /// next run tries to open them again (a driver installed in between, or
    /// another number of GPUs, is not hidden behind an old failure).
    #[test]
    fn gpus_that_fail_to_open_are_tried_again() {
        let mut opened = 0;
        for _ in 0..2 {
            let r = with_multi(
                2,
                || {
                    opened += 1;
                    Err(crate::Error::GpuUnavailable("none here".into()))
                },
                |_, _| Ok(()),
            );
            assert!(matches!(r, Err(crate::Error::GpuUnavailable(_))), "{r:?}");
        }
        assert_eq!(opened, 2);
        assert!(multi_held().lock().unwrap().is_none());
    }
}
