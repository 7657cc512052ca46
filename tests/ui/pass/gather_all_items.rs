use vertex_dsl::prelude::*;

/// Frontier-driven, every optional item: a multi-field `#[repr(C)]` state (an
/// alias, an array and a nested struct among its fields), `Msg` and `emit`, a
/// weighted `gather`, a custom reduction (`combine`, `identity`), `active`,
/// `reduce`, `MAX_ROUNDS`, asynchronous schedules and `priority`, all reading `ctx`.
#[vertex_program(gather = custom, reduce = max, direction = auto, schedule(sync, async, obim))]
pub mod labels {
    pub type Hops = u32;
    #[repr(transparent)]
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub struct Share(pub f64);
    #[repr(C, align(8))]
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub struct Degrees {
        pub out_degree: u32,
        pub in_degree: u32,
    }
    #[repr(C)]
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub struct Label {
        pub label: u32,
        pub hops: Hops,
        pub changed_at: [u32; 2],
        pub degrees: Degrees,
        pub share: Share,
        /// Changed by the last apply (or just initialized): scatter again.
        pub fresh: bool,
    }
    pub type State = Label;
    /// The sender's label (high half) and distance through it (low half).
    pub type Msg = u64;
    pub type Acc = u64;
    pub type Weight = u32;
    pub const MAX_ROUNDS: u32 = 1_000;

    pub fn init(ctx: Ctx) -> State {
        Label {
            label: ctx.vertex,
            hops: 0,
            changed_at: [ctx.round, ctx.source],
            degrees: Degrees { out_degree: ctx.out_degree, in_degree: ctx.in_degree },
            share: Share(1.0 / ctx.num_vertices as f64),
            fresh: true,
        }
    }
    pub fn emit(ctx: Ctx, s: State) -> Msg {
        let _ = ctx.global;
        ((s.label as u64) << 32) | s.hops as u64
    }
    pub fn gather(m: Msg, w: Weight) -> Acc {
        m.saturating_add(w as u64)
    }
    pub fn combine(a: Acc, b: Acc) -> Acc {
        if b < a { b } else { a }
    }
    pub fn identity() -> Acc {
        u64::MAX
    }
    pub fn apply(ctx: Ctx, old: State, best: Acc) -> State {
        let label = (best >> 32) as u32;
        if best == u64::MAX || label >= old.label {
            return Label { fresh: false, ..old };
        }
        Label {
            label,
            hops: best as u32,
            changed_at: [ctx.round, old.changed_at[0]],
            fresh: true,
            ..old
        }
    }
    pub fn active(ctx: Ctx, old: State, new: State) -> bool {
        let _ = (ctx.vertex, old);
        new.fresh
    }
    pub fn reduce(ctx: Ctx, _old: State, new: State) -> f64 {
        (new.hops + ctx.round) as f64
    }
    pub fn priority(ctx: Ctx, best: Acc) -> u32 {
        ((best >> 32) as u32).min(ctx.num_vertices)
    }
}

/// Dense, with `TOLERANCE` (which a frontier-driven program may not have).
#[vertex_program(gather = sum, reduce = sum)]
pub mod mean {
    pub type State = f64;
    pub type Acc = f64;
    pub const MAX_ROUNDS: u32 = 50;
    pub const TOLERANCE: f64 = 1e-9;

    pub fn init(ctx: Ctx) -> State {
        ctx.vertex as f64
    }
    pub fn gather(x: State) -> Acc {
        x
    }
    pub fn apply(ctx: Ctx, old: State, total: Acc) -> State {
        (old + total) / (1 + ctx.in_degree) as f64
    }
    pub fn reduce(old: State, new: State) -> f64 {
        (new - old).abs()
    }
}

fn main() {
    use vertex_dsl::kernels::gather::GatherProgram;
    use vertex_dsl::runtime::cpu::gather::run;
    use vertex_dsl::runtime::gather::GatherOptions;

    assert!(labels::Program::FRONTIER && labels::Program::WEIGHTED && labels::Program::ASYNC);
    assert_eq!(labels::Program::MAX_ROUNDS, 1_000);
    assert_eq!(mean::Program::TOLERANCE, Some(1e-9));
    assert!(!mean::Program::FRONTIER && !mean::Program::ASYNC);
    // `init` reads `ctx.source`: the run needs one (and is refused without it).
    assert!(labels::Program::NEEDS_SOURCE && !mean::Program::NEEDS_SOURCE);

    // A path 0 - 1 - 2 - 3 (both directions): every vertex ends with label 0.
    let el = EdgeList::<u32> {
        num_vertices: 4,
        edges: vec![[1, 0], [2, 1], [3, 2]],
        weights: Some(vec![1, 1, 1]),
    };
    let g = build(&el, BuildOptions::undirected()).unwrap();
    assert!(run::<labels::Program, _>(&g, &GatherOptions::default()).is_err());
    let from_0 = GatherOptions { source: Some(0), ..GatherOptions::default() };
    let out = run::<labels::Program, _>(&g, &from_0).unwrap();
    let got: Vec<(u32, u32)> = out.states.iter().map(|s| (s.label, s.hops)).collect();
    assert_eq!(got, vec![(0, 0), (0, 1), (0, 2), (0, 3)]);
    let out = run::<mean::Program, _>(&g, &GatherOptions::default()).unwrap();
    assert_eq!(out.states.len(), 4);
}
