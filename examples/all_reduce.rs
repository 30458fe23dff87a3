//! All-reduce bandwidth across the GPUs of this host, 1 MiB to 2 GiB of f32, beside
//! torch.distributed's NCCL on the same sizes when `bench/peers_multi.py` measured it
//! (`--peers FILE.json`). Each size is checked first: rank `r` holds `i % 7 + r` at element
//! `i`, so every sum is exact.
//!
//! Bus bandwidth is NCCL's figure of merit for all-reduce: bytes / time * 2 (n - 1) / n,
//! what each GPU's links carry in a ring; it does not depend on the rank count for a
//! bandwidth-bound collective.
//!
//! ```text
//! cargo run --release --example all_reduce -- --gpus 2 --peers m.json
//! WARPSPEED_BACKEND=sim cargo run --release --example all_reduce -- --gpus 3 --max-mib 1
//! ```

use std::time::{Duration, Instant};

use clap::Parser;
use warpspeed::{Communicator, Devices, ReduceOp};

#[derive(Parser)]
#[command(about = "all-reduce bandwidth across the GPUs of this host")]
struct Args {
    /// Ranks (GPUs, or simulated devices with WARPSPEED_BACKEND=sim); all GPUs when unset.
    #[arg(long)]
    gpus: Option<usize>,
    /// The largest size, in MiB (sizes go 1, 4, 16, .. then this).
    #[arg(long, default_value_t = 2048)]
    max_mib: usize,
    /// torch.distributed's figures from bench/peers_multi.py (JSON).
    #[arg(long)]
    peers: Option<String>,
}

/// One size's result: milliseconds an all-reduce (the slowest rank's best), and bus
/// bandwidth in GB/s.
struct Row {
    bytes: usize,
    ms: f64,
    /// Microseconds a call takes the host to queue.
    host_us: f64,
    bus_gbs: f64,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    // Under torchrun (or Slurm) this process is one rank; otherwise one process drives
    // every device, a thread each.
    let world = match std::env::var("WORLD_SIZE") {
        Ok(_) => Some(Communicator::from_env_with_timeout(Duration::from_secs(
            120,
        ))?),
        Err(_) => None,
    };
    let devices = match (&world, args.gpus) {
        (Some(_), _) => None,
        (None, Some(n)) => Some(Devices::new(n)?),
        (None, None) => Some(Devices::cuda_all().or_else(|_| Devices::new(2))?),
    }
    .map(|d| d.with_timeout(Duration::from_secs(120)));
    let (ranks, name, leader) = match (&world, &devices) {
        (Some(c), _) => (c.size(), c.device().name().to_string(), c.rank() == 0),
        (None, Some(d)) => (
            d.len(),
            d.device(0).map_or(String::new(), |d| d.name().to_string()),
            true,
        ),
        (None, None) => unreachable!("devices are made without a launcher"),
    };
    let mode = if world.is_some() {
        "a process a rank"
    } else {
        "one process, a thread a rank"
    };
    if leader {
        println!("all_reduce f32, sum, {ranks} ranks on {name} ({mode})");
    }
    let mut sizes: Vec<usize> = (0..)
        .map(|k| 1usize << (2 * k))
        .take_while(|&m| m < args.max_mib)
        .collect();
    sizes.push(args.max_mib);
    let peers = match &args.peers {
        Some(path) => read_peers(path, ranks)?,
        None => Vec::new(),
    };
    if leader {
        println!(
            "{:>10} {:>10} {:>12} {:>14} {:>8} {:>14}",
            "size", "ms", "bus GB/s", "torch GB/s", "ratio", "host us/call"
        );
    }
    for mib in sizes {
        let row = measure(devices.as_ref(), world.as_ref(), mib << 20)?;
        if !leader {
            continue;
        }
        let peer = peers.iter().find(|(b, _)| *b == row.bytes).map(|(_, g)| *g);
        let (peer_text, ratio) = match peer {
            Some(g) => (format!("{g:.1}"), format!("{:.3}", row.bus_gbs / g)),
            None => ("-".into(), "-".into()),
        };
        println!(
            "{:>10} {:>10.3} {:>12.1} {:>14} {:>8} {:>14.1}",
            size_name(row.bytes),
            row.ms,
            row.bus_gbs,
            peer_text,
            ratio,
            row.host_us
        );
    }
    Ok(())
}

