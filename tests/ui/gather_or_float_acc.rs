use vertex_dsl::prelude::*;

#[vertex_program(gather = or)]
pub mod flags {
    pub type State = f64;
    pub type Acc = f64;
    pub fn init(_ctx: Ctx) -> State { 0.0 }
    pub fn gather(x: State) -> Acc { x }
    pub fn apply(_ctx: Ctx, _old: State, acc: Acc) -> State { acc }
}

fn main() {}
