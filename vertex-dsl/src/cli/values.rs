//! What a command does with a run's values: `-o` lines, the summary, and the
//! check that two runs (or a run and an oracle) agree.

use std::io::Write;

use runtime::run::{Columns, Intersected};
use serde_json::{json, Value};

/// A run's output as the command line shows it. Implemented for one state per
/// vertex (`Vec<S>`, any [`Columns`] state: numbers, arrays, the macro's state
/// structs) and for what intersection programs reduce ([`Intersected`]).
pub trait Values {
    /// Writes the `-o` file: a `#` header naming the columns, then one line per
    /// vertex, `vertex value..` (unreached values as `inf`). `false` when there
    /// are no per-vertex values (a per-graph reduction).
    fn write_rows(&self, header: &str, w: &mut dyn Write) -> std::io::Result<bool>;
    /// The summary: counts and a checksum over the per-vertex values, or the
    /// reduced value.
    fn summary(&self) -> Value;
    /// `Ok` when `other` holds the same values (floats within a relative 1e-6),
    /// else the first difference.
    fn agrees(&self, other: &Self) -> Result<(), String>;
}

/// One value's columns as text.
fn cells<T: Columns>(x: &T) -> String {
    let mut s = String::new();
    x.write(&mut s);
    s
}

/// Whether two written values agree, column by column: the same text, or
/// numbers within a relative 1e-6 (float results differ in the last bits
/// between schedules, threads and devices).
fn same_cells(a: &str, b: &str) -> bool {
    if a == b {
        return true;
    }
    let (ca, cb): (Vec<_>, Vec<_>) = (a.split(' ').collect(), b.split(' ').collect());
    ca.len() == cb.len()
        && ca.iter().zip(&cb).all(|(x, y)| {
            x == y
                || match (x.parse::<f64>(), y.parse::<f64>()) {
                    // `inf` parses as a float too: only finite values get a tolerance.
                    (Ok(x), Ok(y)) if x.is_finite() && y.is_finite() => {
                        (x - y).abs() <= 1e-6 * x.abs().max(y.abs()).max(1.0)
                    }
                    _ => false,
                }
        })
}

fn rows<T: Columns>(values: &[T], header: &str, w: &mut dyn Write) -> std::io::Result<()> {
    let mut names = Vec::new();
    T::names("", &mut names);
    writeln!(w, "# {header}")?;
    writeln!(w, "# vertex {}", names.join(" "))?;
    let mut line = String::new();
    for (v, x) in values.iter().enumerate() {
        line.clear();
        x.write(&mut line);
        writeln!(w, "{v} {line}")?;
    }
    Ok(())
}

fn per_vertex_summary<T: Columns>(values: &[T]) -> Value {
    let (mut reached, mut sum) = (0u64, 0.0f64);
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for x in values {
        if let Some(v) = x.number() {
            reached += 1;
            sum += v;
            lo = lo.min(v);
            hi = hi.max(v);
        }
    }
    json!({
        "vertices": values.len(),
        "reached": reached,
        "checksum": sum,
        "min": (reached > 0).then_some(lo),
        "max": (reached > 0).then_some(hi),
    })
}

fn per_vertex_agree<T: Columns>(a: &[T], b: &[T]) -> Result<(), String> {
    if a.len() != b.len() {
        return Err(format!("{} values against {}", a.len(), b.len()));
    }
    match a
        .iter()
        .zip(b)
        .enumerate()
        .map(|(v, (x, y))| (v, cells(x), cells(y)))
        .find(|(_, x, y)| !same_cells(x, y))
    {
        Some((v, x, y)) => Err(format!("vertex {v}: {x} against {y}")),
        None => Ok(()),
    }
}

impl<T: Columns> Values for Vec<T> {
    fn write_rows(&self, header: &str, w: &mut dyn Write) -> std::io::Result<bool> {
        rows(self, header, w).map(|()| true)
    }
    fn summary(&self) -> Value {
        per_vertex_summary(self)
    }
    fn agrees(&self, other: &Self) -> Result<(), String> {
        per_vertex_agree(self, other)
    }
}

impl<A: Columns, S: Columns> Values for Intersected<A, S> {
    fn write_rows(&self, header: &str, w: &mut dyn Write) -> std::io::Result<bool> {
        if self.states.is_empty() {
            return Ok(false);
        }
        rows(&self.states, header, w).map(|()| true)
    }
    fn summary(&self) -> Value {
        if self.states.is_empty() {
            json!({ "total": cells(&self.total) })
        } else {
            per_vertex_summary(&self.states)
        }
    }
    fn agrees(&self, other: &Self) -> Result<(), String> {
        let (a, b) = (cells(&self.total), cells(&other.total));
        if !same_cells(&a, &b) {
            return Err(format!("total {a} against {b}"));
        }
        per_vertex_agree(&self.states, &other.states)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_agree_within_tolerance() {
        assert!(vec![1.0f64, 2.0].agrees(&vec![1.0 + 1e-9, 2.0]).is_ok());
        let e = vec![1.0f64, 2.0].agrees(&vec![1.0, 2.5]).unwrap_err();
        assert!(e.starts_with("vertex 1:"), "{e}");
        assert!(vec![u32::MAX].agrees(&vec![3]).is_err());
    }

    #[test]
    fn rows_have_a_header_and_inf() {
        let mut out = Vec::new();
        assert!(vec![0u32, u32::MAX].write_rows("bfs", &mut out).unwrap());
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "# bfs\n# vertex value\n0 0\n1 inf\n"
        );
        let s = vec![1u32, u32::MAX, 3].summary();
        assert_eq!(s["reached"], 2);
        assert_eq!(s["checksum"], 4.0);
    }
}
