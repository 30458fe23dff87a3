//! Helpers the examples share (not an example itself: cargo only builds `examples/*.rs`
//! and `examples/*/main.rs` as examples): a seedable random generator, so no example needs
//! the `rand` crate, and a line that says which device runs the kernels.

#![allow(dead_code)] // each example uses a different part of this module

use warpspeed::{Backend, Device};

/// xorshift64*: tiny and seedable; runs are reproducible from `--seed`.
pub struct XorShift(u64);

impl XorShift {
    pub fn new(seed: u64) -> Self {
        // Zero is xorshift's fixed point; mixing and setting the low bit avoids it for every seed.
        XorShift(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in [0, 1), 53 random bits.
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in [lo, hi).
    pub fn range_f64(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.next_f64()
    }

    /// Uniform in [lo, hi), 24 random bits, so every value is an exact f32.
    pub fn range_f32(&mut self, lo: f32, hi: f32) -> f32 {
        let unit = (self.next_u64() >> 40) as f32 / (1u32 << 24) as f32;
        lo + (hi - lo) * unit
    }
}

/// Opens `Device::new()` (the GPU when there is one, else the simulator;
/// `WARPSPEED_BACKEND=cuda|sim` forces one) and says which it is.
pub fn open_device() -> Result<Device, warpspeed::Error> {
    let dev = Device::new()?;
    match dev.backend() {
        Backend::Cuda => {
            let (major, minor) = dev.compute_capability().unwrap_or((0, 0));
            println!("device: {} (GPU, sm_{major}{minor})", dev.name());
        }
        Backend::Simulator => println!(
            "device: {} (no GPU used: kernels run on the CPU simulator)",
            dev.name()
        ),
    }
    Ok(dev)
}

/// The first index where two arrays differ bit for bit (floats compared by their bits, so
/// -0.0 vs 0.0 and NaN payloads count as differences), and how many differ.
pub fn first_difference<T: Copy + PartialEq, B: Eq>(
    got: &[T],
    want: &[T],
    bits: impl Fn(T) -> B,
) -> Option<(usize, usize)> {
    assert_eq!(got.len(), want.len());
    let mut first = None;
    let mut count = 0;
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        if bits(g) != bits(w) {
            count += 1;
            first.get_or_insert(i);
        }
    }
    first.map(|i| (i, count))
}

/// The `main` every example shares: `--print-cuda` prints the kernel's CUDA C; otherwise
/// `run` decides the exit code (`Ok(false)`: a result differed from its CPU reference).
pub fn run_main(
    print_cuda: bool,
    cuda_source: &str,
    run: impl FnOnce() -> Result<bool, warpspeed::Error>,
) -> std::process::ExitCode {
    use std::process::ExitCode;
    if print_cuda {
        println!("{cuda_source}");
        return ExitCode::SUCCESS;
    }
    match run() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
