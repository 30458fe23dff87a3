//! One process a rank: where this process stands in the world, read from the variables
//! that torchrun and Slurm set ([`LaunchEnv::from_env`]), and the NCCL unique id handed
//! from rank 0 to the others over TCP ([`share_id`]), so that no launcher of our own is
//! needed.
//!
//! Rank 0 listens on `MASTER_ADDR`'s host at `WARPSPEED_PORT`, else `MASTER_PORT + 1`
//! (torchrun's own store holds `MASTER_PORT` itself). Each other rank connects, says who
//! it is (`WSID`, a version, its rank and the world size it was told), and receives the
//! 128-byte id, or the reason it is refused (a world size that is not rank 0's).

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant};

use crate::error::{Error, Result};

/// This process's place in a world of processes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct LaunchEnv {
    pub(crate) rank: usize,
    pub(crate) world_size: usize,
    /// Which GPU of the host this process uses.
    pub(crate) local_rank: usize,
    pub(crate) master_addr: String,
    pub(crate) port: u16,
}

impl LaunchEnv {
    /// The launcher's variables (`RANK`, `WORLD_SIZE`, `LOCAL_RANK`, `MASTER_ADDR`,
    /// `MASTER_PORT`; Slurm's `SLURM_PROCID`, `SLURM_NTASKS`, `SLURM_LOCALID` where
    /// torchrun's are unset), or `None` for a process started alone (no world size).
    pub(crate) fn from_env() -> Result<Option<LaunchEnv>> {
        Self::from_vars(|name| std::env::var(name).ok())
    }

    /// [`LaunchEnv::from_env`] over any source of variables (tests).
    pub(crate) fn from_vars(var: impl Fn(&str) -> Option<String>) -> Result<Option<LaunchEnv>> {
        fn first<'n>(
            var: &impl Fn(&str) -> Option<String>,
            names: &[&'n str],
        ) -> Option<(&'n str, String)> {
            names
                .iter()
                .find_map(|n| var(n).map(|v| (*n, v.trim().to_string())))
        }
        let first = |names: &[&'static str]| first(&var, names);
        let number = |names: &[&'static str]| -> Result<Option<usize>> {
            match first(names) {
                None => Ok(None),
                Some((name, v)) => v.parse().map(Some).map_err(|_| bad(name, &v, "a number")),
            }
        };
        let Some(world_size) = number(&["WORLD_SIZE", "SLURM_NTASKS"])? else {
            return Ok(None);
        };
        let rank = number(&["RANK", "SLURM_PROCID"])?
            .ok_or_else(|| missing("RANK (or SLURM_PROCID)", world_size))?;
        let local_rank = number(&["LOCAL_RANK", "SLURM_LOCALID"])?.unwrap_or(0);
        if world_size == 0 || rank >= world_size {
            return Err(bad(
                "RANK",
                &rank.to_string(),
                &format!("a rank below WORLD_SIZE {world_size}"),
            ));
        }
        if world_size == 1 {
            return Ok(Some(LaunchEnv {
                rank,
                world_size,
                local_rank,
                master_addr: String::new(),
                port: 0,
            }));
        }
        let (_, master_addr) =
            first(&["MASTER_ADDR"]).ok_or_else(|| missing("MASTER_ADDR", world_size))?;
        let port = match first(&["WARPSPEED_PORT"]) {
            Some((name, v)) => v.parse().map_err(|_| bad(name, &v, "a TCP port"))?,
            None => {
                let (name, v) =
                    first(&["MASTER_PORT"]).ok_or_else(|| missing("MASTER_PORT", world_size))?;
                let p: u16 = v.parse().map_err(|_| bad(name, &v, "a TCP port"))?;
                p.checked_add(1)
                    .ok_or_else(|| bad(name, &v, "a port below 65535"))?
            }
        };
        Ok(Some(LaunchEnv {
            rank,
            world_size,
            local_rank,
            master_addr,
            port,
        }))
    }
}

const MAGIC: &[u8; 4] = b"WSID";
const VERSION: u32 = 1;

/// The NCCL unique id of the world: rank 0 makes it (`make`) and serves it to every other
/// rank, which receive it; each side waits at most `timeout` for the others.
pub(crate) fn share_id(
    env: &LaunchEnv,
    make: impl FnOnce() -> Result<[u8; 128]>,
    timeout: Duration,
) -> Result<[u8; 128]> {
    let deadline = Instant::now() + timeout;
    if env.rank == 0 {
        let id = make()?;
        serve(env, &id, deadline)?;
        Ok(id)
    } else {
        receive(env, deadline)
    }
}

/// Rank 0: answers each other rank once.
fn serve(env: &LaunchEnv, id: &[u8; 128], deadline: Instant) -> Result<()> {
    let fail = |what: String| bootstrap_error(env, what);
    let listener = TcpListener::bind(("0.0.0.0", env.port))
        .map_err(|e| fail(format!("listening on port {}: {e}", env.port)))?;
    listener
        .set_nonblocking(true)
        .map_err(|e| fail(format!("{e}")))?;
    let mut served = vec![false; env.world_size];
    served[0] = true;
    while served.iter().any(|s| !s) {
        let (mut stream, peer) = match listener.accept() {
            Ok(conn) => conn,
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                if Instant::now() > deadline {
                    let missing: Vec<usize> = (0..env.world_size).filter(|&r| !served[r]).collect();
                    return Err(fail(format!(
                        "ranks {missing:?} did not connect within the timeout"
                    )));
                }
                std::thread::sleep(Duration::from_millis(5));
                continue;
            }
            Err(e) => return Err(fail(format!("accepting a connection: {e}"))),
        };
        let _ = stream.set_nonblocking(false);
        let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
        let mut hello = [0u8; 16];
        if stream.read_exact(&mut hello).is_err() || &hello[..4] != MAGIC {
            continue; // not one of ours (a port scan, a stale process)
        }
        let word = |i: usize| u32::from_le_bytes(hello[i..i + 4].try_into().expect("4 bytes"));
        let (version, rank, world) = (word(4), word(8) as usize, word(12) as usize);
        let refusal = if version != VERSION {
            Some(format!("protocol version {version}, rank 0's is {VERSION}"))
        } else if world != env.world_size {
            Some(format!(
                "rank {rank} was told WORLD_SIZE {world}, rank 0 {}",
                env.world_size
            ))
        } else if rank == 0 || rank >= world {
            Some(format!("a rank {rank} connected from {peer}"))
        } else {
            None
        };
        let mut reply = Vec::with_capacity(132);
        match &refusal {
            None => {
                reply.extend_from_slice(&0u32.to_le_bytes());
                reply.extend_from_slice(id);
            }
            Some(why) => {
                let why = why.as_bytes();
                reply.extend_from_slice(&(why.len() as u32).to_le_bytes());
                reply.extend_from_slice(why);
            }
        }
        let _ = stream.write_all(&reply);
        match refusal {
            None => served[rank] = true,
            Some(why) => return Err(fail(why)),
        }
    }
    Ok(())
}

