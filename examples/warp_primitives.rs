//! Seed 001's test program for the warp functions: one block of 16 threads prints its
//! thread and lane numbers, ballots, votes and the four shuffles with a logical warp width
//! of 8. The expected output is the one in the seed's comments; on the simulator the lines
//! come out in the same order as on the GPU (a warp prints in lane order).
//!
//! The seed lets threads outside a vote's mask call the vote (undefined in CUDA); here only
//! the threads named in a mask take part, which prints the same values.
//!
//! ```text
//! cargo run --release --example warp_primitives
//! ```

use clap::Parser;
use warpspeed::prelude::*;
use warpspeed::LaunchConfig;

mod common;

const BLOCK_SIZE: u32 = 16;

#[gpu_kernel]
fn test_warp_primitives() {
    let full_mask = 0xffff_ffffu32;
    let width = 8u32;
    let tid = thread_idx().x;
    let lane_id = tid % width;

    if tid == 0 {
        gpu_print!("threadIdx.x: ");
    }
    gpu_print!("{:2} ", tid);
    if tid == 0 {
        gpu_print!("\n");
    }

    if tid == 0 {
        gpu_print!("lane_id: ");
    }
    gpu_print!("{:2} ", lane_id);
    if tid == 0 {
        gpu_print!("\n");
    }

    let mask1 = ballot_sync(full_mask, tid > 0);
    let mask2 = ballot_sync(full_mask, tid == 0);
    if tid == 0 {
        gpu_print!("FULL_MASK = {:x}\n", full_mask);
    }
    if tid == 1 {
        gpu_print!("mask1 = {:x}\n", mask1);
    }
    if tid == 0 {
        gpu_print!("mask2 = {:x}\n", mask2);
    }

    let result = all_sync(full_mask, tid != 0);
    if tid == 0 {
        gpu_print!("all_sync (FULL_MASK): {}\n", result as i32);
    }
    if (mask1 >> tid) & 1 == 1 {
        let result = all_sync(mask1, tid != 0);
        if tid == 1 {
            gpu_print!("all_sync (mask1): {}\n", result as i32);
        }
    }
    let result = any_sync(full_mask, tid != 0);
    if tid == 0 {
        gpu_print!("any_sync (FULL_MASK): {}\n", result as i32);
    }
    if (mask2 >> tid) & 1 == 1 {
        let result = any_sync(mask2, tid != 0);
        if tid == 0 {
            gpu_print!("any_sync (mask2): {}\n", result as i32);
        }
    }

    let value = shfl_sync(full_mask, tid as i32, 2, width);
    if tid == 0 {
        gpu_print!("shfl: ");
    }
    gpu_print!("{:2} ", value);
    if tid == 0 {
        gpu_print!("\n");
    }

    let value = shfl_up_sync(full_mask, tid as i32, 1, width);
    if tid == 0 {
        gpu_print!("shfl_up: ");
    }
    gpu_print!("{:2} ", value);
    if tid == 0 {
        gpu_print!("\n");
    }

    let value = shfl_down_sync(full_mask, tid as i32, 1, width);
    if tid == 0 {
        gpu_print!("shfl_down: ");
    }
    gpu_print!("{:2} ", value);
    if tid == 0 {
        gpu_print!("\n");
    }

    let value = shfl_xor_sync(full_mask, tid as i32, 1, width);
    if tid == 0 {
        gpu_print!("shfl_xor: ");
    }
    gpu_print!("{:2} ", value);
    if tid == 0 {
        gpu_print!("\n");
    }
}

/// The seed's comments: what the program prints.
pub const EXPECTED: &str = "\
threadIdx.x:  0  1  2  3  4  5  6  7  8  9 10 11 12 13 14 15 
lane_id:  0  1  2  3  4  5  6  7  0  1  2  3  4  5  6  7 
FULL_MASK = ffffffff
mask1 = fffe
mask2 = 1
all_sync (FULL_MASK): 0
all_sync (mask1): 1
any_sync (FULL_MASK): 1
any_sync (mask2): 0
shfl:  2  2  2  2  2  2  2  2 10 10 10 10 10 10 10 10 
shfl_up:  0  0  1  2  3  4  5  6  8  8  9 10 11 12 13 14 
shfl_down:  1  2  3  4  5  6  7  7  9 10 11 12 13 14 15 15 
shfl_xor:  1  0  3  2  5  4  7  6  9  8 11 10 13 12 15 14 
";

#[derive(Parser)]
#[command(about = "Seed 001's warp-function test program (one block of 16 threads)")]
struct Args {
    /// Print the generated CUDA C and exit.
    #[arg(long)]
    print_cuda: bool,
}

fn main() -> std::process::ExitCode {
    let args = Args::parse();
    common::run_main(args.print_cuda, &[&test_warp_primitives::KERNEL], || {
        let dev = common::open_device()?;
        test_warp_primitives::launch(&dev, LaunchConfig::new(1, BLOCK_SIZE))?;
        dev.synchronize()?; // the GPU's printf buffer is written out here
        println!("expected (the seed's comments):\n{EXPECTED}");
        Ok(true)
    })
}
