use core::sync::atomic::AtomicU32;
use warpspeed::prelude::*;

#[gpu_device]
fn by_value(tile: SharedArray<u32, 64>) -> u32 {
    tile[0]
}

#[gpu_device]
fn atomics(tile: &mut SharedArray<AtomicU32, 64>) {}

#[gpu_device]
fn tile_by_shared_ref(tile: &SharedArray<[f32; 17], 16>) {}

fn main() {}
