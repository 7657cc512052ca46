//! Ranks joined over TCP.
//!
//! Rank 0 listens at `MASTER_ADDR:MASTER_PORT` and every other rank
//! connects to it (the rendezvous, which also hands out NCCL's unique id to
//! GPU ranks). Then every pair of ranks gets a link of its own (a mesh: each
//! rank but 0 listens on the address it reached rank 0 from, rank 0 passes
//! the addresses around, and each connects to the ranks below it), so that
//! all-gathers and all-to-alls go straight from rank to rank rather than all
//! through rank 0: a rank sends to every peer at once (a thread each) while
//! it receives from them in rank order.
//!
//! Failure: every socket read and write has the run's deadline, and a rank
//! that exits (or panics) closes its socket, so a read from it fails at
//! once. The error names the rank; the failing rank's own connections then
//! close as it returns, and the others fail in turn: every rank ends, none
//! waits forever.

use std::io::{ErrorKind, Read, Write};
use std::net::{TcpListener, TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant};

use super::env::RankEnv;
use crate::error::{Error, Result};

/// First word of every hello and acknowledgement ("vertexR1").
const MAGIC: u64 = u64::from_le_bytes(*b"vertexR1");

/// A rank's connections to the others.
pub struct Comm {
    rank: usize,
    world: usize,
    timeout: Duration,
    links: Links,
    /// `mesh[r]`: the link to rank `r` (`None` for this rank; empty alone).
    mesh: Vec<Option<TcpStream>>,
}

enum Links {
    /// A run of one rank: collectives return at once.
    Solo,
    /// Rank 0: `peers[r - 1]` is rank `r`.
    Root { peers: Vec<TcpStream> },
    /// Any other rank: its connection to rank 0.
    Leaf { root: TcpStream },
}

fn dist_err(msg: String) -> Error {
    Error::InvalidArgument(format!("distributed run: {msg}"))
}

impl Comm {
    /// The communicator of a one-rank run.
    pub fn solo() -> Comm {
        Comm {
            rank: 0,
            world: 1,
            timeout: Duration::from_secs(1),
            links: Links::Solo,
            mesh: Vec::new(),
        }
    }

    /// Joins the run `env` describes: rank 0 waits for every other rank to
    /// connect, the others connect to it (retrying until rank 0 listens);
    /// either gives up after `env.timeout` with an error saying who was
    /// missing.
    pub fn connect(env: &RankEnv) -> Result<Comm> {
        let links = if env.world == 1 {
            Links::Solo
        } else if env.rank == 0 {
            Links::Root {
                peers: accept_all(env)?,
            }
        } else {
            Links::Leaf {
                root: connect_root(env)?,
            }
        };
        let mut comm = Comm {
            rank: env.rank,
            world: env.world,
            timeout: env.timeout,
            links,
            mesh: Vec::new(),
        };
        comm.mesh = comm.join_mesh(env)?;
        Ok(comm)
    }

