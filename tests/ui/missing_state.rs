use vertex_dsl::prelude::*;

#[vertex_program(combine = min)]
pub mod bfs {
    pub fn init(v: u32, source: u32) -> u32 { if v == source { 0 } else { u32::MAX } }
    pub fn relax(level: u32) -> Option<u32> { level.checked_add(1) }
}

fn main() {}
