//! Output buffers that fail with an error, not an abort.
//!
//! `vec![x; n]` aborts the process when the allocation fails; a mistyped
//! `kron:32:1000` should instead say how much memory it wanted. The buffer is
//! probed with `try_reserve_exact` first, then allocated zeroed (`calloc`), so the
//! pages are first touched by the parallel generator threads, not by a serial fill.

use crate::error::{Error, Result};

/// A zeroed edge buffer of `m` edges, or an error naming `what` and the size.
pub(crate) fn edge_buffer(m: usize, what: &str) -> Result<Vec<[u32; 2]>> {
    let mut probe: Vec<[u32; 2]> = Vec::new();
    probe.try_reserve_exact(m).map_err(|_| {
        Error::InvalidArgument(format!(
            "cannot allocate {m} edges ({:.1} GiB) for {what}",
            m as f64 * std::mem::size_of::<[u32; 2]>() as f64 / (1u64 << 30) as f64
        ))
    })?;
    drop(probe);
    Ok(vec![[0u32; 2]; m])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zeroed_or_error() {
        assert_eq!(edge_buffer(3, "x").unwrap(), vec![[0, 0]; 3]);
        let err = edge_buffer(usize::MAX / 8, "a huge graph")
            .unwrap_err()
            .to_string();
        assert!(err.contains("a huge graph"), "{err}");
    }
}
