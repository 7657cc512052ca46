//! The `vertex` CLI's tests as one test binary (one link instead of seven): each
//! module runs the built binaries as a user would and checks what they print.

mod bench_gap;
mod bench_prgpu;
mod first_hour;
mod gap_commands;
mod launch;
mod run_front_end;
mod schedules;
mod small_inputs;
mod stdout_and_warnings;
