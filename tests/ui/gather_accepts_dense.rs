use vertex_dsl::prelude::*;

#[vertex_program(gather = sum)]
pub mod spread {
    pub type State = f64;
    pub type Acc = f64;
    pub fn init(_ctx: Ctx) -> State { 1.0 }
    pub fn gather(x: State) -> Acc { x }
    pub fn apply(_ctx: Ctx, old: State, arrived: Acc) -> State { old + arrived }
    pub fn accepts(s: State) -> bool { s < 10.0 }
}

fn main() {}
