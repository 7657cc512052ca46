use vertex_dsl::prelude::*;

#[vertex_program(combine = min, per = vertex)]
pub mod hops {
    pub type State = u32;
    pub fn init(v: u32, source: u32) -> State { if v == source { 0 } else { u32::MAX } }
    pub fn relax(d: State) -> Option<State> { d.checked_add(1) }
}

#[vertex_program(intersect = sum, per = edge)]
pub mod triangles {
    pub type Acc = u64;
    pub fn common() -> Acc { 1 }
}

fn main() {}
