use vertex_dsl::prelude::*;

#[vertex_program(schedule = async)]
pub mod avg {
    pub type State = f64;
    pub fn init(v: u32) -> State { v as f64 }
    pub fn relax(x: State) -> Option<State> { Some(x) }
    pub fn combine(old: State, new: State) -> State { (old + new) / 2.0 }
}

fn main() {}
