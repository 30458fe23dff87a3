//! Tensor-core fragments (docs/tensor-cores.md): the types `FragmentA<T, Shape>`,
//! `FragmentB<T, Shape>` and `FragmentAcc<T, Shape>` ([`Frag`]), their methods
//! ([`FragMethod`], one variant of `ir::call::Call`), and the table of `mma.sync`
//! instructions ([`MMA`]): each instruction is one row, with its PTX, its prelude helper
//! (runtime/src/prelude_mma.cuh). The per-lane layout is the runtime's
//! (`warpspeed::mma::fragment_owner`); here only the element counts.

use super::Scalar;
use std::fmt;

/// Which operand of `D = A * B + C` a fragment holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Role {
    A,
    B,
    Acc,
}

impl Role {
    /// The kernel language's type name.
    pub fn type_name(self) -> &'static str {
        match self {
            Role::A => "FragmentA",
            Role::B => "FragmentB",
            Role::Acc => "FragmentAcc",
        }
    }

    pub fn from_type_name(name: &str) -> Option<Role> {
        [Role::A, Role::B, Role::Acc]
            .into_iter()
            .find(|r| r.type_name() == name)
    }
}

/// An `mma.sync` shape, by its marker type (`M16N8K16`), or a `wgmma` shape
/// `M64N{N}K{K}` (N a multiple of 8 in 8..=256, K that of a row family of [`WGMMA`]), which
/// has an accumulator and, for 16-bit K16 rows, an A in registers (`FragmentA`); its B is
/// a tile in shared memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Shape {
    M16N8K16,
    M16N8K8,
    /// `.m16n8k32`: 8-bit A and B (`i8`, `u8`, `e4m3`, `e5m2`).
    M16N8K32,
    /// `wgmma.mma_async`'s `.m64nNkK`.
    Wgmma {
        n: u16,
        k: u8,
    },
}

/// The marker types of the `wgmma` shapes, N = 8, 16, .., 256, one list a K of [`WGMMA`].
macro_rules! wgmma_names {
    ($($n:literal)*) => {
        const WGMMA_NAMES: [(u8, [&str; 32]); 2] = [
            (16, [$(concat!("M64N", $n, "K16")),*]),
            (8, [$(concat!("M64N", $n, "K8")),*]),
        ];
    };
}

wgmma_names!(8 16 24 32 40 48 56 64 72 80 88 96 104 112 120 128 136 144 152 160 168 176 184 192 200 208 216 224 232 240 248 256);

impl Shape {
    /// The `mma.sync` shapes.
    pub const ALL: [Shape; 3] = [Shape::M16N8K16, Shape::M16N8K8, Shape::M16N8K32];

    /// The marker type's name, also the runtime's `MmaShape` variant for `mma.sync`'s.
    pub fn name(self) -> &'static str {
        match self {
            Shape::M16N8K16 => "M16N8K16",
            Shape::M16N8K8 => "M16N8K8",
            Shape::M16N8K32 => "M16N8K32",
            Shape::Wgmma { n, k } => WGMMA_NAMES
                .iter()
                .find(|(kk, _)| *kk == k)
                .map_or("?", |(_, names)| names[usize::from(n / 8 - 1)]),
        }
    }

    pub fn from_name(name: &str) -> Option<Shape> {
        if let Some(s) = Shape::ALL.into_iter().find(|s| s.name() == name) {
            return Some(s);
        }
        WGMMA_NAMES.iter().find_map(|(k, names)| {
            let i = names.iter().position(|w| *w == name)?;
            Some(Shape::Wgmma {
                n: 8 * (i as u16 + 1),
                k: *k,
            })
        })
    }

    /// A `wgmma` shape: a warpgroup's accumulator.
    pub fn is_wgmma(self) -> bool {
        matches!(self, Shape::Wgmma { .. })
    }

    fn mnk(self) -> (u64, u64, u64) {
        match self {
            Shape::M16N8K16 => (16, 8, 16),
            Shape::M16N8K8 => (16, 8, 8),
            Shape::M16N8K32 => (16, 8, 32),
            Shape::Wgmma { n, k } => (64, u64::from(n), u64::from(k)),
        }
    }
}

