//! Shared memory of one block: one allocation per call site of `shared_array` /
//! `shared_atomic_array` (sites compared by file, line and column) and one for
//! `dynamic_shared`, each 16-byte aligned (as the GPU's, for the 16-byte vector types) and
//! filled with 0xFF bytes (uninitialised shared memory is garbage on the GPU, so it is
//! garbage here), with its race-check shadow.
//!
//! Every thread of the block that reaches a site gets the same memory. The dynamic
//! allocation is shared whatever element type views it; when views of different element
//! sizes are taken, its race and initialisation checks are switched off (they count
//! elements), bounds checks stay.

use std::alloc::Layout;
use std::cell::RefCell;
use std::ptr::NonNull;

use super::shadow::{AccessKind, Accessor, SharedShadow, Verdict};
use super::site::SrcLoc;

/// Which allocation a region is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Key {
    /// A `shared_array` or `shared_atomic_array` site (its id).
    Static(u32),
    /// The launch's dynamic shared memory.
    Dynamic,
}

/// One shared allocation.
struct Region {
    key: Key,
    /// The site that first asked for it (the site itself for static arrays).
    at: &'static SrcLoc,
    ptr: NonNull<u8>,
    layout: Layout,
    elem_size: usize,
    /// `None` when race checks are off or element sizes were mixed.
    shadow: Option<SharedShadow>,
}

impl Drop for Region {
    fn drop(&mut self) {
        // SAFETY: allocated in `SharedMem::get` with this layout.
        unsafe { std::alloc::dealloc(self.ptr.as_ptr(), self.layout) }
    }
}

/// What a new allocation would break: the static bytes asked for in all, and whether
/// they alone break the static limit (else with the dynamic bytes the total one).
pub(crate) struct TooMuchShared {
    pub(crate) static_bytes: usize,
    pub(crate) over_static_limit: bool,
}

/// The shared memory of one block.
#[derive(Default)]
pub(crate) struct SharedMem {
    regions: RefCell<Vec<Region>>,
    static_bytes: std::cell::Cell<usize>,
}

impl SharedMem {
    /// The memory of the array at `at` (`len` elements of `elem_size` bytes), allocated
    /// on first call; returns its address, its length in elements and its region index.
    /// `static_limit` is what the static arrays may add up to, `limit` what static plus
    /// dynamic shared memory may.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn get_static(
        &self,
        at: &'static SrcLoc,
        len: usize,
        elem_size: usize,
        checks: bool,
        dynamic_bytes: usize,
        static_limit: usize,
        limit: usize,
    ) -> Result<(NonNull<u8>, usize, u32), TooMuchShared> {
        let key = Key::Static(at.id());
        if let Some(found) = self.find(key, elem_size) {
            return Ok((found.0, len, found.1));
        }
        let bytes = len.saturating_mul(elem_size);
        let total = self.static_bytes.get().saturating_add(bytes);
        if total > static_limit || total.saturating_add(dynamic_bytes) > limit {
            return Err(TooMuchShared {
                static_bytes: total,
                over_static_limit: total > static_limit,
            });
        }
        self.static_bytes.set(total);
        Ok(self.insert(key, at, bytes, len, elem_size, checks))
    }

    /// The dynamic shared memory (`bytes` long) viewed as elements of `elem_size` bytes.
    pub(crate) fn get_dynamic(
        &self,
        at: &'static SrcLoc,
        bytes: usize,
        elem_size: usize,
        checks: bool,
    ) -> (NonNull<u8>, usize, u32) {
        let len = bytes / elem_size;
        match self.find(Key::Dynamic, elem_size) {
            Some((ptr, index)) => (ptr, len, index),
            None => self.insert(Key::Dynamic, at, bytes, len, elem_size, checks),
        }
    }

    /// An existing region with `key`; a view of another element size turns its shadow off.
    fn find(&self, key: Key, elem_size: usize) -> Option<(NonNull<u8>, u32)> {
        let mut regions = self.regions.borrow_mut();
        let (index, region) = regions.iter_mut().enumerate().find(|(_, r)| r.key == key)?;
        if region.elem_size != elem_size {
            region.shadow = None;
        }
        Some((region.ptr, index as u32))
    }

    fn insert(
        &self,
        key: Key,
        at: &'static SrcLoc,
        bytes: usize,
        len: usize,
        elem_size: usize,
        checks: bool,
    ) -> (NonNull<u8>, usize, u32) {
        let layout = Layout::from_size_align(bytes.max(1), 16).expect("shared memory layout");
        // SAFETY: the layout has a non-zero size.
        let raw = unsafe { std::alloc::alloc(layout) };
        let Some(ptr) = NonNull::new(raw) else {
            std::alloc::handle_alloc_error(layout)
        };
        // SAFETY: `ptr` holds `layout.size()` bytes; poison them.
        unsafe { std::ptr::write_bytes(ptr.as_ptr(), 0xFF, layout.size()) };
        let mut regions = self.regions.borrow_mut();
        regions.push(Region {
            key,
            at,
            ptr,
            layout,
            elem_size,
            shadow: checks.then(|| SharedShadow::new(len)),
        });
        (ptr, len, (regions.len() - 1) as u32)
    }

    /// Checks and records an access of element `index` of region `region`.
    pub(crate) fn access(
        &self,
        region: u32,
        index: usize,
        me: &Accessor<'_>,
        kind: AccessKind,
    ) -> Verdict {
        let regions = self.regions.borrow();
        match &regions[region as usize].shadow {
            Some(shadow) => shadow.access(index, me, kind),
            None => Verdict::Ok,
        }
    }

    /// "shared array at src/x.rs:10", for reports.
    pub(crate) fn describe(&self, region: u32) -> String {
        let regions = self.regions.borrow();
        let r = &regions[region as usize];
        match r.key {
            Key::Static(_) => format!("shared array at {}", r.at),
            Key::Dynamic => format!("dynamic shared memory (first used at {})", r.at),
        }
    }
}
