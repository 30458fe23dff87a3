//! 128-bit FNV-1a: the hash behind cache keys and cache-file checksums.
//!
//! Not cryptographic; it only has to tell different sources apart and notice a damaged
//! file, and 128 bits make an accidental collision out of reach.
//!
//! Byte-wise FNV is one 128-bit multiply per byte, each waiting for the last: 5 to 6 ms for
//! a 300 KB kernel source (the prelude and the kernel) on a 2-core x86 host, paid for the
//! disk cache's key and again for the memory cache's, at a warm process start whose whole
//! budget is a few milliseconds over raw cudarc. So a long input goes through four
//! independent lanes of 64-bit words (the multiplies overlap, eight bytes each), folded
//! into the hash at the end of the call; inputs under 32 bytes stay plain FNV-1a.

const OFFSET: u128 = 0x6c62272e07bb014262b821756295c58d;
const PRIME: u128 = 0x0000000001000000000000000000013b;
/// Bytes per step of the four lanes.
const BLOCK: usize = 32;

/// An incremental FNV-1a hasher.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Fnv128(u128);

impl Fnv128 {
    pub(crate) fn new() -> Self {
        Fnv128(OFFSET)
    }

    pub(crate) fn bytes(mut self, data: &[u8]) -> Self {
        let blocks = data.chunks_exact(BLOCK);
        let tail = blocks.remainder();
        if data.len() >= BLOCK {
            // Distinct starting points, so equal lanes do not cancel when folded.
            let mut lanes: [u128; 4] = std::array::from_fn(|i| self.0 ^ (i as u128 + 1));
            for block in blocks {
                for (lane, word) in lanes.iter_mut().zip(block.chunks_exact(8)) {
                    let word = u64::from_le_bytes(word.try_into().expect("8 bytes"));
                    *lane = (*lane ^ u128::from(word)).wrapping_mul(PRIME);
                }
            }
            for lane in lanes {
                self.0 = (self.0 ^ lane ^ (lane >> 64)).wrapping_mul(PRIME);
            }
        }
        for &b in tail {
            self.0 ^= u128::from(b);
            self.0 = self.0.wrapping_mul(PRIME);
        }
        self
    }

    /// Hashes a field with its length first, so ("ab", "c") and ("a", "bc") differ.
    pub(crate) fn field(self, data: &[u8]) -> Self {
        self.bytes(&(data.len() as u64).to_le_bytes()).bytes(data)
    }

    pub(crate) fn finish(self) -> u128 {
        self.0
    }
}

/// The hash of one byte string.
pub(crate) fn fnv128(data: &[u8]) -> u128 {
    Fnv128::new().bytes(data).finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_vectors() {
        // Reference values of FNV-1a 128.
        assert_eq!(fnv128(b""), 0x6c62272e07bb014262b821756295c58d);
        assert_eq!(fnv128(b"a"), 0xd228cb696f1a8caf78912b704e4a8964);
    }

    #[test]
    fn fields_are_delimited() {
        let ab_c = Fnv128::new().field(b"ab").field(b"c").finish();
        let a_bc = Fnv128::new().field(b"a").field(b"bc").finish();
        assert_ne!(ab_c, a_bc);
    }
}