/// A fragment type: its operand, element type and shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Frag {
    pub role: Role,
    pub elem: Scalar,
    pub shape: Shape,
}

impl Frag {
    /// The elements each lane holds (`frag.x.len()`): the operand's over 32 lanes (over
    /// the 128 threads of a warpgroup for a `wgmma` shape).
    pub fn len(&self) -> u64 {
        let (m, n, k) = self.shape.mnk();
        let (r, c) = match self.role {
            Role::A => (m, k),
            Role::B => (k, n),
            Role::Acc => (m, n),
        };
        let threads = if self.shape.is_wgmma() { 128 } else { 32 };
        r * c / threads
    }

    /// The C type (runtime/src/prelude_mma.cuh): `ws_frag<ws_f16, 8>`.
    pub fn c_type(&self) -> String {
        format!("ws_frag<{}, {}>", self.elem.c_name(), self.len())
    }

    /// The element types a fragment of this role and shape may hold: those of the table's
    /// rows.
    pub fn elems(role: Role, shape: Shape) -> Vec<Scalar> {
        if let Shape::Wgmma { k, .. } = shape {
            let mut v = Vec::new();
            for r in WGMMA.iter().filter(|r| r.k == k) {
                // A in registers: the 16-bit rows only (tf32's is left).
                let s = match role {
                    Role::Acc => r.acc,
                    Role::A if r.k == 16 => r.ab,
                    _ => continue,
                };
                if !v.contains(&s) {
                    v.push(s);
                }
            }
            return v;
        }
        let mut v = Vec::new();
        for r in MMA.iter().filter(|r| r.shape == shape) {
            let s = match role {
                Role::A => r.ab,
                Role::B => r.b,
                Role::Acc => r.acc,
            };
            if !v.contains(&s) {
                v.push(s);
            }
        }
        v
    }
}

impl fmt::Display for Frag {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(
            f,
            "{}<{}, {}>",
            self.role.type_name(),
            self.elem.rust_name(),
            self.shape.name()
        )
    }
}

