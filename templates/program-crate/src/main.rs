//! Runs `within_hops` on a small graph on the CPU, then on the GPU when one is
//! there (saying why not otherwise), and checks both against the expected answer.

use my_vertex_programs::within_hops;
use vertex_dsl::prelude::*;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // A directed path 0 → 1 → ... → 7, plus a shortcut 0 → 5.
    let mut edges: Vec<[u32; 2]> = (0..7).map(|v| [v, v + 1]).collect();
    edges.push([0, 5]);
    let el = EdgeList::<u32> {
        num_vertices: 8,
        edges,
        weights: None,
    };
    let g = build(&el, BuildOptions::default())?;
    let expect = [0, 1, 2, 3, u32::MAX, 1, 2, 3];
    let show = |s: &[u32]| {
        s.iter()
            .map(|&h| {
                if h == u32::MAX {
                    "-".to_string()
                } else {
                    h.to_string()
                }
            })
            .collect::<Vec<_>>()
            .join(" ")
    };

    let cpu = run_cpu::<within_hops::Program>(&g, 0)?;
    println!("cpu: {}", show(&cpu.states));
    if cpu.states != expect {
        return Err(format!("cpu: expected {}", show(&expect)).into());
    }

    match run_gpu::<within_hops::Program>(&g, 0) {
        Ok(gpu) => {
            println!("gpu: {}", show(&gpu.states));
            if gpu.states != expect {
                return Err(format!("gpu: expected {}", show(&expect)).into());
            }
        }
        // No GPU, no driver, or built without PTX (no nightly): the error says which.
        Err(e) => println!("gpu: skipped ({e})"),
    }
    Ok(())
}
