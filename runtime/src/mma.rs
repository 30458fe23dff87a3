//! The PTX ISA's fragment layouts of `mma.sync` (docs/tensor-cores.md): which lane holds
//! which (row, column) of each operand. One function, [`fragment_owner`], is the table:
//! the simulator gathers and scatters fragments through it, host code and tests lay data
//! out with it, and docs/tensor-cores.md prints it.

/// Which operand of `D = A * B + C` a fragment holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FragmentRole {
    /// A, M x K, row major (`FragmentA`).
    A,
    /// B, K x N, column major (`FragmentB`): its row is the K index, its column the N index.
    B,
    /// C and D, M x N (`FragmentAcc`).
    Acc,
}

/// The shape of one `mma.sync`, as PTX names it (`.m16n8k16`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MmaShape {
    /// `.m16n8k16`: A 16 x 16, B 16 x 8, C/D 16 x 8.
    M16N8K16,
    /// `.m16n8k8`: A 16 x 8, B 8 x 8, C/D 16 x 8.
    M16N8K8,
    /// `.m16n8k8` with `.tf32` A and B (`f32` fragments in a kernel), whose layouts differ
    /// from the 16-bit ones.
    M16N8K8Tf32,
    /// `.m16n8k32` with 8-bit A and B (`.s8`, `.u8`, `.e4m3`, `.e5m2`): A 16 x 32, B 32 x 8,
    /// C/D 16 x 8.
    M16N8K32,
}

impl MmaShape {
    /// (M, N, K).
    pub const fn mnk(self) -> (usize, usize, usize) {
        match self {
            MmaShape::M16N8K16 => (16, 8, 16),
            MmaShape::M16N8K8 | MmaShape::M16N8K8Tf32 => (16, 8, 8),
            MmaShape::M16N8K32 => (16, 8, 32),
        }
    }

    /// The (rows, columns) of the operand `role`.
    pub const fn dims(self, role: FragmentRole) -> (usize, usize) {
        let (m, n, k) = self.mnk();
        match role {
            FragmentRole::A => (m, k),
            FragmentRole::B => (k, n),
            FragmentRole::Acc => (m, n),
        }
    }
}

/// How many elements of operand `role` each lane holds (`frag.x.len()`): the operand's
/// elements over 32 lanes.
pub const fn fragment_len(role: FragmentRole, shape: MmaShape) -> usize {
    let (r, c) = shape.dims(role);
    r * c / 32
}

/// The (row, column) of element `i` of lane `lane`'s fragment of operand `role`, as the
/// PTX ISA's "Matrix Fragments for mma.m16n8k16 / mma.m16n8k8 / mma.m16n8k32" tables give it
/// (16-bit A and B elements, tf32 ones for `M16N8K8Tf32`, 8-bit ones for `M16N8K32`; f32,
/// f16 or s32 accumulators). With
/// `group = lane / 4` and `t = lane % 4`:
///
/// | operand | row | column |
/// |---|---|---|
/// | A, m16n8k16 | `group + 8 * ((i / 2) % 2)` | `2 * t + i % 2 + 8 * (i / 4)` |
/// | B, m16n8k16 | `2 * t + i % 2 + 8 * (i / 2)` | `group` |
/// | A, m16n8k8 | `group + 8 * (i / 2)` | `2 * t + i % 2` |
/// | B, m16n8k8 | `2 * t + i % 2` | `group` |
/// | A, m16n8k8 tf32 | `group + 8 * (i % 2)` | `t + 4 * (i / 2)` |
/// | B, m16n8k8 tf32 | `t + 4 * i` | `group` |
/// | A, m16n8k32 | `group + 8 * ((i / 4) % 2)` | `4 * t + i % 4 + 16 * (i / 8)` |
/// | B, m16n8k32 | `4 * t + i % 4 + 16 * (i / 4)` | `group` |
/// | C, D | `group + 8 * (i / 2)` | `2 * t + i % 2` |
///
/// # Panics
///
/// If `lane >= 32` or `i >= fragment_len(role, shape)`.
pub fn fragment_owner(role: FragmentRole, shape: MmaShape, lane: u32, i: usize) -> (usize, usize) {
    assert!(lane < 32, "a warp has lanes 0..32, not {lane}");
    let len = fragment_len(role, shape);
    assert!(
        i < len,
        "a {role:?} fragment of {shape:?} has {len} elements, not {i}"
    );
    let (group, t) = ((lane / 4) as usize, (lane % 4) as usize);
    match (role, shape) {
        (FragmentRole::A, MmaShape::M16N8K16) => {
            (group + 8 * ((i / 2) % 2), 2 * t + i % 2 + 8 * (i / 4))
        }
        (FragmentRole::B, MmaShape::M16N8K16) => (2 * t + i % 2 + 8 * (i / 2), group),
        (FragmentRole::B, MmaShape::M16N8K8) => (2 * t + i % 2, group),
        (FragmentRole::A, MmaShape::M16N8K8Tf32) => (group + 8 * (i % 2), t + 4 * (i / 2)),
        (FragmentRole::B, MmaShape::M16N8K8Tf32) => (t + 4 * i, group),
        (FragmentRole::A, MmaShape::M16N8K32) => {
            (group + 8 * ((i / 4) % 2), 4 * t + i % 4 + 16 * (i / 8))
        }
        (FragmentRole::B, MmaShape::M16N8K32) => (4 * t + i % 4 + 16 * (i / 4), group),
        (FragmentRole::A, MmaShape::M16N8K8) | (FragmentRole::Acc, _) => {
            (group + 8 * (i / 2), 2 * t + i % 2)
        }
    }
}

