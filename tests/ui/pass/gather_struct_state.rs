//! `pub struct State` (and `Msg`) as written, with no `type State = ..;`.
use vertex_dsl::prelude::*;

#[vertex_program(gather = max)]
pub mod labels {
    #[repr(C)]
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub struct State {
        pub label: u32,
        pub hops: u32,
    }
    #[repr(C)]
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub struct Msg {
        pub label: u32,
    }
    pub type Acc = u32;
    pub fn init(ctx: Ctx) -> State {
        State { label: ctx.vertex, hops: 0 }
    }
    pub fn emit(s: State) -> Msg {
        Msg { label: s.label }
    }
    pub fn gather(m: Msg) -> Acc {
        m.label
    }
    pub fn apply(_ctx: Ctx, old: State, best: Acc) -> State {
        if best > old.label {
            State { label: best, hops: old.hops + 1 }
        } else {
            old
        }
    }
}

fn main() {
    let g: Graph<u32> = vertex_dsl::load("grid:3x3").unwrap();
    let out = run::<labels::Program>(&g).backend(Backend::Cpu).go().unwrap();
    assert!(out.values.iter().all(|s| s.label == 8));
}