    /// The links between every pair of ranks: rank 0's are the rendezvous
    /// connections; the others listen, exchange their addresses through rank
    /// 0, connect to every rank below them and accept every rank above.
    fn join_mesh(&self, env: &RankEnv) -> Result<Vec<Option<TcpStream>>> {
        let mut mesh: Vec<Option<TcpStream>> = (0..self.world).map(|_| None).collect();
        let clone = |s: &TcpStream, r: usize| {
            s.try_clone()
                .map_err(|e| dist_err(format!("rank {}: link to rank {r}: {e}", self.rank)))
        };
        let listener = match &self.links {
            Links::Solo => return Ok(Vec::new()),
            Links::Root { peers } => {
                for (i, p) in peers.iter().enumerate() {
                    mesh[i + 1] = Some(clone(p, i + 1)?);
                }
                None
            }
            Links::Leaf { root } => {
                mesh[0] = Some(clone(root, 0)?);
                let at = root
                    .local_addr()
                    .and_then(|a| TcpListener::bind((a.ip(), 0)))
                    .map_err(|e| dist_err(format!("rank {} cannot listen: {e}", self.rank)))?;
                Some(at)
            }
        };
        let addr = match &listener {
            Some(l) => l
                .local_addr()
                .map_err(|e| dist_err(format!("rank {} listener: {e}", self.rank)))?
                .to_string(),
            None => String::new(),
        };
        let addrs = self.all_gather_star(addr.as_bytes())?;
        let Some(listener) = listener else {
            return Ok(mesh);
        };
        let deadline = Instant::now() + env.timeout;
        for (q, a) in addrs.iter().enumerate().take(self.rank).skip(1) {
            let a = std::str::from_utf8(a)
                .ok()
                .and_then(|a| a.parse::<std::net::SocketAddr>().ok())
                .ok_or_else(|| dist_err(format!("rank {q} sent no address to connect to")))?;
            let s = connect_until(&[a], deadline).map_err(|e| {
                dist_err(format!(
                    "rank {} could not reach rank {q} at {a}: {e}",
                    self.rank
                ))
            })?;
            let mut hello = MAGIC.to_le_bytes().to_vec();
            hello.extend_from_slice(&(self.rank as u64).to_le_bytes());
            prepare(&s, env.timeout)
                .and_then(|_| (&s).write_all(&hello))
                .map_err(|e| self.io_err(q, "greeting", e))?;
            mesh[q] = Some(s);
        }
        let me = self.rank;
        accept_greeted::<_, 2>(
            &listener,
            &mut mesh,
            deadline,
            env.timeout,
            |mesh| mesh.iter().skip(me + 1).all(Option::is_some),
            |mesh, s, from, [_, r]| {
                let r = r as usize;
                if r <= me || r >= self.world {
                    return Err(dist_err(format!(
                        "rank {me}: a process at {from} greeted as rank {r}"
                    )));
                }
                if mesh[r].is_some() {
                    return Err(dist_err(format!(
                        "rank {me}: two processes greeted as rank {r}"
                    )));
                }
                prepare(&s, env.timeout).map_err(|e| self.io_err(r, "linking", e))?;
                mesh[r] = Some(s);
                Ok(())
            },
            |mesh, e| match e {
                Some(e) => dist_err(format!("rank {me} accepting links: {e}")),
                None => {
                    let missing: Vec<String> = (me + 1..self.world)
                        .filter(|&r| mesh[r].is_none())
                        .map(|r| r.to_string())
                        .collect();
                    dist_err(format!(
                        "rank {me} waited {} s for rank(s) {} to link",
                        env.timeout.as_secs(),
                        missing.join(", ")
                    ))
                }
            },
        )?;
        Ok(mesh)
    }