/// The `N`s of `wgmma.mma_async`'s `.m64nNk16` shapes (16-bit operands) and `.m64nNk8`
/// shapes (tf32): every multiple of 8 from 8 to 256 (`FragmentAcc<f32, M64N{N}K16>`,
/// `FragmentAcc<f32, M64N{N}K8>`).
pub const WGMMA_NS: std::ops::RangeInclusive<usize> = 8..=256;

/// Whether `n` is the `N` of a `.m64nNk16` shape: a multiple of 8 in 8..=256.
pub const fn is_wgmma_n(n: usize) -> bool {
    n >= 8 && n <= 256 && n.is_multiple_of(8)
}

/// The (row, column) of the 64 x `n` accumulator that element `i` of thread `thread`'s
/// `acc.x` holds, for a `wgmma.mma_async` of shape `.m64nNk16` (f32 accumulator; `n / 2`
/// elements a thread), and as well of `.m64nNk8` (tf32: the accumulator's layout does not
/// depend on K). `thread` is the thread's index in its warpgroup (the linear thread
/// index in the block % 128). The PTX ISA's "Register Fragments" figure for wgmma's D: warp
/// `w = thread / 32` holds rows `16 * w .. 16 * w + 16`, each lane as in an `mma.m16n8`
/// accumulator repeated every 8 columns. With `lane = thread % 32`, `group = lane / 4`,
/// `q = lane % 4`:
///
/// | row | column |
/// |---|---|
/// | `16 * w + group + 8 * ((i / 2) % 2)` | `8 * (i / 4) + 2 * q + i % 2` |
///
/// # Panics
///
/// If `n` is not a multiple of 8 in 8..=256, `thread >= 128` or `i >= n / 2`.
pub fn wgmma_owner(n: usize, thread: u32, i: usize) -> (usize, usize) {
    assert!(
        is_wgmma_n(n),
        "wgmma's N is a multiple of 8 from 8 to 256, not {n}"
    );
    assert!(thread < 128, "a warpgroup has threads 0..128, not {thread}");
    assert!(
        i < n / 2,
        "a 64 x {n} wgmma accumulator has {} elements a thread, not {i}",
        n / 2
    );
    let (w, lane) = ((thread / 32) as usize, (thread % 32) as usize);
    let (group, q) = (lane / 4, lane % 4);
    (
        16 * w + group + 8 * ((i / 2) % 2),
        8 * (i / 4) + 2 * q + i % 2,
    )
}

