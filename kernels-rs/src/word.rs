//! Per-vertex state that fits one atomic word.
//!
//! The program model requires `State` to be a plain value that one atomic
//! instruction can update (u32/i32/u64/i64/f32/f64). [`StateWord`] names the atomic
//! type that holds it and the few operations the skeletons and the combine helpers
//! need; floats are stored as their bit pattern in the unsigned atomic of the same
//! width, so `min`/`max` on them go through a compare-and-swap loop.

use core::sync::atomic::{AtomicI32, AtomicI64, AtomicU32, AtomicU64, Ordering::Relaxed};

/// A value that lives in one atomic word. All accesses are `Relaxed`: kernels only
/// need per-word atomicity; ordering between levels comes from kernel boundaries.
pub trait StateWord: Copy + PartialEq + PartialOrd + Send + Sync + 'static {
    /// The atomic cell holding one value (same size and alignment as `Self`).
    type Atomic: Send + Sync;
    /// Reads the cell.
    fn load(a: &Self::Atomic) -> Self;
    /// Writes the cell.
    fn store(a: &Self::Atomic, v: Self);
    /// Writes the cell with a relaxed exchange rather than a store, for a
    /// word of the calling block's shared memory that another of its threads
    /// loads with no barrier between (the tiled kernel's hand-overs, ordered
    /// by fences and read-modify-writes instead).
    ///
    /// Why: compute-sanitizer's racecheck models neither fences nor the
    /// memory orders of loads and stores, and reports such a store paired
    /// with a load as a race however it is ordered, while it leaves
    /// read-modify-writes alone (`74e218a:docs/results/h100/racefree/`). With the
    /// hand-overs' stores made exchanges, what racecheck still reports is a
    /// real missing barrier. On the GPU it is one `atom.shared.exch`, at the
    /// store's cost in the tiled kernels.
    fn put(a: &Self::Atomic, v: Self);
    /// `compare_exchange`: `Ok(previous)` if the cell held `current` and now holds `new`.
    fn compare_exchange(a: &Self::Atomic, current: Self, new: Self) -> Result<Self, Self>;
    /// Atomic minimum; returns the previous value.
    fn fetch_min(a: &Self::Atomic, v: Self) -> Self {
        let mut cur = Self::load(a);
        while v < cur {
            match Self::compare_exchange(a, cur, v) {
                Ok(prev) => return prev,
                Err(now) => cur = now,
            }
        }
        cur
    }
    /// Atomic maximum; returns the previous value.
    fn fetch_max(a: &Self::Atomic, v: Self) -> Self {
        let mut cur = Self::load(a);
        while v > cur {
            match Self::compare_exchange(a, cur, v) {
                Ok(prev) => return prev,
                Err(now) => cur = now,
            }
        }
        cur
    }
    /// Atomic `+=` (wrapping for integers); returns the previous value. One
    /// hardware atomic (integers everywhere, floats on the GPU): under contention
    /// — a hub's in-edge chunks all adding into its slot — a compare-and-swap loop
    /// retries without bound while a native add completes in the L2.
    fn fetch_add(a: &Self::Atomic, v: Self) -> Self;
    /// Views `len` values at `ptr` as atomic cells.
    ///
    /// # Safety
    /// `ptr` must be valid for reads and writes of `len` values for `'a` (or
    /// `len == 0`), aligned, and only accessed through atomics meanwhile.
    unsafe fn atomics_from_raw<'a>(ptr: *mut Self, len: usize) -> &'a [Self::Atomic];
    /// Views a uniquely borrowed slice as atomic cells (host side).
    fn atomics_from_mut(s: &mut [Self]) -> &[Self::Atomic] {
        // SAFETY: the exclusive borrow guarantees validity and no other access for
        // the returned lifetime; each atomic type has the layout of its value type.
        unsafe { Self::atomics_from_raw(s.as_mut_ptr(), s.len()) }
    }
}

/// `len` cells at `ptr` as a slice, with a dangling (never dereferenced) pointer
/// for empty slices so that a null device pointer of an empty buffer is fine.
///
/// # Safety
/// As [`StateWord::atomics_from_raw`], with `A` having the layout of `T`.
#[inline(always)]
unsafe fn cells<'a, T, A>(ptr: *mut T, len: usize) -> &'a [A] {
    if len == 0 {
        return &[];
    }
    // SAFETY: caller guarantees validity for `len` elements; `A` has `T`'s layout.
    unsafe { core::slice::from_raw_parts(ptr as *const A, len) }
}

macro_rules! int_word {
    ($t:ty, $a:ty) => {
        impl StateWord for $t {
            type Atomic = $a;
            #[inline(always)]
            fn load(a: &$a) -> $t {
                a.load(Relaxed)
            }
            #[inline(always)]
            fn store(a: &$a, v: $t) {
                a.store(v, Relaxed)
            }
            #[inline(always)]
            fn put(a: &$a, v: $t) {
                keep(a.swap(v, Relaxed) as u64);
            }
            #[inline(always)]
            fn compare_exchange(a: &$a, current: $t, new: $t) -> Result<$t, $t> {
                a.compare_exchange(current, new, Relaxed, Relaxed)
            }
            #[inline(always)]
            fn fetch_min(a: &$a, v: $t) -> $t {
                a.fetch_min(v, Relaxed)
            }
            #[inline(always)]
            fn fetch_max(a: &$a, v: $t) -> $t {
                a.fetch_max(v, Relaxed)
            }
            #[inline(always)]
            fn fetch_add(a: &$a, v: $t) -> $t {
                a.fetch_add(v, Relaxed)
            }
            #[inline(always)]
            unsafe fn atomics_from_raw<'a>(ptr: *mut $t, len: usize) -> &'a [$a] {
                // SAFETY: forwarded contract; the atomic has the integer's layout.
                unsafe { cells(ptr, len) }
            }
        }
    };
}

