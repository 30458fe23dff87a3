//! Gravitational n-body, one step per launch: every body feels every other (softened
//! Plummer gravity), its velocity and position advance by `dt` (symplectic Euler). The
//! classic tiled GPU form (GPU Gems 3, ch. 31): each block stages `TILE` bodies in shared
//! memory, every thread accumulates their pull on its own body, then the next tile.
//!
//! The kernel is written once, generic over the float type (`T: Float`, run here as `f32`
//! and `f64`) and over the tile (`const TILE: usize`, the block size, 64/128/256), and takes
//! its physical constants as one `#[gpu_struct]`. `--fmad=false` and correctly rounded
//! division and square root make the GPU compute what the Rust says, so the CPU reference
//! below (the same sums in the same order) must agree bit for bit, every step; the program
//! exits non-zero otherwise.
//!
//! ```text
//! cargo run --release --example nbody                           # f32, 4096 bodies, tile 128
//! cargo run --release --example nbody -- --precision f64 --tile 256 --steps 20
//! ```

mod common;

use std::process::ExitCode;

use clap::{Parser, ValueEnum};
use common::{open_device, XorShift};
use warpspeed::prelude::*;
use warpspeed::{Backend, Float, KernelScalar};

/// The physical constants of a run, passed to the kernel by value.
#[gpu_struct]
#[derive(Clone, Copy, Debug)]
pub struct Params {
    /// Time step.
    pub dt: f32,
    /// Plummer softening length: keeps close encounters finite.
    pub softening: f32,
    /// Bodies.
    pub n: u32,
}

/// One step for `p.n` bodies. `pos` holds `x, y, z, mass` per body, `vel` `vx, vy, vz`
/// (updated in place), `out` receives the new positions (and the masses). Launch it with
/// blocks of `TILE` threads.
#[gpu_kernel]
pub fn nbody_step<T: Float, const TILE: usize>(p: Params, pos: &[T], vel: &mut [T], out: &mut [T]) {
    let sx = SharedArray::<T, TILE>::new();
    let sy = SharedArray::<T, TILE>::new();
    let sz = SharedArray::<T, TILE>::new();
    let sm = SharedArray::<T, TILE>::new();
    let n = p.n as usize;
    let i = grid_1d();
    let t = thread_idx().x as usize;
    let mut xi = T::zero();
    let mut yi = T::zero();
    let mut zi = T::zero();
    if i < n {
        xi = pos[4 * i];
        yi = pos[4 * i + 1];
        zi = pos[4 * i + 2];
    }
    let eps2 = T::from_f32(p.softening * p.softening);
    let mut ax = T::zero();
    let mut ay = T::zero();
    let mut az = T::zero();
    let mut base = 0;
    while base < n {
        // Stage one tile; past the last body, massless bodies at the origin pull nothing.
        let j = base + t;
        if j < n {
            sx[t] = pos[4 * j];
            sy[t] = pos[4 * j + 1];
            sz[t] = pos[4 * j + 2];
            sm[t] = pos[4 * j + 3];
        } else {
            sx[t] = T::zero();
            sy[t] = T::zero();
            sz[t] = T::zero();
            sm[t] = T::zero();
        }
        sync_threads();
        for k in 0..TILE {
            let dx = sx[k] - xi;
            let dy = sy[k] - yi;
            let dz = sz[k] - zi;
            let r2 = dx * dx + dy * dy + dz * dz + eps2;
            let s = sm[k] / (r2 * r2.sqrt());
            ax = ax + dx * s;
            ay = ay + dy * s;
            az = az + dz * s;
        }
        sync_threads();
        base += TILE;
    }
    if i < n {
        let dt = T::from_f32(p.dt);
        let vx = vel[3 * i] + ax * dt;
        let vy = vel[3 * i + 1] + ay * dt;
        let vz = vel[3 * i + 2] + az * dt;
        vel[3 * i] = vx;
        vel[3 * i + 1] = vy;
        vel[3 * i + 2] = vz;
        out[4 * i] = xi + vx * dt;
        out[4 * i + 1] = yi + vy * dt;
        out[4 * i + 2] = zi + vz * dt;
        out[4 * i + 3] = pos[4 * i + 3];
    }
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Precision {
    F32,
    F64,
}

#[derive(Parser)]
#[command(
    about = "Gravitational n-body on the GPU (or the simulator): one kernel generic over f32/f64 and the tile size, with a #[gpu_struct] of parameters, checked bit for bit against the CPU"
)]
struct Args {
    /// Bodies.
    #[arg(long, default_value_t = 4096)]
    n: usize,
    /// Steps to run (each checked against the CPU).
    #[arg(long, default_value_t = 10)]
    steps: usize,
    /// Float type of positions, velocities and masses.
    #[arg(long, value_enum, default_value_t = Precision::F32)]
    precision: Precision,
    /// Bodies per tile, which is also the block size: 64, 128 or 256.
    #[arg(long, default_value_t = 128)]
    tile: usize,
    /// Seed of the initial conditions.
    #[arg(long, default_value_t = 7)]
    seed: u64,
    /// Print the generated CUDA C of the chosen instance and exit.
    #[arg(long)]
    print_cuda: bool,
}

