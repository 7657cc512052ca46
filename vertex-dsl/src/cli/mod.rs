//! A command line for your own programs, in a few lines of `main`: the `vertex`
//! command's front end (every graph format and generator, `--backend`,
//! `--kernel`, `--schedule`, `--threads`, `--source`, `-o`, `--json`,
//! `--validate`, `compare`, progress bars, error messages) for the programs you
//! register.
//!
//! ```no_run
//! use vertex_dsl::prelude::*;
//!
//! #[vertex_program(combine = min)]
//! pub mod hops {
//!     pub type State = u32;
//!     pub fn init(v: u32, source: u32) -> State { if v == source { 0 } else { u32::MAX } }
//!     pub fn relax(d: State) -> Option<State> { d.checked_add(1) }
//! }
//!
//! fn main() -> std::process::ExitCode {
//!     vertex_dsl::cli::App::new("my-tool")
//!         .program::<hops::Program>("hop counts from a source")
//!         .main()
//! }
//! ```
//!
//! gives `my-tool hops GRAPH [--source S] [--backend cpu|gpu|auto] [-o FILE]
//! [--json] ...` and `my-tool compare hops GRAPH --schedules sync,async,gpu
//! --svg cmp.svg`. [`App::oracle`] adds `--validate` against a checker of your
//! own.

mod args;
mod compare;
pub mod output;
mod values;

use std::io::Write;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::Context;
use clap::{ArgMatches, Args, Command, FromArgMatches};
use runtime::graph::Graph;
use runtime::load::{load_graph, weight_kind_of, LoadOptions};
use runtime::run::{Plan, Runnable};
use serde_json::json;

pub use args::{BackendArg, RunArgs, ScheduleArg};
pub use compare::CompareArgs;
pub use values::Values;

/// A program's oracle: the expected output on a graph from a source (`None`
/// for programs without one).
pub type Oracle<P> = fn(&Graph<<P as Runnable>::Weight>, Option<u32>) -> <P as Runnable>::Output;

type Runner = Box<dyn Fn(&RunArgs) -> anyhow::Result<()>>;
type Comparer = Box<dyn Fn(&CompareArgs) -> anyhow::Result<()>>;

/// One registered program.
struct Entry {
    name: &'static str,
    about: String,
    run: Runner,
    compare: Comparer,
    /// Whether `--validate` has an oracle to check against.
    oracle: bool,
}

/// A command line over registered programs ([the module docs](self)).
pub struct App {
    name: String,
    about: Option<String>,
    entries: Vec<Entry>,
}

impl App {
    /// A command named `name` (shown in `--help` and usage lines).
    pub fn new(name: impl Into<String>) -> Self {
        App {
            name: name.into(),
            about: None,
            entries: Vec::new(),
        }
    }

    /// The line `--help` shows under the name.
    pub fn about(mut self, about: impl Into<String>) -> Self {
        self.about = Some(about.into());
        self
    }

    /// Adds program `P` as the subcommand named after its module, described by
    /// `about` in `--help`.
    pub fn program<P>(self, about: &str) -> Self
    where
        P: Runnable,
        P::Output: Values,
    {
        self.add::<P>(about, None)
    }

    /// [`App::program`] with an oracle for `--validate`: the expected output,
    /// computed some simple, trusted way.
    pub fn oracle<P>(self, about: &str, oracle: Oracle<P>) -> Self
    where
        P: Runnable,
        P::Output: Values,
    {
        self.add::<P>(about, Some(oracle))
    }

    fn add<P>(mut self, about: &str, oracle: Option<Oracle<P>>) -> Self
    where
        P: Runnable,
        P::Output: Values,
    {
        self.entries.push(Entry {
            name: P::NAME,
            about: about.to_string(),
            run: Box::new(move |a| run_one::<P>(a, oracle)),
            compare: Box::new(compare::compare::<P>),
            oracle: oracle.is_some(),
        });
        self
    }

