use warpspeed::prelude::*;
use warpspeed::{Device, LaunchConfig};

#[gpu_device]
fn nbrs(cells: &[i32], x: usize, y: usize, n: usize) -> i32 {
    let mut count = 0;
    for dy in 0..3usize {
        for dx in 0..3usize {
            if dx == 1 && dy == 1 {
                continue;
            }
            let xx = (x + n + dx - 1) % n;
            let yy = (y + n + dy - 1) % n;
            count += cells[yy * n + xx];
        }
    }
    count
}

#[gpu_kernel]
fn conway(out: &mut [i32], cells: &[i32], n: usize) {
    let (x, y) = grid_2d();
    if x >= n || y >= n {
        return;
    }
    let k: i32 = nbrs(cells, x, y, n);
    let alive = cells[y * n + x] == 1;
    out[y * n + x] = if k == 3 || (alive && k == 2) { 1 } else { 0 };
}

#[gpu_kernel]
fn vector_add(a: &[f32], b: &[f32], out: &mut [f32]) {
    let i = grid_1d();
    if i < out.len() {
        out[i] = a[i] + b[i];
    }
}

#[test]
fn smoke() {
    println!("{}", *conway::CUDA_SOURCE);
    let dev = Device::new().unwrap();
    let n = 1000;
    let a: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let b: Vec<f32> = (0..n).map(|i| (i * 2) as f32).collect();
    let da = dev.upload(&a).unwrap();
    let db = dev.upload(&b).unwrap();
    let mut out = dev.zeros::<f32>(n).unwrap();
    vector_add::launch(
        &dev,
        LaunchConfig::for_num_elems(n as u32),
        &da,
        &db,
        &mut out,
    )
    .unwrap();
    let r = out.download().unwrap();
    for i in 0..n {
        assert_eq!(r[i], a[i] + b[i]);
    }
}
