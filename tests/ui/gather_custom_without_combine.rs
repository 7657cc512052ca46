use vertex_dsl::prelude::*;

#[vertex_program(gather = custom)]
pub mod lowest {
    pub type State = u32;
    pub type Acc = u32;
    pub fn init(ctx: Ctx) -> State { ctx.vertex }
    pub fn gather(label: State) -> Acc { label }
    pub fn identity() -> Acc { u32::MAX }
    pub fn apply(_ctx: Ctx, old: State, lowest: Acc) -> State { old.min(lowest) }
}

fn main() {}