/// What the example needs of a float beyond the kernel's bound: its bits, to compare the
/// GPU with the CPU exactly.
trait Real: Float + KernelScalar + std::fmt::Debug + Send + Sync {
    fn bits(self) -> u64;
}

impl Real for f32 {
    fn bits(self) -> u64 {
        u64::from(self.to_bits())
    }
}

impl Real for f64 {
    fn bits(self) -> u64 {
        self.to_bits()
    }
}

fn main() -> ExitCode {
    let args = Args::parse();
    if ![64, 128, 256].contains(&args.tile) {
        eprintln!("--tile is 64, 128 or 256 (a const generic: each value is its own instance)");
        return ExitCode::FAILURE;
    }
    if args.print_cuda {
        println!("{}", instance_source(args.precision, args.tile));
        return ExitCode::SUCCESS;
    }
    common::exit_code(match args.precision {
        Precision::F32 => run::<f32>(&args),
        Precision::F64 => run::<f64>(&args),
    })
}

fn instance_source(precision: Precision, tile: usize) -> String {
    match (precision, tile) {
        (Precision::F32, 64) => nbody_step::cuda_source::<f32, 64>(),
        (Precision::F32, 128) => nbody_step::cuda_source::<f32, 128>(),
        (Precision::F32, _) => nbody_step::cuda_source::<f32, 256>(),
        (Precision::F64, 64) => nbody_step::cuda_source::<f64, 64>(),
        (Precision::F64, 128) => nbody_step::cuda_source::<f64, 128>(),
        (Precision::F64, _) => nbody_step::cuda_source::<f64, 256>(),
    }
    .to_string()
}

/// One launch of the instance for `T` and `tile`.
fn step<T: Real>(
    dev: &Device,
    tile: usize,
    p: Params,
    pos: &DeviceBuffer<T>,
    vel: &mut DeviceBuffer<T>,
    out: &mut DeviceBuffer<T>,
) -> Result<(), Error> {
    let blocks = (p.n as usize).div_ceil(tile) as u32;
    let cfg = LaunchConfig::new(blocks, tile as u32);
    match tile {
        64 => nbody_step::launch::<T, 64>(dev, cfg, p, pos, vel, out),
        128 => nbody_step::launch::<T, 128>(dev, cfg, p, pos, vel, out),
        _ => nbody_step::launch::<T, 256>(dev, cfg, p, pos, vel, out),
    }
}

/// The CPU reference of one step: the kernel's sums in the kernel's order (tiles of
/// `tile`, the last padded with massless bodies at the origin).
fn cpu_step<T: Real>(tile: usize, p: Params, pos: &[T], vel: &mut [T], out: &mut [T]) {
    let n = p.n as usize;
    let zero = T::from_f64(0.0);
    let eps2 = T::from_f32(p.softening * p.softening);
    let dt = T::from_f32(p.dt);
    let padded = n.div_ceil(tile) * tile;
    let mut acc = vec![zero; 3 * n];
    common::par_rows(&mut acc, 3, |i, a| {
        let (xi, yi, zi) = (pos[4 * i], pos[4 * i + 1], pos[4 * i + 2]);
        let (mut ax, mut ay, mut az) = (zero, zero, zero);
        for j in 0..padded {
            let (x, y, z, m) = if j < n {
                (pos[4 * j], pos[4 * j + 1], pos[4 * j + 2], pos[4 * j + 3])
            } else {
                (zero, zero, zero, zero)
            };
            let (dx, dy, dz) = (x - xi, y - yi, z - zi);
            let r2 = dx * dx + dy * dy + dz * dz + eps2;
            let s = m / (r2 * r2.sqrt());
            ax = ax + dx * s;
            ay = ay + dy * s;
            az = az + dz * s;
        }
        a.copy_from_slice(&[ax, ay, az]);
    });
    for i in 0..n {
        for d in 0..3 {
            let v = vel[3 * i + d] + acc[3 * i + d] * dt;
            vel[3 * i + d] = v;
            out[4 * i + d] = pos[4 * i + d] + v * dt;
        }
        out[4 * i + 3] = pos[4 * i + 3];
    }
}