/// The (row, column) of A (64 x 16) that element `i` (0..8) of a `FragmentA<T,
/// M64N{N}K16>` holds, a `wgmma` whose A comes from registers (`acc.wgmma(a, &b_tile, k)`),
/// for `thread` of its warpgroup (the linear thread index % 128). The PTX ISA's "Register
/// Fragments" figure for wgmma's A: warp `w = thread / 32` holds rows `16 * w .. 16 * w +
/// 16`, each lane as in `mma.m16n8k16`'s A ([`fragment_owner`]). With `lane = thread % 32`,
/// `group = lane / 4`, `q = lane % 4`:
///
/// | row | column |
/// |---|---|
/// | `16 * w + group + 8 * ((i / 2) % 2)` | `2 * q + i % 2 + 8 * (i / 4)` |
///
/// So a `M64N{N}K16` accumulator's columns `16 * j .. 16 * j + 16` are, element for element,
/// the A fragment of slab j: `a.x[e]` is at `acc.x[8 * j + e]`'s (row, column - 16 j), which
/// is how an attention kernel feeds P = softmax(S) to the next `wgmma` without shared memory.
///
/// # Panics
///
/// If `thread >= 128` or `i >= 8`.
pub fn wgmma_a_owner(thread: u32, i: usize) -> (usize, usize) {
    assert!(thread < 128, "a warpgroup has threads 0..128, not {thread}");
    let (r, c) = fragment_owner(FragmentRole::A, MmaShape::M16N8K16, thread % 32, i);
    (16 * (thread / 32) as usize + r, c)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A wgmma accumulator's slab j of columns is, element for element, the register A of
    /// slab j (what attention's P = softmax(S) relies on).
    #[test]
    fn accumulator_columns_are_register_a() {
        for t in 0..128 {
            for j in 0..8 {
                for e in 0..8 {
                    let (r, c) = wgmma_owner(128, t, 8 * j + e);
                    assert_eq!(wgmma_a_owner(t, e), (r, c - 16 * j));
                }
            }
        }
    }

    /// Every element of every operand has exactly one owner (lane, i).
    #[test]
    fn each_element_has_one_owner() {
        for shape in [
            MmaShape::M16N8K16,
            MmaShape::M16N8K8,
            MmaShape::M16N8K8Tf32,
            MmaShape::M16N8K32,
        ] {
            for role in [FragmentRole::A, FragmentRole::B, FragmentRole::Acc] {
                let (r, c) = shape.dims(role);
                let mut seen = vec![0u32; r * c];
                for lane in 0..32 {
                    for i in 0..fragment_len(role, shape) {
                        let (row, col) = fragment_owner(role, shape, lane, i);
                        assert!(row < r && col < c, "{role:?} {shape:?} {lane} {i}");
                        seen[row * c + col] += 1;
                    }
                }
                assert!(seen.iter().all(|&n| n == 1), "{role:?} {shape:?}");
            }
        }
    }

    /// Spot values from the PTX ISA's figures (m16n8k16): lane 5 holds A's a0 at (1, 2)
    /// and a7 at (9, 11); B's b3 of lane 7 is at (15, 1); c2 of lane 30 at (15, 4).
    #[test]
    fn ptx_figures() {
        use FragmentRole::*;
        let s = MmaShape::M16N8K16;
        assert_eq!(fragment_owner(A, s, 5, 0), (1, 2));
        assert_eq!(fragment_owner(A, s, 5, 7), (9, 11));
        assert_eq!(fragment_owner(B, s, 7, 3), (15, 1));
        assert_eq!(fragment_owner(Acc, s, 30, 2), (15, 4));
        // m16n8k8 tf32: lane 6 (group 1, t 2) holds a1 at (9, 2) and a2 at (1, 6), b1 at (6, 1).
        let t = MmaShape::M16N8K8Tf32;
        assert_eq!(fragment_owner(A, t, 6, 1), (9, 2));
        assert_eq!(fragment_owner(A, t, 6, 2), (1, 6));
        assert_eq!(fragment_owner(B, t, 6, 1), (6, 1));
        // m16n8k32 (8-bit): lane 6 holds a0 at (1, 8), a5 at (9, 9), a11 at (1, 27), a15 at
        // (9, 27); b3 at (11, 1), b4 at (24, 1); c3 at (9, 5).
        let k = MmaShape::M16N8K32;
        assert_eq!(fragment_owner(A, k, 6, 0), (1, 8));
        assert_eq!(fragment_owner(A, k, 6, 5), (9, 9));
        assert_eq!(fragment_owner(A, k, 6, 11), (1, 27));
        assert_eq!(fragment_owner(A, k, 6, 15), (9, 27));
        assert_eq!(fragment_owner(B, k, 6, 3), (11, 1));
        assert_eq!(fragment_owner(B, k, 6, 4), (24, 1));
        assert_eq!(fragment_owner(Acc, k, 6, 3), (9, 5));
    }

    /// Every element of every wgmma accumulator has exactly one owner (thread, i), and
    /// thread 0 of warp 1 holds x[0..4] at (16, 0), (16, 1), (24, 0), (24, 1).
    #[test]
    fn each_wgmma_element_has_one_owner() {
        for n in WGMMA_NS.step_by(8) {
            let mut seen = vec![0u32; 64 * n];
            for t in 0..128 {
                for i in 0..n / 2 {
                    let (r, c) = wgmma_owner(n, t, i);
                    assert!(r < 64 && c < n, "{n} {t} {i}");
                    seen[r * n + c] += 1;
                }
            }
            assert!(seen.iter().all(|&k| k == 1), "N = {n}");
        }
        let at = |i| wgmma_owner(64, 32, i);
        assert_eq!(
            [at(0), at(1), at(2), at(3)],
            [(16, 0), (16, 1), (24, 0), (24, 1)]
        );
        assert_eq!(wgmma_owner(256, 127, 127), (63, 255));
    }
}