/// Checks, then times an all-reduce of `bytes` of f32 on every rank: in this process
/// (`devices`), or as this process's rank of a world that torchrun started (`world`).
fn measure(
    devices: Option<&Devices>,
    world: Option<&Communicator>,
    bytes: usize,
) -> warpspeed::Result<Row> {
    let (ms, host_us, ranks) = match world {
        Some(comm) => {
            let (ms, host) = rank_work(comm, bytes)?;
            // The slowest rank's time, as the in-process run reports it.
            let dev = comm.device();
            let mut t = dev.upload(&[ms, host])?;
            comm.all_reduce(dev, &mut t, ReduceOp::Max)?;
            let t = t.download()?;
            (t[0], t[1], comm.size())
        }
        None => {
            let devices = devices.expect("devices are made without a launcher");
            let times = devices.run(|comm| rank_work(comm, bytes))?;
            let max = |f: fn(&(f64, f64)) -> f64| times.iter().map(f).fold(0.0, f64::max);
            (max(|t| t.0), max(|t| t.1), devices.len())
        }
    };
    let factor = if ranks > 1 {
        2.0 * (ranks - 1) as f64 / ranks as f64
    } else {
        1.0
    };
    Ok(Row {
        bytes,
        ms,
        host_us,
        bus_gbs: bytes as f64 / (ms * 1e-3) / 1e9 * factor,
    })
}

/// One rank's part: the check, then the best of three rounds of back-to-back
/// all-reduces, in milliseconds a call on the GPU and microseconds a call on the host
/// (queueing it).
fn rank_work(comm: &Communicator, bytes: usize) -> warpspeed::Result<(f64, f64)> {
    let n = bytes / 4;
    let (dev, r, ranks) = (comm.device(), comm.rank(), comm.size());
    let simulated = dev.backend() == warpspeed::Backend::Simulator;
    let iters = if simulated {
        1
    } else {
        (64 << 20) / bytes.min(64 << 20) * 4 + 4
    };
    let host: Vec<f32> = (0..n).map(|i| (i % 7 + r) as f32).collect();
    let mut buf = dev.upload(&host)?;
    drop(host);
    let s = dev.create_stream()?;
    comm.all_reduce(&s, &mut buf, ReduceOp::Sum)?;
    s.synchronize()?;
    // The check: the first and last million elements.
    let add = (ranks * (ranks - 1) / 2) as f32;
    for range in [0..n.min(1 << 20), n.saturating_sub(1 << 20)..n] {
        let got = buf.slice(range.clone()).download()?;
        for (i, v) in range.zip(got) {
            let want = ((i % 7) * ranks) as f32 + add;
            if v != want {
                return Err(warpspeed::Error::Collective {
                    message: format!("rank {r}: element {i} is {v}, not {want}"),
                });
            }
        }
    }
    let (mut best, mut host_us) = (f64::INFINITY, f64::INFINITY);
    for _ in 0..3 {
        let start = s.record()?;
        let queued = Instant::now();
        for _ in 0..iters {
            comm.all_reduce(&s, &mut buf, ReduceOp::Sum)?;
        }
        host_us = host_us.min(queued.elapsed().as_secs_f64() * 1e6 / iters as f64);
        let end = s.record()?;
        end.synchronize()?;
        best = best.min(end.elapsed_since(&start)?.as_secs_f64() * 1e3 / iters as f64);
    }
    comm.synchronize()?;
    Ok((best, host_us))
}

fn size_name(bytes: usize) -> String {
    if bytes >= 1 << 30 {
        format!("{} GiB", bytes >> 30)
    } else {
        format!("{} MiB", bytes >> 20)
    }
}

/// `(bytes, bus GB/s)` of torch.distributed for `ranks` ranks, from peers_multi.py's JSON
/// (`{"versions": .., "all_reduce": {"2": {"1048576": {"ms": .., "bus_gbs": ..}}}}`).
fn read_peers(path: &str, ranks: usize) -> Result<Vec<(usize, f64)>, Box<dyn std::error::Error>> {
    let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path)?)?;
    if let Some(v) = json.get("versions") {
        println!("peers: torch.distributed (NCCL) {v}");
    }
    let Some(rows) = json["all_reduce"][ranks.to_string()].as_object() else {
        println!("peers: none for {ranks} ranks in {path}");
        return Ok(Vec::new());
    };
    Ok(rows
        .iter()
        .filter_map(|(bytes, row)| Some((bytes.parse().ok()?, row["bus_gbs"].as_f64()?)))
        .collect())
}
