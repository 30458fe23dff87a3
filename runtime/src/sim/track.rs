//! [`Track`]: which race-check shadow a memory handle's accesses go to (a slice argument's
//! or a shared region's), in one `u32` so handles stay small and `Copy`.

/// Which race-check shadow a handle's accesses go to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Track(u32);

const SHARED_BIT: u32 = 1 << 31;

/// Where a [`Track`] points.
pub(crate) enum Tracked {
    /// Global memory of slice argument `i`.
    Global(usize),
    /// Shared region `r` of the block.
    Shared(u32),
}

impl Track {
    /// Not race-checked (read-only arguments, checks off).
    pub(crate) const NONE: Track = Track(0);

    pub(crate) fn global(arg: usize) -> Track {
        Track(u32::try_from(arg + 1).expect("fewer than 2^31 arguments") & !SHARED_BIT)
    }

    pub(crate) fn shared(region: u32) -> Track {
        Track(region | SHARED_BIT)
    }

    #[inline]
    pub(crate) fn is_none(self) -> bool {
        self.0 == 0
    }

    pub(crate) fn get(self) -> Tracked {
        if self.0 & SHARED_BIT != 0 {
            Tracked::Shared(self.0 & !SHARED_BIT)
        } else {
            Tracked::Global(self.0 as usize - 1)
        }
    }
}
