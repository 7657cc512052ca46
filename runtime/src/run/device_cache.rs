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
use crate::gpu::Device;

/// Uploaded graphs kept per device (the most recently used).
pub const KEEP: usize = 2;

type Shared = Arc<dyn Any + Send + Sync>;

/// One device's cached state.
pub struct Slot {
    dev: Device,
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

impl Slot {
    /// The device.
    pub fn device(&self) -> &Device {
        &self.dev
    }

    /// The kernels of program `P`, loaded by `load` on first use.
    pub fn kernels<P: 'static, K: Send + Sync + 'static>(
        &mut self,
        load: impl FnOnce(&Device) -> Result<K>,
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
        upload: impl FnOnce(&Device) -> Result<G>,
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
            .map(|dev| {
                Arc::new(Mutex::new(Slot {
                    dev,
                    kernels: HashMap::new(),
                    graphs: Vec::new(),
                }))
            })
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

/// Drops every cached device, kernel and graph (freeing their device memory),
/// and forgets devices that failed to open.
pub fn clear() {
    slots()
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .clear();
}
