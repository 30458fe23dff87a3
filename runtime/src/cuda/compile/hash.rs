//! 128-bit FNV-1a: the hash behind cache keys and cache-file checksums.
//!
//! Not cryptographic; it only has to tell different sources apart and notice a damaged
//! file, and 128 bits make an accidental collision out of reach.

const OFFSET: u128 = 0x6c62272e07bb014262b821756295c58d;
const PRIME: u128 = 0x0000000001000000000000000000013b;

/// An incremental FNV-1a hasher.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Fnv128(u128);

impl Fnv128 {
    pub(crate) fn new() -> Self {
        Fnv128(OFFSET)
    }

    pub(crate) fn bytes(mut self, data: &[u8]) -> Self {
        for &b in data {
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
