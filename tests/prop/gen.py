#!/usr/bin/env python3
"""Generates tests/prop/kernels.rs: random, well-typed kernel expressions over mixed types.

Deterministic (fixed seed); rerun with `python3 tests/prop/gen.py && cargo fmt` after
changing it and check the output in (`--large` writes the opt-in set of
tests/semantics_prop_large.rs instead, which is not checked in). Each case `eK` is a kernel where thread i computes
`out[i] = EXPR(x0[i], x1[i], ...)`, plus `rK`, the same expression as a plain Rust
function that rustc types and evaluates on its own (the reference for the macro's type
inference as well as for its emitted code).

Rules that keep the expressions valid Rust that never panics:
- every operand is parenthesized; casts, method receivers and comparisons always have a
  typed (non-literal) operand, so unsuffixed literals always infer;
- `/` and `%` on integers: the divisor is `(B | 1)` (never 0); for signed types either the
  dividend is `(A | 1)` (never MIN, so never MIN / -1) or the divisor is `((B | 1) & MAX)`;
- float literals always have a dot or an exponent.
Transcendental cases (sin, cos, exp, ln, atan2, powf) apply the function last, to a
bit-exact expression; they are compared with an ulp bound, not bit for bit.
After the random cases come the method cases (`method_cases`): every numeric method of
docs/methods.md applied to the parameters themselves, on several types each, so each
method meets the edge inputs; transcendental ones compare with the ulp bound.
"""
import random
import sys
from pathlib import Path

import os

