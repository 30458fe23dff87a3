//! Element ranges of views (`buf.slice(a..b)`, `pinned.slice(a..b)`): a `RangeBounds` made
//! `start..end` within a length, or `None`/the panic `&v[a..b]` gives, and the extent
//! accessors every view type has (`view_extent!`). A leaf that `view.rs` and
//! `pinned_view.rs` share.

use std::ops::{Bound, Range, RangeBounds};

/// `range` as `start..end` within `len` elements; `None` when out of bounds (or its end
/// overflows), as `<[T]>::get` answers.
pub(crate) fn resolve(range: &impl RangeBounds<usize>, len: usize) -> Option<Range<usize>> {
    let start = match range.start_bound() {
        Bound::Included(&n) => n,
        Bound::Excluded(&n) => n.checked_add(1)?,
        Bound::Unbounded => 0,
    };
    let end = match range.end_bound() {
        Bound::Included(&n) => n.checked_add(1)?,
        Bound::Excluded(&n) => n,
        Bound::Unbounded => len,
    };
    (start <= end && end <= len).then_some(start..end)
}

/// [`resolve`], or the panic `&v[a..b]` gives; `memory` names what is sliced.
#[track_caller]
pub(crate) fn resolve_or_panic(
    range: impl RangeBounds<usize>,
    len: usize,
    memory: &str,
) -> Range<usize> {
    if let Some(r) = resolve(&range, len) {
        return r;
    }
    // In u128, so that `..=usize::MAX` is written as asked.
    let start = match range.start_bound() {
        Bound::Included(&n) => n as u128,
        Bound::Excluded(&n) => n as u128 + 1,
        Bound::Unbounded => 0,
    };
    let end = match range.end_bound() {
        Bound::Included(&n) => n as u128 + 1,
        Bound::Excluded(&n) => n as u128,
        Bound::Unbounded => len as u128,
    };
    panic!("range {start}..{end} out of bounds for {memory} of {len} elements")
}

/// `len`, `is_empty`, `offset` and the crate's `range()` of a view type with `offset`
/// and `len` fields (device and pinned views, read-only and writable): one definition
/// for the four.
macro_rules! view_extent {
    ($($view:ident),+) => {$(
        impl<T: crate::scalar::KernelScalar> $view<'_, T> {
            /// Number of elements.
            pub fn len(&self) -> usize {
                self.len
            }

            /// Whether the view has no elements.
            pub fn is_empty(&self) -> bool {
                self.len == 0
            }

            /// Where the view starts in its buffer, in elements.
            pub fn offset(&self) -> usize {
                self.offset
            }

            /// The view's elements in its buffer.
            #[allow(dead_code)] // not every view type's module asks
            pub(crate) fn range(&self) -> std::ops::Range<usize> {
                self.offset..self.offset + self.len
            }
        }
    )+};
}
pub(crate) use view_extent;
