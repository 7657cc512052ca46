use vertex_dsl::prelude::*;

#[vertex_program(gather = sum)]
pub mod degree {
    pub type Acc = u32;
    pub fn init(_ctx: Ctx) -> u32 { 0 }
    pub fn gather(_neighbour: u32) -> Acc { 1 }
    pub fn apply(_ctx: Ctx, _old: u32, count: Acc) -> u32 { count }
}

fn main() {}
