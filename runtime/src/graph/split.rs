//! Cutting one buffer into its rows: the builder fills each row of a new CSR in
//! parallel, and the CSR's own transforms (transpose, reorder) and the triangle
//! counter's oriented graph do the same, so the helper sits below them all.

/// Splits `data` into consecutive pieces of lengths `bounds[i+1] - bounds[i]`.
pub(crate) fn split_at_bounds<'a, T>(mut data: &'a mut [T], bounds: &[usize]) -> Vec<&'a mut [T]> {
    let mut out = Vec::with_capacity(bounds.len().saturating_sub(1));
    for w in bounds.windows(2) {
        let (head, tail) = data.split_at_mut(w[1] - w[0]);
        out.push(head);
        data = tail;
    }
    out
}
