use vertex_dsl::prelude::*;

#[vertex_program(intersect = sum)]
pub mod pairs {
    pub type Acc = u64;
    pub fn common(u: u32, v: u32) -> Acc { (u + v) as u64 }
}

#[vertex_program(intersect = max)]
pub mod heaviest {
    pub type Acc = u64;
    pub fn common(u: u64, v: u32, w: u32) -> Acc { u + (v + w) as u64 }
}

#[vertex_program(intersect = sum)]
pub mod nothing {
    pub type Acc = u64;
    pub fn common() {}
}

fn main() {}
