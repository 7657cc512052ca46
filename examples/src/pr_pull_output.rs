//! What `bench/cuda/pr_pull` (the hand-written CUDA PageRank) prints and
//! writes, as `vertex bench pr-gpu` reads it, and the bytes-per-round model
//! both GPU sides are judged by. Here rather than in the CLI so that these unit
//! tests do not build the whole CLI a second time (the `vertex` binary has no
//! test harness).

use serde::Deserialize;

/// The JSON object `pr_pull` prints on stdout (the fields the benchmark reads).
#[derive(Clone, Debug, Deserialize, PartialEq)]
pub struct PrPullResult {
    pub vertices: u64,
    pub edges: u64,
    pub directed: bool,
    pub kernel: String,
    pub trials: u64,
    pub rounds: u32,
    pub l1_last: f64,
    /// Median over every round of every timed trial (CUDA events), ms.
    pub ms_per_round_median: f64,
    /// Median over the timed trials of a whole run (CUDA events), ms.
    pub ms_total_median: f64,
    pub bytes_per_round: f64,
    pub gbps: f64,
}

/// Reads `pr_pull`'s stdout: the last line that is a JSON object (progress
/// goes to stderr, but a wrapper may add lines before it).
pub fn parse_pr_pull_json(stdout: &str) -> Result<PrPullResult, String> {
    let line = stdout
        .lines()
        .rev()
        .map(str::trim)
        .find(|l| l.starts_with('{'))
        .ok_or_else(|| format!("no JSON object in pr_pull's output: {stdout:?}"))?;
    serde_json::from_str(line).map_err(|e| format!("pr_pull's JSON ({line}): {e}"))
}

/// Reads the ranks `pr_pull --out FILE` writes: one `VERTEX RANK` line per
/// vertex, in order (`%.12e`: 13 significant digits). Every vertex of `0..n`
/// must appear exactly once, in order.
pub fn parse_pr_pull_ranks(text: &str, n: usize) -> Result<Vec<f64>, String> {
    let mut ranks = Vec::with_capacity(n);
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let mut w = line.split_whitespace();
        let (Some(v), Some(r), None) = (w.next(), w.next(), w.next()) else {
            return Err(format!("line {}: want `VERTEX RANK`, got {line:?}", i + 1));
        };
        let v: usize = v
            .parse()
            .map_err(|_| format!("line {}: bad vertex {v:?}", i + 1))?;
        let r: f64 = r
            .parse()
            .map_err(|_| format!("line {}: bad rank {r:?}", i + 1))?;
        if v != ranks.len() {
            return Err(format!(
                "line {}: vertex {v}, expected {} (in order, once each)",
                i + 1,
                ranks.len()
            ));
        }
        ranks.push(r);
    }
    if ranks.len() != n {
        return Err(format!("{} ranks for {n} vertices", ranks.len()));
    }
    Ok(ranks)
}

/// Bytes a pull round must move at least, `pr_pull`'s model (bench/cuda/README.md):
/// in-offsets 8(n+1) + in-sources 4m + contribution reads 4m + contribution
/// writes 4n + rank read and write 16n + out-degrees 4n. The same formula for
/// both sides, so that GB/s and % of peak compare the work, not each side's
/// own overheads. `m`: CSR entries (an undirected edge counts twice).
pub fn pull_bytes_per_round(n: u64, m: u64) -> f64 {
    8.0 * (n as f64 + 1.0) + 8.0 * m as f64 + 24.0 * n as f64
}

/// Two rank vectors agree when every vertex's ranks differ by at most
/// [`RANK_REL_TOLERANCE`] of the larger or [`RANK_ABS_TOLERANCE`]: both sides
/// round contributions to `f32` and sum in `f64` in different orders, so a
/// rank near an `f32` rounding boundary may round the other way (2^-24 ≈ 6e-8
/// of one contribution), which the later rounds carry but damp. The bound is
/// the one the `pr` command's and `bench-cpu`'s oracle checks use.
pub const RANK_REL_TOLERANCE: f64 = 1e-6;
/// See [`RANK_REL_TOLERANCE`]: for ranks near zero.
pub const RANK_ABS_TOLERANCE: f64 = 1e-12;

