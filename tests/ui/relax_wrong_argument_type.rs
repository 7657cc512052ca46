use vertex_dsl::prelude::*;

// `relax` takes the state, a u32 here: a u64 argument is reported at `relax`.
#[vertex_program(combine = min)]
pub mod hops {
    pub type State = u32;
    pub fn init(v: u32, source: u32) -> State { if v == source { 0 } else { u32::MAX } }
    pub fn relax(d: u64) -> Option<State> { (d as u32).checked_add(1) }
}

fn main() {}