    /// The clap command (for shell completions or embedding in a larger CLI).
    pub fn command(&self) -> Command {
        let mut cmd = Command::new(self.name.clone())
            .subcommand_required(true)
            .arg_required_else_help(true);
        if let Some(a) = &self.about {
            cmd = cmd.about(a.clone());
        }
        for e in &self.entries {
            let about = if e.oracle {
                e.about.clone()
            } else {
                format!("{} (no oracle: --validate is refused)", e.about)
            };
            // The about goes on after the args: their struct's doc would replace it.
            cmd = cmd.subcommand(RunArgs::augment_args(Command::new(e.name)).about(about));
        }
        let names: Vec<&'static str> = self.entries.iter().map(|e| e.name).collect();
        cmd.subcommand(
            CompareArgs::augment_args(
                Command::new("compare").arg(
                    clap::Arg::new("program")
                        .required(true)
                        .value_parser(clap::builder::PossibleValuesParser::new(names)),
                ),
            )
            .about("one program under several schedules, and on the GPU, side by side"),
        )
    }

    /// Parses `std::env::args` and runs; errors print as `error: ...` on stderr
    /// with exit status 1.
    pub fn main(self) -> ExitCode {
        match self.run_args(std::env::args_os()) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("error: {}", output::error_message(&e));
                ExitCode::FAILURE
            }
        }
    }

    /// Runs the command line `args` (the first is the program's name). `--help`
    /// and usage errors print and exit as clap does.
    pub fn run_args<I, T>(self, args: I) -> anyhow::Result<()>
    where
        I: IntoIterator<Item = T>,
        T: Into<std::ffi::OsString> + Clone,
    {
        let m = self.command().get_matches_from(args);
        self.dispatch(&m)
    }

    /// Runs already parsed matches of [`App::command`].
    pub fn dispatch(&self, m: &ArgMatches) -> anyhow::Result<()> {
        let (sub, sm) = m.subcommand().context("no subcommand given")?;
        if sub == "compare" {
            let program = sm
                .get_one::<String>("program")
                .context("compare: no program given")?;
            let e = self.entry(program)?;
            return (e.compare)(&CompareArgs::from_arg_matches(sm)?);
        }
        let e = self.entry(sub)?;
        (e.run)(&RunArgs::from_arg_matches(sm)?)
    }

    fn entry(&self, name: &str) -> anyhow::Result<&Entry> {
        self.entries
            .iter()
            .find(|e| e.name == name)
            .with_context(|| format!("no program named `{name}`"))
    }
}

/// Loads `spec` for program `P` as `vertex` does: weights only when `P` reads
/// them (random 1..255 when the graph has none, saying so), `--weights`
/// replacing them, `--symmetrize`. Progress bars show on a terminal unless
/// `quiet`.
pub fn load_for<P: Runnable>(
    spec: &str,
    weights: Option<(u64, u64)>,
    symmetrize: bool,
    quiet: bool,
) -> anyhow::Result<Graph<P::Weight>> {
    runtime::progress::set_quiet(quiet);
    let mut opts = LoadOptions {
        symmetrize,
        ..LoadOptions::default()
    };
    if let Some((lo, hi)) = weights {
        if !P::WEIGHTED {
            eprintln!(
                "warning: --weights {lo}..{hi} has no effect: `{}` reads no edge weights",
                P::NAME
            );
        }
        opts.random_weights = Some((lo, hi, 1));
    } else if P::WEIGHTED && weight_kind_of(spec)?.is_none() {
        if !quiet {
            eprintln!(
                "{}: the graph has no weights; using random weights 1..255 (--weights to choose)",
                P::NAME
            );
        }
        opts.random_weights = Some((1, 255, 1));
    }
    if !P::WEIGHTED {
        opts.ignore_weights = true;
    }
    Ok(load_graph::<P::Weight>(spec, &opts)
        .with_context(|| format!("loading {spec}"))?
        .graph)
}

