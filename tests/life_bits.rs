//! The bit-packed Life of examples/kernels/life_bits.rs, checked and `unchecked`, against
//! the naive kernel (stepped one generation per launch on the same device) and the CPU,
//! after every launch of several generations: random lattices, gliders crossing the
//! torus's edges and the words' boundaries, rectangles several tiles wide and high; the
//! output poisoned before each launch; on the simulator and the GPU.

mod common;
#[path = "../examples/kernels/life_bits.rs"]
mod life_bits;
#[path = "../examples/kernels/life.rs"]
mod life_kernels;

use common::{devices, Rng};
use life_bits::{cpu_run_packed, next_cells, pack, row_sums, unpack, Form};
use warpspeed::{Device, DeviceBuffer, LaunchConfig};

/// A word no launch writes: every unwritten word shows as a difference.
const POISON: u64 = 0xdead_beef_dead_beef;

const FORMS: [Form; 2] = [Form::Checked, Form::Unchecked];

/// A random `i32` lattice of side `n`, each cell alive with probability `alive / 8`.
fn random_lattice(seed: u64, n: usize, alive: u64) -> Vec<i32> {
    let mut rng = Rng::new(seed);
    (0..n * n)
        .map(|_| i32::from(rng.next_u64() >> 61 < alive))
        .collect()
}

/// One launch of `generations` generations of `form` from `cells`, into an output
/// poisoned first; returns the output's words.
fn bits_launch(
    dev: &Device,
    form: Form,
    cells: &DeviceBuffer<u64>,
    rows: usize,
    words: usize,
    generations: u32,
) -> Vec<u64> {
    let mut out = dev.upload(&vec![POISON; rows * words]).unwrap();
    life_bits::launch(dev, form, &mut out, cells, rows, words, generations).unwrap();
    out.download().unwrap()
}

/// `generations` generations of the naive kernel (one launch each, ping-pong), from and
/// into `cells`.
fn naive_steps(dev: &Device, cells: &mut DeviceBuffer<i32>, n: usize, generations: u32) {
    let blocks = n.div_ceil(32) as u32;
    let cfg = LaunchConfig::new((blocks, blocks), (32, 32));
    let mut next = dev.upload(&vec![-1i32; n * n]).unwrap();
    for _ in 0..generations {
        life_kernels::conway::launch(dev, cfg, &mut next, cells, n as u32).unwrap();
        std::mem::swap(cells, &mut next);
    }
}

/// Runs `launches` launches of `per_launch` generations of each form from `initial` (side
/// `n`), and after each compares the lattice with the naive kernel's after as many
/// generations, and with the CPU's.
fn against_naive(
    dev: &Device,
    what: &str,
    initial: &[i32],
    n: usize,
    per_launch: u32,
    launches: usize,
) {
    let words = n / 64;
    let mut naive = dev.upload(initial).unwrap();
    let mut want = initial.to_vec();
    let mut lattices: Vec<DeviceBuffer<u64>> = FORMS
        .iter()
        .map(|_| dev.upload(&pack(initial, n)).unwrap())
        .collect();
    for launch in 1..=launches {
        naive_steps(dev, &mut naive, n, per_launch);
        let naive_cells = naive.download().unwrap();
        want = life_kernels::cpu_run(&want, n, per_launch as usize);
        assert_eq!(
            naive_cells,
            want,
            "{what}: the naive kernel differs from the CPU on {:?}",
            dev.backend()
        );
        for (form, lattice) in FORMS.iter().zip(&mut lattices) {
            let got = bits_launch(dev, *form, lattice, n, words, per_launch);
            let cells = unpack(&got);
            if let Some(i) = (0..n * n).find(|&i| cells[i] != naive_cells[i]) {
                panic!(
                    "{what} on {:?}, {form:?}, launch {launch} of {per_launch} generations \
                     (generation {}): cell (x={}, y={}) is {}, the naive kernel says {}",
                    dev.backend(),
                    launch * per_launch as usize,
                    i % n,
                    i / n,
                    cells[i],
                    naive_cells[i]
                );
            }
            *lattice = dev.upload(&got).unwrap();
        }
    }
}

#[test]
fn the_rule_is_lifes_for_every_neighbourhood() {
    // Cell 1 of each of three words (its west neighbour bit 0, its east bit 2) in every
    // one of the 512 neighbourhoods.
    for hood in 0u32..512 {
        let row = |r: u32| u64::from(hood >> (3 * r) & 7);
        let (u0, u1) = row_sums(row(0), 0, 0);
        let (m0, m1) = row_sums(row(1), 0, 0);
        let (d0, d1) = row_sums(row(2), 0, 0);
        let next = next_cells(u0, u1, m0, m1, d0, d1, row(1)) >> 1 & 1;
        let alive = hood >> 4 & 1 == 1;
        let neighbours = (hood & !(1 << 4)).count_ones();
        let want = neighbours == 3 || (alive && neighbours == 2);
        assert_eq!(next == 1, want, "neighbourhood {hood:09b}");
    }
}

