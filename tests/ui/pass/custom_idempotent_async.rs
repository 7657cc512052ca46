use vertex_dsl::prelude::*;

/// A custom combine declared idempotent may run asynchronously.
#[vertex_program(idempotent, schedule(sync, async))]
pub mod lowest {
    pub type State = u32;
    pub fn init(v: u32) -> State { v }
    pub fn relax(x: State) -> Option<State> { Some(x) }
    pub fn combine(old: State, new: State) -> State { if new < old { new } else { old } }
}

fn main() {
    use vertex_dsl::program::VertexProgram;
    assert!(lowest::Program::IDEMPOTENT);
}