/// The methods of a fragment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FragMethod {
    /// `acc.mma_sync(a, b)`: `acc = a * b + acc`, a row of [`MMA`].
    MmaSync(&'static MmaRow),
    /// `frag.ldmatrix(&tile, row)` or `frag.ldmatrix_trans(&tile, row)`: the fragment from
    /// a shared array, a row of [`LDMATRIX`].
    LdMatrix(&'static MatrixRow),
    /// `frag.stmatrix(&mut tile, row)` or `frag.stmatrix_trans(&mut tile, row)`: the
    /// fragment into a shared array (sm_90), a row of [`STMATRIX`].
    StMatrix(&'static MatrixRow),
    /// `acc.wgmma(a, &b_tile, k)` (`acc = A * B^T + acc`, B K-major) or
    /// `acc.wgmma_trans_b(a, &b_tile, k)` (`acc = A * B + acc`, B MN-major), A a tile or a
    /// `FragmentA`: a row of [`WGMMA`] and the form.
    Wgmma(&'static WgmmaRow, WgmmaForm),
    /// `a.load_acc(acc, j)`: a `wgmma`'s register A from slab `j` of an accumulator of
    /// N columns (the field), rounded to A's element type.
    LoadAcc(u16),
}

/// The operands' form of a `wgmma`: where A comes from, how B is laid out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WgmmaForm {
    /// A is a `FragmentA` in registers, not a tile in shared memory.
    pub regs: bool,
    /// B is MN-major (`wgmma_trans_b`: a K x N tile, rows of N), not K-major.
    pub trans_b: bool,
}

impl WgmmaForm {
    /// The prelude helper's suffix (runtime/src/prelude_wgmma_gen.rs).
    pub fn suffix(self) -> &'static str {
        match (self.regs, self.trans_b) {
            (false, false) => "",
            (true, false) => "_rs",
            (false, true) => "_tb",
            (true, true) => "_rs_tb",
        }
    }
}

/// One `ldmatrix` or `stmatrix` instruction: how many 8 x 8 matrices (one .b32 register
/// each, so a fragment of `2 * num` 16-bit elements), and whether transposed.
#[derive(Debug, PartialEq, Eq)]
pub struct MatrixRow {
    pub num: u64,
    pub trans: bool,
    /// The PTX instruction, as the prelude helper writes it.
    pub ptx: &'static str,
    /// The prelude helper: `void f(ws_frag<T, 2 * num>* f, T* tile, len, row, line, file)`
    /// (`stmatrix`: the fragment by reference).
    pub c: &'static str,
}

/// Every `ldmatrix` the kernel language has: the method (`ldmatrix`, `ldmatrix_trans`)
/// and the fragment's length pick the row.
pub const LDMATRIX: &[MatrixRow] = &[
    MatrixRow {
        num: 1,
        trans: false,
        ptx: "ldmatrix.sync.aligned.m8n8.x1.shared.b16",
        c: "ws_ldmatrix_x1",
    },
    MatrixRow {
        num: 2,
        trans: false,
        ptx: "ldmatrix.sync.aligned.m8n8.x2.shared.b16",
        c: "ws_ldmatrix_x2",
    },
    MatrixRow {
        num: 4,
        trans: false,
        ptx: "ldmatrix.sync.aligned.m8n8.x4.shared.b16",
        c: "ws_ldmatrix_x4",
    },
    MatrixRow {
        num: 1,
        trans: true,
        ptx: "ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16",
        c: "ws_ldmatrix_x1_trans",
    },
    MatrixRow {
        num: 2,
        trans: true,
        ptx: "ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16",
        c: "ws_ldmatrix_x2_trans",
    },
    MatrixRow {
        num: 4,
        trans: true,
        ptx: "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16",
        c: "ws_ldmatrix_x4_trans",
    },
];

/// Every `stmatrix` (sm_90): as [`LDMATRIX`], the other way.
pub const STMATRIX: &[MatrixRow] = &[
    MatrixRow {
        num: 1,
        trans: false,
        ptx: "stmatrix.sync.aligned.m8n8.x1.shared.b16",
        c: "ws_stmatrix_x1",
    },
    MatrixRow {
        num: 2,
        trans: false,
        ptx: "stmatrix.sync.aligned.m8n8.x2.shared.b16",
        c: "ws_stmatrix_x2",
    },
    MatrixRow {
        num: 4,
        trans: false,
        ptx: "stmatrix.sync.aligned.m8n8.x4.shared.b16",
        c: "ws_stmatrix_x4",
    },
    MatrixRow {
        num: 1,
        trans: true,
        ptx: "stmatrix.sync.aligned.m8n8.x1.trans.shared.b16",
        c: "ws_stmatrix_x1_trans",
    },
    MatrixRow {
        num: 2,
        trans: true,
        ptx: "stmatrix.sync.aligned.m8n8.x2.trans.shared.b16",
        c: "ws_stmatrix_x2_trans",
    },
    MatrixRow {
        num: 4,
        trans: true,
        ptx: "stmatrix.sync.aligned.m8n8.x4.trans.shared.b16",
        c: "ws_stmatrix_x4_trans",
    },
];

/// The `ldmatrix` that fills `f` (`trans` for `ldmatrix_trans`): 16-bit elements, one
/// matrix per two elements a lane.
pub fn ldmatrix_row(f: &Frag, trans: bool) -> Option<&'static MatrixRow> {
    matrix_row(LDMATRIX, f, trans)
}

/// The `stmatrix` that stores `f` (`trans` for `stmatrix_trans`).
pub fn stmatrix_row(f: &Frag, trans: bool) -> Option<&'static MatrixRow> {
    matrix_row(STMATRIX, f, trans)
}

