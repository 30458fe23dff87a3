//! The library's kernels for its own operators, generic over the element type: instances
//! of the templates (`crate::template`), read- and copyable. The host entries
//! (`crate::reduce`, `crate::scan`) launch them; each module's `unchecked` twin is what
//! the bench measures the bounds checks against.

// The kernels' generated docs link `self::launch`; rustdoc resolves the links of items a
// `macro_rules!` writes in the module that defines the macro (`template` here), where
// they name nothing. The links work in a kernel written directly.
#![allow(rustdoc::broken_intra_doc_links)]

pub mod histogram;
pub mod radix_select;
pub mod reduce;
pub mod scan;
pub mod segmented;
pub mod select;
pub mod sort;
