//! `gpu_print!("x = {} at {:2}\n", x, i)` (and `gpu_println!`): a Rust format string whose
//! pieces become both a C `printf` format and a Rust `format!` for the simulator.
//! Supported: `{}`, `{name}` (a variable), and the specs `{:W}`, `{:0W}`, `{:.P}`,
//! `{:W.P}`, `{:x}`, `{:X}` with widths and precisions as literals: the ones C's printf
//! writes exactly as Rust does.

use super::Parser;
use crate::ir::ast::{Expr, ExprKind, FmtPiece, FmtSpec, Print};
use proc_macro2::Span;
use syn::parse::Parser as _;
use syn::punctuated::Punctuated;

impl Parser<'_> {
    pub(super) fn print_macro_name(&self, mac: &syn::Macro) -> bool {
        mac.path
            .segments
            .last()
            .is_some_and(|s| s.ident == "gpu_print" || s.ident == "gpu_println")
    }

    /// `None` when `mac` is not a print macro; `Some(None)` when it is one with an error.
    pub(super) fn print_macro(&mut self, mac: &syn::Macro) -> Option<Option<ExprKind>> {
        let name = mac.path.segments.last()?.ident.to_string();
        let newline = match name.as_str() {
            "gpu_print" => false,
            "gpu_println" => true,
            _ => return None,
        };
        let parsed =
            Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated.parse2(mac.tokens.clone());
        let items = match parsed {
            Ok(items) => items,
            Err(err) => {
                self.cx.syn_error(err);
                return Some(None);
            }
        };
        let mut items = items.into_iter();
        let Some(syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(fmt),
            ..
        })) = items.next()
        else {
            self.cx.error_spanned_by(
                mac,
                format!("`{name}!` takes a string literal first: `{name}!(\"x = {{}}\\n\", x)`"),
            );
            return Some(None);
        };
        let mut text = fmt.value();
        if newline {
            text.push('\n');
        }
        let mut args: Vec<Expr> = Vec::new();
        let mut ok = true;
        for a in items {
            match self.expr_of(&a) {
                Some(e) => args.push(e),
                None => ok = false,
            }
        }
        let explicit = args.len();
        let pieces = match self.format_pieces(&text, fmt.span(), &mut args) {
            Some(p) => p,
            None => return Some(None),
        };
        let used = pieces
            .iter()
            .filter(|p| matches!(p, FmtPiece::Arg { index, .. } if *index < explicit))
            .count();
        if used != explicit {
            self.cx.error_spanned_by(
                &fmt,
                format!(
                    "{explicit} argument(s) given but the format string has {used} `{{}}` for them"
                ),
            );
            return Some(None);
        }
        if !ok {
            return Some(None);
        }
        Some(Some(ExprKind::Print(Print { pieces, args })))
    }

    /// Splits `text` into literal pieces and argument slots; `{name}` slots append a
    /// variable to `args`.
    fn format_pieces(
        &mut self,
        text: &str,
        span: Span,
        args: &mut Vec<Expr>,
    ) -> Option<Vec<FmtPiece>> {
        let explicit = args.len();
        let mut next = 0usize;
        let mut pieces = Vec::new();
        let mut lit = String::new();
        let mut chars = text.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '{' if chars.peek() == Some(&'{') => {
                    chars.next();
                    lit.push('{');
                }
                '}' if chars.peek() == Some(&'}') => {
                    chars.next();
                    lit.push('}');
                }
                '}' => {
                    self.cx.error_at(
                        span,
                        "unmatched `}` in the format string: write `}}` for a brace",
                    );
                    return None;
                }
                '{' => {
                    let mut inner = String::new();
                    loop {
                        match chars.next() {
                            Some('}') => break,
                            Some(ch) => inner.push(ch),
                            None => {
                                self.cx.error_at(span, "unclosed `{` in the format string");
                                return None;
                            }
                        }
                    }
                    let (name, spec) = inner.split_once(':').unwrap_or((&inner, ""));
                    let Some(spec) = parse_spec(spec) else {
                        self.cx.error_at(span, format!("unsupported format spec `{{{inner}}}` in a kernel: use `{{}}`, `{{:W}}`, `{{:0W}}`, `{{:.P}}`, `{{:W.P}}`, `{{:x}}`, `{{:X}}`"));
                        return None;
                    };
                    let index = if name.is_empty() {
                        next += 1;
                        if next > explicit {
                            self.cx.error_at(span, format!("the format string has more `{{}}` than the {explicit} argument(s) given"));
                            return None;
                        }
                        next - 1
                    } else if let Ok(ident) = syn::parse_str::<syn::Ident>(name) {
                        let ident = syn::Ident::new(&ident.to_string(), span);
                        let e = self.expr(ExprKind::Var(ident), span, span);
                        args.push(e);
                        args.len() - 1
                    } else {
                        self.cx.error_at(span, format!("`{{{name}}}`: kernels print by position (`{{}}`) or by variable name (`{{x}}`)"));
                        return None;
                    };
                    if !lit.is_empty() {
                        pieces.push(FmtPiece::Lit(std::mem::take(&mut lit)));
                    }
                    pieces.push(FmtPiece::Arg { index, spec });
                }
                c => lit.push(c),
            }
        }
        if !lit.is_empty() {
            pieces.push(FmtPiece::Lit(lit));
        }
        Some(pieces)
    }
}

/// `0W.P` / `x` / `#X` after the colon.
fn parse_spec(s: &str) -> Option<FmtSpec> {
    let mut spec = FmtSpec::default();
    let mut rest = s;
    if let Some(r) = rest.strip_prefix('0') {
        spec.zero = true;
        rest = r;
    }
    let digits = rest.chars().take_while(|c| c.is_ascii_digit()).count();
    if digits > 0 {
        spec.width = Some(rest[..digits].parse().ok()?);
        rest = &rest[digits..];
    }
    if let Some(r) = rest.strip_prefix('.') {
        let digits = r.chars().take_while(|c| c.is_ascii_digit()).count();
        if digits == 0 {
            return None;
        }
        spec.precision = Some(r[..digits].parse().ok()?);
        rest = &r[digits..];
    }
    match rest {
        "" => {}
        "x" => spec.hex = Some(false),
        "X" => spec.hex = Some(true),
        _ => return None,
    }
    Some(spec)
}
