//! Who this process is in a run over several ranks.

use std::time::Duration;

use crate::error::{Error, Result};

/// Default port of the rendezvous (torchrun's).
pub const DEFAULT_PORT: u16 = 29500;
/// Default deadline of every wait, in seconds (`VERTEX_DIST_TIMEOUT`).
pub const DEFAULT_TIMEOUT_S: u64 = 600;

/// This process's place among the ranks of a run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RankEnv {
    /// `0..world`.
    pub rank: usize,
    /// Number of ranks.
    pub world: usize,
    /// Rank among those on this host (picks the GPU).
    pub local_rank: usize,
    /// `host:port` of rank 0's rendezvous.
    pub master: String,
    /// Longest wait for another rank at a rendezvous or collective.
    pub timeout: Duration,
}

impl RankEnv {
    /// From the process environment: `None` when `WORLD_SIZE` is unset (a
    /// plain one-process run).
    pub fn from_env() -> Result<Option<RankEnv>> {
        Self::from_vars(|k| std::env::var(k).ok())
    }

    /// From variables looked up by `get` (the environment, or a test's map).
    ///
    /// ```
    /// use runtime::dist::RankEnv;
    /// let vars = [("WORLD_SIZE", "4"), ("RANK", "2"), ("MASTER_PORT", "4000")];
    /// let env = RankEnv::from_vars(|k| vars.iter().find(|v| v.0 == k).map(|v| v.1.to_string()))?
    ///     .expect("WORLD_SIZE is set");
    /// assert_eq!((env.rank, env.world, env.local_rank), (2, 4, 2));
    /// assert_eq!(env.master, "127.0.0.1:4000");
    /// # Ok::<(), runtime::Error>(())
    /// ```
    pub fn from_vars(get: impl Fn(&str) -> Option<String>) -> Result<Option<RankEnv>> {
        let Some(world) = get("WORLD_SIZE") else {
            return Ok(None);
        };
        let num = |name: &str, v: &str| -> Result<u64> {
            v.trim().parse::<u64>().map_err(|_| {
                Error::InvalidArgument(format!(
                    "environment variable {name}={v:?} is not a non-negative integer"
                ))
            })
        };
        let world = num("WORLD_SIZE", &world)? as usize;
        if world == 0 {
            return Err(Error::InvalidArgument(
                "environment variable WORLD_SIZE=0: a run needs at least one rank".into(),
            ));
        }
        let rank = match get("RANK") {
            Some(r) => num("RANK", &r)? as usize,
            None if world == 1 => 0,
            None => {
                return Err(Error::InvalidArgument(format!(
                    "WORLD_SIZE={world} is set but RANK is not (each process needs its rank, 0..{world})"
                )))
            }
        };
        if rank >= world {
            return Err(Error::InvalidArgument(format!(
                "RANK={rank} is out of range for WORLD_SIZE={world} (ranks are 0..{world})"
            )));
        }
        let local_rank = match get("LOCAL_RANK") {
            Some(r) => num("LOCAL_RANK", &r)? as usize,
            None => rank,
        };
        let host = get("MASTER_ADDR").unwrap_or_else(|| "127.0.0.1".into());
        let port = match get("MASTER_PORT") {
            Some(p) => u16::try_from(num("MASTER_PORT", &p)?).map_err(|_| {
                Error::InvalidArgument(format!("MASTER_PORT={p} is not a port (0..=65535)"))
            })?,
            None => DEFAULT_PORT,
        };
        let timeout = match get("VERTEX_DIST_TIMEOUT") {
            Some(t) => num("VERTEX_DIST_TIMEOUT", &t)?,
            None => DEFAULT_TIMEOUT_S,
        };
        Ok(Some(RankEnv {
            rank,
            world,
            local_rank,
            master: format!("{host}:{port}"),
            timeout: Duration::from_secs(timeout.max(1)),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(vars: &[(&str, &str)]) -> Result<Option<RankEnv>> {
        RankEnv::from_vars(|k| vars.iter().find(|v| v.0 == k).map(|v| v.1.to_string()))
    }

    #[test]
    fn reads_the_launcher_variables() {
        assert_eq!(env(&[]).unwrap(), None);
        let e = env(&[
            ("WORLD_SIZE", "8"),
            ("RANK", "5"),
            ("LOCAL_RANK", "1"),
            ("MASTER_ADDR", "node0"),
            ("VERTEX_DIST_TIMEOUT", "30"),
        ])
        .unwrap()
        .unwrap();
        assert_eq!((e.rank, e.world, e.local_rank), (5, 8, 1));
        assert_eq!(e.master, "node0:29500");
        assert_eq!(e.timeout, Duration::from_secs(30));
        assert_eq!(env(&[("WORLD_SIZE", "1")]).unwrap().unwrap().rank, 0);
    }

    #[test]
    fn bad_values_name_the_variable() {
        let msg = |v: &[(&str, &str)]| env(v).unwrap_err().to_string();
        assert!(msg(&[("WORLD_SIZE", "x")]).contains("WORLD_SIZE"));
        assert!(msg(&[("WORLD_SIZE", "0")]).contains("WORLD_SIZE=0"));
        assert!(msg(&[("WORLD_SIZE", "2")]).contains("RANK is not"));
        assert!(msg(&[("WORLD_SIZE", "2"), ("RANK", "2")]).contains("out of range"));
        assert!(
            msg(&[("WORLD_SIZE", "2"), ("RANK", "0"), ("MASTER_PORT", "70000")])
                .contains("MASTER_PORT")
        );
    }
}
