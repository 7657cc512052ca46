use vertex_dsl::prelude::*;

#[vertex_program(combine = min)]
pub fn bfs() {}

fn main() {}