/// A cold sphere of bodies with small random velocities and masses.
fn initial<T: Real>(n: usize, seed: u64) -> (Vec<T>, Vec<T>) {
    let mut rng = XorShift::new(seed);
    let mut pos = Vec::with_capacity(4 * n);
    let mut vel = Vec::with_capacity(3 * n);
    for _ in 0..n {
        let (x, y, z) = loop {
            let p = (
                rng.range_f64(-1.0, 1.0),
                rng.range_f64(-1.0, 1.0),
                rng.range_f64(-1.0, 1.0),
            );
            if p.0 * p.0 + p.1 * p.1 + p.2 * p.2 <= 1.0 {
                break p;
            }
        };
        pos.extend([x, y, z, rng.range_f64(0.5, 1.5) / n as f64].map(T::from_f64));
        vel.extend([0; 3].map(|_| T::from_f64(rng.range_f64(-0.01, 0.01))));
    }
    (pos, vel)
}

fn run<T: Real>(args: &Args) -> Result<bool, Error> {
    let dev = open_device()?;
    let n = args.n;
    let p = Params {
        dt: 0.01,
        softening: 0.05,
        n: u32::try_from(n).expect("--n fits a u32"),
    };
    let (pos0, vel0) = initial::<T>(n, args.seed);
    let mut pos = dev.upload(&pos0)?;
    let mut vel = dev.upload(&vel0)?;
    let mut out = dev.upload(&vec![T::from_f64(f64::NAN); 4 * n])?;
    let (mut cpu_pos, mut cpu_vel, mut cpu_out) =
        (pos0.clone(), vel0.clone(), vec![T::from_f64(0.0); 4 * n]);
    println!(
        "n-body: {n} bodies, {} steps, {}, tile {}",
        args.steps,
        std::any::type_name::<T>(),
        args.tile
    );
    // The first step also compiles the instance (NVRTC, or the disk cache): the time per
    // step is that of the others.
    let mut gpu_ms = 0.0;
    for s in 0..args.steps {
        let t0 = std::time::Instant::now();
        step(&dev, args.tile, p, &pos, &mut vel, &mut out)?;
        dev.synchronize()?;
        if s > 0 {
            gpu_ms += t0.elapsed().as_secs_f64() * 1e3;
        }
        cpu_step(args.tile, p, &cpu_pos, &mut cpu_vel, &mut cpu_out);
        let (got_pos, got_vel) = (out.download()?, vel.download()?);
        let bad = got_pos
            .iter()
            .zip(&cpu_out)
            .chain(got_vel.iter().zip(&cpu_vel))
            .position(|(g, c)| g.bits() != c.bits());
        if let Some(k) = bad {
            println!(
                "step {s}: element {k} differs from the CPU (GPU {:?}, CPU {:?}): FAILED",
                got_pos.get(k),
                cpu_out.get(k)
            );
            return Ok(false);
        }
        std::mem::swap(&mut pos, &mut out);
        std::mem::swap(&mut cpu_pos, &mut cpu_out);
    }
    println!("{} steps agree bit for bit with the CPU", args.steps);
    if args.steps > 1 {
        let timed = (args.steps - 1) as f64;
        let what = if dev.backend() == Backend::Cuda {
            "GPU"
        } else {
            "simulator"
        };
        println!(
            "{what}: {:.3} ms per step after the first ({:.2} G interactions/s, launch + synchronize)",
            gpu_ms / timed,
            (n as f64) * (n as f64) * timed / (gpu_ms * 1e-3) / 1e9
        );
    }
    Ok(true)
}