int_word!(u32, AtomicU32);
int_word!(i32, AtomicI32);
int_word!(u64, AtomicU64);
int_word!(i64, AtomicI64);

macro_rules! float_word {
    ($t:ty, $a:ty, $ptx:literal, $reg:ident) => {
        impl StateWord for $t {
            type Atomic = $a;
            #[inline(always)]
            fn load(a: &$a) -> $t {
                <$t>::from_bits(a.load(Relaxed))
            }
            #[inline(always)]
            fn store(a: &$a, v: $t) {
                a.store(v.to_bits(), Relaxed)
            }
            #[inline(always)]
            fn put(a: &$a, v: $t) {
                keep(a.swap(v.to_bits(), Relaxed).into());
            }
            #[inline(always)]
            fn compare_exchange(a: &$a, current: $t, new: $t) -> Result<$t, $t> {
                a.compare_exchange(current.to_bits(), new.to_bits(), Relaxed, Relaxed)
                    .map(<$t>::from_bits)
                    .map_err(<$t>::from_bits)
            }
            #[inline(always)]
            fn fetch_add(a: &$a, v: $t) -> $t {
                #[cfg(target_arch = "nvptx64")]
                {
                    let old: $t;
                    // SAFETY: `a` is a live, aligned atomic cell of this float's
                    // width; `atom.add` reads and writes exactly that word
                    // atomically (relaxed, device scope), like the Rust atomics
                    // every other access to it uses.
                    unsafe {
                        core::arch::asm!(
                            $ptx,
                            old = out($reg) old,
                            ptr = in(reg64) a.as_ptr() as u64,
                            v = in($reg) v,
                            options(nostack),
                        );
                    }
                    old
                }
                #[cfg(not(target_arch = "nvptx64"))]
                {
                    let mut cur = a.load(Relaxed);
                    loop {
                        let new = (<$t>::from_bits(cur) + v).to_bits();
                        match a.compare_exchange_weak(cur, new, Relaxed, Relaxed) {
                            Ok(prev) => return <$t>::from_bits(prev),
                            Err(now) => cur = now,
                        }
                    }
                }
            }
            #[inline(always)]
            unsafe fn atomics_from_raw<'a>(ptr: *mut $t, len: usize) -> &'a [$a] {
                // SAFETY: forwarded contract; the float has the unsigned atomic's layout.
                unsafe { cells(ptr, len) }
            }
        }
    };
}

float_word!(f32, AtomicU32, "atom.add.f32 {old}, [{ptr}], {v};", reg32);
float_word!(f64, AtomicU64, "atom.add.f64 {old}, [{ptr}], {v};", reg64);

/// Uses `old`, an exchange's result, so that LLVM keeps the exchange: it
/// turns a relaxed exchange whose result goes unused into a store
/// ([`StateWord::put`]). An empty assembly block that only reads a register
/// and touches no memory, so that no load or store around it is held in
/// place. (Tried first: an inline `atom.exch`, whose memory clobber, and
/// `swap(Acquire)`, which holds the accesses around it; both took widest's
/// tiled kernel from 128 to 144 registers, so fewer threads a block, and
/// widest paths on the grids 10–26 % slower.)
#[inline(always)]
fn keep(old: u64) {
    #[cfg(target_arch = "nvptx64")]
    // SAFETY: an empty block (a PTX comment) that reads one register.
    unsafe {
        core::arch::asm!("// {0}", in(reg64) old, options(nomem, nostack, preserves_flags))
    };
    #[cfg(not(target_arch = "nvptx64"))]
    let _ = old;
}

/// `len` u32 cells at `ptr` as atomics, or `None` for a null pointer (an optional
/// buffer the host did not pass, e.g. parents).
///
/// # Safety
/// As [`StateWord::atomics_from_raw`] when non-null.
#[inline(always)]
pub unsafe fn opt_u32_cells<'a>(ptr: *mut u32, len: usize) -> Option<&'a [AtomicU32]> {
    if ptr.is_null() {
        None
    } else {
        // SAFETY: forwarded contract.
        Some(unsafe { u32::atomics_from_raw(ptr, len) })
    }
}

/// A read-only slice from a device pointer (dangling for empty).
///
/// # Safety
/// `ptr` valid for `len` reads for `'a` and not written meanwhile (or `len == 0`).
#[inline(always)]
pub unsafe fn slice<'a, T>(ptr: *const T, len: usize) -> &'a [T] {
    if len == 0 || core::mem::size_of::<T>() == 0 {
        // SAFETY: a dangling, aligned pointer is valid for an empty or ZST slice.
        return unsafe {
            core::slice::from_raw_parts(core::ptr::NonNull::dangling().as_ptr(), len)
        };
    }
    // SAFETY: forwarded contract.
    unsafe { core::slice::from_raw_parts(ptr, len) }
}
