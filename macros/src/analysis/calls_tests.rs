//! Every method call of a type-checked kernel has one resolved `Call` in `Types::calls`,
//! of the kind the emitters match on.

use crate::ctxt::Ctxt;
use crate::ir::ast::{ExprKind, FnKind};
use crate::ir::call::Call;
use crate::ir::visit::walk_block;
use crate::parse::Parser;

#[test]
fn every_method_call_resolves_to_one_call() {
    let item: syn::ItemFn = syn::parse_quote! {
        fn k(out: &mut [f32], xs: &[f32], n: &[AtomicU32], tex: &Texture2D<f32>) {
            let i = grid_1d();
            let block = this_thread_block();
            let tile = tiled_partition::<32>(block);
            block.sync();
            let v = tile.shfl(xs[i].abs(), 0);
            let old = n[0].fetch_add(1, Ordering::Relaxed);
            let won = n[1].compare_exchange(0, old, Ordering::AcqRel, Ordering::Relaxed).is_ok();
            let t = tex.fetch(1, 2) + tex.width() as f32;
            let mut acc = FragmentAcc::<f32, M16N8K16>::zeroed();
            acc.mma_sync(FragmentA::<f16, M16N8K16>::zeroed(), FragmentB::<f16, M16N8K16>::zeroed());
            if won && i < xs.len() {
                out[i] = v + t;
            }
        }
    };
    let cx = Ctxt::new();
    let mut parser = Parser::new(&cx, Vec::new());
    let f = parser.function(&item, FnKind::Kernel, false);
    let types = f
        .as_ref()
        .and_then(|f| crate::analysis::typeck::check(&cx, f, parser.next_var));
    if let Err(e) = cx.check() {
        panic!("the kernel is refused: {e}");
    }
    let (f, types) = (f.unwrap(), types.unwrap());
    let mut kinds = Vec::new();
    walk_block(&f.body, &mut |e| {
        if let ExprKind::Method(_, name, _) = &e.kind {
            let kind = match types.calls.get(&e.id) {
                Some(Call::Method(_)) => "method",
                Some(Call::Atomic(_)) => "atomic",
                Some(Call::CasUse(_)) => "cas_use",
                Some(Call::Group(..)) => "group",
                Some(Call::Texture(_)) => "texture",
                Some(Call::Fragment(_)) => "fragment",
                Some(Call::Mbarrier(_)) => "mbarrier",
                None => "unresolved",
            };
            kinds.push(format!("{name}: {kind}"));
        }
    });
    kinds.sort();
    assert_eq!(
        kinds,
        [
            "abs: method",
            "compare_exchange: atomic",
            "fetch: texture",
            "fetch_add: atomic",
            "is_ok: cas_use",
            "len: method",
            "mma_sync: fragment",
            "shfl: group",
            "sync: group",
            "width: texture",
        ]
    );
}
