//! `vertex apsp` (all-pairs shortest paths) and `vertex path` (one shortest path).
//!
//! Element type: floats keep their width; integer (and unweighted, weight 1)
//! graphs use i32 distances when no sum of two simple paths can overflow it, else
//! i64. Algorithm `auto`: for sparse graphs or when `n²` does not fit the memory
//! budget, batched BFS from every vertex (unweighted) or Johnson (weighted), rows
//! streamed to `-o`; blocked Floyd–Warshall otherwise.

use std::path::PathBuf;

use clap::{Args, Subcommand};
use runtime::apsp::semiring::{min_plus_kind_for, Elem};
use runtime::apsp::{self, Algorithm, ApspOptions, Backend, MinPlus};
use runtime::gpu::closure::GpuSemiring;
use runtime::graph::{Csr, WeightKind};
use runtime::load::{load_graph, weight_kind_of, LoadOptions};
use serde_json::json;
use vertex_examples::programs::apsp::MinPlusProgram;

use super::report::print_json;
use crate::with_weight_type;

#[derive(Subcommand, Debug)]
pub enum ApspCommand {
    /// All-pairs shortest paths: summary (checksum of finite distances, count of
    /// ∞ pairs, diameter) and optionally the whole matrix (-o).
    Apsp(ApspArgs),
    /// One shortest path FROM → TO, with its length (`--json`: `distance`,
    /// `path` and `hops` are `null` when TO is unreachable).
    Path(PathArgs),
}

#[derive(Args, Debug)]
pub struct ApspArgs {
    /// File or generator spec (kron:S or kron:S:E, uniform:N:M, urand:S, grid:WxH, mesh:N).
    pub graph: String,
    /// cpu, gpu (the blocked closure, any distance type, next hops included) or
    /// auto: CPU Johnson or the GPU closure by size and density, the CPU when no
    /// GPU is usable; the output says which ran and why.
    #[arg(long, default_value = "auto", value_parser = ["cpu", "gpu", "auto"])]
    pub backend: String,
    /// fw = blocked Floyd–Warshall, johnson = reweighting + Dijkstra from every
    /// source (streams rows to -o), batched = every vertex a source, 64 sharing
    /// each edge read (breadth-first search when unweighted, else the min-plus
    /// program's batched rounds; CPU or GPU; streams rows to -o), auto = by
    /// weights, density and memory.
    #[arg(long, default_value = "auto", value_parser = ["fw", "johnson", "batched", "auto"])]
    pub algorithm: String,
    /// Write the matrix: .csv / .txt as text (small n), anything else as the
    /// binary layout documented in runtime::apsp::output. The format follows the
    /// extension, so `-o -` (stdout) is refused: give a file name.
    #[arg(short = 'o', long)]
    pub output: Option<PathBuf>,
    /// Print one JSON object on stdout.
    #[arg(long)]
    pub json: bool,
    /// Make the graph undirected first.
    #[arg(long)]
    pub symmetrize: bool,
    /// Drop the graph's weights (every edge counts 1): hop distances, and the
    /// batched BFS algorithm becomes available.
    #[arg(long)]
    pub unweighted: bool,
    /// Distance type: auto, i32, i64, f32 or f64.
    #[arg(long, default_value = "auto", value_parser = ["auto", "i32", "i64", "f32", "f64"])]
    pub element: String,
    /// CPU FW tile size (32, 64 or 128).
    #[arg(long, default_value_t = runtime::apsp::fw_cpu::DEFAULT_TILE)]
    pub tile: usize,
    /// Also keep the next-hop matrix (written after the distances with -o; FW only).
    #[arg(long)]
    pub next_hop: bool,
    /// Memory a dense matrix may take before auto switches to streamed Johnson (MiB).
    #[arg(long, default_value_t = 8192)]
    pub memory_budget_mib: u64,
}

impl ApspArgs {
    /// The summary of `graph` by blocked Floyd–Warshall, on the GPU when one is
    /// usable (the demo's all-pairs step).
    pub fn summary(graph: &str) -> Self {
        ApspArgs {
            graph: graph.into(),
            backend: "auto".into(),
            algorithm: "fw".into(),
            output: None,
            json: false,
            symmetrize: false,
            unweighted: false,
            element: "auto".into(),
            tile: runtime::apsp::fw_cpu::DEFAULT_TILE,
            next_hop: false,
            memory_budget_mib: 8192,
        }
    }
}

