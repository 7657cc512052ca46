use vertex_dsl::prelude::*;

/// Reads no source: every lane would run the same program.
#[vertex_program(gather = sum, reduce = sum)]
pub mod rank {
    pub type State = f64;
    pub type Acc = f64;
    pub fn init(ctx: Ctx) -> State { 1.0 / ctx.num_vertices as f64 }
    pub fn gather(r: State) -> Acc { r }
    pub fn apply(_ctx: Ctx, _old: State, sum: Acc) -> State { 0.15 + 0.85 * sum }
    pub fn reduce(old: State, new: State) -> f64 { (new - old).abs() }
}

/// A level sweep: its schedule comes from one source's states.
#[vertex_program(gather = sum)]
pub mod sweep {
    pub type State = u32;
    pub type Acc = u32;
    pub fn init(ctx: Ctx) -> State { (ctx.vertex == ctx.source) as u32 }
    pub fn level(s: State) -> u32 { s }
    pub fn gather(x: State) -> Acc { x }
    pub fn apply(_ctx: Ctx, old: State, sum: Acc) -> State { old + sum }
}

fn from_many(g: &Graph<u32>) {
    let _ = run::<rank::Program>(g).sources([0, 1]).go_many();
    let _ = run::<sweep::Program>(g).sources([0, 1]).go_many();
}

fn main() {}