/// Any other rank: connects to rank 0 (retrying until it listens), asks for the id.
fn receive(env: &LaunchEnv, deadline: Instant) -> Result<[u8; 128]> {
    let fail = |what: String| bootstrap_error(env, what);
    let addr: SocketAddr = (env.master_addr.as_str(), env.port)
        .to_socket_addrs()
        .map_err(|e| fail(format!("resolving MASTER_ADDR {}: {e}", env.master_addr)))?
        .next()
        .ok_or_else(|| fail(format!("MASTER_ADDR {} has no address", env.master_addr)))?;
    let mut stream = loop {
        match TcpStream::connect_timeout(&addr, Duration::from_secs(1)) {
            Ok(s) => break s,
            Err(e) if Instant::now() > deadline => {
                return Err(fail(format!(
                    "rank 0 at {addr} did not answer within the timeout ({e})"
                )))
            }
            Err(_) => std::thread::sleep(Duration::from_millis(20)),
        }
    };
    let mut hello = Vec::with_capacity(16);
    hello.extend_from_slice(MAGIC);
    for word in [VERSION, env.rank as u32, env.world_size as u32] {
        hello.extend_from_slice(&word.to_le_bytes());
    }
    let left = deadline.saturating_duration_since(Instant::now());
    let _ = stream.set_read_timeout(Some(left.max(Duration::from_secs(1))));
    stream
        .write_all(&hello)
        .map_err(|e| fail(format!("writing to rank 0 at {addr}: {e}")))?;
    let mut status = [0u8; 4];
    stream
        .read_exact(&mut status)
        .map_err(|e| fail(format!("reading from rank 0 at {addr}: {e}")))?;
    let status = u32::from_le_bytes(status) as usize;
    if status != 0 {
        let mut why = vec![0u8; status.min(4096)];
        let _ = stream.read_exact(&mut why);
        return Err(fail(format!(
            "rank 0 refused: {}",
            String::from_utf8_lossy(&why)
        )));
    }
    let mut id = [0u8; 128];
    stream
        .read_exact(&mut id)
        .map_err(|e| fail(format!("reading the id from rank 0 at {addr}: {e}")))?;
    Ok(id)
}

fn bootstrap_error(env: &LaunchEnv, what: String) -> Error {
    Error::Collective {
        message: format!(
            "rank {} of {} handing out NCCL's id (MASTER_ADDR {}, port {}): {what}",
            env.rank, env.world_size, env.master_addr, env.port
        ),
    }
}

