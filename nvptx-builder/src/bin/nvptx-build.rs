//! Command-line front end of the builder, for scripts (CI's PTX check):
//! `nvptx-build CRATE_DIR [--arch sm_90] [--target-dir DIR] [--out FILE]`.
//! Prints the PTX path and its kernels; exits 1 with the builder's message on error
//! (an environmental error, like a missing nightly, is an error here too).

use std::path::PathBuf;
use std::process::ExitCode;

use nvptx_builder::NvptxBuilder;

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let mut crate_dir = None;
    let mut arch = "sm_90".to_string();
    let mut target_dir = None;
    let mut out = None;
    while let Some(a) = args.next() {
        match a.as_str() {
            "--arch" => arch = args.next().unwrap_or_default(),
            "--target-dir" => target_dir = args.next().map(PathBuf::from),
            "--out" => out = args.next().map(PathBuf::from),
            "-h" | "--help" => {
                println!(
                    "usage: nvptx-build CRATE_DIR [--arch sm_90] [--target-dir DIR] [--out FILE]"
                );
                return ExitCode::SUCCESS;
            }
            _ if crate_dir.is_none() => crate_dir = Some(PathBuf::from(a)),
            _ => {
                eprintln!("nvptx-build: unexpected argument `{a}`");
                return ExitCode::from(2);
            }
        }
    }
    let Some(crate_dir) = crate_dir else {
        eprintln!("nvptx-build: missing CRATE_DIR (see --help)");
        return ExitCode::from(2);
    };
    let mut b = NvptxBuilder::new(&crate_dir)
        .arch(arch)
        .emit_cargo_directives(false);
    if let Some(t) = target_dir {
        b = b.target_dir(t);
    }
    match b.build() {
        Ok(art) => {
            let path = match out {
                Some(o) => match std::fs::copy(&art.path, &o) {
                    Ok(_) => o,
                    Err(e) => {
                        eprintln!("nvptx-build: copying to {}: {e}", o.display());
                        return ExitCode::FAILURE;
                    }
                },
                None => art.path.clone(),
            };
            println!("{}", path.display());
            let cached = if art.cached { " (cached)" } else { "" };
            eprintln!(
                "{} kernels for {}{cached}: {}",
                art.kernels.len(),
                art.arch,
                art.kernels.join(", ")
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("nvptx-build: {e}");
            ExitCode::FAILURE
        }
    }
}
