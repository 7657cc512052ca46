//! gapbs's printed output, as the CLI's benchmarks read it (`vertex bench-cpu
//! --pr`). Here rather than in the CLI so that these unit tests do not build
//! the whole CLI a second time (the `vertex` binary has no test harness).

/// The L1 changes gapbs `pr -l` logs, one line `ITER CHANGE` per iteration
/// (of the first trial).
pub fn logged_steps(text: &str) -> Vec<f64> {
    let mut steps = Vec::new();
    for line in text.lines() {
        let mut w = line.split_whitespace();
        let (Some(i), Some(c), None) = (w.next(), w.next(), w.next()) else {
            continue;
        };
        let (Ok(i), Ok(c)) = (i.parse::<usize>(), c.parse::<f64>()) else {
            continue;
        };
        if i != steps.len() {
            break;
        }
        steps.push(c);
    }
    steps
}

/// The `VERTEX:SCORE` lines gapbs `pr -a` prints (its top five).
pub fn top_scores(text: &str) -> Vec<(u32, f64)> {
    text.lines()
        .filter_map(|l| {
            let (v, s) = l.split_once(':')?;
            Some((v.trim().parse().ok()?, s.trim().parse().ok()?))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_gapbs_pr_output() {
        let text = "Graph has 16 nodes and 40 directed edges for degree: 2\n\
                    Trial Time:          0.00001\n    0                0.50000\n    \
                    1                0.01000\n    2                0.00001\n\
                    Trial Time:          0.00002\n3:0.125\n7:0.0625\n\
                    Verification:           PASS\n";
        assert_eq!(logged_steps(text), vec![0.5, 0.01, 0.00001]);
        assert_eq!(top_scores(text), vec![(3, 0.125), (7, 0.0625)]);
    }
}
