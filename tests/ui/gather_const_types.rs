use vertex_dsl::prelude::*;

#[vertex_program(gather = sum, reduce = sum)]
pub mod average {
    pub type State = f64;
    pub type Acc = f64;
    pub const MAX_ROUNDS: usize = 10;
    pub const TOLERANCE: f32 = 1e-6;
    pub fn init(ctx: Ctx) -> State { ctx.vertex as f64 }
    pub fn gather(x: State) -> Acc { x }
    pub fn apply(ctx: Ctx, _old: State, total: Acc) -> State { total / ctx.in_degree.max(1) as f64 }
    pub fn reduce(old: State, new: State) -> f64 { (new - old).abs() }
}

fn main() {}
