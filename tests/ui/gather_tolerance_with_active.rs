use vertex_dsl::prelude::*;

#[vertex_program(gather = min, reduce = sum)]
pub mod components {
    pub type State = u32;
    pub type Acc = u32;
    pub const TOLERANCE: f64 = 0.5;
    pub fn init(ctx: Ctx) -> State { ctx.vertex }
    pub fn gather(label: State) -> Acc { label }
    pub fn apply(_ctx: Ctx, old: State, lowest: Acc) -> State { old.min(lowest) }
    pub fn active(old: State, new: State) -> bool { new < old }
    pub fn reduce(old: State, new: State) -> f64 { (old - new) as f64 }
}

fn main() {}
