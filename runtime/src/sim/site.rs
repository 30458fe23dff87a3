//! Source locations ([`SrcLoc`]) of simulated accesses and sync points.
//!
//! Generated code passes every site as a `static SrcLoc`; the simulator compares sites
//! and stores them in its race-check shadow by a small dense id, assigned on first use.
//! Two sites with the same file, line and column get the same id, so "the same site"
//! is "the same id".

use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{LazyLock, Mutex, PoisonError};

/// A place in the kernel's Rust source: file, line, column.
pub struct SrcLoc {
    file: &'static str,
    line: u32,
    column: u32,
    /// The id plus one; 0 until assigned.
    id: AtomicU32,
}

impl SrcLoc {
    /// A site; `file` is what `file!()` gives.
    pub const fn new(file: &'static str, line: u32, column: u32) -> SrcLoc {
        SrcLoc {
            file,
            line,
            column,
            id: AtomicU32::new(0),
        }
    }

    /// The Rust file, as `file!()` gives it.
    pub fn file(&self) -> &'static str {
        self.file
    }

    /// The line, from 1.
    pub fn line(&self) -> u32 {
        self.line
    }

    /// The column, from 1.
    pub fn column(&self) -> u32 {
        self.column
    }

    /// A small dense id, the same for every `SrcLoc` with this file, line and column;
    /// assigned on first use. [`src_loc_by_id`] gives the site back.
    #[inline]
    pub fn id(&self) -> u32 {
        match self.id.load(Ordering::Relaxed) {
            0 => self.register(),
            id => id - 1,
        }
    }

    #[cold]
    fn register(&self) -> u32 {
        let mut reg = REGISTRY.lock().unwrap_or_else(PoisonError::into_inner);
        let key = (self.file, self.line, self.column);
        let id = match reg.ids.get(&key) {
            Some(&id) => id,
            None => {
                let id = u32::try_from(reg.sites.len()).expect("fewer than 2^32 sites");
                let copy: &'static SrcLoc = Box::leak(Box::new(SrcLoc {
                    id: AtomicU32::new(id + 1),
                    ..SrcLoc::new(self.file, self.line, self.column)
                }));
                reg.sites.push(copy);
                reg.ids.insert(key, id);
                id
            }
        };
        self.id.store(id + 1, Ordering::Relaxed);
        id
    }
}

impl std::fmt::Debug for SrcLoc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.column)
    }
}

/// `file:line`, as reports print a site.
impl std::fmt::Display for SrcLoc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.file, self.line)
    }
}

#[derive(Default)]
struct Registry {
    sites: Vec<&'static SrcLoc>,
    ids: HashMap<(&'static str, u32, u32), u32>,
}

static REGISTRY: LazyLock<Mutex<Registry>> = LazyLock::new(Default::default);

/// The site with id `id` (see [`SrcLoc::id`]). Panics for an id never handed out.
pub fn src_loc_by_id(id: u32) -> &'static SrcLoc {
    let reg = REGISTRY.lock().unwrap_or_else(PoisonError::into_inner);
    match reg.sites.get(id as usize) {
        Some(site) => site,
        None => panic!("no source location has id {id}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_place_same_id() {
        static A: SrcLoc = SrcLoc::new("src/a.rs", 3, 7);
        static B: SrcLoc = SrcLoc::new("src/a.rs", 3, 7);
        static C: SrcLoc = SrcLoc::new("src/a.rs", 3, 8);
        assert_eq!(A.id(), B.id());
        assert_ne!(A.id(), C.id());
        let back = src_loc_by_id(C.id());
        assert_eq!(
            (back.file(), back.line(), back.column()),
            ("src/a.rs", 3, 8)
        );
        assert_eq!(back.to_string(), "src/a.rs:3");
    }
}
