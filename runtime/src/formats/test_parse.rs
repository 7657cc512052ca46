//! What the text parsers' unit tests share: parse a snippet as a file named
//! `name`, and check that an error names `name:line:` and says `what`.

use std::path::Path;

use super::{parse_edges, Format, Parsed, ReadOptions};

pub(super) fn read(format: Format, name: &str, text: &str) -> crate::Result<Parsed<u32>> {
    parse_edges::<u32>(
        format,
        text.as_bytes(),
        Path::new(name),
        ReadOptions::default(),
    )
}

pub(super) fn fails(format: Format, name: &str, text: &str, line: u64, what: &str) {
    let e = read(format, name, text).expect_err(text).to_string();
    assert!(e.starts_with(&format!("{name}:{line}:")), "{e}");
    assert!(e.contains(what), "{e}");
}