fn matrix_row(table: &'static [MatrixRow], f: &Frag, trans: bool) -> Option<&'static MatrixRow> {
    if f.elem.bits() != 16 {
        return None;
    }
    table
        .iter()
        .find(|r| r.trans == trans && 2 * r.num == f.len())
}

/// One `mma.sync` instruction.
#[derive(Debug, PartialEq, Eq)]
pub struct MmaRow {
    pub shape: Shape,
    /// The element type of A (and of B but for the mixed 8-bit rows).
    pub ab: Scalar,
    /// The element type of B.
    pub b: Scalar,
    /// The element type of C and D.
    pub acc: Scalar,
    /// The PTX instruction, as the prelude helper writes it.
    pub ptx: &'static str,
    /// The prelude helper: `void f(ws_frag<Acc, 4>* d, ws_frag<A, ..> a, ws_frag<B, ..> b)`.
    pub c: &'static str,
    /// The runtime's `MmaShape` variant: the shape, and for tf32 its own layout.
    pub sim_shape: &'static str,
}

/// Every `mma.sync` the kernel language has.
pub const MMA: &[MmaRow] = &[
    MmaRow {
        shape: Shape::M16N8K16,
        ab: Scalar::F16,
        b: Scalar::F16,
        acc: Scalar::F32,
        ptx: "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32",
        c: "ws_mma_m16n8k16_f32_f16",
        sim_shape: "M16N8K16",
    },
    MmaRow {
        shape: Shape::M16N8K16,
        ab: Scalar::F16,
        b: Scalar::F16,
        acc: Scalar::F16,
        ptx: "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16",
        c: "ws_mma_m16n8k16_f16_f16",
        sim_shape: "M16N8K16",
    },
    MmaRow {
        shape: Shape::M16N8K8,
        ab: Scalar::F16,
        b: Scalar::F16,
        acc: Scalar::F32,
        ptx: "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32",
        c: "ws_mma_m16n8k8_f32_f16",
        sim_shape: "M16N8K8",
    },
    MmaRow {
        shape: Shape::M16N8K8,
        ab: Scalar::F16,
        b: Scalar::F16,
        acc: Scalar::F16,
        ptx: "mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16",
        c: "ws_mma_m16n8k8_f16_f16",
        sim_shape: "M16N8K8",
    },
    // bf16 operands accumulate in f32 only (PTX has no bf16 accumulator).
    MmaRow {
        shape: Shape::M16N8K16,
        ab: Scalar::Bf16,
        b: Scalar::Bf16,
        acc: Scalar::F32,
        ptx: "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32",
        c: "ws_mma_m16n8k16_f32_bf16",
        sim_shape: "M16N8K16",
    },
    MmaRow {
        shape: Shape::M16N8K8,
        ab: Scalar::Bf16,
        b: Scalar::Bf16,
        acc: Scalar::F32,
        ptx: "mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32",
        c: "ws_mma_m16n8k8_f32_bf16",
        sim_shape: "M16N8K8",
    },
    // `.tf32` operands are f32 fragments in a kernel: only this shape multiplies f32.
    MmaRow {
        shape: Shape::M16N8K8,
        ab: Scalar::F32,
        b: Scalar::F32,
        acc: Scalar::F32,
        ptx: "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32",
        c: "ws_mma_m16n8k8_f32_tf32",
        sim_shape: "M16N8K8Tf32",
    },
    // 8-bit operands, four to a .b32 register: integers into `.s32` (wrapping, no
    // `.satfinite`), fp8 into `.f32` (sm_89 and later: runtime/src/cuda/compile/arch.rs).
    MmaRow {
        shape: Shape::M16N8K32,
        ab: Scalar::I8,
        b: Scalar::I8,
        acc: Scalar::I32,
        ptx: "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32",
        c: "ws_mma_m16n8k32_s32_s8",
        sim_shape: "M16N8K32",
    },
    MmaRow {
        shape: Shape::M16N8K32,
        ab: Scalar::U8,
        b: Scalar::U8,
        acc: Scalar::I32,
        ptx: "mma.sync.aligned.m16n8k32.row.col.s32.u8.u8.s32",
        c: "ws_mma_m16n8k32_s32_u8",
        sim_shape: "M16N8K32",
    },
    MmaRow {
        shape: Shape::M16N8K32,
        ab: Scalar::E4m3,
        b: Scalar::E4m3,
        acc: Scalar::F32,
        ptx: "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32",
        c: "ws_mma_m16n8k32_f32_e4m3",
        sim_shape: "M16N8K32",
    },
    MmaRow {
        shape: Shape::M16N8K32,
        ab: Scalar::E5m2,
        b: Scalar::E5m2,
        acc: Scalar::F32,
        ptx: "mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e5m2.f32",
        c: "ws_mma_m16n8k32_f32_e5m2",
        sim_shape: "M16N8K32",
    },
    // Mixed 8-bit operands: A and B of two types of one kind.
    MmaRow {
        shape: Shape::M16N8K32,
        ab: Scalar::I8,
        b: Scalar::U8,
        acc: Scalar::I32,
        ptx: "mma.sync.aligned.m16n8k32.row.col.s32.s8.u8.s32",
        c: "ws_mma_m16n8k32_s32_s8_u8",
        sim_shape: "M16N8K32",
    },
    MmaRow {
        shape: Shape::M16N8K32,
        ab: Scalar::U8,
        b: Scalar::I8,
        acc: Scalar::I32,
        ptx: "mma.sync.aligned.m16n8k32.row.col.s32.u8.s8.s32",
        c: "ws_mma_m16n8k32_s32_u8_s8",
        sim_shape: "M16N8K32",
    },
    MmaRow {
        shape: Shape::M16N8K32,
        ab: Scalar::E4m3,
        b: Scalar::E5m2,
        acc: Scalar::F32,
        ptx: "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e5m2.f32",
        c: "ws_mma_m16n8k32_f32_e4m3_e5m2",
        sim_shape: "M16N8K32",
    },
    MmaRow {
        shape: Shape::M16N8K32,
        ab: Scalar::E5m2,
        b: Scalar::E4m3,
        acc: Scalar::F32,
        ptx: "mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e4m3.f32",
        c: "ws_mma_m16n8k32_f32_e5m2_e4m3",
        sim_shape: "M16N8K32",
    },
];

/// One `wgmma.mma_async` operand type: every shape `.m64nNkK` (N a multiple of 8 in
/// 8..=256) has it, with an f32 accumulator; the prelude helper of shape N is
/// `ws_wgmma_m64n{N}k{K}_f32_{ptx}` (runtime/src/prelude_wgmma.cuh, generated per N and
/// row). A tile row is 128 bytes of K (the 128B swizzle's row) whatever the type, so K is
/// 32 bytes a slab: 16 16-bit elements, 8 tf32 ones.
#[derive(Debug, PartialEq, Eq)]
pub struct WgmmaRow {
    /// The element type of the A and B tiles.
    pub ab: Scalar,
    /// The element type of the accumulator.
    pub acc: Scalar,
    /// The PTX type of A and B (`bf16`).
    pub ptx: &'static str,
    /// The shape's K: the marker types of this row are `M64N{N}K{k}`.
    pub k: u8,
    /// The simulator's `MmaElem` variant: how it reads the tiles' elements.
    pub sim_elem: &'static str,
}

/// Every `wgmma` operand type the kernel language has (f16 accumulators are left).
pub const WGMMA: &[WgmmaRow] = &[
    WgmmaRow {
        ab: Scalar::Bf16,
        acc: Scalar::F32,
        ptx: "bf16",
        k: 16,
        sim_elem: "Bf16",
    },
    WgmmaRow {
        ab: Scalar::F16,
        acc: Scalar::F32,
        ptx: "f16",
        k: 16,
        sim_elem: "F16",
    },
    // f32 tiles multiply as `.tf32` (sign, exponent and the 10 high mantissa bits).
    WgmmaRow {
        ab: Scalar::F32,
        acc: Scalar::F32,
        ptx: "tf32",
        k: 8,
        sim_elem: "Tf32",
    },
];

impl WgmmaRow {
    /// The prelude helper for shape N and a form.
    pub fn c(&self, n: u16, form: WgmmaForm) -> String {
        format!(
            "ws_wgmma_m64n{n}k{}_f32_{}{}",
            self.k,
            self.ptx,
            form.suffix()
        )
    }

    /// The PTX instruction of shape N (the drift test reads it).
    #[cfg_attr(not(test), allow(dead_code))]
    pub fn instruction(&self, n: u16) -> String {
        format!(
            "wgmma.mma_async.sync.aligned.m64n{n}k{}.f32.{}.{}",
            self.k, self.ptx, self.ptx
        )
    }

    /// The elements of one tile row: 128 bytes of K, four slabs of K.
    pub fn row_len(&self) -> u64 {
        4 * u64::from(self.k)
    }
}

/// The `wgmma` row of tiles of `ab` into an accumulator of `acc` in shapes of this `k`.
pub fn wgmma_row(ab: Scalar, acc: Scalar, k: u8) -> Option<&'static WgmmaRow> {
    WGMMA
        .iter()
        .find(|r| r.ab == ab && r.acc == acc && r.k == k)
}