#[derive(Args, Debug)]
pub struct PathArgs {
    /// File or generator spec.
    pub graph: String,
    /// Start vertex (0-based).
    pub from: u32,
    /// End vertex (0-based).
    pub to: u32,
    /// fw (next-hop matrix), johnson (Dijkstra from FROM after reweighting) or auto.
    #[arg(long, default_value = "auto", value_parser = ["fw", "johnson", "auto"])]
    pub algorithm: String,
    /// Where FW's next hops are computed: cpu, gpu or auto (the GPU for large
    /// dense graphs when one is usable; the output says which ran).
    #[arg(long, default_value = "auto", value_parser = ["cpu", "gpu", "auto"])]
    pub backend: String,
    #[arg(long)]
    pub symmetrize: bool,
    #[arg(long)]
    pub json: bool,
}

pub fn run(c: ApspCommand) -> anyhow::Result<()> {
    match c {
        ApspCommand::Apsp(a) => run_apsp(a),
        ApspCommand::Path(a) => run_path(a),
    }
}

/// Smallest and largest weight as i128 (integers) or f64, `None` if no edges.
fn weight_range<W: Elem>(g: &Csr<W>) -> Option<(i128, i128)> {
    let ws = g.weights()?;
    let mut it = ws.iter();
    let first = *it.next()?;
    let (mut lo, mut hi) = (first, first);
    for &w in it {
        if w < lo {
            lo = w;
        }
        if w > hi {
            hi = w;
        }
    }
    Some((
        lo.to_i128().unwrap_or(lo.to_f64().floor() as i128),
        hi.to_i128().unwrap_or(hi.to_f64().ceil() as i128),
    ))
}

fn element_for<W: Elem>(g: &Csr<W>, asked: &str) -> anyhow::Result<WeightKind> {
    if asked != "auto" {
        return asked.parse().map_err(anyhow::Error::msg);
    }
    let kind = if g.is_weighted() {
        W::KIND
    } else {
        WeightKind::I32
    };
    let (lo, hi) = weight_range(g).unwrap_or((1, 1));
    Ok(min_plus_kind_for(kind, g.num_vertices(), lo, hi))
}

/// Runs `$body` with `$T` bound to the distance type `$elem` names.
macro_rules! with_element {
    ($elem:expr, $T:ident => $body:expr) => {
        with_element!(@arms $elem, $T, $body, I32 i32, I64 i64, F32 f32, F64 f64)
    };
    (@arms $elem:expr, $T:ident, $body:expr, $($kind:ident $t:ty),*) => {
        match $elem {
            $(WeightKind::$kind => {
                type $T = $t;
                $body
            })*
            k => anyhow::bail!("APSP distances cannot be {k}: use i32, i64, f32 or f64"),
        }
    };
}

/// What both commands do first: quiet progress under `--json`, the graph's
/// weight type, and load options.
fn prologue(
    graph: &str,
    json: bool,
    symmetrize: bool,
) -> anyhow::Result<(Option<WeightKind>, LoadOptions)> {
    runtime::progress::set_quiet(json);
    let lopts = LoadOptions {
        symmetrize,
        ..LoadOptions::default()
    };
    Ok((weight_kind_of(graph)?, lopts))
}

