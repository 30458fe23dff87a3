//! Tensor-core fragments in the type checker (`ir/ty/fragment.rs` has the types and the
//! `mma.sync` table; docs/tensor-cores.md): `frag.x` is a local array of the fragment's
//! elements, `acc.mma_sync(a, b)` resolves to a row of the table, or is refused at the
//! argument whose shape or element type no row takes.

use super::*;
use crate::ir::ty::fragment::{
    ldmatrix_row, mma_row, stmatrix_row, wgmma_row, Frag, FragMethod, Role, Shape, WgmmaForm,
    WgmmaRow, WGMMA,
};

impl Typeck<'_> {
    /// `frag.x`: the lane's elements, a local array.
    pub(super) fn fragment_field(&mut self, e: &Expr, f: Frag, m: &Member) -> Ty {
        match m {
            Member::Named(n) if n == "x" => {
                Ty::Array(Box::new(Ty::Scalar(f.elem)), Len::Lit(f.len()))
            }
            _ => {
                let m = match m {
                    Member::Named(n) => n.clone(),
                    Member::Index(i) => i.to_string(),
                };
                self.cx.error_at(
                    e.range(),
                    format!(
                        "no field `{m}` on `{f}`: a fragment's elements are `frag.x[i]`, i < {}",
                        f.len()
                    ),
                );
                Ty::Never
            }
        }
    }

    /// Whether `root` (of an assignment `root[i] = ..`) is `frag.x` of a local fragment,
    /// whose elements are assigned as a local array's.
    pub(super) fn fragment_elements(&mut self, root: &Expr) -> bool {
        let ExprKind::Field(base, Member::Named(n)) = &root.kind else {
            return false;
        };
        n == "x"
            && matches!(base.kind, ExprKind::Var(..))
            && matches!(self.shallow(&self.expr[base.id].clone()), Ty::Fragment(_))
    }

    /// A literal index past the end of a local array of known length (`frag.x[8]` of an
    /// 8-element fragment): rustc refuses it too, here at the index.
    pub(super) fn constant_index(&mut self, base: &Expr, idx: &Expr, len: &Len) {
        let (ExprKind::Lit(Lit::Int(v, _)), Some(n)) = (&idx.kind, len.known()) else {
            return;
        };
        if u128::from(n) > *v {
            return;
        }
        let of = match &base.kind {
            ExprKind::Field(frag, _) => match self.shallow(&self.expr[frag.id].clone()) {
                Ty::Fragment(f) => Some(f),
                _ => None,
            },
            _ => None,
        };
        let msg = match of {
            Some(f) => format!(
                "index {v} is out of range: each lane holds {n} elements of a `{f}`, `x[0]` to `x[{}]`",
                n - 1
            ),
            None => format!("index {v} is out of range: the array has {n} elements (indices 0..{n})"),
        };
        self.cx.error_at(idx.range(), msg);
    }

    /// A method called on a fragment.
    pub(super) fn fragment_method(&mut self, e: &Expr, f: Frag, name: &Ident, args: &[Expr]) -> Ty {
        let arg_tys: Vec<Ty> = args.iter().map(|a| self.infer(a, None)).collect();
        if ["ldmatrix", "ldmatrix_trans", "stmatrix", "stmatrix_trans"]
            .contains(&name.to_string().as_str())
        {
            return self.matrix_move(e, f, name, args, &arg_tys);
        }
        if name == "wgmma" || name == "wgmma_trans_b" {
            return self.wgmma(e, f, name, args, &arg_tys);
        }
        if name == "load_acc" {
            return self.load_acc(e, f, args, &arg_tys);
        }
        if name != "mma_sync" {
            self.cx.error_at(
                name.span(),
                format!("no method `{name}` on `{f}`: a fragment has its elements `x` (`frag.x[i]`), `ldmatrix(&tile, row)`, `stmatrix(&mut tile, row)` (and their `_trans`), and an accumulator `mma_sync(a, b)` (a warpgroup's `wgmma(a, &b_tile, k)` and `wgmma_trans_b(a, &b_tile, k)`)"),
            );
            return Ty::Never;
        }
        if f.shape.is_wgmma() {
            self.cx.error_at(
                name.span(),
                format!("`{f}` is a warpgroup's `wgmma` accumulator: it multiplies tiles in shared memory with `acc.wgmma(&a_tile, &b_tile, k)`; `mma_sync` is for the accumulators of `M16N8K16`, `M16N8K8` and `M16N8K32`"),
            );
            return Ty::Never;
        }
        if f.role != Role::Acc {
            self.cx.error_at(
                name.span(),
                format!("`mma_sync` is the accumulator's: `acc.mma_sync(a, b)` with `acc` a `FragmentAcc<_, {}>`, and this is `{f}`", f.shape.name()),
            );
            return Ty::Never;
        }
        if args.len() != 2 {
            self.cx.error_at(
                e.range(),
                format!("`mma_sync` takes 2 arguments, {} given: `acc.mma_sync(a, b)` computes `acc = a * b + acc`", args.len()),
            );
            return Ty::Never;
        }
        let mut frags = [None, None];
        for (k, (role, what)) in [(Role::A, "first"), (Role::B, "second")]
            .into_iter()
            .enumerate()
        {
            let want = Frag { role, ..f };
            match self.shallow(&arg_tys[k]) {
                Ty::Never => return Ty::Never,
                Ty::Fragment(g) if g.role == role && g.shape == f.shape => frags[k] = Some(g),
                Ty::Fragment(g) if g.role == role => {
                    // Suggest the operand of the accumulator's shape: of g's element type
                    // where that shape takes it, else of the accumulator's row.
                    let elem = match Frag::elems(role, f.shape).contains(&g.elem) {
                        true => g.elem,
                        false => crate::ir::ty::fragment::MMA
                            .iter()
                            .find(|r| r.shape == f.shape && r.acc == f.elem)
                            .map_or(g.elem, |r| r.ab),
                    };
                    self.cx.error_at(
                        args[k].range(),
                        format!("this is a `{g}`, and the accumulator is `{f}`: the shapes must agree (`{}`)", Frag { elem, ..want }),
                    );
                    return Ty::Never;
                }
                other => {
                    let found = self.show(&other);
                    self.cx.error_at(
                        args[k].range(),
                        format!("the {what} argument of `mma_sync` is the {} fragment, a `{}<_, {}>`, and this is `{found}`", if role == Role::A { "A" } else { "B" }, role.type_name(), f.shape.name()),
                    );
                    return Ty::Never;
                }
            }
        }
        let (Some(a), Some(b)) = (frags[0], frags[1]) else {
            return Ty::Never;
        };
        let Some(row) = mma_row(f.shape, a.elem, b.elem, f.elem) else {
            let rows = || {
                crate::ir::ty::fragment::MMA
                    .iter()
                    .filter(|r| r.shape == f.shape && r.ab == a.elem)
            };
            let or = |v: Vec<&str>| {
                v.iter()
                    .map(|s| format!("`{s}`"))
                    .collect::<Vec<_>>()
                    .join(" or ")
            };
            if !rows().any(|r| r.b == b.elem) {
                let mut bs: Vec<&str> = rows().map(|r| r.b.rust_name()).collect();
                bs.dedup();
                self.cx.error_at(
                    args[1].range(),
                    format!("A holds `{}` and B `{}`: no `mma.sync` of shape {} multiplies them; with this A, B holds {}", a.elem.rust_name(), b.elem.rust_name(), f.shape.name().to_lowercase(), or(bs)),
                );
                return Ty::Never;
            }
            let accs: Vec<&str> = rows()
                .filter(|r| r.b == b.elem)
                .map(|r| r.acc.rust_name())
                .collect();
            self.cx.error_at(
                args[0].range(),
                format!(
                    "no `mma.sync` of shape {} multiplies `{}` into a `{}` accumulator: its accumulator is {}",
                    f.shape.name().to_lowercase(),
                    a.elem.rust_name(),
                    f.elem.rust_name(),
                    or(accs)
                ),
            );
            return Ty::Never;
        };
        self.calls
            .insert(e.id, Call::Fragment(FragMethod::MmaSync(row)));
        Ty::Unit
    }

    /// `acc.wgmma(a, &b_tile, k)` and `acc.wgmma_trans_b(a, &b_tile, k)`: `acc` a `wgmma`
    /// accumulator; A a tile (a slice of shared memory: a shared array or
    /// `dynamic_shared`) or a `FragmentA` of the accumulator's shape; B a tile; of one
    /// element type of a [`WGMMA`](crate::ir::ty::fragment::WGMMA) row of the
    /// accumulator's K (16-bit floats in K16 shapes, f32 as tf32 in K8 ones; MN-major B
    /// and register A 16-bit only, MN-major B of N a multiple of 64); `k` a `usize` (a
    /// literal one in 0..4 where a tile of 128-byte rows of K is read).
    fn wgmma(&mut self, e: &Expr, f: Frag, name: &Ident, args: &[Expr], arg_tys: &[Ty]) -> Ty {
        let trans_b = name == "wgmma_trans_b";
        let (Shape::Wgmma { n, k: kk }, Role::Acc) = (f.shape, f.role) else {
            self.cx.error_at(
                name.span(),
                format!("`{name}` is a warpgroup accumulator's: `acc.{name}(a, &b_tile, k)` with `acc` a `FragmentAcc<f32, M64N{{N}}K16>` (`FragmentAcc::<f32, M64N128K16>::zeroed()`; `M64N{{N}}K8` for f32 tiles), and this is `{f}`"),
            );
            return Ty::Never;
        };
        // The row family of this K: its element types and its tile rows (128 bytes).
        let family: Vec<&WgmmaRow> = WGMMA.iter().filter(|r| r.k == kk).collect();
        let row_len = family.first().map_or(0, |r| r.row_len());
        let types: Vec<String> = family
            .iter()
            .map(|r| format!("`{}`", r.ab.rust_name()))
            .collect();
        let types = types.join(" or ");
        if args.len() != 3 {
            let what = match trans_b {
                false => "`acc = A * B^T + acc`, B given N x K",
                true => "`acc = A * B + acc`, B given K x N",
            };
            self.cx.error_at(
                e.range(),
                format!("`{name}` takes 3 arguments, {} given: `acc.{name}(a, &b_tile, k)` computes {what}, for the {kk} columns of K at `{kk} * k`", args.len()),
            );
            return Ty::Never;
        }
        if trans_b && (kk != 16 || n % 64 != 0) {
            let why = match kk {
                16 => format!("its N is whole 64-element column blocks of the tile, and this accumulator's N is {n}: use `M64N64K16`, `M64N128K16`, `M64N192K16` or `M64N256K16`"),
                _ => format!("its tiles are 16-bit (`bf16`, `f16`; tf32 reads B K-major only), and this accumulator is `{f}`: use `acc.wgmma(a, &b_tile, k)` with B given N x K"),
            };
            self.cx.error_at(
                name.span(),
                format!("`wgmma_trans_b` reads an MN-major B tile: {why}"),
            );
            return Ty::Never;
        }
        let mut elems = [None, None];
        let mut regs = false;
        for (j, (what, len)) in [
            ("A", format!("64 * {row_len}")),
            (
                "B",
                match trans_b {
                    true => format!("rows * {n}"),
                    false => format!("{n} * {row_len}"),
                },
            ),
        ]
        .into_iter()
        .enumerate()
        {
            let shared = self
                .borrow_root(&args[j])
                .is_some_and(|r| self.shared_decls.contains(&r.var));
            match self.shallow(&arg_tys[j]) {
                Ty::Never => return Ty::Never,
                Ty::Slice(s, _) if shared && WGMMA.iter().any(|r| r.ab == s) => elems[j] = Some(s),
                Ty::Fragment(g) if j == 0 && g.role == Role::A => {
                    if g.shape != f.shape {
                        self.cx.error_at(
                            args[0].range(),
                            format!("this is a `{g}`, and the accumulator is `{f}`: the shapes must agree (`FragmentA<{}, {}>`)", g.elem.rust_name(), f.shape.name()),
                        );
                        return Ty::Never;
                    }
                    regs = true;
                    elems[0] = Some(g.elem);
                }
                other => {
                    let found = self.show(&other);
                    let at = if j == 0 { "a" } else { "b" };
                    let why = match other {
                        Ty::Slice(..) if !shared => {
                            " of global memory (copy it into a shared tile first)"
                        }
                        _ => "",
                    };
                    let elem = family.first().map_or("bf16", |r| r.ab.rust_name());
                    let or_frag = match (j, kk) {
                        (0, 16) => format!(
                            ", or a `FragmentA<{elem}, {}>` in registers",
                            f.shape.name()
                        ),
                        _ => String::new(),
                    };
                    self.cx.error_at(
                        args[j].range(),
                        format!("the {what} tile of `{name}` into a `{f}` is a slice of shared memory of {types}: `&tile[{at}..{at} + {len}]` of a `SharedArray` declared in this function or of `dynamic_shared::<{elem}>()`{or_frag}, and this is `{found}`{why}"),
                    );
                    return Ty::Never;
                }
            }
        }
        let (Some(a), Some(b)) = (elems[0], elems[1]) else {
            return Ty::Never;
        };
        if a != b {
            self.cx.error_at(
                args[1].range(),
                format!(
                    "A holds `{}` and B `{}`: `{name}` multiplies two operands of one element type",
                    a.rust_name(),
                    b.rust_name()
                ),
            );
            return Ty::Never;
        }
        let Some(row) = wgmma_row(a, f.elem, kk) else {
            // Tiles of another row family's type: name the accumulator shape they need.
            let want = match WGMMA.iter().find(|r| r.ab == a && r.acc == f.elem) {
                Some(r) => format!(
                    "`{}` tiles multiply{} into a `FragmentAcc<{}, M64N{n}K{}>`, and this accumulator is `{f}`: its {kk}-wide slabs of K take {types} tiles",
                    a.rust_name(),
                    match r.ptx == a.rust_name() {
                        true => String::new(),
                        false => format!(" (as `.{}`)", r.ptx),
                    },
                    f.elem.rust_name(),
                    r.k
                ),
                None => format!("no `wgmma` multiplies `{}` tiles into a `{}` accumulator: its accumulator is `f32`", a.rust_name(), f.elem.rust_name()),
            };
            self.cx.error_at(args[0].range(), want);
            return Ty::Never;
        };
        self.expect(&arg_tys[2], &Ty::USIZE, args[2].range());
        // A tile of 128-byte rows of K has 4 slabs; an MN-major B read with A in registers
        // has as many as its rows / 16, known at run time.
        if let ExprKind::Lit(Lit::Int(v, _)) = &args[2].kind {
            if *v >= 4 && !(regs && trans_b) {
                self.cx.error_at(
                    args[2].range(),
                    format!("`k` picks one of the tiles' 4 slabs of {kk} columns of K: 0, 1, 2 or 3, not {v}"),
                );
            }
        }
        let form = WgmmaForm { regs, trans_b };
        self.calls
            .insert(e.id, Call::Fragment(FragMethod::Wgmma(row, form)));
        Ty::Unit
    }

    /// `a.load_acc(acc, j)`: `a` a `FragmentA<bf16 or f16, M64N{N}K16>` (a `wgmma`'s A in
    /// registers), `acc` a `FragmentAcc<f32, M64N{N'}K16>`, `j` a `usize` slab of its
    /// columns (a literal one below N' / 16).
    fn load_acc(&mut self, e: &Expr, f: Frag, args: &[Expr], arg_tys: &[Ty]) -> Ty {
        let usage = "`a.load_acc(acc, j)` sets a `FragmentA<bf16, M64N{N}K16>` (or `f16`) to columns `16 j .. 16 j + 16` of a `FragmentAcc<f32, M64N{N}K16>`, rounded";
        if f.role != Role::A || !matches!(f.shape, Shape::Wgmma { k: 16, .. }) {
            self.cx
                .error_at(e.range(), format!("{usage}, and this is a `{f}`"));
            return Ty::Never;
        }
        if args.len() != 2 {
            self.cx.error_at(
                e.range(),
                format!(
                    "`load_acc` takes 2 arguments, {} given: {usage}",
                    args.len()
                ),
            );
            return Ty::Never;
        }
        let n = match self.shallow(&arg_tys[0]) {
            Ty::Never => return Ty::Never,
            Ty::Fragment(Frag {
                role: Role::Acc,
                elem: Scalar::F32,
                shape: Shape::Wgmma { n, k: 16 },
            }) => n,
            other => {
                let found = self.show(&other);
                self.cx
                    .error_at(args[0].range(), format!("{usage}; this is `{found}`"));
                return Ty::Never;
            }
        };
        self.expect(&arg_tys[1], &Ty::USIZE, args[1].range());
        if let ExprKind::Lit(Lit::Int(v, _)) = &args[1].kind {
            if *v >= u128::from(n / 16) {
                self.cx.error_at(
                    args[1].range(),
                    format!("`j` picks one of the accumulator's {} slabs of 16 columns: 0 to {}, not {v}", n / 16, n / 16 - 1),
                );
            }
        }
        self.calls
            .insert(e.id, Call::Fragment(FragMethod::LoadAcc(n)));
        Ty::Unit
    }

    /// `frag.ldmatrix(&tile, row)` / `ldmatrix_trans` (`store` false) and
    /// `frag.stmatrix(&mut tile, row)` / `stmatrix_trans` (true): `tile` a 1-D shared array
    /// of the fragment's 16-bit elements (or a borrow of one), `row` a `usize`.
    fn matrix_move(
        &mut self,
        e: &Expr,
        f: Frag,
        name: &Ident,
        args: &[Expr],
        arg_tys: &[Ty],
    ) -> Ty {
        let store = name.to_string().starts_with("st");
        let trans = name.to_string().ends_with("_trans");
        let row = match store {
            true => stmatrix_row(&f, trans),
            false => ldmatrix_row(&f, trans),
        };
        let (verb, tile) = if store {
            ("stores", "&mut tile")
        } else {
            ("loads", "&tile")
        };
        let Some(row) = row else {
            let instead = if store {
                "read them through `x[i]`"
            } else {
                "set its elements through `x[i]`"
            };
            self.cx.error_at(
                name.span(),
                format!("`{name}` {verb} fragments of 16-bit elements (`f16`), and this is a `{f}`: {instead}"),
            );
            return Ty::Never;
        };
        if args.len() != 2 {
            self.cx.error_at(
                e.range(),
                format!("`{name}` takes 2 arguments, {} given: `frag.{name}({tile}, row)`, `row` the index in `tile` where this lane's 8-element row starts", args.len()),
            );
            return Ty::Never;
        }
        let shared = self
            .borrow_root(&args[0])
            .is_some_and(|r| self.shared_decls.contains(&r.var));
        match self.shallow(&arg_tys[0]) {
            Ty::Never => return Ty::Never,
            Ty::Slice(s, writable) if s == f.elem && shared && (writable || !store) => {}
            other => {
                let found = self.show(&other);
                let access = if store { "writes" } else { "reads" };
                self.cx.error_at(
                    args[0].range(),
                    format!("`{name}` {access} a shared array of `{}` declared in this function (`let tile = SharedArray::<{}, N>::new();`, passed as `{tile}`), and this is `{found}`", f.elem.rust_name(), f.elem.rust_name()),
                );
                return Ty::Never;
            }
        }
        self.expect(&arg_tys[1], &Ty::USIZE, args[1].range());
        let m = match store {
            true => FragMethod::StMatrix(row),
            false => FragMethod::LdMatrix(row),
        };
        self.calls.insert(e.id, Call::Fragment(m));
        Ty::Unit
    }
}
