//! The layer rule of docs/internal/macro-layers.md as a test: it reads every `crate::`,
//! `super::` and `self::` path and every `mod x;` in `src/`, builds the graph of which
//! module imports which, and fails when a module imports one of a higher layer or when
//! modules import each other in a circle. A parent uses its submodules (`mod x;`); a
//! submodule may use its ancestors (it is part of them: `use super::*`), so those edges
//! are not counted.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The layers, bottom up, by a module's first path segment. A new top-level module needs
/// a row here (the test says so).
const LAYERS: &[(&str, &[&str])] = &[
    ("errors", &["ctxt"]),
    ("ir: the AST and its vocabulary", &["ir"]),
    ("parse", &["parse"]),
    ("analysis", &["analysis"]),
    ("emit", &["emit"]),
    (
        "pipeline front: options, parse -> check -> typeck",
        &["front"],
    ),
    ("pipeline", &["expand", "generics", "structs"]),
];

/// Modules that are tests only, never imported; their own imports are not checked.
const TESTS_ONLY: &[&str] = &["corpus_tests", "fuzz_tests", "layers"];

type Module = Vec<String>;

fn layer(m: &Module) -> usize {
    let first = m.first().map_or("", String::as_str);
    LAYERS
        .iter()
        .position(|(_, tops)| tops.contains(&first))
        .unwrap_or_else(|| panic!("module `{}` has no layer: add it to LAYERS in src/layers.rs and to docs/internal/macro-layers.md", m.join("::")))
}

/// Every `.rs` file under `dir` with its module path (`emit/cuda/mod.rs` is
/// `emit::cuda`, `emit/host.rs` is `emit::host`, `lib.rs` the root).
fn modules(dir: &Path, prefix: &[String], out: &mut Vec<(Module, String)>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .expect("macros/src is readable")
        .map(|e| e.expect("directory entry").path())
        .collect();
    entries.sort();
    for p in entries {
        let name = p.file_name().unwrap().to_string_lossy().to_string();
        if p.is_dir() {
            let mut sub = prefix.to_vec();
            sub.push(name);
            modules(&p, &sub, out);
        } else if let Some(stem) = name.strip_suffix(".rs") {
            let mut m = prefix.to_vec();
            if stem != "mod" && stem != "lib" {
                m.push(stem.to_string());
            }
            out.push((m, std::fs::read_to_string(&p).expect("source is readable")));
        }
    }
}

/// The paths of a use tree starting at `s` (`a::b`, `a::{b, c::d}`), as segments.
fn use_tree(s: &[u8], i: &mut usize, prefix: Vec<String>, out: &mut Vec<Vec<String>>) {
    let mut segs = prefix;
    loop {
        while *i < s.len() && s[*i] == b' ' {
            *i += 1;
        }
        if *i < s.len() && s[*i] == b'{' {
            *i += 1;
            loop {
                use_tree(s, i, segs.clone(), out);
                while *i < s.len() && (s[*i] == b' ' || s[*i] == b'\n') {
                    *i += 1;
                }
                match s.get(*i) {
                    Some(b',') => *i += 1,
                    Some(b'}') => {
                        *i += 1;
                        return;
                    }
                    _ => return,
                }
                while *i < s.len() && (s[*i] == b' ' || s[*i] == b'\n') {
                    *i += 1;
                }
                if s.get(*i) == Some(&b'}') {
                    *i += 1;
                    return;
                }
            }
        }
        let start = *i;
        while *i < s.len() && (s[*i].is_ascii_alphanumeric() || s[*i] == b'_') {
            *i += 1;
        }
        if *i == start {
            if s.get(*i) == Some(&b'*') {
                *i += 1;
            }
            break;
        }
        segs.push(String::from_utf8_lossy(&s[start..*i]).to_string());
        if s[*i..].starts_with(b"::") {
            *i += 2;
        } else {
            break;
        }
    }
    out.push(segs);
}