    /// Sends `to(d)` to every other rank `d` (a thread each) while receiving
    /// what each sent here, in rank order; this rank's own entry is `own`.
    /// The senders always finish (a peer that fails drops its links, which
    /// ends a write to it at once), so what this rank sent reaches the peers
    /// that are alive even when it fails itself: their error then names the
    /// rank that really went away, not this one.
    fn mesh_exchange<'a>(
        &self,
        own: Vec<u8>,
        to: impl Fn(usize) -> &'a [u8] + Sync,
    ) -> Result<Vec<Vec<u8>>> {
        let links: Vec<(usize, &TcpStream)> = (0..self.world)
            .filter(|&d| d != self.rank)
            .map(|d| {
                self.mesh
                    .get(d)
                    .and_then(Option::as_ref)
                    .map(|s| (d, s))
                    .ok_or_else(|| dist_err(format!("rank {}: no link to rank {d}", self.rank)))
            })
            .collect::<Result<_>>()?;
        let to = &to;
        std::thread::scope(|scope| {
            let senders: Vec<_> = links
                .iter()
                .map(|&(d, s)| scope.spawn(move || self.send(s, d, to(d))))
                .collect();
            let mut got = Vec::with_capacity(self.world);
            let mut own = Some(own);
            let mut failed = None;
            for src in 0..self.world {
                if src == self.rank {
                    got.push(own.take().unwrap_or_default());
                    continue;
                }
                let link = links.iter().find(|l| l.0 == src).map(|l| l.1);
                match link.map(|s| self.recv(s, src)) {
                    Some(Ok(b)) => got.push(b),
                    Some(Err(e)) => {
                        failed = Some(e);
                        break;
                    }
                    None => {
                        failed = Some(dist_err(format!("rank {}: no link to {src}", self.rank)));
                        break;
                    }
                }
            }
            for h in senders {
                let sent = h
                    .join()
                    .unwrap_or_else(|_| Err(dist_err("a sending thread panicked".into())));
                if let (Err(e), None) = (sent, &failed) {
                    failed = Some(e);
                }
            }
            match failed {
                Some(e) => Err(e),
                None => Ok(got),
            }
        })
    }

    /// This rank.
    pub fn rank(&self) -> usize {
        self.rank
    }

    /// Number of ranks.
    pub fn world(&self) -> usize {
        self.world
    }

    /// Every rank's `mine`, in rank order, on every rank.
    pub fn all_gather(&self, mine: &[u8]) -> Result<Vec<Vec<u8>>> {
        match self.mesh.is_empty() {
            true => self.all_gather_star(mine),
            false => self.mesh_exchange(mine.to_vec(), |_| mine),
        }
    }

    /// [`Comm::all_gather`] through rank 0 (before the mesh is up).
    fn all_gather_star(&self, mine: &[u8]) -> Result<Vec<Vec<u8>>> {
        match &self.links {
            Links::Solo => Ok(vec![mine.to_vec()]),
            Links::Root { peers } => {
                let mut all = vec![mine.to_vec()];
                for (i, p) in peers.iter().enumerate() {
                    all.push(self.recv(p, i + 1)?);
                }
                for (i, p) in peers.iter().enumerate() {
                    self.send_all(p, i + 1, &all)?;
                }
                Ok(all)
            }
            Links::Leaf { root } => {
                self.send(root, 0, mine)?;
                self.recv_all(root, 0)
            }
        }
    }

    /// `out[d]` goes to rank `d`; returns `in[s]`, what rank `s` sent here.
    pub fn all_to_all(&self, out: Vec<Vec<u8>>) -> Result<Vec<Vec<u8>>> {
        if out.len() != self.world {
            return Err(dist_err(format!(
                "all_to_all got {} buffers for {} ranks",
                out.len(),
                self.world
            )));
        }
        if self.mesh.is_empty() {
            return Ok(out); // one rank
        }
        let mut out = out;
        let own = std::mem::take(&mut out[self.rank]);
        self.mesh_exchange(own, |d| &out[d])
    }

    /// Every rank's `x`, in rank order.
    fn all_words(&self, x: u64) -> Result<Vec<u64>> {
        Ok(self
            .all_gather_array([x])?
            .into_iter()
            .map(|[w]| w)
            .collect())
    }

    /// Every rank's `mine` (a fixed record of plain values: counters,
    /// timings), in rank order; a rank that sent another size is an error
    /// naming it.
    pub fn all_gather_array<T: bytemuck::Pod, const N: usize>(
        &self,
        mine: [T; N],
    ) -> Result<Vec<[T; N]>> {
        let one = std::mem::size_of::<T>();
        let size = one * N;
        self.all_gather(bytemuck::cast_slice(&mine))?
            .iter()
            .enumerate()
            .map(|(r, b)| match b.len() == size {
                true => Ok(std::array::from_fn(|i| {
                    bytemuck::pod_read_unaligned(&b[i * one..(i + 1) * one])
                })),
                false => Err(dist_err(format!(
                    "rank {r} sent a record of {} bytes, {size} expected",
                    b.len()
                ))),
            })
            .collect()
    }

    /// The sum of every rank's `x`.
    pub fn all_reduce_sum(&self, x: u64) -> Result<u64> {
        Ok(self.all_words(x)?.into_iter().sum())
    }

    /// The smallest of every rank's `x`.
    pub fn all_reduce_min(&self, x: u64) -> Result<u64> {
        Ok(self.all_words(x)?.into_iter().min().unwrap_or(x))
    }

    /// The largest of every rank's `x`.
    pub fn all_reduce_max(&self, x: u64) -> Result<u64> {
        Ok(self.all_words(x)?.into_iter().max().unwrap_or(x))
    }

    /// The sum of every rank's `x`, added in rank order (the same bits on
    /// every rank, so every rank takes the same decision on it).
    pub fn all_reduce_sum_f64(&self, x: f64) -> Result<f64> {
        Ok(self
            .all_words(x.to_bits())?
            .into_iter()
            .map(f64::from_bits)
            .sum())
    }

    /// Every rank's slice `mine` of a per-vertex (or per-word) array, written
    /// into `global` at the index ranges `range(r)`; returns whether any entry
    /// changed. `what` names the array in the error a wrong-sized slice gets.
    pub fn all_gather_into<T: bytemuck::Pod + PartialEq>(
        &self,
        mine: &[T],
        range: impl Fn(usize) -> std::ops::Range<usize>,
        global: &mut [T],
        what: &str,
    ) -> Result<bool> {
        let size = std::mem::size_of::<T>();
        let slices = self.all_gather(bytemuck::cast_slice(mine))?;
        let mut changed = false;
        for (r, s) in slices.iter().enumerate() {
            let range = range(r);
            if s.len() != range.len() * size || range.end > global.len() {
                return Err(dist_err(format!(
                    "rank {r} sent {} bytes of {what} for {} entries",
                    s.len(),
                    range.len()
                )));
            }
            for (g, c) in global[range].iter_mut().zip(s.chunks_exact(size)) {
                let x: T = bytemuck::pod_read_unaligned(c);
                changed |= *g != x;
                *g = x;
            }
        }
        Ok(changed)
    }

    /// Returns once every rank has called it.
    pub fn barrier(&self) -> Result<()> {
        self.all_gather(&[]).map(|_| ())
    }

    fn send(&self, s: &TcpStream, peer: usize, buf: &[u8]) -> Result<()> {
        let mut w = s;
        w.write_all(&(buf.len() as u64).to_le_bytes())
            .and_then(|_| w.write_all(buf))
            .map_err(|e| self.io_err(peer, "sending to", e))
    }

    fn send_all(&self, s: &TcpStream, peer: usize, bufs: &[Vec<u8>]) -> Result<()> {
        self.send(s, peer, &(bufs.len() as u64).to_le_bytes())?;
        bufs.iter().try_for_each(|b| self.send(s, peer, b))
    }

    fn recv(&self, s: &TcpStream, peer: usize) -> Result<Vec<u8>> {
        let mut r = s;
        let mut len = [0u8; 8];
        r.read_exact(&mut len)
            .map_err(|e| self.io_err(peer, "receiving from", e))?;
        let len = u64::from_le_bytes(len);
        let len = usize::try_from(len)
            .ok()
            .filter(|&l| l <= isize::MAX as usize)
            .ok_or_else(|| dist_err(format!("rank {peer} announced a {len}-byte message")))?;
        let mut buf = Vec::new();
        buf.try_reserve_exact(len).map_err(|_| {
            dist_err(format!(
                "no memory for a {len}-byte message from rank {peer}"
            ))
        })?;
        buf.resize(len, 0);
        r.read_exact(&mut buf)
            .map_err(|e| self.io_err(peer, "receiving from", e))?;
        Ok(buf)
    }

    fn recv_all(&self, s: &TcpStream, peer: usize) -> Result<Vec<Vec<u8>>> {
        let count = word(&self.recv(s, peer)?);
        if count != self.world as u64 {
            return Err(dist_err(format!(
                "rank {peer} sent {count} buffers in a run of {} ranks",
                self.world
            )));
        }
        (0..count).map(|_| self.recv(s, peer)).collect()
    }

    fn io_err(&self, peer: usize, doing: &str, e: std::io::Error) -> Error {
        let why = match e.kind() {
            ErrorKind::UnexpectedEof
            | ErrorKind::ConnectionReset
            | ErrorKind::ConnectionAborted
            | ErrorKind::BrokenPipe => {
                "its connection closed (that rank exited or failed)".to_string()
            }
            ErrorKind::WouldBlock | ErrorKind::TimedOut => format!(
                "no answer within {} s (VERTEX_DIST_TIMEOUT)",
                self.timeout.as_secs()
            ),
            _ => e.to_string(),
        };
        dist_err(format!("rank {}: {doing} rank {peer}: {why}", self.rank))
    }
}

