//! Edge weight types.
//!
//! Graphs are generic over the weight type so that integer SSSP stays exact and float
//! SSSP does not pay for conversions. `WeightKind` is the run-time tag stored in
//! `.vgr` headers and reported by `vertex info`.

use std::cmp::Ordering;
use std::fmt::{Debug, Display};

/// Run-time tag of a weight type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum WeightKind {
    U32,
    I32,
    U64,
    I64,
    F32,
    F64,
}

impl WeightKind {
    /// Stable numeric code used in binary headers.
    pub fn code(self) -> u32 {
        match self {
            WeightKind::U32 => 1,
            WeightKind::I32 => 2,
            WeightKind::U64 => 3,
            WeightKind::I64 => 4,
            WeightKind::F32 => 5,
            WeightKind::F64 => 6,
        }
    }

    /// Inverse of [`WeightKind::code`].
    pub fn from_code(code: u32) -> Option<Self> {
        Some(match code {
            1 => WeightKind::U32,
            2 => WeightKind::I32,
            3 => WeightKind::U64,
            4 => WeightKind::I64,
            5 => WeightKind::F32,
            6 => WeightKind::F64,
            _ => return None,
        })
    }

    /// Size of one weight in bytes.
    pub fn size(self) -> usize {
        match self {
            WeightKind::U32 | WeightKind::I32 | WeightKind::F32 => 4,
            _ => 8,
        }
    }

    /// Whether the type is a floating-point type.
    pub fn is_float(self) -> bool {
        matches!(self, WeightKind::F32 | WeightKind::F64)
    }
}

impl Display for WeightKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let s = match self {
            WeightKind::U32 => "u32",
            WeightKind::I32 => "i32",
            WeightKind::U64 => "u64",
            WeightKind::I64 => "i64",
            WeightKind::F32 => "f32",
            WeightKind::F64 => "f64",
        };
        f.write_str(s)
    }
}

impl std::str::FromStr for WeightKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Ok(match s {
            "u32" => WeightKind::U32,
            "i32" => WeightKind::I32,
            "u64" => WeightKind::U64,
            "i64" => WeightKind::I64,
            "f32" => WeightKind::F32,
            "f64" => WeightKind::F64,
            _ => {
                return Err(format!(
                    "unknown weight type `{s}` (u32, i32, u64, i64, f32, f64)"
                ))
            }
        })
    }
}

/// An edge weight: a plain-old-data number that can be parsed exactly from text.
pub trait Weight:
    Copy + Send + Sync + PartialOrd + PartialEq + Debug + Display + Default + bytemuck::Pod + 'static
{
    /// The run-time tag of this type.
    const KIND: WeightKind;
    /// The weight of an unweighted (`pattern`) edge.
    const ONE: Self;
    /// Parses a text token. Integers reject fractions and out-of-range values rather
    /// than rounding, so a file never silently changes meaning.
    fn parse_token(s: &str) -> Option<Self>;
    /// Converts a generator's integer weight.
    fn from_u64(x: u64) -> Self;
    /// A total order (NaN-safe for floats), used to keep the smallest duplicate.
    fn total_cmp(&self, other: &Self) -> Ordering;
    /// Whether the value is negative (shortest paths care).
    fn is_negative(&self) -> bool;
    /// Whether the value is infinite (a float `inf`, which files may write for
    /// an edge that can never be used); never for integers.
    fn is_infinite(&self) -> bool {
        false
    }
}

macro_rules! int_weight {
    ($t:ty, $kind:ident, $neg:expr) => {
        impl Weight for $t {
            const KIND: WeightKind = WeightKind::$kind;
            const ONE: Self = 1;
            fn parse_token(s: &str) -> Option<Self> {
                s.parse().ok()
            }
            fn from_u64(x: u64) -> Self {
                x as $t
            }
            fn total_cmp(&self, other: &Self) -> Ordering {
                self.cmp(other)
            }
            #[allow(clippy::redundant_closure_call, unused_comparisons)]
            fn is_negative(&self) -> bool {
                ($neg)(*self)
            }
        }
    };
}
int_weight!(u32, U32, |_x: u32| false);
int_weight!(u64, U64, |_x: u64| false);
int_weight!(i32, I32, |x: i32| x < 0);
int_weight!(i64, I64, |x: i64| x < 0);

macro_rules! float_weight {
    ($t:ty, $kind:ident) => {
        impl Weight for $t {
            const KIND: WeightKind = WeightKind::$kind;
            const ONE: Self = 1.0;
            /// NaN is refused: it compares false with everything, so an edge
            /// weighing NaN would silently vanish from every shortest path.
            /// A written `inf` stays (an edge that can never be used); `-inf`
            /// (every path through it "shorter" than any other) and a finite
            /// number too large for the type (`1e400`, which parses as
            /// infinity) are refused, so a file never silently changes meaning.
            fn parse_token(s: &str) -> Option<Self> {
                let x: $t = s.parse().ok()?;
                if x.is_nan() {
                    return None;
                }
                if x.is_infinite() {
                    let word = s.strip_prefix('+').unwrap_or(s).to_ascii_lowercase();
                    if x < 0.0 || !(word == "inf" || word == "infinity") {
                        return None;
                    }
                }
                Some(x)
            }
            fn from_u64(x: u64) -> Self {
                x as $t
            }
            fn total_cmp(&self, other: &Self) -> Ordering {
                <$t>::total_cmp(self, other)
            }
            fn is_negative(&self) -> bool {
                *self < 0.0
            }
            fn is_infinite(&self) -> bool {
                <$t>::is_infinite(*self)
            }
        }
    };
}
float_weight!(f32, F32);
float_weight!(f64, F64);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_parse_is_exact() {
        assert_eq!(u32::parse_token("17"), Some(17));
        assert_eq!(u32::parse_token("1.5"), None);
        assert_eq!(u32::parse_token("-1"), None);
        assert_eq!(i32::parse_token("-1"), Some(-1));
        assert_eq!(u32::parse_token("4294967296"), None);
        assert_eq!(f64::parse_token("2.5e1"), Some(25.0));
        assert_eq!(f64::parse_token("nan"), None);
        assert_eq!(f32::parse_token("NaN"), None);
        assert_eq!(f64::parse_token("inf"), Some(f64::INFINITY));
        assert_eq!(f64::parse_token("+Infinity"), Some(f64::INFINITY));
        // Overflow and minus infinity are refused, not kept as infinities.
        assert_eq!(f64::parse_token("1e400"), None);
        assert_eq!(f32::parse_token("1e39"), None);
        assert_eq!(f64::parse_token("-inf"), None);
        assert_eq!(f64::parse_token("-1e400"), None);
        assert_eq!(f32::parse_token("3.4e38"), Some(3.4e38));
    }

    #[test]
    fn codes_round_trip() {
        for k in [
            WeightKind::U32,
            WeightKind::I32,
            WeightKind::U64,
            WeightKind::I64,
            WeightKind::F32,
            WeightKind::F64,
        ] {
            assert_eq!(WeightKind::from_code(k.code()), Some(k));
            assert_eq!(k.to_string().parse::<WeightKind>(), Ok(k));
        }
    }
}
