use vertex_dsl::prelude::*;

#[vertex_program(combine = min)]
pub mod broken {
    pub type State = String;
    pub fn relax(s: State, t: State, u: State) -> Option<State> { Some(s) }
}

fn main() {}