/// The row for an accumulator of `acc`, A of `a` and B of `b`, in `shape`.
pub fn mma_row(shape: Shape, a: Scalar, b: Scalar, acc: Scalar) -> Option<&'static MmaRow> {
    MMA.iter()
        .find(|r| r.shape == shape && r.ab == a && r.b == b && r.acc == acc)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each row's helper is in the prelude and issues the row's PTX.
    #[test]
    fn rows_have_their_helpers() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../runtime/src/prelude_mma.cuh"
        );
        let text = std::fs::read_to_string(path).expect("prelude_mma.cuh");
        let rows = MMA
            .iter()
            .map(|r| (r.c, r.ptx))
            .chain(LDMATRIX.iter().chain(STMATRIX).map(|r| (r.c, r.ptx)));
        for (c, ptx) in rows {
            let at = text
                .find(&format!("void {c}("))
                .unwrap_or_else(|| panic!("{c} is not in prelude_mma.cuh"));
            let body = &text[at..];
            let body = &body[..body.find("\n}").unwrap_or(body.len())];
            assert!(body.contains(ptx), "{c} does not issue {ptx}");
        }
    }

    /// Each wgmma row has a helper of every shape in prelude_wgmma.cuh, issuing its PTX.
    #[test]
    fn wgmma_rows_have_their_helpers() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../runtime/src/prelude_wgmma.cuh"
        );
        let text = std::fs::read_to_string(path).expect("prelude_wgmma.cuh");
        for r in WGMMA {
            for n in (8..=256).step_by(8) {
                let forms = [(false, false), (true, false), (false, true), (true, true)];
                for (regs, trans_b) in forms {
                    let form = WgmmaForm { regs, trans_b };
                    if (r.k != 16 && (regs || trans_b)) || (trans_b && n % 64 != 0) {
                        continue;
                    }
                    let c = r.c(n, form);
                    let at = text
                        .find(&format!("void {c}("))
                        .unwrap_or_else(|| panic!("{c} is not in prelude_wgmma.cuh"));
                    let body = &text[at..];
                    let body = &body[..body.find("\n}").unwrap_or(body.len())];
                    assert!(body.contains(&r.instruction(n)), "{c}");
                }
                let c = r.c(
                    n,
                    WgmmaForm {
                        regs: false,
                        trans_b: false,
                    },
                );
                let at = text
                    .find(&format!("void {c}("))
                    .unwrap_or_else(|| panic!("{c} is not in prelude_wgmma.cuh"));
                let body = &text[at..];
                let body = &body[..body.find("\n}").unwrap_or(body.len())];
                assert!(body.contains(&r.instruction(n)), "{c}");
                let name = format!("M64N{n}K{}", r.k);
                let shape = Shape::from_name(&name).unwrap();
                assert_eq!(shape.name(), name);
                assert_eq!(shape, Shape::Wgmma { n, k: r.k });
                let acc = Frag {
                    role: Role::Acc,
                    elem: r.acc,
                    shape,
                };
                assert_eq!(acc.len(), u64::from(n / 2));
            }
        }
    }
}