fn bad(name: &str, value: &str, wanted: &str) -> Error {
    Error::InvalidArgument {
        what: format!("the launcher's variable {name}"),
        reason: format!("{value:?} is not {wanted}"),
    }
}

fn missing(name: &str, world_size: usize) -> Error {
    Error::InvalidArgument {
        what: format!("the launcher's variable {name}"),
        reason: format!(
            "unset, while WORLD_SIZE is {world_size} (torchrun sets it; under Slurm, export it)"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn env(vars: &[(&str, &str)]) -> Result<Option<LaunchEnv>> {
        let map: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        LaunchEnv::from_vars(|n| map.get(n).cloned())
    }

    #[test]
    fn torchrun_and_slurm_variables_are_read() {
        assert_eq!(env(&[]).unwrap(), None);
        let torchrun = env(&[
            ("RANK", "3"),
            ("WORLD_SIZE", "4"),
            ("LOCAL_RANK", "1"),
            ("MASTER_ADDR", "node0"),
            ("MASTER_PORT", "29500"),
        ])
        .unwrap()
        .unwrap();
        assert_eq!(
            (torchrun.rank, torchrun.world_size, torchrun.local_rank),
            (3, 4, 1)
        );
        assert_eq!(
            (torchrun.master_addr.as_str(), torchrun.port),
            ("node0", 29501)
        );
        let slurm = env(&[
            ("SLURM_PROCID", "5"),
            ("SLURM_NTASKS", "8"),
            ("SLURM_LOCALID", "1"),
            ("MASTER_ADDR", "n1"),
            ("MASTER_PORT", "12000"),
            ("WARPSPEED_PORT", "13000"),
        ])
        .unwrap()
        .unwrap();
        assert_eq!((slurm.rank, slurm.world_size, slurm.port), (5, 8, 13000));
    }

    #[test]
    fn bad_variables_are_errors_naming_them() {
        let e = env(&[("WORLD_SIZE", "2"), ("RANK", "2")])
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("RANK") && e.contains("below WORLD_SIZE 2"),
            "{e}"
        );
        let e = env(&[("WORLD_SIZE", "two")]).unwrap_err().to_string();
        assert!(e.contains("WORLD_SIZE") && e.contains("\"two\""), "{e}");
        let e = env(&[("WORLD_SIZE", "2"), ("RANK", "1")])
            .unwrap_err()
            .to_string();
        assert!(e.contains("MASTER_ADDR"), "{e}");
    }

    #[test]
    fn rank_zero_hands_the_id_to_every_rank_over_tcp() {
        // A free port: bind to 0, read it, release it.
        let port = TcpListener::bind(("127.0.0.1", 0))
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let id: [u8; 128] = std::array::from_fn(|i| (i * 7 + 3) as u8);
        let ranks: Vec<_> = (0..4)
            .map(|rank| LaunchEnv {
                rank,
                world_size: 4,
                local_rank: rank,
                master_addr: "127.0.0.1".into(),
                port,
            })
            .collect();
        let got: Vec<[u8; 128]> = std::thread::scope(|s| {
            let hs: Vec<_> = ranks
                .iter()
                .map(|env| s.spawn(move || share_id(env, || Ok(id), Duration::from_secs(20))))
                .collect();
            hs.into_iter().map(|h| h.join().unwrap().unwrap()).collect()
        });
        assert!(got.iter().all(|g| *g == id));
    }

    #[test]
    fn a_rank_told_another_world_size_is_refused_on_both_sides() {
        let port = TcpListener::bind(("127.0.0.1", 0))
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let mk = |rank, world_size| LaunchEnv {
            rank,
            world_size,
            local_rank: 0,
            master_addr: "127.0.0.1".into(),
            port,
        };
        let (root, other) = std::thread::scope(|s| {
            let a = s.spawn(|| share_id(&mk(0, 2), || Ok([1; 128]), Duration::from_secs(20)));
            let b = s.spawn(|| share_id(&mk(1, 3), || Ok([1; 128]), Duration::from_secs(20)));
            (a.join().unwrap(), b.join().unwrap())
        });
        let (root, other) = (
            root.unwrap_err().to_string(),
            other.unwrap_err().to_string(),
        );
        assert!(root.contains("WORLD_SIZE 3"), "{root}");
        assert!(
            other.contains("rank 0 refused") && other.contains("WORLD_SIZE 3"),
            "{other}"
        );
    }

    #[test]
    fn a_missing_rank_zero_is_an_error_after_the_timeout() {
        let port = TcpListener::bind(("127.0.0.1", 0))
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let env = LaunchEnv {
            rank: 1,
            world_size: 2,
            local_rank: 0,
            master_addr: "127.0.0.1".into(),
            port,
        };
        let e = share_id(&env, || unreachable!(), Duration::from_millis(300))
            .unwrap_err()
            .to_string();
        assert!(e.contains("did not answer"), "{e}");
    }
}