fn word(b: &[u8]) -> u64 {
    let mut w = [0u8; 8];
    let k = b.len().min(8);
    w[..k].copy_from_slice(&b[..k]);
    u64::from_le_bytes(w)
}

fn prepare(s: &TcpStream, timeout: Duration) -> std::io::Result<()> {
    s.set_nodelay(true)?;
    s.set_read_timeout(Some(timeout))?;
    s.set_write_timeout(Some(timeout))
}

/// Accepts connections on `listener` until `done(state)`. Each must greet
/// within 10 s (and the run's timeout) with `N` little-endian words, the
/// first [`MAGIC`]; one that does not is not ours and is dropped, the wait
/// goes on. `take` keeps a greeted connection in `state` (or refuses the
/// run); `fail` makes the error when accepting fails (`Some`) or `until`
/// passes first (`None`: it names who never came).
fn accept_greeted<S, const N: usize>(
    listener: &TcpListener,
    state: &mut S,
    until: Instant,
    timeout: Duration,
    done: impl Fn(&S) -> bool,
    mut take: impl FnMut(&mut S, TcpStream, std::net::SocketAddr, [u64; N]) -> Result<()>,
    fail: impl Fn(&S, Option<std::io::Error>) -> Error,
) -> Result<()> {
    listener
        .set_nonblocking(true)
        .map_err(|e| fail(state, Some(e)))?;
    while !done(state) {
        match listener.accept() {
            Ok((s, from)) => {
                let hello = (|| -> std::io::Result<[u64; N]> {
                    s.set_nonblocking(false)?;
                    // A connection that says nothing (not one of ours) may not
                    // hold up the others for the whole run's deadline.
                    prepare(&s, timeout.min(Duration::from_secs(10)))?;
                    let mut b = vec![0u8; 8 * N];
                    (&s).read_exact(&mut b)?;
                    Ok(std::array::from_fn(|i| word(&b[8 * i..8 * i + 8])))
                })();
                match hello {
                    Ok(words) if words[0] == MAGIC => take(state, s, from, words)?,
                    _ => continue, // not one of ours, or gone: keep waiting
                }
            }
            Err(e) if e.kind() == ErrorKind::WouldBlock => {
                if Instant::now() >= until {
                    return Err(fail(state, None));
                }
                std::thread::sleep(Duration::from_millis(2));
            }
            Err(e) => return Err(fail(state, Some(e))),
        }
    }
    Ok(())
}

