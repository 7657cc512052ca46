//! Ranks as threads of one process, joined over loopback TCP: how tests
//! (here and in the workspace's test crate) run the rank protocol and the
//! engines over ranks without a launcher or GPUs.

use std::net::TcpListener;
use std::time::Duration;

use super::{Comm, RankEnv};
use crate::error::{Error, Result};

/// A free loopback port for a rendezvous.
pub fn free_port() -> Result<u16> {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .map_err(|e| Error::InvalidArgument(format!("no free loopback port: {e}")))
}

/// Rank `rank` of `world` meeting at `127.0.0.1:port`.
pub fn loopback_env(rank: usize, world: usize, port: u16, timeout: Duration) -> RankEnv {
    RankEnv {
        rank,
        world,
        local_rank: rank,
        master: format!("127.0.0.1:{port}"),
        timeout,
    }
}

/// `f` on each rank of `ranks` of a `world`-rank run, each a thread joined
/// to the others over loopback TCP (ranks not listed never start, which
/// tests of failures use); the results in the order of `ranks`.
pub fn run_on_threads<T: Send + 'static>(
    world: usize,
    ranks: &[usize],
    timeout: Duration,
    f: impl Fn(Comm) -> Result<T> + Send + Sync + Clone + 'static,
) -> Result<Vec<Result<T>>> {
    let port = free_port()?;
    let handles: Vec<_> = ranks
        .iter()
        .map(|&r| {
            let e = loopback_env(r, world, port, timeout);
            let f = f.clone();
            std::thread::spawn(move || Comm::connect(&e).and_then(f))
        })
        .collect();
    Ok(handles
        .into_iter()
        .map(|h| {
            h.join()
                .unwrap_or_else(|_| Err(Error::InvalidArgument("a rank thread panicked".into())))
        })
        .collect())
}
