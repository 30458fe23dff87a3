//! The runtime side of `#[gpu_struct]`: the trait the macro implements ([`GpuStruct`]) and
//! the helpers its generated code calls to move a struct's fields in and out of bytes and
//! simulated memory, and to check in C that NVRTC lays the struct out as rustc does.
//!
//! A `#[gpu_struct]` is `#[repr(C)]`, so rustc lays it out by C's rule; its C definition
//! (a [`SourceItem`] with a prototype and no definition: `collect_source` writes such
//! types first, each after the types it holds) is followed by `static_assert`s of the
//! size, alignment and every field offset rustc computed, so a disagreement stops the
//! NVRTC compile instead of the GPU reading the wrong bytes.

use crate::kernel_abi::SourceItem;
use crate::scalar::KernelScalar;
use crate::sim::{sim_load_field, sim_store_field};

/// A `#[gpu_struct]`: a `#[repr(C)]` struct of kernel scalars, arrays of them and other
/// gpu_structs, which kernels take by value, as slice elements and as locals.
///
/// # Safety
/// Implemented only by `#[gpu_struct]`: the type is `#[repr(C)]`, its fields are what
/// [`GpuStruct::ITEM`]'s C definition declares, in order.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a #[gpu_struct]: add #[gpu_struct] to its definition",
    label = "used in a kernel"
)]
pub unsafe trait GpuStruct: KernelScalar {
    /// The C definition of the struct, with its layout checks.
    const ITEM: &'static SourceItem;
}

/// The low 16 bytes of a struct's memory (its [`KernelScalar::to_bits128`]).
pub fn struct_to_bits128<T: KernelScalar>(value: T) -> u128 {
    let mut bytes = vec![0u8; std::mem::size_of::<T>().max(16)];
    value.write_bytes(&mut bytes);
    let mut low = [0u8; 16];
    low.copy_from_slice(&bytes[..16]);
    u128::from_le_bytes(low)
}

/// A struct whose low 16 bytes are `bits` and whose other bytes are zero.
pub fn struct_from_bits128<T: KernelScalar>(bits: u128) -> T {
    let mut bytes = vec![0u8; std::mem::size_of::<T>().max(16)];
    bytes[..16].copy_from_slice(&bits.to_le_bytes());
    T::read_bytes(&bytes)
}

/// Writes the elements of an array field at `offset` (each `size_of::<F>()` bytes apart).
pub fn write_array<F: KernelScalar, const N: usize>(value: [F; N], out: &mut [u8], offset: usize) {
    let size = std::mem::size_of::<F>();
    for (i, v) in value.into_iter().enumerate() {
        v.write_bytes(&mut out[offset + i * size..]);
    }
}

/// Reads an array field at `offset`.
pub fn read_array<F: KernelScalar, const N: usize>(bytes: &[u8], offset: usize) -> [F; N] {
    let size = std::mem::size_of::<F>();
    std::array::from_fn(|i| F::read_bytes(&bytes[offset + i * size..]))
}

/// Reads an array field of a struct in simulated memory, element by element.
///
/// # Safety
/// `p` points to the field of a live, aligned element of simulated memory.
pub unsafe fn sim_load_array<F: KernelScalar, const N: usize>(p: *const [F; N]) -> [F; N] {
    // SAFETY: element i of the array field is in bounds, as the caller promised.
    std::array::from_fn(|i| unsafe { sim_load_field(p.cast::<F>().add(i)) })
}

/// Writes an array field of a struct in simulated memory, element by element.
///
/// # Safety
/// As [`sim_load_array`], and the memory is writable.
pub unsafe fn sim_store_array<F: KernelScalar, const N: usize>(p: *mut [F; N], value: [F; N]) {
    for (i, v) in value.into_iter().enumerate() {
        // SAFETY: element i of the array field is in bounds, as the caller promised.
        unsafe { sim_store_field(p.cast::<F>().add(i), v) }
    }
}

/// The C checks of a struct's layout: `static_assert`s that NVRTC's size and alignment of
/// `c_name` and of each of its fields (`fields`: C field name, rustc's size and alignment
/// of its type) are rustc's; then whether every bit pattern of the struct is a value
/// (`ws_all_bits`, prelude.cuh). NVRTC has no `offsetof`; equal sizes and alignments of the
/// fields, in the same order, give equal offsets, since `#[repr(C)]` is C's layout rule
/// (each field at the next multiple of its alignment, the size rounded up to the largest).
pub fn c_layout_checks(
    c_name: &str,
    size: usize,
    align: usize,
    fields: &[(&str, usize, usize)],
) -> String {
    let rust = c_name.strip_prefix("ws_s_").unwrap_or(c_name);
    let mut out = format!(
        "static_assert(sizeof({c_name}) == {size}ull, \"#[gpu_struct] {rust}: C's size is not Rust's\");\n\
         static_assert(alignof({c_name}) == {align}ull, \"#[gpu_struct] {rust}: C's alignment is not Rust's\");\n"
    );
    let mut all_bits = String::from("true");
    for (field, size, align) in fields {
        let member = format!("(({c_name}*)0)->{field}");
        out.push_str(&format!(
            "static_assert(sizeof({member}) == {size}ull && alignof(decltype({member})) == {align}ull, \"#[gpu_struct] {rust}: field {field} is not laid out as in Rust\");\n"
        ));
        all_bits.push_str(&format!(" && ws_all_bits<decltype({member})>::value"));
    }
    // Every bit pattern is a value when every field's is (`ws_all_bits`, prelude.cuh):
    // a failing read of a writable slice of these in a device function needs no zero.
    // Padding bytes hold no value, so they do not count.
    out.push_str(&format!(
        "template <> struct ws_all_bits<{c_name}> {{ static constexpr bool value = {all_bits}; }};\n"
    ));
    out
}

/// The entry of `table` whose key is `key` (the Rust names of a generic `#[gpu_struct]`'s
/// type arguments, `["f32"]`): its impls, generic over the bound, pick the C name and
/// the C definition of their instance with it, at compile time. Each instance is a
/// struct of its own in C (`ws_s_Params_f32`), laid out and checked as a plain one.
pub const fn pick_instance<T: Copy>(key: &[&str], table: &[(&[&str], T)]) -> T {
    let mut i = 0;
    while i < table.len() {
        if names_eq(key, table[i].0) {
            return table[i].1;
        }
        i += 1;
    }
    panic!("a generic #[gpu_struct] instantiated at a type its bound does not allow")
}

const fn names_eq(a: &[&str], b: &[&str]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        let (x, y) = (a[i].as_bytes(), b[i].as_bytes());
        if x.len() != y.len() {
            return false;
        }
        let mut j = 0;
        while j < x.len() {
            if x[j] != y[j] {
                return false;
            }
            j += 1;
        }
        i += 1;
    }
    true
}