#[test]
fn row_sums_take_the_edge_bits_from_the_neighbouring_words() {
    // Bit 0's west neighbour is bit 31 of the left word's high half; bit 63's east one is
    // bit 0 of the right word's low half.
    let (s0, s1) = row_sums(0, 1 << 31, 1);
    assert_eq!((s0, s1), (1 | 1 << 63, 0));
    let (s0, _) = row_sums(0, 0x7fff_ffff, 0xffff_fffe);
    assert_eq!(s0, 0, "only bit 31 and bit 0 of the neighbours count");
}

#[test]
fn pack_and_unpack_are_inverse() {
    let n = 128;
    let cells = random_lattice(3, n, 4);
    let words = pack(&cells, n);
    assert_eq!(words.len(), n * n / 64);
    assert_eq!(unpack(&words), cells);
    // Cell (64 * w + b, y) is bit b of word w of row y.
    let mut one = vec![0i32; n * n];
    one[5 * n + 64 + 7] = 1;
    let packed = pack(&one, n);
    assert_eq!(packed[5 * 2 + 1], 1 << 7);
    assert_eq!(packed.iter().filter(|&&w| w != 0).count(), 1);
}

#[test]
fn pack_and_unpack_kernels_equal_the_hosts() {
    for dev in devices("pack_and_unpack_kernels_equal_the_hosts") {
        // 128^2: 256 words, fewer than one block's 8 warps per word would need; 192^2 with
        // a grid of one block: the warps stride over 576 words.
        for (n, blocks) in [(128, None), (192, Some(1))] {
            let cells = random_lattice(n as u64 + 7, n, 4);
            let want = pack(&cells, n);
            let words = want.len();
            let gpu_cells = dev.upload(&cells).unwrap();
            for form in FORMS {
                let mut out = dev.upload(&vec![POISON; words]).unwrap();
                let cfg = match blocks {
                    Some(b) => LaunchConfig::new(b, 256),
                    None => life_bits::pack_config(words),
                };
                match form {
                    Form::Checked => life_bits::checked::pack_cells::launch(
                        &dev, cfg, &mut out, &gpu_cells, words,
                    ),
                    Form::Unchecked => life_bits::unchecked::pack_cells::launch(
                        &dev, cfg, &mut out, &gpu_cells, words,
                    ),
                }
                .unwrap();
                assert_eq!(
                    out.download().unwrap(),
                    want,
                    "pack_cells {n}^2, {form:?} on {:?}",
                    dev.backend()
                );
                let mut back = dev.upload(&vec![-1i32; n * n]).unwrap();
                let cfg = LaunchConfig::for_num_elems(n * n);
                match form {
                    Form::Checked => {
                        life_bits::checked::unpack_cells::launch(&dev, cfg, &mut back, &out)
                    }
                    Form::Unchecked => {
                        life_bits::unchecked::unpack_cells::launch(&dev, cfg, &mut back, &out)
                    }
                }
                .unwrap();
                assert_eq!(
                    back.download().unwrap(),
                    cells,
                    "unpack_cells {n}^2, {form:?} on {:?}",
                    dev.backend()
                );
            }
        }
    }
}

#[test]
fn the_packed_cpu_reference_equals_the_cpu_life() {
    for n in [64, 128] {
        let cells = random_lattice(n as u64, n, 3);
        let want = life_kernels::cpu_run(&cells, n, 5);
        let got = cpu_run_packed(&pack(&cells, n), n, n / 64, 5);
        assert_eq!(unpack(&got), want, "side {n}");
    }
}

#[test]
fn bits_equal_the_naive_kernel_after_every_launch() {
    for dev in devices("bits_equal_the_naive_kernel_after_every_launch") {
        // 64: one word column and one tile row of blocks (the tile wraps onto itself);
        // 128 and 192: several blocks down, tiles that overlap the torus's edge.
        for (n, per_launch, launches, alive) in [
            (64, 8, 3, 3),
            (128, 5, 3, 2),
            (192, 16, 2, 4),
            (128, 1, 3, 4),
        ] {
            let initial = random_lattice(n as u64 * 31 + u64::from(per_launch), n, alive);
            let what = format!("random {n}^2, {per_launch} generations per launch");
            against_naive(&dev, &what, &initial, n, per_launch, launches);
        }
    }
}

/// A glider moving towards +x, +y (then reflected as `flip_x`, `flip_y` say) with its
/// top-left cell at `(x, y)`, on a lattice of side `n` (wrapping).
fn glider(cells: &mut [i32], n: usize, x: usize, y: usize, flip_x: bool, flip_y: bool) {
    for (dx, dy) in [(1, 0), (2, 1), (0, 2), (1, 2), (2, 2)] {
        let dx = if flip_x { 2 - dx } else { dx };
        let dy = if flip_y { 2 - dy } else { dy };
        cells[(y + dy) % n * n + (x + dx) % n] = 1;
    }
}