/// Rank 0: every other rank's hello (magic, rank, world), checked, then an
/// acknowledgement to each.
fn accept_all(env: &RankEnv) -> Result<Vec<TcpStream>> {
    let listener = TcpListener::bind(&env.master).map_err(|e| {
        dist_err(format!(
            "rank 0 cannot listen at {} (MASTER_ADDR:MASTER_PORT): {e}",
            env.master
        ))
    })?;
    let mut peers: Vec<Option<TcpStream>> = (1..env.world).map(|_| None).collect();
    accept_greeted::<_, 3>(
        &listener,
        &mut peers,
        Instant::now() + env.timeout,
        env.timeout,
        |peers| peers.iter().all(Option::is_some),
        |peers, s, from, [_, rank, world]| {
            if world != env.world as u64 {
                return Err(dist_err(format!(
                    "rank {rank} (from {from}) says WORLD_SIZE={world}, rank 0 has {}",
                    env.world
                )));
            }
            let slot = (rank as usize)
                .checked_sub(1)
                .and_then(|i| peers.get_mut(i))
                .ok_or_else(|| dist_err(format!("a process at {from} says it is rank {rank}")))?;
            prepare(&s, env.timeout)
                .map_err(|e| dist_err(format!("rank 0 setting up rank {rank}'s socket: {e}")))?;
            if slot.is_some() {
                return Err(dist_err(format!(
                    "two processes say they are rank {rank} (the second from {from})"
                )));
            }
            *slot = Some(s);
            Ok(())
        },
        |peers, e| match e {
            Some(e) => dist_err(format!("rank 0 accepting connections: {e}")),
            None => {
                let missing: Vec<String> = peers
                    .iter()
                    .enumerate()
                    .filter(|(_, p)| p.is_none())
                    .map(|(i, _)| (i + 1).to_string())
                    .collect();
                dist_err(format!(
                    "rank 0 waited {} s at {} and rank(s) {} never connected",
                    env.timeout.as_secs(),
                    env.master,
                    missing.join(", ")
                ))
            }
        },
    )?;
    let peers: Vec<TcpStream> = peers.into_iter().flatten().collect();
    for (i, s) in peers.iter().enumerate() {
        (&*s)
            .write_all(&MAGIC.to_le_bytes())
            .map_err(|e| dist_err(format!("rank 0 acknowledging rank {}: {e}", i + 1)))?;
    }
    Ok(peers)
}

