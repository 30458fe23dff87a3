//! Hopper's shared-memory swizzles (docs/tensor-cores.md, "Swizzled tiles"): how TMA
//! (`cp.async.bulk.tensor`) scatters a tile into shared memory and how `wgmma`'s
//! shared-memory descriptors gather it back. Both are the same function of the byte
//! address in shared memory, so the simulator's TMA writes and `wgmma` reads go through
//! [`swizzle_byte_offset`], and host code can lay tiles out with it.

/// A swizzle mode, as `CUtensorMapSwizzle` and the `wgmma` descriptor's "swizzle mode"
/// name them. With a swizzle of `B` bytes the 16-byte chunks of each `B`-byte row are
/// permuted by XOR with the row's index among 8 consecutive rows, so that the 8 rows' chunk
/// 0 fall into different banks. A swizzled tile must start at a multiple of
/// [`Swizzle::atom_bytes`] (1024 bytes for [`Swizzle::B128`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Swizzle {
    /// No swizzle: byte `o` of the tile is at `o`.
    #[default]
    None,
    /// 32-byte swizzle (`CU_TENSOR_MAP_SWIZZLE_32B`): address bit 4 ^= bit 7.
    B32,
    /// 64-byte swizzle (`CU_TENSOR_MAP_SWIZZLE_64B`): bits 4..6 ^= bits 7..9.
    B64,
    /// 128-byte swizzle (`CU_TENSOR_MAP_SWIZZLE_128B`): bits 4..7 ^= bits 7..10.
    B128,
}

impl Swizzle {
    /// The swizzled row's width in bytes (0 for [`Swizzle::None`]); a TMA box's inner
    /// dimension must span at most this many bytes.
    pub const fn row_bytes(self) -> usize {
        match self {
            Swizzle::None => 0,
            Swizzle::B32 => 32,
            Swizzle::B64 => 64,
            Swizzle::B128 => 128,
        }
    }

    /// The bytes after which the pattern repeats (8 rows), so the alignment a swizzled tile
    /// needs: 256, 512 or 1024 (16 for [`Swizzle::None`], TMA's least alignment).
    pub const fn atom_bytes(self) -> usize {
        match self {
            Swizzle::None => 16,
            s => 8 * s.row_bytes(),
        }
    }

    /// log2 of the number of 16-byte chunks XORed (CUTLASS's `Swizzle<B, 4, 3>`'s `B`).
    const fn bits(self) -> u32 {
        match self {
            Swizzle::None => 0,
            Swizzle::B32 => 1,
            Swizzle::B64 => 2,
            Swizzle::B128 => 3,
        }
    }
}

/// Where byte `offset` of a shared-memory window lands under `mode`: bits `4..4+b` XOR
/// bits `7..7+b`, `b` being 0, 1, 2 or 3. `offset` counts from a base aligned to
/// [`Swizzle::atom_bytes`] (the start of shared memory, as on the GPU, where the swizzle
/// is a function of the address). An involution: applying it twice gives `offset` back.
pub const fn swizzle_byte_offset(mode: Swizzle, offset: usize) -> usize {
    let b = mode.bits();
    let mask = ((1usize << b) - 1) << 4;
    offset ^ ((offset >> 3) & mask)
}

/// The index of element `i` of a tile of `size`-byte elements under `mode`: the element
/// at byte `i * size` moved as [`swizzle_byte_offset`] moves bytes. For `size` 1, 2, 4, 8
/// or 16 an element stays whole (it moves with its 16-byte chunk). The kernel language's
/// `swizzle_128b(i, size)` and kin are this function (the multiplication wraps there as
/// here).
pub const fn swizzle_index(mode: Swizzle, i: usize, size: usize) -> usize {
    swizzle_byte_offset(mode, i.wrapping_mul(size)) / size
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn none_is_the_identity_and_every_mode_an_involution() {
        for o in 0..4096 {
            assert_eq!(swizzle_byte_offset(Swizzle::None, o), o);
            for m in [Swizzle::B32, Swizzle::B64, Swizzle::B128] {
                assert_eq!(swizzle_byte_offset(m, swizzle_byte_offset(m, o)), o);
                // Bytes stay inside their 16-byte chunk, and inside their atom.
                let s = swizzle_byte_offset(m, o);
                assert_eq!(s % 16, o % 16);
                assert_eq!(s / m.atom_bytes(), o / m.atom_bytes());
            }
        }
    }

    /// CUTLASS's Swizzle<3,4,3> (128B): row r's 16-byte chunk c goes to chunk c ^ (r % 8).
    #[test]
    fn b128_permutes_chunks_by_row() {
        for r in 0..16usize {
            for c in 0..8usize {
                let o = r * 128 + c * 16;
                assert_eq!(
                    swizzle_byte_offset(Swizzle::B128, o),
                    r * 128 + ((c ^ (r % 8)) * 16)
                );
            }
        }
        // 64B: rows of 64 bytes, 4 chunks, XOR with (r / 2) % 4 (bits 7..9 of r * 64).
        for r in 0..16usize {
            for c in 0..4usize {
                let o = r * 64 + c * 16;
                assert_eq!(
                    swizzle_byte_offset(Swizzle::B64, o),
                    r * 64 + ((c ^ ((r / 2) % 4)) * 16)
                );
            }
        }
    }
}
