use vertex_dsl::prelude::*;

#[vertex_program(gather = sum)]
pub mod sweep {
    pub type State = f64;
    pub type Acc = f64;
    pub fn init(_ctx: Ctx) -> State { 1.0 }
    pub fn gather(x: State) -> Acc { x }
    pub fn apply(_ctx: Ctx, old: State, arrived: Acc) -> State { old + arrived }
    pub fn level(_ctx: Ctx, s: State) -> f64 { s }
}

fn main() {}