#[test]
fn gliders_cross_the_torus_edges_and_word_boundaries() {
    for dev in devices("gliders_cross_the_torus_edges_and_word_boundaries") {
        let n = 128;
        let mut cells = vec![0i32; n * n];
        // Heading across the right and bottom edges (x = 127 -> 0, y = 127 -> 0); across
        // the top edge and the word boundary x = 63 | 64; back across that boundary; across
        // the left edge; and across the boundary of the blocks' rows (48 = 64 - 2 * 8).
        glider(&mut cells, n, 122, 122, false, false);
        glider(&mut cells, n, 58, 8, false, true);
        glider(&mut cells, n, 66, 80, true, false);
        glider(&mut cells, n, 2, 60, true, true);
        glider(&mut cells, n, 30, 44, false, false);
        // 56 generations: each glider moves 14 cells diagonally.
        against_naive(&dev, "gliders 128^2", &cells, n, 8, 7);
        // The gliders are still gliders, all five, after 56 generations.
        let mut lattice = dev.upload(&pack(&cells, n)).unwrap();
        let mut scratch = dev.upload(&vec![POISON; n * n / 64]).unwrap();
        life_bits::run(&dev, Form::Checked, &mut lattice, &mut scratch, n, 2, 56, 8).unwrap();
        let alive: u32 = lattice
            .download()
            .unwrap()
            .iter()
            .map(|w| w.count_ones())
            .sum();
        assert_eq!(
            alive,
            25,
            "five gliders of five cells on {:?}",
            dev.backend()
        );
    }
}

#[test]
fn rectangles_several_tiles_wide_and_high_equal_the_cpu() {
    for dev in devices("rectangles_several_tiles_wide_and_high_equal_the_cpu") {
        // 33 words: two blocks across (30 words each), the second mostly off the lattice;
        // 100 rows: three blocks down at 48 rows each; 61 words and 7 rows: fewer rows than
        // the halo is deep.
        for (rows, words, per_launch) in [(100, 33, 8), (7, 61, 16), (50, 2, 3)] {
            let mut rng = Rng::new((rows * words) as u64);
            let initial: Vec<u64> = (0..rows * words)
                .map(|_| rng.next_u64() & rng.next_u64())
                .collect();
            let mut want = initial.clone();
            for form in FORMS {
                let mut lattice = dev.upload(&initial).unwrap();
                want.clone_from(&initial);
                for launch in 1..=2 {
                    let got = bits_launch(&dev, form, &lattice, rows, words, per_launch);
                    want = cpu_run_packed(&want, rows, words, per_launch as usize);
                    if let Some(i) = (0..got.len()).find(|&i| got[i] != want[i]) {
                        panic!(
                            "{rows} x {words} words on {:?}, {form:?}, launch {launch} of \
                             {per_launch}: word {} of row {} is {:#018x}, the CPU says {:#018x}",
                            dev.backend(),
                            i % words,
                            i / words,
                            got[i],
                            want[i]
                        );
                    }
                    lattice = dev.upload(&got).unwrap();
                }
            }
        }
    }
}

#[test]
fn zero_generations_copy_the_lattice() {
    for dev in devices("zero_generations_copy_the_lattice") {
        let (rows, words) = (70, 3);
        let mut rng = Rng::new(9);
        let initial: Vec<u64> = (0..rows * words).map(|_| rng.next_u64()).collect();
        let cells = dev.upload(&initial).unwrap();
        for form in FORMS {
            assert_eq!(bits_launch(&dev, form, &cells, rows, words, 0), initial);
        }
    }
}

#[test]
#[should_panic(expected = "at most 16 generations per launch")]
fn more_than_sixteen_generations_per_launch_are_refused() {
    life_bits::config(64, 1, 17);
}

#[test]
fn the_checked_kernels_keep_no_bounds_check() {
    // What docs/life.md promises: the prover removes every check of the checked kernels
    // (their lengths and block shapes declared), so they cost what the unchecked ones cost.
    for (name, kernel) in [
        ("conway_bits", &life_bits::checked::conway_bits::KERNEL),
        ("pack_cells", &life_bits::checked::pack_cells::KERNEL),
        ("unpack_cells", &life_bits::checked::unpack_cells::KERNEL),
    ] {
        let source = &kernel.source;
        let body = &source[source
            .find(&format!("{name}("))
            .expect("the kernel's definition")..];
        for check in ["ws_at(", "ws_at_shared(", "ws_ld(", "ws_ld_d("] {
            assert!(
                !body.contains(check),
                "{name} keeps a bounds check ({check}) in its C:\n{body}"
            );
        }
    }
}

#[test]
fn every_kernel_compiles_with_nvrtc() {
    use life_bits::{checked, unchecked};
    common::nvrtc_compiles(&[
        ("conway_bits", &checked::conway_bits::KERNEL),
        ("conway_bits (unchecked)", &unchecked::conway_bits::KERNEL),
        ("pack_cells", &checked::pack_cells::KERNEL),
        ("pack_cells (unchecked)", &unchecked::pack_cells::KERNEL),
        ("unpack_cells", &checked::unpack_cells::KERNEL),
        ("unpack_cells (unchecked)", &unchecked::unpack_cells::KERNEL),
    ]);
}
