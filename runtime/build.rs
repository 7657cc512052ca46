//! Compiles `kernels-rs` to PTX (via `nvptx-builder`) for the GPU backend.
//!
//! Always writes `$OUT_DIR/kernels.ptx` (empty when no kernels were built) and sets
//! `VERTEX_PTX_STATUS` to `ok` or to the reason, which `runtime::gpu` reports at run
//! time as `GpuUnavailable("built without PTX kernels: <reason>")`. A missing
//! nightly toolchain or rust-src, or `VERTEX_SKIP_PTX=1`, only warns: the CPU paths
//! build everywhere. A compile error in the kernels fails the build.

use std::path::PathBuf;

fn main() {
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let ptx_path = out.join("kernels.ptx");
    let status = match nvptx_builder::NvptxBuilder::new("../kernels-rs")
        .arch("sm_90")
        .build()
    {
        Ok(art) => {
            if art.path != ptx_path {
                std::fs::copy(&art.path, &ptx_path).expect("copy PTX into OUT_DIR");
            }
            "ok".to_string()
        }
        Err(e) if e.is_environmental() => {
            println!("cargo:warning=GPU kernels not built: {e}");
            std::fs::write(&ptx_path, "").expect("write empty kernels.ptx");
            e.to_string()
        }
        Err(e) => panic!("building the GPU kernels (kernels-rs) failed: {e}"),
    };
    println!(
        "cargo:rustc-env=VERTEX_PTX_STATUS={}",
        status.replace(['\n', '\r'], " ")
    );
    println!("cargo:rerun-if-changed=build.rs");
}
