use vertex_dsl::prelude::*;

// `init` returns the state, a u32 here: returning u64 is reported at `init`.
#[vertex_program(combine = min)]
pub mod hops {
    pub type State = u32;
    pub fn init(v: u32, source: u32) -> u64 { if v == source { 0 } else { u64::MAX } }
    pub fn relax(d: State) -> Option<State> { d.checked_add(1) }
}

fn main() {}
