use vertex_dsl::prelude::*;

/// A level sweep: one round per level of the initial states, highest first.
#[vertex_program(gather = sum)]
pub mod depth_sums {
    pub type State = u64;
    pub type Acc = u64;
    pub fn init(ctx: Ctx) -> State { (ctx.vertex % 4) as u64 }
    pub fn level(s: State) -> u32 { s as u32 }
    pub fn gather(x: State) -> Acc { x }
    pub fn apply(_ctx: Ctx, old: State, arrived: Acc) -> State { old + arrived }
}

fn main() {
    use vertex_dsl::kernels::gather::GatherProgram;
    assert!(depth_sums::Program::LEVELS && !depth_sums::Program::FRONTIER);
    assert_eq!(depth_sums::Program::level(3), 3);
}
