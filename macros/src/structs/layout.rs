//! A `#[gpu_struct]`'s layout by C's rule, computed by the macro: each field at the next
//! multiple of its alignment, the size rounded up to the largest alignment. The emitted
//! Rust asserts at compile time that rustc's `#[repr(C)]` layout is this one, and the C
//! definition asserts (when NVRTC compiles it) that NVRTC's is rustc's.

use crate::ir::structs::StructDef;
use crate::ir::ty::{Len, Scalar, Ty};

/// Size and alignment of a field type (every scalar is aligned to its size: the half and
/// vector types are declared so, in Rust and in C).
pub fn size_align(t: &Ty, defs: &[StructDef]) -> (u64, u64) {
    match t {
        Ty::Scalar(Scalar::Struct(id)) => match defs.get(id.index as usize) {
            Some(d) => struct_layout(d, defs).0,
            None => (0, 1),
        },
        Ty::Scalar(s) => {
            let n = u64::from(s.bits() / 8).max(1);
            (n, n)
        }
        Ty::Array(e, Len::Lit(n)) => {
            let (size, align) = size_align(e, defs);
            (size * n, align)
        }
        _ => (0, 1),
    }
}

/// `((size, align), field offsets)` of a struct.
pub fn struct_layout(d: &StructDef, defs: &[StructDef]) -> ((u64, u64), Vec<u64>) {
    let (mut at, mut max) = (0u64, 1u64);
    let mut offsets = Vec::new();
    for f in &d.fields {
        let (size, align) = size_align(&f.ty, defs);
        at = at.next_multiple_of(align);
        offsets.push(at);
        at += size;
        max = max.max(align);
    }
    ((at.next_multiple_of(max), max), offsets)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::structs::FieldDef;

    fn def(name: &str, fields: &[Ty]) -> StructDef {
        StructDef {
            names: vec![name.into()],
            fields: fields
                .iter()
                .enumerate()
                .map(|(i, t)| FieldDef {
                    name: format!("f{i}"),
                    ty: t.clone(),
                })
                .collect(),
            ..Default::default()
        }
    }

    #[test]
    fn padding_between_and_after_fields() {
        let s = |s| Ty::Scalar(s);
        let padded = def("P", &[s(Scalar::U8), s(Scalar::F64), s(Scalar::U16)]);
        assert_eq!(struct_layout(&padded, &[]), ((24, 8), vec![0, 8, 16]));
        let inner = def("V", &[s(Scalar::F32), s(Scalar::F32), s(Scalar::F32)]);
        let arr = Ty::Array(Box::new(s(Scalar::U8)), Len::Lit(3));
        let outer = def(
            "O",
            &[
                arr,
                s(Scalar::Struct(crate::ir::ty::StructId::new(0, "V"))),
                s(Scalar::F32x4),
                s(Scalar::Bool),
            ],
        );
        let defs = [inner, outer.clone()];
        assert_eq!(struct_layout(&outer, &defs), ((48, 16), vec![0, 4, 16, 32]));
    }
}