fn run_apsp(a: ApspArgs) -> anyhow::Result<()> {
    super::common::refuse_stdout("the APSP matrix", a.output.as_deref())?;
    let (kind, mut lopts) = prologue(&a.graph, a.json, a.symmetrize)?;
    lopts.ignore_weights = a.unweighted;
    let kind = if a.unweighted { None } else { kind };
    let opts = ApspOptions {
        algorithm: a.algorithm.parse()?,
        backend: a.backend.parse()?,
        tile: a.tile,
        next_hop: a.next_hop,
        memory_budget: a.memory_budget_mib.saturating_mul(1 << 20),
        block_rows: 0,
    };
    with_weight_type!(kind, W => {
        let loaded = load_graph::<W>(&a.graph, &lopts)?;
        let g = loaded.graph.csr();
        let elem = element_for(g, &a.element)?;
        let out = a.output.as_deref();
        let mut report = with_element!(elem, T => report::<T, W>(g, &opts, out)?);
        report["graph"] = json!(a.graph);
        report["vertices"] = json!(g.num_vertices());
        report["edges"] = json!(g.num_edges());
        let on_cpu = report["backend"] == "cpu";
        // The CPU closure and Johnson run on rayon's global pool.
        report["threads"] = json!(on_cpu.then(|| runtime::cpu::threads_for(None)));
        if a.tile != runtime::apsp::fw_cpu::DEFAULT_TILE && !(on_cpu && report["algorithm"] == "fw") {
            super::common::warn_unused(
                &format!("--tile {}", a.tile),
                "it sets the CPU Floyd–Warshall's tiles, and this run was not one",
            );
        }
        if a.json {
            print_json(&report)?;
        } else {
            print_human(&report);
        }
    });
    Ok(())
}

fn report<T: MinPlusProgram, W: Elem>(
    g: &Csr<W>,
    opts: &ApspOptions,
    out: Option<&std::path::Path>,
) -> anyhow::Result<serde_json::Value>
where
    MinPlus<T>: GpuSemiring<T = T>,
{
    let run = apsp::solve_with_program::<T::P, T, W>(g, opts, out, false)?;
    Ok(serde_json::to_value(&run)?)
}

fn print_human(r: &serde_json::Value) {
    let s = |k: &str| match &r[k] {
        serde_json::Value::String(x) => x.clone(),
        serde_json::Value::Null => "-".into(),
        v => v.to_string(),
    };
    println!("{}", s("graph"));
    println!("  vertices     {}  edges {}", s("vertices"), s("edges"));
    println!(
        "  algorithm    {} on {} ({} distances)",
        s("algorithm"),
        s("backend"),
        s("element")
    );
    if let Some(n) = r["note"].as_str() {
        println!("  note         {n}");
    }
    let sm = &r["summary"];
    println!("  checksum     {}", sm["checksum"]);
    println!("  unreachable  {} pairs", sm["unreachable"]);
    println!("  diameter     {}", sm["diameter"]);
    println!("  time         {:.3}s", r["time_s"].as_f64().unwrap_or(0.0));
    if let Some(o) = r["output"].as_str() {
        println!("  wrote        {o}");
    }
}

fn run_path(a: PathArgs) -> anyhow::Result<()> {
    let (kind, lopts) = prologue(&a.graph, a.json, a.symmetrize)?;
    let algorithm: Algorithm = a.algorithm.parse()?;
    let backend: Backend = a.backend.parse()?;
    with_weight_type!(kind, W => {
        let loaded = load_graph::<W>(&a.graph, &lopts)?;
        let g = loaded.graph.csr();
        let elem = element_for(g, "auto")?;
        let (found, placed): (Option<(Vec<u32>, serde_json::Value)>, _) = with_element!(elem, T => {
            let (found, placed) = apsp::path_on::<T, W>(g, a.from, a.to, algorithm, backend)?;
            (found.map(|(p, d)| (p, json!(d))), placed)
        });
        let (path, dist) = match found {
            Some((p, d)) => (Some(p), d),
            // No path: `null`, as `path` and `hops` are (and as every JSON
            // report writes a missing value), not the string "inf".
            None => (None, serde_json::Value::Null),
        };
        if a.json {
            print_json(&json!({
                "graph": a.graph, "from": a.from, "to": a.to,
                "distance": dist, "path": path,
                "hops": path.as_ref().map(|p| p.len().saturating_sub(1)),
                "algorithm": placed.algorithm, "backend": placed.backend, "note": placed.note,
            }))?;
        } else {
            match &path {
                Some(p) => {
                    let s: Vec<String> = p.iter().map(|v| v.to_string()).collect();
                    println!("distance {dist} ({} hops)", p.len().saturating_sub(1));
                    println!("{}", s.join(" -> "));
                }
                None => println!("no path from {} to {} (distance inf)", a.from, a.to),
            }
            if let Some(n) = &placed.note {
                eprintln!("note: {n}");
            }
        }
    });
    Ok(())
}
