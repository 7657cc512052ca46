use vertex_dsl::prelude::*;

#[vertex_program(gather = sum, reduce = max)]
pub mod sweep {
    pub type State = f64;
    pub type Acc = f64;
    pub fn init(_ctx: Ctx) -> State { 1.0 }
    pub fn gather(x: State) -> Acc { x }
    pub fn apply(_ctx: Ctx, old: State, arrived: Acc) -> State { old + arrived }
    pub fn active(_old: State, _new: State) -> bool { false }
    pub fn reduce(_old: State, new: State) -> f64 { new }
    pub fn level(s: State) -> u32 { s as u32 }
}

fn main() {}
