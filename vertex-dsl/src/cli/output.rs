//! The pieces every command's output is made of, shared by [`super::App`] and
//! the shipped `vertex` command: where results and summaries go, atomic result
//! files, error messages, and option parsers.

use std::io::Write;
use std::path::Path;

/// Whether `-o PATH` means stdout (`-o -`).
pub fn is_stdout(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// Refuses `-o -` together with `--json`: both want stdout.
pub fn check_output(output: Option<&Path>, json: bool) -> anyhow::Result<()> {
    if json && output.is_some_and(is_stdout) {
        anyhow::bail!(
            "--json and -o - both write to stdout: write the per-vertex result to a file \
             (-o FILE), or leave out --json (the summary then goes to stderr)"
        );
    }
    Ok(())
}

/// Writes a command's per-vertex result with `f`: to the file `path`
/// (atomically: a reader never sees half of it, and a failed run leaves no
/// file), or to stdout for `-`. A reader that stops early (`| head`) is not an
/// error.
pub fn write_result(
    path: &Path,
    f: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> anyhow::Result<()> {
    if !is_stdout(path) {
        runtime::formats::vgr::atomic_write(path, |w| f(w))?;
        return Ok(());
    }
    let stdout = std::io::stdout();
    let mut w = std::io::BufWriter::with_capacity(1 << 20, stdout.lock());
    match f(&mut w).and_then(|()| w.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(anyhow::Error::new(e).context("writing the result to stdout"))
        }
        _ => Ok(()),
    }
}

/// Where a command's human summary goes: stdout, or stderr when `-o -` put the
/// result on stdout (so that a pipe reads the result alone).
pub fn human_out(output: Option<&Path>) -> Box<dyn Write> {
    if output.is_some_and(is_stdout) {
        Box::new(std::io::stderr())
    } else {
        Box::new(std::io::stdout())
    }
}

/// The error and its causes, each cause once: library errors already name their
/// source in their own text (`file: No such file or directory`), so a cause the
/// message so far contains is not repeated.
pub fn error_message(e: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in e.chain() {
        let c = cause.to_string();
        if text.is_empty() {
            text = c;
        } else if !text.contains(&c) {
            text = format!("{text}: {c}");
        }
    }
    text
}

/// `LO..HI` (or `LO..=HI`), both bounds included: `--weights 1..255`.
pub fn parse_range(s: &str) -> Result<(u64, u64), String> {
    let (a, b) = s
        .split_once("..")
        .ok_or_else(|| format!("expected LO..HI, e.g. 1..255, got `{s}`"))?;
    let b = b.strip_prefix('=').unwrap_or(b);
    let lo: u64 = a
        .trim()
        .parse()
        .map_err(|_| format!("bad lower bound `{a}`"))?;
    let hi: u64 = b
        .trim()
        .parse()
        .map_err(|_| format!("bad upper bound `{b}`"))?;
    if lo > hi {
        return Err(format!("empty range {lo}..{hi}"));
    }
    Ok((lo, hi))
}

/// Seconds as the summaries print them (`12.3 ms`, `4.56 s`).
pub fn human_time(s: f64) -> String {
    if s < 1e-3 {
        format!("{:.1} µs", s * 1e6)
    } else if s < 1.0 {
        format!("{:.2} ms", s * 1e3)
    } else {
        format!("{s:.2} s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges() {
        assert_eq!(parse_range("1..255"), Ok((1, 255)));
        assert_eq!(parse_range("3..=3"), Ok((3, 3)));
        assert!(parse_range("5..2").is_err());
        assert!(parse_range("7").is_err());
        assert!(parse_range("a..2").unwrap_err().contains("lower"));
    }

    #[test]
    fn messages_name_each_cause_once() {
        let e = anyhow::anyhow!("x.gr: No such file").context("loading x.gr");
        assert_eq!(error_message(&e), "loading x.gr: x.gr: No such file");
        let e = anyhow::anyhow!("inner").context("outer: inner");
        assert_eq!(error_message(&e), "outer: inner");
    }

    #[test]
    fn times() {
        assert_eq!(human_time(0.0123), "12.30 ms");
        assert_eq!(human_time(2.5), "2.50 s");
    }
}
