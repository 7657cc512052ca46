use vertex_dsl::prelude::*;

#[vertex_program(combine = or)]
pub mod flags {
    pub type State = f32;
    pub fn init(v: u32) -> State { v as f32 }
    pub fn relax(x: State) -> Option<State> { Some(x) }
}

fn main() {}
