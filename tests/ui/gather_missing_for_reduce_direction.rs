use vertex_dsl::prelude::*;

#[vertex_program(combine = min, reduce = sum, direction = pull)]
pub mod bfs {
    pub type State = u32;
    pub fn init(v: u32, source: u32) -> State { if v == source { 0 } else { u32::MAX } }
    pub fn relax(level: State) -> Option<State> { level.checked_add(1) }
}

fn main() {}
