//! Checks proven at launch (docs/bounds.md): kernels that declare nothing, whose checks
//! the prover proves only for launches whose lengths and block agree with their sizes.
//! Such a launch gets the variant without those checks and computes what the CPU does; a
//! launch with a slice one element short, or a block larger than a shared tile assumes,
//! gets the checks back and reports the out-of-bounds index on the GPU as on the
//! simulator (which checks every access whatever the launch).

mod common;

use common::{devices, Rng};
use warpspeed::prelude::*;
use warpspeed::{Device, Error, LaunchConfig};

const SOURCE: &str = include_str!("proven_at_launch.rs");
const FILE: &str = "tests/proven_at_launch.rs";

/// `out[i * nx + j] = a[i * nx + j] + 1` over a 2-D grid: in bounds when both slices hold
/// `nx * ny` elements, which the launch checks.
#[gpu_kernel]
fn plus_one_2d(out: &mut [u32], a: &[u32], nx: usize, ny: usize) {
    let j = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    let i = (block_idx().y * block_dim().y + thread_idx().y) as usize;
    if i < ny && j < nx {
        out[i * nx + j] = a[i * nx + j] + 1; // @plus_one_2d
    }
}

/// Each block reverses its 128 elements through a shared tile indexed by the thread: in
/// bounds when blocks have at most 128 threads, which the launch checks.
#[gpu_kernel]
fn reverse_128(out: &mut [u32], a: &[u32], n: usize) {
    let tile = SharedArray::<u32, 128>::new();
    let t = thread_idx().x as usize;
    let base = block_idx().x as usize * 128;
    if base + t < n {
        tile[t] = a[base + t]; // @reverse_128_fill
    }
    sync_threads();
    let from = 127 - t;
    if base + t < n && base + from < n {
        out[base + t] = tile[from];
    }
}

fn grid_2d(nx: usize, ny: usize) -> LaunchConfig {
    LaunchConfig::new(
        (nx.div_ceil(16) as u32, ny.div_ceil(8) as u32),
        (16u32, 8u32),
    )
}

fn expect_oob(
    dev: &Device,
    r: Result<(), Error>,
    kernel: &str,
    marker: &str,
    index: u64,
    len: u64,
) {
    common::expect_oob_marked(dev, r, kernel, (FILE, SOURCE), marker, index, len);
}

#[test]
fn the_macro_leaves_the_conditions_the_launch_checks() {
    use warpspeed::__private::LaunchAtom;
    // `plus_one_2d`: two sites (the read and the write), each proven by its slice's
    // length against `nx * ny` (parameters 2 and 3), among other conditions.
    let sites = plus_one_2d::KERNEL.provable;
    assert_eq!(sites.len(), 2, "{sites:#?}");
    for slice in [0u16, 1] {
        let exact = sites.iter().flat_map(|site| site.any_of).any(|terms| {
            terms.len() == 2
                && terms
                    .iter()
                    .any(|t| t.coef == 1 && matches!(t.atoms, [LaunchAtom::Len(s)] if *s == slice))
                && terms.iter().any(|t| {
                    t.coef == -1
                        && matches!(t.atoms, [LaunchAtom::Scalar(2), LaunchAtom::Scalar(3)])
                })
        });
        assert!(exact, "slice {slice}: {sites:#?}");
    }
    // `reverse_128`: the tile's write is proven by `128 - block_dim().x >= 0`.
    let tile_site = reverse_128::KERNEL.provable.iter().any(|site| {
        site.any_of.iter().any(|terms| {
            terms.len() == 2
                && terms.iter().any(|t| t.coef == 128 && t.atoms.is_empty())
                && terms
                    .iter()
                    .any(|t| t.coef == -1 && matches!(t.atoms, [LaunchAtom::Block(0)]))
        })
    });
    assert!(tile_site, "{:#?}", reverse_128::KERNEL.provable);
    common::nvrtc_compiles(&[
        ("plus_one_2d", &plus_one_2d::KERNEL),
        ("reverse_128", &reverse_128::KERNEL),
    ]);
}

#[test]
fn launches_whose_sizes_agree_compute_what_the_cpu_does() {
    for dev in devices("proven_at_launch_agree") {
        let mut rng = Rng::new(7);
        for (nx, ny) in [(37usize, 21usize), (16, 8), (1, 3)] {
            let host: Vec<u32> = (0..nx * ny).map(|_| rng.next_u32() >> 1).collect();
            let a = dev.upload(&host).unwrap();
            let mut out = dev.upload(&vec![u32::MAX; nx * ny]).unwrap();
            plus_one_2d::launch(&dev, grid_2d(nx, ny), &mut out, &a, nx, ny).unwrap();
            let want: Vec<u32> = host.iter().map(|v| v + 1).collect();
            assert_eq!(
                out.download().unwrap(),
                want,
                "{nx}x{ny} on {:?}",
                dev.backend()
            );
        }
        let n = 1000usize;
        let host: Vec<u32> = (0..n).map(|_| rng.next_u32()).collect();
        let a = dev.upload(&host).unwrap();
        let mut out = dev.upload(&vec![u32::MAX; n]).unwrap();
        let cfg = LaunchConfig::new((n.div_ceil(128) as u32, 1u32), (128u32, 1u32));
        reverse_128::launch(&dev, cfg, &mut out, &a, n).unwrap();
        let got = out.download().unwrap();
        for (i, g) in got.iter().enumerate() {
            let (base, t) = (i / 128 * 128, i % 128);
            let want = if base + 127 - t < n {
                host[base + 127 - t]
            } else {
                u32::MAX
            };
            assert_eq!(*g, want, "element {i} on {:?}", dev.backend());
        }
    }
}

#[test]
fn a_slice_one_short_gets_its_check_back() {
    for dev in devices("proven_at_launch_short") {
        let (nx, ny) = (37usize, 21usize);
        let a = dev.upload(&vec![1u32; nx * ny - 1]).unwrap();
        let mut out = dev.zeros::<u32>(nx * ny).unwrap();
        let r = plus_one_2d::launch(&dev, grid_2d(nx, ny), &mut out, &a, nx, ny);
        let last = (nx * ny - 1) as u64;
        expect_oob(&dev, r, "plus_one_2d", "plus_one_2d", last, last);
        // The other slice's check was proven: the elements before the short one are
        // written.
        let got = out.download().unwrap();
        assert!(
            got[..nx * ny - 1].iter().all(|&v| v == 2),
            "{:?}",
            &got[..8]
        );
    }
}

#[test]
fn a_block_larger_than_the_tile_gets_its_check_back() {
    for dev in devices("proven_at_launch_block") {
        // Blocks of 129: thread 128 alone indexes past the tile (a single failing access,
        // so the one reported).
        let n = 512usize;
        let a = dev.upload(&vec![3u32; n]).unwrap();
        let mut out = dev.zeros::<u32>(n).unwrap();
        let cfg = LaunchConfig::new((2u32, 1u32), (129u32, 1u32));
        let r = reverse_128::launch(&dev, cfg, &mut out, &a, n);
        expect_oob(&dev, r, "reverse_128", "reverse_128_fill", 128, 128);
    }
}
