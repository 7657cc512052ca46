use vertex_dsl::prelude::*;

#[vertex_program(gather = sum)]
pub mod peel {
    #[derive(Clone, Copy, PartialEq)]
    pub enum Status {
        Alive(u32),
        Removed,
    }
    pub type State = Status;
    pub type Acc = u32;
    pub fn init(ctx: Ctx) -> State { Status::Alive(ctx.out_degree) }
    pub fn gather(_neighbour: State) -> Acc { 1 }
    pub fn apply(_ctx: Ctx, _old: State, _count: Acc) -> State { Status::Removed }
}

fn main() {}