# Overridable for exploration (WS_PROP_SEED=123 WS_PROP_N=1000); the checked-in file uses
# the defaults.
# `--large` writes the opt-in set of tests/semantics_prop_large.rs instead (another seed,
# 3,000 expressions by default).
LARGE = "--large" in sys.argv[1:]
SEED = int(os.environ.get("WS_PROP_SEED", "0x1A4CE5E7" if LARGE else "0x5EED2025"), 0)
N_EXACT = int(os.environ.get("WS_PROP_N", "3000" if LARGE else "260"))
N_TRANS = max(N_EXACT // 6, 1)

INTS = ["i8", "i16", "i32", "i64", "isize", "u8", "u16", "u32", "u64", "usize"]
FLOATS = ["f32", "f64"]
ALL = INTS + FLOATS + ["bool"]
BITS = {"i8": 8, "u8": 8, "i16": 16, "u16": 16, "i32": 32, "u32": 32, "i64": 64, "u64": 64,
        "isize": 64, "usize": 64}


def signed(t):
    return t.startswith("i")


class E:
    """An expression: Rust text with `{xN}` placeholders for parameter reads."""

    def __init__(self, text, typed):
        self.text = text
        self.typed = typed


class Gen:
    def __init__(self, rng):
        self.r = rng
        self.params = []  # types

    def param_of(self, t):
        idx = [i for i, p in enumerate(self.params) if p == t]
        if idx and (self.r.random() < 0.6 or len(self.params) >= 4):
            return idx[self.r.randrange(len(idx))]
        if len(self.params) < 4:
            self.params.append(t)
            return len(self.params) - 1
        return None

    def leaf(self, t, allow_lit=True):
        r = self.r
        if allow_lit and r.random() < 0.25:
            return self.literal(t)
        j = self.param_of(t)
        if j is not None:
            return E("{x%d}" % j, True)
        # No free parameter slot: convert one that exists.
        j = r.randrange(len(self.params))
        src = self.params[j]
        v = "{x%d}" % j
        if t == "bool":
            if src == "bool":
                return E(v, True)
            return E("(%s > %s)" % (v, self.literal(src).text), True)
        if src == "bool" and t in FLOATS:
            return E("((%s as u8) as %s)" % (v, t), True)
        return E("(%s as %s)" % (v, t), True)

    def literal(self, t, suffixed=False):
        r = self.r
        if t == "bool":
            return E(r.choice(["true", "false"]), True)
        if t in FLOATS:
            v = r.choice(["0.0", "1.0", "-1.0", "0.5", "2.0", "-0.0", "3.25", "1e10", "-1e-3",
                          "0.1", "255.5", "65536.0", "2147483648.0", "1e30", "-7.75",
                          "4294967296.0", "1.5e-40", "9.3e18"])
            if suffixed:
                return E("(%s%s)" % (v, t), True)
            return E("(%s)" % v if v.startswith("-") else v, False)
        b = BITS[t]
        if signed(t):
            lo, hi = -(1 << (b - 1)), (1 << (b - 1)) - 1
        else:
            lo, hi = 0, (1 << b) - 1
        cands = [0, 1, 2, 3, 7, 31, 32, 33, 63, 64, 100, 127, 128, 255, 256, 1000, 65535,
                 65536, (1 << 31) - 1, 1 << 31, (1 << 32) - 1, 1 << 32, hi, lo, -1, -2, -100,
                 -128, -129, -(1 << 31)]
        cands = [c for c in cands if lo <= c <= hi]
        v = r.choice(cands)
        if suffixed or r.random() < 0.15:
            if v == lo and v != 0:
                return E("%s::MIN" % t, True)  # `-(-128i8)` is an overflowing literal
            s = "%d%s" % (v, t)
            return E("(%s)" % s if v < 0 else s, True)
        if r.random() < 0.1 and v in (hi, lo) and v != 0:
            return E("%s::%s" % (t, "MAX" if v == hi else "MIN"), True)
        return E("(%d)" % v if v < 0 else "%d" % v, False)

    def typed(self, t, d):
        """An expression of type t that contains a typed leaf."""
        for _ in range(8):
            e = self.expr(t, d)
            if e.typed:
                return e
        return self.leaf(t, allow_lit=False)

    def expr(self, t, d):
        r = self.r
        if d <= 0 or r.random() < 0.15:
            return self.leaf(t)
        if t == "bool":
            return self.bool_expr(d)
        if t in FLOATS:
            return self.float_expr(t, d)
        return self.int_expr(t, d)

    def either_typed(self, t, d):
        a = self.expr(t, d)
        b = self.typed(t, d) if not a.typed else self.expr(t, d)
        if r_swap(self.r):
            a, b = b, a
        return a, b

    def cast_from(self, t, d):
        """`(E as t)` with E of another type."""
        src = self.r.choice([s for s in ALL if s != t])
        if t in FLOATS and src == "bool":
            src = "u8"
        if t == "bool":
            raise ValueError
        e = self.typed(src, d - 1)
        return E("((%s) as %s)" % (e.text, t), True)

    def if_expr(self, t, d):
        c = self.bool_expr(d - 1)
        a, b = self.either_typed(t, d - 1)
        return E("(if %s { %s } else { %s })" % (c.text, a.text, b.text), True)

    def int_expr(self, t, d):
        r = self.r
        k = r.choices(
            ["arith", "div", "shift", "bit", "not", "neg", "cast", "cast", "method", "cmpmethod",
             "if", "wrapping"],
            [6, 2, 3, 3, 1, 1, 5, 0, 3, 2, 1, 1])[0]
        if k == "arith":
            a, b = self.either_typed(t, d - 1)
            return E("(%s %s %s)" % (a.text, r.choice("+-*"), b.text), True)
        if k == "div":
            op = r.choice("/%")
            a = self.typed(t, d - 1)
            b = self.typed(t, d - 1)
            if not signed(t):
                return E("(%s %s (%s | 1))" % (a.text, op, b.text), True)
            if r.random() < 0.5:
                return E("((%s | 1) %s (%s | 1))" % (a.text, op, b.text), True)
            return E("(%s %s ((%s | 1) & %s::MAX))" % (a.text, op, b.text, t), True)
        if k == "shift":
            a = self.typed(t, d - 1)
            if r.random() < 0.3:
                b = E(str(r.choice([0, 1, 3, 7, 8, 15, 16, 31, 32, 33, 63, 64, 65, 100])), False)
            else:
                b = self.typed(r.choice(INTS), d - 1)
            return E("(%s %s %s)" % (a.text, r.choice(["<<", ">>"]), b.text), True)
        if k == "bit":
            a, b = self.either_typed(t, d - 1)
            return E("(%s %s %s)" % (a.text, r.choice("&|^"), b.text), True)
        if k == "not":
            a = self.typed(t, d - 1)
            return E("(!%s)" % a.text, True)
        if k == "neg" and signed(t):
            a = self.typed(t, d - 1)
            return E("(-%s)" % a.text, True)
        if k == "method":
            a = self.typed(t, d - 1)
            choices = ["min", "max", "saturating_add", "saturating_sub", "saturating_mul",
                       "midpoint", "swap_bytes", "reverse_bits", "rotate_left", "rotate_right",
                       "pow", "wrapping_neg"] + (["abs", "signum"] if signed(t) else [])
            m = r.choice(choices)
            if m in ("abs", "signum", "swap_bytes", "reverse_bits", "wrapping_neg"):
                return E("(%s).%s()" % (a.text, m), True)
            if m in ("rotate_left", "rotate_right", "pow"):
                n = self.typed(r.choice(INTS), d - 1)
                return E("(%s).%s(((%s) as u32) %% 40)" % (a.text, m, n.text), True)
            b = self.expr(t, d - 1)
            return E("(%s).%s(%s)" % (a.text, m, b.text), True)
        if k == "wrapping":
            a = self.typed(t, d - 1)
            b = self.expr(t, d - 1)
            m = r.choice(["wrapping_add", "wrapping_sub", "wrapping_mul"])
            return E("(%s).%s(%s)" % (a.text, m, b.text), True)
        if k == "cmpmethod" and t == "u32":
            src = r.choice(INTS)
            a = self.typed(src, d - 1)
            m = r.choice(["count_ones", "leading_zeros", "trailing_zeros"])
            return E("(%s).%s()" % (a.text, m), True)
        if k == "cmpmethod":
            src = r.choice(INTS)
            a = self.typed(src, d - 1)
            m = r.choice(["count_ones", "leading_zeros", "trailing_zeros"])
            return E("(((%s).%s()) as %s)" % (a.text, m, t), True)
        if k == "if":
            return self.if_expr(t, d)
        return self.cast_from(t, d)

    def float_expr(self, t, d):
        r = self.r
        k = r.choices(
            ["arith", "rem", "neg", "cast", "method1", "method2", "mul_add", "powi", "if"],
            [8, 2, 1, 5, 3, 2, 1, 1, 1])[0]
        if k == "arith":
            a, b = self.either_typed(t, d - 1)
            return E("(%s %s %s)" % (a.text, r.choice("+-*/"), b.text), True)
        if k == "rem":
            a, b = self.either_typed(t, d - 1)
            return E("(%s %% %s)" % (a.text, b.text), True)
        if k == "neg":
            return E("(-%s)" % self.typed(t, d - 1).text, True)
        if k == "method1":
            a = self.typed(t, d - 1)
            return E("(%s).%s()" % (a.text, r.choice(["sqrt", "floor", "ceil", "abs", "round",
                                                      "trunc", "fract", "signum", "recip"])),
                     True)
        if k == "method2":
            a = self.typed(t, d - 1)
            b = self.expr(t, d - 1)
            # `+ 0.0` makes a zero result +0.0: Rust leaves the sign of min/max of
            # +0.0 and -0.0 unspecified (x86 and the GPU differ), see semantics.rs.
            m = r.choice(["min", "max", "copysign", "rem_euclid"])
            if m == "copysign":
                # The sign of a NaN that arithmetic made is not specified (x86 and the GPU
                # differ): the sign comes from a parameter, whose bits are kept.
                j = self.param_of(t)
                sign = "{x%d}" % j if j is not None else "(-1.0)"
                return E("(%s).copysign(%s)" % (a.text, sign), True)
            if m == "rem_euclid":
                return E("(%s).%s(%s)" % (a.text, m, b.text), True)
            return E("((%s).%s(%s) + 0.0)" % (a.text, m, b.text), True)
        if k == "mul_add":
            a = self.typed(t, d - 1)
            return E("(%s).mul_add(%s, %s)" % (a.text, self.expr(t, d - 1).text,
                                               self.expr(t, d - 1).text), True)
        if k == "powi":
            a = self.typed(t, d - 1)
            if r.random() < 0.6:
                n = E(str(r.choice([0, 1, 2, 3, 5, 7, 10, -1, -2, -3, 31, -31, 64])), False)
                if n.text.startswith("-"):
                    n.text = "(%s)" % n.text
            else:
                n = E("((%s) %% 40)" % self.typed("i32", d - 1).text, True)
            return E("(%s).powi(%s)" % (a.text, n.text), True)
        if k == "if":
            return self.if_expr(t, d)
        return self.cast_from(t, d)

    def bool_expr(self, d):
        r = self.r
        if d <= 0:
            return self.leaf("bool")
        k = r.choices(["cmp", "logic", "not", "bit", "leaf"], [6, 2, 1, 1, 1])[0]
        if k == "cmp":
            t = r.choice(INTS + FLOATS + FLOATS)
            a, b = self.either_typed(t, d - 1)
            return E("(%s %s %s)" % (a.text, r.choice(["<", "<=", ">", ">=", "==", "!="]), b.text),
                     True)
        if k == "logic":
            a, b = self.bool_expr(d - 1), self.bool_expr(d - 1)
            return E("(%s %s %s)" % (a.text, r.choice(["&&", "||"]), b.text), True)
        if k == "not":
            return E("(!%s)" % self.bool_expr(d - 1).text, True)
        if k == "bit":
            a, b = self.bool_expr(d - 1), self.bool_expr(d - 1)
            return E("(%s %s %s)" % (a.text, r.choice("&|^"), b.text), True)
        return self.leaf("bool", allow_lit=False)


# Every numeric method, applied to parameters directly (so the edge inputs reach it), on
# several types each: (name, receivers, argument kinds, result kind, transcendental).
# Receivers: int, signed, unsigned, float. Arguments: "any" (the receiver's type), "nz"
# (never 0), "u32", "i32", "base" (>= 2), "lo_hi" (clamp's ordered bounds), "flo_hi"
# (float bounds). Receivers "pos", "nonneg" and "nomin" keep Rust from panicking.
INT_METHODS = [
    ("min", "int", ["any"], "same"), ("max", "int", ["any"], "same"),
    ("clamp", "int", ["lo_hi"], "same"),
    ("abs", "signed", [], "same"), ("wrapping_abs", "signed", [], "same"),
    ("saturating_abs", "signed", [], "same"), ("unsigned_abs", "signed", [], "unsigned"),
    ("abs_diff", "int", ["any"], "unsigned"), ("signum", "signed", [], "same"),
    ("is_positive", "signed", [], "bool"), ("is_negative", "signed", [], "bool"),
    ("midpoint", "int", ["any"], "same"),
    ("cast_signed", "unsigned", [], "signed"), ("cast_unsigned", "signed", [], "unsigned"),
    ("wrapping_add", "int", ["any"], "same"), ("wrapping_sub", "int", ["any"], "same"),
    ("wrapping_mul", "int", ["any"], "same"), ("wrapping_neg", "int", [], "same"),
    ("wrapping_div", "int", ["nz"], "same"), ("wrapping_rem", "int", ["nz"], "same"),
    ("wrapping_shl", "int", ["u32"], "same"), ("wrapping_shr", "int", ["u32"], "same"),
    ("unbounded_shl", "int", ["u32"], "same"), ("unbounded_shr", "int", ["u32"], "same"),
    ("pow", "int", ["u32"], "same"), ("wrapping_pow", "int", ["u32"], "same"),
    ("saturating_pow", "int", ["u32"], "same"),
    ("saturating_add", "int", ["any"], "same"), ("saturating_sub", "int", ["any"], "same"),
    ("saturating_mul", "int", ["any"], "same"), ("saturating_neg", "signed", [], "same"),
    ("saturating_div", "int", ["nz"], "same"),
    ("div_euclid", "nomin", ["nz"], "same"), ("rem_euclid", "nomin", ["nz"], "same"),
    ("wrapping_div_euclid", "int", ["nz"], "same"),
    ("wrapping_rem_euclid", "int", ["nz"], "same"),
    ("div_ceil", "unsigned", ["nz"], "same"), ("next_multiple_of", "unsigned", ["nz"], "same"),
    ("is_multiple_of", "unsigned", ["any"], "bool"),
    ("isqrt", "nonneg", [], "same"), ("ilog2", "pos", [], "u32"), ("ilog10", "pos", [], "u32"),
    ("ilog", "pos", ["base"], "u32"),
    ("count_ones", "int", [], "u32"), ("count_zeros", "int", [], "u32"),
    ("leading_zeros", "int", [], "u32"), ("trailing_zeros", "int", [], "u32"),
    ("leading_ones", "int", [], "u32"), ("trailing_ones", "int", [], "u32"),
    ("rotate_left", "int", ["u32"], "same"), ("rotate_right", "int", ["u32"], "same"),
    ("swap_bytes", "int", [], "same"), ("to_be", "int", [], "same"), ("to_le", "int", [], "same"),
    ("reverse_bits", "int", [], "same"),
    ("is_power_of_two", "unsigned", [], "bool"), ("next_power_of_two", "unsigned", [], "same"),
]
FLOAT_METHODS = [
    ("min", [], "minmax"), ("max", [], "minmax"), ("clamp", ["flo_hi"], "same"),
    ("abs", [], "same"), ("signum", [], "same"), ("copysign", ["any"], "same"),
    ("sqrt", [], "same"), ("mul_add", ["any", "any"], "same"), ("recip", [], "same"),
    ("powi", ["i32"], "same"), ("floor", [], "same"), ("ceil", [], "same"),
    ("round", [], "same"), ("round_ties_even", [], "same"), ("trunc", [], "same"),
    ("fract", [], "same"), ("div_euclid", ["any"], "same"), ("rem_euclid", ["any"], "same"),
    ("to_degrees", [], "same"), ("to_radians", [], "same"), ("next_up", [], "same"),
    ("next_down", [], "same"), ("is_nan", [], "bool"), ("is_infinite", [], "bool"),
    ("is_finite", [], "bool"), ("is_normal", [], "bool"), ("is_subnormal", [], "bool"),
    ("is_sign_positive", [], "bool"), ("is_sign_negative", [], "bool"), ("to_bits", [], "bits"),
]
TRANS_METHODS = [
    ("exp", []), ("exp2", []), ("exp_m1", []), ("ln", []), ("log2", []), ("log10", []),
    ("ln_1p", []), ("log", ["any"]), ("powf", ["any"]), ("cbrt", []), ("hypot", ["any"]),
    ("sin", []), ("cos", []), ("tan", []), ("asin", []), ("acos", []), ("atan", []),
    ("atan2", ["any"]), ("sinh", []), ("cosh", []), ("tanh", []), ("asinh", []), ("acosh", []),
    ("atanh", []),
]
# std's asinh and acosh overflow to infinity above about MAX / 2 where CUDA's (and glibc's)
# give the finite result (docs/methods.md): their inputs stay below 1e30.
TRANS_INPUT = {"asinh": "({x0} %% 1.0e30)", "acosh": "({x0} %% 1.0e30)"}
SIGNED = [t for t in INTS if signed(t)]
UNSIGNED = [t for t in INTS if not signed(t)]


def twin(t, want_signed):
    w = "size" if t.endswith("size") else str(BITS[t])
    return ("i" if want_signed else "u") + w


def method_cases():
    """(params, out type, expression text with {xN}, transcendental) for every method."""
    cases = []
    for k, (name, recv, args, res) in enumerate(INT_METHODS):
        tys = {"int": INTS, "signed": SIGNED, "unsigned": UNSIGNED, "pos": INTS,
               "nonneg": SIGNED, "nomin": INTS}[recv]
        picks = [tys[(k + 3 * j) % len(tys)] for j in range(4)]
        for t in dict.fromkeys(picks):
            params = [t]
            r = "{x0}"
            if recv == "pos":
                r = "(({x0} & %s::MAX) | 1)" % t
            elif recv == "nonneg":
                r = "({x0} & %s::MAX)" % t
            elif recv == "nomin":
                # std's div_euclid/rem_euclid panic on MIN / -1 (the kernels' wrap).
                r = "({x0} | 1)"
            a = []
            for kind in args:
                if kind in ("any", "nz", "base"):
                    params.append(t)
                    v = "{x%d}" % (len(params) - 1)
                    a.append({"any": v, "nz": "(%s | 1)" % v,
                              "base": "((%s & %s::MAX) | 2)" % (v, t)}[kind])
                elif kind == "u32":
                    params.append("u32")
                    a.append("{x%d}" % (len(params) - 1))
                elif kind == "lo_hi":
                    params += [t, t]
                    a.append("({x1}).min({x2}), ({x1}).max({x2})")
            out = {"same": t, "u32": "u32", "bool": "bool", "unsigned": twin(t, False),
                   "signed": twin(t, True)}[res]
            cases.append((params, out, "(%s).%s(%s)" % (r, name, ", ".join(a)), False))
    for name, args, res in FLOAT_METHODS:
        for t in FLOATS:
            params = [t]
            a = []
            for kind in args:
                if kind == "any":
                    params.append(t)
                    a.append("{x%d}" % (len(params) - 1))
                elif kind == "i32":
                    params.append("i32")
                    a.append("({x%d} %% 40)" % (len(params) - 1))
                elif kind == "flo_hi":
                    a.append("-1.5, 2.25")
            e = "({x0}).%s(%s)" % (name, ", ".join(a))
            if res == "minmax":
                params.append(t)
                # `+ 0.0`: Rust leaves the sign of min/max of ±0.0 open.
                e = "(({x0}).%s({x1}) + 0.0)" % name
            out = {"same": t, "minmax": t, "bool": "bool",
                   "bits": "u32" if t == "f32" else "u64"}[res]
            cases.append((params, out, e, False))
    for name, args in TRANS_METHODS:
        for t in FLOATS:
            params = [t] + [t for _ in args]
            a = ["{x%d}" % (j + 1) for j in range(len(args))]
            r = TRANS_INPUT.get(name, "{x0}").replace("%%", "%")
            cases.append((params, t, "(%s).%s(%s)" % (r, name, ", ".join(a)), True))
    # sin_cos gives a tuple: each half is a case.
    for t in FLOATS:
        for half in (0, 1):
            cases.append(([t], t, "({x0}).sin_cos().%d" % half, True))
    # Associated functions: the bits back into a float, and lossless conversions.
    cases.append((["u32"], "f32", "f32::from_bits({x0})", False))
    cases.append((["u64"], "f64", "f64::from_bits({x0})", False))
    cases.append((["f32"], "f32", "f32::from_bits(({x0}).to_bits())", False))
    for src, dst in [("bool", "i8"), ("bool", "u64"), ("bool", "f32"), ("u8", "i16"),
                     ("u8", "usize"), ("u16", "i32"), ("u16", "f32"), ("u32", "i64"),
                     ("u32", "f64"), ("i8", "isize"), ("i16", "f32"), ("i32", "f64"),
                     ("f32", "f64"), ("i64", "i64")]:
        cases.append(([src], dst, "%s::from({x0})" % dst, False))
    return cases


def r_swap(r):
    return r.random() < 0.5


def sub(text, n, indexed):
    for j in range(n):
        text = text.replace("{x%d}" % j, ("x%d[i]" % j) if indexed else ("x%d" % j))
    return text


def main():
    rng = random.Random(SEED)
    out = []
    out.append("// @generated by tests/prop/gen.py (seed %#x): do not edit by hand.\n" % SEED)
    out.append("// Each eK is a kernel computing out[i] = EXPR(x0[i], ..); rK is the same EXPR as\n")
    out.append("// plain Rust, typed and evaluated by rustc alone.\n\n")
    if not LARGE:
        # The large set is `include!`d into a module that has these (rustfmt does not
        # look into an `include!`, so `cargo fmt` works where the file was not generated).
        out.append("#![allow(unused_parens, unused_variables, unused_comparisons, "
                   "arithmetic_overflow)]\n\nuse super::*;\n\n")
    cases = []
    k = 0
    while len(cases) < N_EXACT + N_TRANS:
        trans = len(cases) >= N_EXACT
        g = Gen(rng)
        if trans:
            t = rng.choice(FLOATS)
            a = g.typed(t, rng.randint(1, 3))
            f = rng.choice(["sin", "cos", "exp", "ln", "atan2", "powf"])
            if f in ("atan2", "powf"):
                b = g.expr(t, rng.randint(0, 2))
                e = E("(%s).%s(%s)" % (a.text, f, b.text), True)
            else:
                e = E("(%s).%s()" % (a.text, f), True)
        else:
            t = rng.choice(ALL + INTS + FLOATS * 3)
            e = g.expr(t, rng.randint(2, 5))
            if len(e.text) < 16:
                continue  # a bare leaf tests nothing
        if len(e.text) > 600 or not g.params:
            continue
        name = "e%d" % k
        n = len(g.params)
        ps = ", ".join("x%d: &[%s]" % (j, p) for j, p in enumerate(g.params))
        rps = ", ".join("x%d: %s" % (j, p) for j, p in enumerate(g.params))
        body = sub(e.text, n, True)
        out.append("#[gpu_kernel]\n#[allow(unused_parens, unused_variables, arithmetic_overflow)]\n")
        out.append("fn %s(%s, out: &mut [%s]) {\n    let i = grid_1d();\n" % (name, ps, t))
        out.append("    if i < out.len() {\n        out[i] = %s;\n    }\n}\n" % body)
        out.append("#[allow(unused_parens, unused_variables, arithmetic_overflow, "
                   "clippy::all)]\n")
        out.append("fn r%d(%s) -> %s {\n    %s\n}\n\n" % (k, rps, t, sub(e.text, n, False)))
        cases.append((k, g.params, t, sub(e.text, n, False), trans))
        k += 1

    for params, t, text, trans in method_cases():
        name = "e%d" % k
        n = len(params)
        ps = ", ".join("x%d: &[%s]" % (j, p) for j, p in enumerate(params))
        rps = ", ".join("x%d: %s" % (j, p) for j, p in enumerate(params))
        out.append("#[gpu_kernel]\n#[allow(unused_parens, unused_variables, arithmetic_overflow)]\n")
        out.append("fn %s(%s, out: &mut [%s]) {\n    let i = grid_1d();\n" % (name, ps, t))
        out.append("    if i < out.len() {\n        out[i] = %s;\n    }\n}\n" % sub(text, n, True))
        out.append("#[allow(unused_parens, unused_variables, arithmetic_overflow, "
                   "clippy::all)]\n")
        out.append("fn r%d(%s) -> %s {\n    %s\n}\n\n" % (k, rps, t, sub(text, n, False)))
        cases.append((k, params, t, sub(text, n, False), trans))
        k += 1

    out.append("pub static CASES: &[Case] = &[\n")
    for (k, params, t, text, trans) in cases:
        tys = ", ".join(p.capitalize() for p in params)
        args = ", ".join("Bits::from_bits(x[%d])" % j for j in range(len(params)))
        out.append("    Case {\n        name: \"e%d\",\n        expr: %s,\n" % (k, rust_str(text)))
        out.append("        params: &[%s],\n        out: %s,\n        transcendental: %s,\n"
                   % (tys, t.capitalize(), "true" if trans else "false"))
        out.append("        source: || e%d::CUDA_SOURCE.as_str(),\n" % k)
        out.append("        launch: |dev, ins| {\n")
        for j, p in enumerate(params):
            out.append("            let b%d = dev.upload(&from_bits::<%s>(&ins[%d]))?;\n" % (j, p, j))
        out.append("            let mut out = dev.zeros::<%s>(ins[0].len())?;\n" % t)
        bargs = "".join("&b%d, " % j for j in range(len(params)))
        out.append("            e%d::launch(dev, LaunchConfig::for_num_elems(ins[0].len() as u32), "
                   "%s&mut out)?;\n" % (k, bargs))
        out.append("            Ok(to_bits(&out.download()?))\n        },\n")
        out.append("        reference: |x| r%d(%s).to_bits64(),\n    },\n" % (k, args))
    out.append("];\n")
    dst = Path(__file__).resolve().parent / ("large_kernels.rs" if LARGE else "kernels.rs")
    dst.write_text("".join(out))
    print("wrote %s: %d cases" % (dst, len(cases)), file=sys.stderr)


def rust_str(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


if __name__ == "__main__":
    main()