/// A connection to the first of `addrs` that accepts one, tried again every
/// 20 ms (a listener may not be up yet) until `until`; then the last error.
fn connect_until(addrs: &[std::net::SocketAddr], until: Instant) -> std::io::Result<TcpStream> {
    loop {
        let mut last = std::io::Error::new(ErrorKind::NotFound, "no address to connect to");
        for a in addrs {
            match TcpStream::connect_timeout(a, Duration::from_secs(1)) {
                Ok(s) => return Ok(s),
                Err(e) => last = e,
            }
        }
        if Instant::now() >= until {
            return Err(last);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Any other rank: connects to rank 0 (retrying until it listens), says
/// hello, waits for the acknowledgement.
fn connect_root(env: &RankEnv) -> Result<TcpStream> {
    let deadline = Instant::now() + env.timeout;
    let addrs: Vec<_> = env
        .master
        .to_socket_addrs()
        .map_err(|e| dist_err(format!("MASTER_ADDR:MASTER_PORT {}: {e}", env.master)))?
        .collect();
    let s = connect_until(&addrs, deadline).map_err(|_| {
        dist_err(format!(
            "rank {} could not reach rank 0 at {} within {} s",
            env.rank,
            env.master,
            env.timeout.as_secs()
        ))
    })?;
    let fail = |e: std::io::Error| {
        dist_err(format!(
            "rank {} joining rank 0 at {}: {e}",
            env.rank, env.master
        ))
    };
    prepare(&s, env.timeout).map_err(fail)?;
    let mut hello = Vec::with_capacity(24);
    for w in [MAGIC, env.rank as u64, env.world as u64] {
        hello.extend_from_slice(&w.to_le_bytes());
    }
    (&s).write_all(&hello).map_err(fail)?;
    let mut ack = [0u8; 8];
    (&s).read_exact(&mut ack).map_err(|e| {
        dist_err(format!(
            "rank {}: rank 0 at {} did not acknowledge ({e}): another rank may have failed",
            env.rank, env.master
        ))
    })?;
    if word(&ack) != MAGIC {
        return Err(dist_err(format!(
            "rank {}: {} is not a vertex rank 0",
            env.rank, env.master
        )));
    }
    Ok(s)
}
