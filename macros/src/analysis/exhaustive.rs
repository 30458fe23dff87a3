//! Exhaustiveness of a `match` on an integer or a bool, as rustc decides it: the arms
//! without a guard must cover every value of the type. `usize` and `isize` have no fixed
//! maximum (or minimum) for this check, so only an open range (`5..`, `..=-1`) or `_`
//! covers their ends (rustc's rule, so code stays portable across pointer widths). The
//! values left out are described as rustc's E0004 writes them: `i32::MIN..=-1_i32`,
//! `5_u8`, `false`, `usize::MAX..`.
//!
//! Also here: the checks of the patterns themselves that rustc makes (a literal out of
//! its type's range, a range whose ends are out of order).

use crate::ir::ast::{MatchPat, PatInt};
use crate::ir::ty::Scalar;
use proc_macro2::Span;

/// The values of `s`, with one value past each end for `usize`/`isize` standing for "more
/// than the fixed-width maximum" (only open ranges and `_` reach them).
fn domain(s: Scalar) -> (i128, i128) {
    let (min, max) = bounds(s);
    match s {
        Scalar::Usize => (min, max + 1),
        Scalar::Isize => (min - 1, max + 1),
        _ => (min, max),
    }
}

/// The type's own minimum and maximum.
fn bounds(s: Scalar) -> (i128, i128) {
    match s {
        Scalar::Bool => (0, 1),
        s if s.is_signed_int() => (-(1i128 << (s.bits() - 1)), (1i128 << (s.bits() - 1)) - 1),
        s => (0, (1i128 << s.bits()) - 1),
    }
}

/// A pattern problem rustc reports as an error, at a span.
pub struct PatError(pub Span, pub String);

/// The checks rustc makes on each pattern of a `match` on `s`.
pub fn check_pats(s: Scalar, pats: &[MatchPat]) -> Vec<PatError> {
    let mut out = Vec::new();
    let (min, max) = bounds(s);
    let fits = |p: &PatInt, out: &mut Vec<PatError>| {
        if p.konst.is_none() && (p.value < min || p.value > max) {
            out.push(PatError(
                p.span,
                format!("literal out of range for `{}`", s.rust_name()),
            ));
        }
    };
    for p in pats {
        match p {
            MatchPat::Int(i) => fits(i, &mut out),
            MatchPat::Range {
                lo, hi, inclusive, ..
            } => {
                lo.iter().chain(hi).for_each(|i| fits(i, &mut out));
                if lo.iter().chain(hi).any(|i| i.konst.is_some()) {
                    continue; // rustc checks what it knows of the constant
                }
                match (lo, hi, inclusive) {
                    (Some(l), Some(h), true) if l.value > h.value => out.push(PatError(
                        l.span,
                        "lower range bound must be less than or equal to upper".into(),
                    )),
                    (Some(l), Some(h), false) if l.value >= h.value => out.push(PatError(
                        l.span,
                        "lower range bound must be less than upper".into(),
                    )),
                    (_, Some(h), false) if h.value == min => out.push(PatError(
                        h.span,
                        format!("`..{}` would match no value: an exclusive range needs an end above the type's minimum", h.value),
                    )),
                    _ => {}
                }
            }
            MatchPat::Any | MatchPat::Bool(..) | MatchPat::Const(_) => {}
        }
    }
    out
}

/// The values of `s` that no pattern of `covered` (the unguarded arms' patterns) matches,
/// as rustc names them; empty when the match is exhaustive.
pub fn missing(s: Scalar, covered: &[&MatchPat]) -> Vec<String> {
    let (dlo, dhi) = domain(s);
    let mut spans: Vec<(i128, i128)> = covered
        .iter()
        .filter_map(|p| interval(p, dlo, dhi))
        .collect();
    spans.sort();
    let mut gaps = Vec::new();
    let mut next = dlo; // the least value not yet known covered
    for (a, b) in spans {
        if a > next {
            gaps.push((next, a - 1));
        }
        next = next.max(b.saturating_add(1));
    }
    if next <= dhi {
        gaps.push((next, dhi));
    }
    gaps.into_iter().map(|g| describe(s, g)).collect()
}

