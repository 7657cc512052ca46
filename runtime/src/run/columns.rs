//! Per-vertex values as text columns: how `-o` files and summaries print any
//! program's states, a struct of several fields included.
//!
//! The numbers implement [`Columns`] here; `#[vertex_program]` implements it
//! for a gather program's `#[repr(C)]` state struct, one column per field (in
//! declaration order, named after the fields).

/// A value printed as one or more whitespace-separated columns.
pub trait Columns {
    /// Column names, for the `#` header of an output file (`value` for a
    /// single number; the field names of a struct).
    fn names(prefix: &str, out: &mut Vec<String>);
    /// Appends the columns, separated by single spaces.
    fn write(&self, out: &mut String);
    /// The value as a number, for summaries (a struct's first field; `None`
    /// for "unreached": the integer's maximum, an infinite float, NaN).
    fn number(&self) -> Option<f64>;
}

fn name(prefix: &str, own: &str) -> String {
    if prefix.is_empty() {
        own.to_string()
    } else {
        prefix.to_string()
    }
}

macro_rules! int_columns {
    ($($t:ty),*) => {$(
        impl Columns for $t {
            fn names(prefix: &str, out: &mut Vec<String>) {
                out.push(name(prefix, "value"));
            }
            /// The type's maximum is how programs say "unreached" (BFS levels,
            /// distances): it prints as `inf`, as the `vertex` command writes it.
            fn write(&self, out: &mut String) {
                use std::fmt::Write;
                if *self == <$t>::MAX {
                    out.push_str("inf");
                } else {
                    let _ = write!(out, "{self}");
                }
            }
            fn number(&self) -> Option<f64> {
                (*self != <$t>::MAX).then_some(*self as f64)
            }
        }
    )*};
}
int_columns!(u8, u16, u32, u64, i8, i16, i32, i64);

macro_rules! float_columns {
    ($($t:ty),*) => {$(
        impl Columns for $t {
            fn names(prefix: &str, out: &mut Vec<String>) {
                out.push(name(prefix, "value"));
            }
            fn write(&self, out: &mut String) {
                use std::fmt::Write;
                if self.is_infinite() && *self > 0.0 {
                    out.push_str("inf");
                } else {
                    let _ = write!(out, "{self}");
                }
            }
            fn number(&self) -> Option<f64> {
                self.is_finite().then_some(*self as f64)
            }
        }
    )*};
}
float_columns!(f32, f64);

impl Columns for bool {
    fn names(prefix: &str, out: &mut Vec<String>) {
        out.push(name(prefix, "value"));
    }
    fn write(&self, out: &mut String) {
        out.push(if *self { '1' } else { '0' });
    }
    fn number(&self) -> Option<f64> {
        Some(f64::from(u8::from(*self)))
    }
}

impl<T: Columns, const N: usize> Columns for [T; N] {
    fn names(prefix: &str, out: &mut Vec<String>) {
        let prefix = if prefix.is_empty() { "value" } else { prefix };
        for i in 0..N {
            T::names(&format!("{prefix}[{i}]"), out);
        }
    }
    fn write(&self, out: &mut String) {
        for (i, x) in self.iter().enumerate() {
            if i > 0 {
                out.push(' ');
            }
            x.write(out);
        }
    }
    fn number(&self) -> Option<f64> {
        self.first().and_then(Columns::number)
    }
}

/// A struct's fields as columns (what the macro's impl calls, field by field).
#[doc(hidden)]
pub fn field<T: Columns>(prefix: &str, field: &str, out: &mut Vec<String>) {
    let full = if prefix.is_empty() {
        field.to_string()
    } else {
        format!("{prefix}.{field}")
    };
    T::names(&full, out);
}

#[cfg(test)]
mod tests {
    use super::Columns;

    fn text<T: Columns>(v: T) -> String {
        let mut s = String::new();
        v.write(&mut s);
        s
    }

    #[test]
    fn unreached_prints_inf() {
        assert_eq!(text(u32::MAX), "inf");
        assert_eq!(text(7u64), "7");
        assert_eq!(text(f64::INFINITY), "inf");
        assert_eq!(text(0.5f32), "0.5");
        assert_eq!(u32::MAX.number(), None);
        assert_eq!([3u32, 4].number(), Some(3.0));
        assert_eq!(text([1u32, u32::MAX]), "1 inf");
        let mut names = Vec::new();
        <[u32; 2]>::names("", &mut names);
        assert_eq!(names, ["value[0]", "value[1]"]);
    }
}