/// The `crate::` and `super::` paths of a source file, comments left out.
fn paths(src: &str) -> Vec<Vec<String>> {
    let code: String = src
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n");
    let s = code.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < s.len() {
        let at_word = i == 0 || !(s[i - 1].is_ascii_alphanumeric() || s[i - 1] == b'_');
        let path = ["crate::", "super::", "self::"].iter();
        if at_word && path.clone().any(|p| s[i..].starts_with(p.as_bytes())) {
            use_tree(s, &mut i, Vec::new(), &mut out);
        } else if at_word && s[i..].starts_with(b"mod ") {
            // `mod x;`: the parent uses its submodule (an inline `mod x { .. }` is part
            // of this file's module).
            i += 4;
            let start = i;
            while i < s.len() && (s[i].is_ascii_alphanumeric() || s[i] == b'_') {
                i += 1;
            }
            if s.get(i) == Some(&b';') {
                let child = String::from_utf8_lossy(&s[start..i]).to_string();
                out.push(vec!["self".to_string(), child]);
            }
        } else {
            i += 1;
        }
    }
    out
}

/// The module `path`, used in module `from`, names (the deepest module of its prefix).
fn target(from: &Module, path: &[String], known: &BTreeSet<Module>) -> Module {
    let mut cur: Module = Vec::new();
    let mut rest = path;
    match path.first().map(String::as_str) {
        Some("crate") => rest = &path[1..],
        Some("self") => {
            cur = from.clone();
            rest = &path[1..];
        }
        Some("super") => {
            cur = from.clone();
            while rest.first().map(String::as_str) == Some("super") {
                cur.pop();
                rest = &rest[1..];
            }
        }
        _ => {}
    }
    for seg in rest {
        let mut next = cur.clone();
        next.push(seg.clone());
        if !known.contains(&next) {
            break;
        }
        cur = next;
    }
    cur
}

/// Every import edge `from -> to` between modules, ancestors left out.
fn graph() -> BTreeMap<Module, BTreeSet<Module>> {
    let mut files = Vec::new();
    modules(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        &[],
        &mut files,
    );
    let known: BTreeSet<Module> = files.iter().map(|(m, _)| m.clone()).collect();
    let mut g: BTreeMap<Module, BTreeSet<Module>> = BTreeMap::new();
    for (m, src) in &files {
        if m.is_empty() || TESTS_ONLY.contains(&m[0].as_str()) {
            continue;
        }
        let edges = g.entry(m.clone()).or_default();
        for p in paths(src) {
            let t = target(m, &p, &known);
            if !t.is_empty() && !m.starts_with(&t) {
                edges.insert(t);
            }
        }
    }
    g
}

/// The circles of `g`: its strongly connected components of more than one module
/// (Tarjan's algorithm).
fn circles(g: &BTreeMap<Module, BTreeSet<Module>>) -> Vec<Vec<Module>> {
    struct State<'a> {
        g: &'a BTreeMap<Module, BTreeSet<Module>>,
        index: BTreeMap<&'a Module, usize>,
        low: BTreeMap<&'a Module, usize>,
        stack: Vec<&'a Module>,
        on_stack: BTreeSet<&'a Module>,
        out: Vec<Vec<Module>>,
    }
    fn visit<'a>(st: &mut State<'a>, v: &'a Module) {
        let n = st.index.len();
        st.index.insert(v, n);
        st.low.insert(v, n);
        st.stack.push(v);
        st.on_stack.insert(v);
        for w in st.g.get(v).into_iter().flatten() {
            let Some((w, _)) = st.g.get_key_value(w) else {
                continue;
            };
            if !st.index.contains_key(w) {
                visit(st, w);
                let lw = st.low[w];
                let lv = st.low.get_mut(v).unwrap();
                *lv = (*lv).min(lw);
            } else if st.on_stack.contains(w) {
                let iw = st.index[w];
                let lv = st.low.get_mut(v).unwrap();
                *lv = (*lv).min(iw);
            }
        }
        if st.low[v] == st.index[v] {
            let mut scc = Vec::new();
            while let Some(w) = st.stack.pop() {
                st.on_stack.remove(w);
                scc.push(w.clone());
                if w == v {
                    break;
                }
            }
            if scc.len() > 1 {
                scc.sort();
                st.out.push(scc);
            }
        }
    }
    let mut st = State {
        g,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in g.keys() {
        if !st.index.contains_key(v) {
            visit(&mut st, v);
        }
    }
    st.out
}