/// The values a pattern matches, clipped to the domain.
fn interval(p: &MatchPat, dlo: i128, dhi: i128) -> Option<(i128, i128)> {
    let (a, b) = match p {
        MatchPat::Const(_) => return None,
        MatchPat::Any => (dlo, dhi),
        MatchPat::Bool(v, _) => (i128::from(*v), i128::from(*v)),
        MatchPat::Int(i) => (i.value, i.value),
        MatchPat::Range { lo, hi, .. } if lo.iter().chain(hi).any(|i| i.konst.is_some()) => {
            return None
        }
        MatchPat::Range {
            lo, hi, inclusive, ..
        } => (
            lo.as_ref().map_or(dlo, |l| l.value),
            match hi {
                None => dhi,
                Some(h) if *inclusive => h.value,
                Some(h) => h.value - 1,
            },
        ),
    };
    let (a, b) = (a.max(dlo), b.min(dhi));
    (a <= b).then_some((a, b))
}

/// One uncovered stretch as rustc prints it.
fn describe(s: Scalar, (a, b): (i128, i128)) -> String {
    if s == Scalar::Bool {
        return match (a, b) {
            (0, 0) => "`false`".into(),
            (1, 1) => "`true`".into(),
            _ => "`false` and `true`".into(),
        };
    }
    let (min, max) = bounds(s);
    let below = a < min; // isize: values under isize::MIN's fixed width
    let above = b > max;
    let text = match (below, above) {
        (true, true) => "_".to_string(),
        // Past the fixed width only: rustc names the ends, `..isize::MIN`, `usize::MAX..`.
        (true, false) => format!("..{}", value(s, (b + 1).max(min))),
        (false, true) => format!("{}..", value(s, a.min(max))),
        (false, false) if a == b => value(s, a),
        (false, false) => format!("{}..={}", value(s, a), value(s, b)),
    };
    format!("`{text}`")
}

/// `i32::MIN`, `u8::MAX`, `-1_i32`, `0_u8`.
fn value(s: Scalar, v: i128) -> String {
    let (min, max) = bounds(s);
    let name = s.rust_name();
    if v == max {
        format!("{name}::MAX")
    } else if v == min && s.is_signed_int() {
        format!("{name}::MIN")
    } else {
        format!("{v}_{name}")
    }
}

/// rustc's E0004 sentence for the values left out.
pub fn message(missing: &[String]) -> String {
    let list = match missing {
        [one] => one.clone(),
        [a, b] => format!("{a} and {b}"),
        [a, b, c] => format!("{a}, {b} and {c}"),
        [a, b, c, rest @ ..] => format!("{a}, {b}, {c} and {} more", rest.len()),
        [] => String::new(),
    };
    format!("non-exhaustive patterns: {list} not covered: add arms for them, or `_ => ..` for every other value")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int(v: i128) -> PatInt {
        PatInt {
            value: v,
            konst: None,
            ty: None,
            span: Span::call_site(),
        }
    }
    fn range(lo: Option<i128>, hi: Option<i128>, inclusive: bool) -> MatchPat {
        MatchPat::Range {
            lo: lo.map(int),
            hi: hi.map(int),
            inclusive,
            span: (Span::call_site(), Span::call_site()),
        }
    }

    #[test]
    fn gaps_read_as_rustc_writes_them() {
        let p = [range(Some(1), Some(10), true)];
        let refs: Vec<&MatchPat> = p.iter().collect();
        assert_eq!(
            missing(Scalar::I32, &refs),
            ["`i32::MIN..=0_i32`", "`11_i32..=i32::MAX`"]
        );
        let p = [MatchPat::Int(int(0)), range(Some(1), None, false)];
        let refs: Vec<&MatchPat> = p.iter().collect();
        assert!(missing(Scalar::U8, &refs).is_empty());
        assert!(missing(Scalar::Usize, &refs).is_empty());
        let p = [range(Some(0), Some(255), true)];
        let refs: Vec<&MatchPat> = p.iter().collect();
        assert!(missing(Scalar::U8, &refs).is_empty());
        let p = [range(Some(0), Some(u64::MAX.into()), true)];
        let refs: Vec<&MatchPat> = p.iter().collect();
        assert_eq!(missing(Scalar::Usize, &refs), ["`usize::MAX..`"]);
        assert_eq!(missing(Scalar::U64, &refs), Vec::<String>::new());
        let p = [MatchPat::Int(int(5))];
        let refs: Vec<&MatchPat> = p.iter().collect();
        assert_eq!(
            missing(Scalar::U8, &refs),
            ["`0_u8..=4_u8`", "`6_u8..=u8::MAX`"]
        );
        let p = [MatchPat::Bool(true, Span::call_site())];
        let refs: Vec<&MatchPat> = p.iter().collect();
        assert_eq!(missing(Scalar::Bool, &refs), ["`false`"]);
        assert_eq!(missing(Scalar::Isize, &[]), ["`_`"]);
        assert_eq!(
            message(&["`a`".into(), "`b`".into()]).split(':').next(),
            Some("non-exhaustive patterns")
        );
    }
}
