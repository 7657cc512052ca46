//! The sequential oracles every engine's results are compared against. They live in
//! `runtime::oracle` (the GPU check binary uses them on the device too); this crate
//! re-exports them for the integration tests.

pub use runtime::oracle::{
    betweenness, bfs_levels, components, core_numbers, dijkstra, dijkstra_f64, pagerank, widest,
    INF, UNREACHED,
};
