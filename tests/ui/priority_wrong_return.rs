use vertex_dsl::prelude::*;

#[vertex_program(combine = min)]
pub mod sssp {
    pub type State = u64;
    pub type Weight = u32;
    pub fn init(v: u32, source: u32) -> State { if v == source { 0 } else { u64::MAX } }
    pub fn relax(d: State, w: Weight) -> Option<State> { d.checked_add(w as u64) }
    pub fn priority(d: State) -> f32 { d as f32 }
}

fn main() {}
