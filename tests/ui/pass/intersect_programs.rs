//! Intersection programs of every shape compile and run.
use vertex_dsl::prelude::*;

/// The largest corner id of any triangle (`custom` reduction, ids read).
#[vertex_program(intersect = custom)]
pub mod top_corner {
    pub type Acc = u32;
    pub fn common(u: u32, v: u32, w: u32) -> Acc {
        let m = if u > v { u } else { v };
        if m > w { m } else { w }
    }
    pub fn identity() -> Acc { 0 }
    pub fn combine(a: Acc, b: Acc) -> Acc { if a > b { a } else { b } }
}

/// Triangles per vertex, as the engine leaves them (no `apply`).
#[vertex_program(intersect = sum, per = vertex)]
pub mod per_vertex {
    pub type Acc = u32;
    pub fn common() -> Acc { 1 }
}

/// A flag per vertex: in any triangle at all (`or`, with `apply`).
#[vertex_program(intersect = or, per = vertex)]
pub mod in_triangle {
    pub type Acc = u32;
    pub type State = bool;
    pub fn common() -> Acc { 1 }
    pub fn apply(_ctx: Ctx, acc: Acc) -> State { acc != 0 }
}

fn main() {
    use vertex_dsl::runtime::tc::program::run;
    // A triangle 1-2-3 and a pendant 0-1.
    let el = EdgeList::<u32> { num_vertices: 4, edges: vec![[0, 1], [1, 2], [2, 3], [3, 1]], weights: None };
    let g = build(&el, BuildOptions::undirected()).unwrap();
    assert_eq!(run::<top_corner::Program, _>(&g, None).unwrap().total, 3);
    assert_eq!(run::<per_vertex::Program, _>(&g, None).unwrap().states, vec![0, 1, 1, 1]);
    assert_eq!(run::<in_triangle::Program, _>(&g, None).unwrap().states, vec![false, true, true, true]);
}
