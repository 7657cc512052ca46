use vertex_dsl::prelude::*;

/// Path counts: `sum` would count a value delivered twice in a round twice.
#[vertex_program(combine = sum)]
pub mod paths {
    pub type State = u64;
    pub fn init(v: u32, source: u32) -> State { (v == source) as u64 }
    pub fn relax(count: State) -> Option<State> { Some(count) }
}

fn from_many(g: &Graph<u32>) {
    let _ = run::<paths::Program>(g).sources([0, 1]).go_many();
}

fn main() {}