fn name(m: &Module) -> String {
    m.join("::")
}

#[test]
fn the_graph_is_read() {
    let g = graph();
    let edges: usize = g.values().map(BTreeSet::len).sum();
    assert!(
        edges > 50,
        "only {edges} imports found: the reader is broken"
    );
    let m = |s: &str| s.split("::").map(String::from).collect::<Module>();
    assert!(g[&m("emit::cuda::expr")].contains(&m("analysis::proof")));
    assert!(g[&m("emit::cuda::expr")].contains(&m("emit::cuda::stmt")));
    assert!(!g[&m("emit::cuda::expr")].contains(&m("emit::cuda")));
    assert!(g[&m("emit::host")].contains(&m("emit::host::device")));
}

#[test]
fn no_module_imports_a_higher_layer() {
    let mut wrong = Vec::new();
    for (from, tos) in graph() {
        for to in tos {
            let (lf, lt) = (layer(&from), layer(&to));
            if lt > lf {
                wrong.push(format!(
                    "{} ({}) imports {} ({})",
                    name(&from),
                    LAYERS[lf].0,
                    name(&to),
                    LAYERS[lt].0
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "imports upwards:\n{}", wrong.join("\n"));
}

#[test]
fn no_import_circles() {
    let found: Vec<String> = circles(&graph())
        .iter()
        .map(|c| c.iter().map(name).collect::<Vec<_>>().join(" <-> "))
        .collect();
    assert!(
        found.is_empty(),
        "modules that import each other:\n{}",
        found.join("\n")
    );
}

/// A stage gets what it needs as arguments (docs/internal/macro-layers.md, "State"): no
/// module of the pipeline keeps thread-local state.
#[test]
fn no_thread_local_state() {
    let mut files = Vec::new();
    modules(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        &[],
        &mut files,
    );
    let found: Vec<String> = files
        .iter()
        .filter(|(m, _)| m.first().is_none_or(|f| !TESTS_ONLY.contains(&f.as_str())))
        .filter(|(_, src)| {
            src.lines()
                .any(|l| !l.trim_start().starts_with("//") && l.contains("thread_local!"))
        })
        .map(|(m, _)| name(m))
        .collect();
    assert!(
        found.is_empty(),
        "thread-local state in: {}",
        found.join(", ")
    );
}

#[test]
fn a_planted_circle_is_found() {
    let m = |s: &str| vec![s.to_string()];
    let mut g = BTreeMap::new();
    g.insert(m("a"), BTreeSet::from([m("b")]));
    g.insert(m("b"), BTreeSet::from([m("c")]));
    g.insert(m("c"), BTreeSet::from([m("a")]));
    g.insert(m("d"), BTreeSet::from([m("a")]));
    assert_eq!(circles(&g), vec![vec![m("a"), m("b"), m("c")]]);
}

#[test]
fn use_trees_are_read() {
    let p = paths("mod a;\nuse crate::ir::{ast::*, ty::{Scalar, Ty}};\nlet x = super::effect::effect(e);\n// crate::emit::host\nmod t {}");
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    assert_eq!(
        p,
        vec![
            s(&["self", "a"]),
            s(&["crate", "ir", "ast"]),
            s(&["crate", "ir", "ty", "Scalar"]),
            s(&["crate", "ir", "ty", "Ty"]),
            s(&["super", "effect", "effect"]),
        ]
    );
}