/// One program subcommand: load, run through the one call, check, write, report.
fn run_one<P>(a: &RunArgs, oracle: Option<Oracle<P>>) -> anyhow::Result<()>
where
    P: Runnable,
    P::Output: Values,
{
    output::check_output(a.output.as_deref(), a.json)?;
    if a.validate && oracle.is_none() {
        anyhow::bail!(
            "--validate: `{}` was registered without an oracle (App::oracle adds one)",
            P::NAME
        );
    }
    let t_load = Instant::now();
    let g = load_for::<P>(&a.graph, a.weights, a.symmetrize, a.json)?;
    let load_s = t_load.elapsed().as_secs_f64();
    let plan: Plan = a.plan();
    let out = runtime::run::run::<P>(&g)
        .plan(plan)
        .go()
        .with_context(|| format!("running {} on {}", P::NAME, a.graph))?;
    // On stderr whatever the output format, as the `vertex` command's warnings.
    if let Some(w) = &out.report.warning {
        eprintln!("warning: {w}");
    }
    let validated = match oracle {
        Some(f) if a.validate => {
            let want = f(&g, out.report.source);
            if let Err(d) = out.values.agrees(&want) {
                anyhow::bail!("--validate: `{}` disagrees with its oracle: {d}", P::NAME);
            }
            Some(true)
        }
        _ => None,
    };
    let mut rows_written = false;
    if let Some(path) = &a.output {
        let header = format!(
            "{} on {} ({} backend, {}), source {}",
            P::NAME,
            a.graph,
            out.report.backend.name(),
            out.report.strategy,
            out.report
                .source
                .map_or_else(|| "none".to_string(), |s| s.to_string())
        );
        output::write_result(path, |w| {
            rows_written = out.values.write_rows(&header, w)?;
            Ok(())
        })?;
        if !rows_written && !output::is_stdout(path) {
            eprintln!(
                "note: `{}` reduces to one value per graph: {} holds only its header",
                P::NAME,
                path.display()
            );
        }
    }
    let summary = out.values.summary();
    if a.json {
        let j = json!({
            "program": P::NAME,
            "graph": a.graph,
            "vertices": g.num_vertices(),
            "edges": g.num_edges(),
            "load_s": load_s,
            "report": out.report,
            "result": summary,
            "validated": validated,
            "output": a.output,
        });
        println!("{j}");
        return Ok(());
    }
    let mut h = output::human_out(a.output.as_deref());
    let r = &out.report;
    writeln!(
        h,
        "{} on {}: {} vertices, {} edges (loaded in {})",
        P::NAME,
        a.graph,
        g.num_vertices(),
        g.num_edges(),
        output::human_time(load_s)
    )?;
    writeln!(
        h,
        "  backend   {}{} ({})",
        r.backend.name(),
        r.device
            .as_ref()
            .map_or(String::new(), |d| format!(", {d}")),
        r.backend_reason
    )?;
    match &r.strategy_reason {
        Some(why) => writeln!(h, "  strategy  {} ({why})", r.strategy)?,
        None => writeln!(h, "  strategy  {}", r.strategy)?,
    }
    if let Some(s) = r.source {
        match &r.source_reason {
            Some(why) => writeln!(h, "  source    {s} ({why})")?,
            None => writeln!(h, "  source    {s}")?,
        }
    }
    writeln!(
        h,
        "  time      {} ({} rounds, {} edges{})",
        output::human_time(r.time.as_secs_f64()),
        r.rounds,
        r.edges,
        if r.threads > 0 {
            format!(", {} threads", r.threads)
        } else {
            String::new()
        }
    )?;
    writeln!(h, "  result    {summary}")?;
    if validated == Some(true) {
        writeln!(h, "  validated against the oracle: ok")?;
    }
    if let Some(p) = a.output.as_deref().filter(|p| !output::is_stdout(p)) {
        if rows_written {
            writeln!(h, "  wrote     {}", p.display())?;
        }
    }
    Ok(())
}
