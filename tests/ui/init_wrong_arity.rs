use vertex_dsl::prelude::*;

#[vertex_program(combine = min)]
pub mod bfs {
    pub type State = u32;
    pub fn init(v: u32, source: u32, extra: u32) -> State { v + source + extra }
    pub fn relax(level: State) -> Option<State> { level.checked_add(1) }
}

fn main() {}