/// The largest relative difference of `a` from `b` (∞ when the lengths
/// differ), and whether every vertex is within the tolerances above.
pub fn compare_ranks(a: &[f64], b: &[f64]) -> (f64, bool) {
    if a.len() != b.len() {
        return (f64::INFINITY, false);
    }
    let mut worst: f64 = 0.0;
    let mut ok = true;
    for (&x, &y) in a.iter().zip(b) {
        let d = (x - y).abs();
        let scale = x.abs().max(y.abs());
        if d > 0.0 {
            worst = worst.max(if scale > 0.0 {
                d / scale
            } else {
                f64::INFINITY
            });
        }
        // NaN fails both comparisons.
        ok &= d <= RANK_ABS_TOLERANCE || d <= RANK_REL_TOLERANCE * scale;
    }
    (worst, ok)
}

#[cfg(test)]
mod tests {
    use super::*;

    const JSON: &str = r#"{"file":"/tmp/w/kron_4.sg","vertices":16,"edges":90,"directed":false,"kernel":"chunk","mec":16,"trials":5,"rounds":9,"l1_last":8.5e-05,"ms_per_round_median":0.012000,"ms_total_median":0.150000,"bytes_per_round":1240,"gbps":0.103,"rank_sum":1,"top_vertex":0,"top_rank":0.25}"#;

    #[test]
    fn reads_pr_pull_json() {
        let r = parse_pr_pull_json(&format!("warming up\n{JSON}\n")).unwrap();
        assert_eq!(r.vertices, 16);
        assert_eq!(r.edges, 90);
        assert!(!r.directed);
        assert_eq!(r.kernel, "chunk");
        assert_eq!(r.rounds, 9);
        assert_eq!(r.ms_per_round_median, 0.012);
        assert_eq!(r.ms_total_median, 0.15);
        assert_eq!(r.bytes_per_round, 1240.0);
        assert!(parse_pr_pull_json("no json here").is_err());
        assert!(parse_pr_pull_json("{\"vertices\": 1}").is_err());
    }

    #[test]
    fn bytes_model_matches_pr_pull() {
        // pr_pull's own number for n = 16, m = 90 (the fixture above).
        assert_eq!(pull_bytes_per_round(16, 90), 1240.0);
        // kron:24-sized: 2^24 vertices, 2^29 CSR entries.
        let (n, m) = (1u64 << 24, 1u64 << 29);
        assert_eq!(
            pull_bytes_per_round(n, m),
            8.0 * (n + 1) as f64 + 8.0 * m as f64 + 24.0 * n as f64
        );
        assert_eq!(pull_bytes_per_round(0, 0), 8.0);
    }

    #[test]
    fn reads_pr_pull_ranks() {
        let text = "0 2.500000000000e-01\n1 1.250000000000e-01\n2 6.250000000000e-01\n";
        assert_eq!(
            parse_pr_pull_ranks(text, 3).unwrap(),
            vec![0.25, 0.125, 0.625]
        );
        assert!(parse_pr_pull_ranks(text, 4).is_err());
        assert!(parse_pr_pull_ranks("0 1\n2 1\n", 2).is_err());
        assert!(parse_pr_pull_ranks("0 x\n", 1).is_err());
        assert!(parse_pr_pull_ranks("0 1 2\n", 1).is_err());
    }

    #[test]
    fn rank_comparison() {
        let a = [0.25, 1e-7, 0.0];
        assert_eq!(compare_ranks(&a, &a), (0.0, true));
        let (d, ok) = compare_ranks(&[0.25 * (1.0 + 1e-7), 1e-7, 0.0], &a);
        assert!(ok && d > 0.0 && d < 2e-7, "{d}");
        assert!(!compare_ranks(&[0.25 * (1.0 + 1e-5), 1e-7, 0.0], &a).1);
        assert!(!compare_ranks(&[f64::NAN, 1e-7, 0.0], &a).1);
        assert!(!compare_ranks(&a[..2], &a).1);
    }
}
