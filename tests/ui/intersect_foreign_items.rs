use vertex_dsl::prelude::*;

#[vertex_program(intersect = sum, schedule(sync, async), reduce = sum)]
pub mod triangles {
    pub type Acc = u64;
    pub type Weight = u32;
    pub const MAX_ROUNDS: u32 = 10;
    pub fn common() -> Acc { 1 }
    pub fn init(v: u32) -> u64 { v as u64 }
    pub fn relax(s: u64) -> Option<u64> { Some(s) }
}

fn main() {}
