//! NVRTC's log read back against the Rust source and the generated C.
//!
//! The emitted C puts a `#line 12 "src/k.rs"` directive before each statement, so NVRTC
//! already names the Rust file and line in its messages (`src/k.rs(12): error: ...`). What
//! it cannot say is which line of the generated C that was: several C lines can carry one
//! Rust line, and a user who wants to read the C (`<kernel>::CUDA_SOURCE`) needs its real
//! line number. [`parse_log`] replays the `#line` directives over the source to map each
//! presumed location back to physical lines, and picks among several by the source line
//! NVRTC quotes under each message.
//!
//! The Rust line shown is the `#line` directive's own: the emitter writes one per Rust
//! statement, and the C lines a statement takes after the first (a loop's counter, a
//! closing brace) belong to it, not to the lines the preprocessor counts on from it.
//!
//! An error inside a prelude template (`warpspeed.cu(17)`, before any `#line`) is shown at
//! the Rust line that instantiated it, which NVRTC gives as "detected during instantiation
//! of ... at line 12 of src/k.rs".

use std::fmt;

/// The name NVRTC knows the whole generated source by; lines before the first `#line`
/// directive (the prelude, prototypes) are reported against it.
pub(crate) const PROGRAM_NAME: &str = "warpspeed.cu";

/// One error, warning or note of NVRTC's log, placed in the Rust and the generated C.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Diagnostic {
    /// `error`, `warning`, `note`, `remark` or `catastrophic error`; empty for a line of
    /// the log that NVRTC gave no severity.
    pub severity: String,
    /// NVRTC's diagnostic number, e.g. `177-D` (the `-D` ones can be suppressed).
    pub code: Option<String>,
    /// The message itself.
    pub message: String,
    /// NVRTC's further lines (argument types, instantiation context), trimmed.
    pub details: Vec<String>,
    /// The Rust file and line: of the `#line` directive over the generated C line (the
    /// Rust statement that line comes from), else the Rust line that instantiated the
    /// prelude template the message is about.
    pub rust_location: Option<(String, u32)>,
    /// The line, counted from 1, of the full generated source (`<kernel>::CUDA_SOURCE`)
    /// that the message is about.
    pub generated_line: Option<u32>,
    /// The text of that line.
    pub generated_text: Option<String>,
}

impl Diagnostic {
    /// Whether this is an error (the compilation failed because of it).
    pub fn is_error(&self) -> bool {
        self.severity.ends_with("error")
    }
}

/// `src/k.rs:12: error: ...`, its details, then `(generated C line N: `...`)`.
impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.rust_location {
            Some((file, line)) => write!(f, "{file}:{line}: ")?,
            None if self.generated_line.is_some() => f.write_str("generated C: ")?,
            None => {}
        }
        if !self.severity.is_empty() {
            f.write_str(&self.severity)?;
            if let Some(code) = &self.code {
                write!(f, " #{code}")?;
            }
            f.write_str(": ")?;
        }
        f.write_str(&self.message)?;
        for detail in &self.details {
            write!(f, "\n    {detail}")?;
        }
        if let Some(line) = self.generated_line {
            write!(f, "\n  (generated C line {line}")?;
            if let Some(text) = &self.generated_text {
                write!(f, ": `{text}`")?;
            }
            f.write_str(")")?;
        }
        Ok(())
    }
}

/// Reads NVRTC's `log` of compiling `source` into one [`Diagnostic`] per message, in the
/// log's order. Lines it does not recognise become diagnostics without a severity; the
/// closing summary ("1 error detected ...") and NVRTC's remark on suppressing warnings are
/// left out.
pub fn parse_log(log: &str, source: &str) -> Vec<Diagnostic> {
    let map = SourceMap::new(source);
    let mut out = Vec::new();
    let mut current: Option<Pending> = None;
    for line in log.lines() {
        if line.trim().is_empty() {
            continue;
        }
        if line.starts_with(char::is_whitespace) {
            match &mut current {
                Some(pending) => pending.lines.push(line),
                None => out.push(unrecognised(line)),
            }
            continue;
        }
        if let Some(pending) = current.take() {
            out.push(pending.finish(&map));
        }
        if let Some(header) = Header::parse(line) {
            current = Some(Pending {
                header,
                lines: Vec::new(),
            });
        } else if !is_summary(line) {
            out.push(unrecognised(line));
        }
    }
    if let Some(pending) = current {
        out.push(pending.finish(&map));
    }
    out
}

/// The text of [`Error::Compile`](crate::Error::Compile).
pub(crate) fn compile_message(
    kernel: &str,
    diagnostics: &[Diagnostic],
    log: &str,
    options: &[String],
) -> String {
    let mut out = format!("kernel `{kernel}` failed to compile with NVRTC:\n");
    if diagnostics.is_empty() {
        indent(&mut out, log.trim_end(), "  ");
    } else {
        push_diagnostics(&mut out, diagnostics);
    }
    out.push_str(&format!(
        "(generated C lines are lines of `{kernel}::CUDA_SOURCE`; NVRTC options: {})",
        options.join(" ")
    ));
    out
}

/// What `WARPSPEED_LOG_NVRTC=1` prints for a kernel that compiled with warnings.
pub(crate) fn warnings_message(kernel: &str, diagnostics: &[Diagnostic]) -> String {
    let mut out = format!("warpspeed: NVRTC warnings for kernel `{kernel}`:\n");
    push_diagnostics(&mut out, diagnostics);
    out.push_str(&format!(
        "(generated C lines are lines of `{kernel}::CUDA_SOURCE`)"
    ));
    out
}

fn push_diagnostics(out: &mut String, diagnostics: &[Diagnostic]) {
    for d in diagnostics {
        indent(out, &d.to_string(), "  ");
    }
}

fn indent(out: &mut String, text: &str, prefix: &str) {
    for line in text.lines() {
        out.push_str(prefix);
        out.push_str(line);
        out.push('\n');
    }
}

/// NVRTC's closing lines, which say nothing a diagnostic does not.
fn is_summary(line: &str) -> bool {
    line.starts_with("Remark: The warnings can be suppressed")
        || line.contains("detected in the compilation of")
}

fn unrecognised(line: &str) -> Diagnostic {
    Diagnostic {
        severity: String::new(),
        code: None,
        message: line.trim().to_string(),
        details: Vec::new(),
        rust_location: None,
        generated_line: None,
        generated_text: None,
    }
}

/// Where a message of the log is.
#[derive(Debug, PartialEq, Eq)]
enum Place {
    /// `file(line): ...`: a presumed location, as `#line` directives make it.
    At(String, u32),
    /// `At end of source: ...`.
    EndOfSource,
    /// `error: ...` (an option NVRTC rejects, say).
    Nowhere,
}

/// The first line of a message: `src/k.rs(12): warning #177-D: variable "x" was ...`.
#[derive(Debug, PartialEq, Eq)]
struct Header {
    place: Place,
    severity: String,
    code: Option<String>,
    message: String,
}

impl Header {
    fn parse(line: &str) -> Option<Header> {
        if let Some(rest) = line.strip_prefix("At end of source: ") {
            return Header::kind(Place::EndOfSource, rest);
        }
        if let Some(header) = Header::kind(Place::Nowhere, line) {
            return Some(header);
        }
        let close = line.find("): ")?;
        let (file, number) = line[..close].rsplit_once('(')?;
        let number = number.parse().ok()?;
        Header::kind(Place::At(file.to_string(), number), &line[close + 3..])
    }

    /// `warning #177-D: message` after the place.
    fn kind(place: Place, rest: &str) -> Option<Header> {
        let (kind, message) = rest.split_once(": ")?;
        let (severity, code) = match kind.split_once(" #") {
            Some((severity, code)) => (severity, Some(code.to_string())),
            None => (kind, None),
        };
        let known = ["error", "warning", "note", "remark", "catastrophic error"];
        known.contains(&severity).then(|| Header {
            place,
            severity: severity.to_string(),
            code,
            message: message.to_string(),
        })
    }
}

/// A message whose following lines are still being read.
struct Pending<'a> {
    header: Header,
    lines: Vec<&'a str>,
}

impl Pending<'_> {
    fn finish(self, map: &SourceMap<'_>) -> Diagnostic {
        // The quoted source line is the one above the caret; everything else is detail.
        let caret = self.lines.iter().position(|l| is_caret(l));
        let quoted = caret.and_then(|i| i.checked_sub(1)).map(|i| self.lines[i]);
        let details: Vec<String> = self
            .lines
            .iter()
            .enumerate()
            .filter(|&(i, _)| Some(i) != caret && caret.is_none_or(|c| i + 1 != c))
            .map(|(_, l)| l.trim().to_string())
            .collect();
        let generated_line = match &self.header.place {
            Place::At(file, line) => map.physical_line(file, *line, quoted),
            Place::EndOfSource => Some(map.lines.len() as u32).filter(|&n| n > 0),
            Place::Nowhere => None,
        };
        let rust_location = match &self.header.place {
            Place::At(file, line) if file != PROGRAM_NAME => generated_line
                .and_then(|n| map.rust_line(n))
                .or_else(|| Some((file.clone(), *line))),
            _ => details.iter().find_map(|d| instantiated_at(d)),
        };
        Diagnostic {
            severity: self.header.severity,
            code: self.header.code,
            message: self.header.message,
            details,
            rust_location,
            generated_text: generated_line.map(|n| map.text(n).trim_end().to_string()),
            generated_line,
        }
    }
}

fn is_caret(line: &str) -> bool {
    let t = line.trim();
    t.starts_with('^') && t.chars().all(|c| c == '^' || c == '~')
}

/// `... at line 12 of src/k.rs`: the Rust line that instantiated a prelude template.
fn instantiated_at(detail: &str) -> Option<(String, u32)> {
    let (_, at) = detail.rsplit_once(" at line ")?;
    let (number, file) = at.split_once(" of ")?;
    let file = file.trim();
    if file == PROGRAM_NAME {
        return None;
    }
    Some((file.to_string(), number.parse().ok()?))
}

/// Where the C preprocessor places one physical line of a source.
#[derive(Debug)]
struct Placed {
    /// The file of the last `#line` directive (the program's name before the first).
    file: String,
    /// The presumed line: the directive's number, plus one per line since.
    presumed: u32,
    /// The directive's own number: for emitted code, the Rust line of the statement this
    /// C line is part of.
    statement: u32,
}

/// Every physical line of a source placed by its `#line` directives.
struct SourceMap<'a> {
    lines: Vec<&'a str>,
    /// Per physical line (index 0 = line 1); `None` for a directive.
    placed: Vec<Option<Placed>>,
}

impl<'a> SourceMap<'a> {
    fn new(source: &'a str) -> Self {
        let lines: Vec<&str> = source.lines().collect();
        let mut placed = Vec::with_capacity(lines.len());
        let mut file = PROGRAM_NAME.to_string();
        let (mut next, mut statement) = (1u32, None);
        for line in &lines {
            if let Some((number, name)) = line_directive(line) {
                (next, statement) = (number, Some(number));
                if let Some(name) = name {
                    file = name;
                }
                placed.push(None);
            } else {
                placed.push(Some(Placed {
                    file: file.clone(),
                    presumed: next,
                    statement: statement.unwrap_or(next),
                }));
                next = next.saturating_add(1);
            }
        }
        SourceMap { lines, placed }
    }

    /// The physical line NVRTC meant by `file(line)`: where several lines share that
    /// presumed location, the one whose text is the line NVRTC quoted.
    fn physical_line(&self, file: &str, line: u32, quoted: Option<&str>) -> Option<u32> {
        let candidates: Vec<usize> = self
            .placed
            .iter()
            .enumerate()
            .filter(|(_, p)| {
                p.as_ref()
                    .is_some_and(|p| p.file == file && p.presumed == line)
            })
            .map(|(i, _)| i)
            .collect();
        let quoted = quoted.map(str::trim);
        let best = candidates
            .iter()
            .find(|&&i| quoted == Some(self.lines[i].trim()))
            .or_else(|| candidates.first())?;
        Some(*best as u32 + 1)
    }

    /// The Rust line of a physical line. The emitter writes one `#line` per Rust
    /// statement, and a statement may take several C lines (a `for` loop's counter, a
    /// closing brace): those C lines belong to the directive's line, not to the lines the
    /// preprocessor counts on from it. In other files (hand-written C) the count holds.
    fn rust_line(&self, physical: u32) -> Option<(String, u32)> {
        let p = self.placed.get(physical as usize - 1)?.as_ref()?;
        if p.file == PROGRAM_NAME {
            return None;
        }
        let line = if p.file.ends_with(".rs") {
            p.statement
        } else {
            p.presumed
        };
        Some((p.file.clone(), line))
    }

    fn text(&self, line: u32) -> &str {
        self.lines.get(line as usize - 1).copied().unwrap_or("")
    }
}

/// `#line 12 "src/k.rs"`, `#line 12`, or the preprocessor's own `# 12 "src/k.rs"`.
fn line_directive(line: &str) -> Option<(u32, Option<String>)> {
    let rest = line.trim_start().strip_prefix('#')?.trim_start();
    let rest = rest.strip_prefix("line").unwrap_or(rest).trim_start();
    let digits = rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len());
    let number = rest[..digits].parse().ok()?;
    let name = rest[digits..].trim();
    let name = name
        .strip_prefix('"')
        .and_then(|n| n.rfind('"').map(|end| &n[..end]))
        .map(|n| n.replace("\\\\", "\\").replace("\\\"", "\""));
    Some((number, name))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SOURCE: &str = "template <typename T> __device__ T f(T a) { return a.foo; }
__device__ int add3(int a, int b, int c);
#line 30 \"src/k.rs\"
__device__ int add3(int a, int b, int c) {
#line 31 \"src/k.rs\"
    return a + b + c;
}
#line 10 \"src/k.rs\"
extern \"C\" __global__ void k(int* out) {
#line 11 \"src/k.rs\"
    if (out[0] > 0) {
#line 12 \"src/k.rs\"
        out[1] = 2;
    }
#line 12 \"src/k.rs\"
    int s = add3(out[0], 1);
#line 13 \"src/k.rs\"
    out[0] = f<int>(s);
    out[2] = zz;
}
";

    const LOG: &str = "src/k.rs(12): error: too few arguments in function call
      int s = add3(out[0], 1);
                             ^

warpspeed.cu(1): error: expression must have class type but it has type \"int\"
  template <typename T> __device__ T f(T a) { return a.foo; }
                                                     ^
          detected during instantiation of \"T f(T) [with T=int]\" at line 13 of src/k.rs

src/k.rs(31): warning #177-D: variable \"x\" was declared but never referenced
      return a + b + c;
      ^

Remark: The warnings can be suppressed with \"-diag-suppress <warning-number>\"

src/k.rs(14): error: identifier \"zz\" is undefined
      out[2] = zz;
               ^

3 errors detected in the compilation of \"warpspeed.cu\".
";

    #[test]
    fn directives_give_presumed_lines() {
        assert_eq!(
            line_directive("#line 12 \"src/k.rs\""),
            Some((12, Some("src/k.rs".into())))
        );
        assert_eq!(line_directive("  # 7"), Some((7, None)));
        assert_eq!(
            line_directive("#line 3 \"src\\\\k.rs\""),
            Some((3, Some("src\\k.rs".into())))
        );
        assert_eq!(line_directive("#define X 1"), None);
        assert_eq!(line_directive("int x;"), None);
        let map = SourceMap::new(SOURCE);
        assert_eq!(map.physical_line(PROGRAM_NAME, 2, None), Some(2));
        assert_eq!(map.physical_line("src/k.rs", 30, None), Some(4));
        assert_eq!(map.physical_line("src/k.rs", 32, None), Some(7), "the `}}`");
        // Line 12 is both `out[1] = 2;` and `int s = ...`.
        assert_eq!(map.physical_line("src/k.rs", 12, None), Some(13));
        assert_eq!(
            map.physical_line("src/k.rs", 12, Some("    int s = add3(out[0], 1);")),
            Some(16)
        );
        assert_eq!(map.physical_line("src/other.rs", 12, None), None);
        assert_eq!(map.rust_line(7), Some(("src/k.rs".into(), 31)), "the `}}`");
        assert_eq!(map.rust_line(1), None, "before any directive");
    }

    #[test]
    fn log_becomes_placed_diagnostics() {
        let diags = parse_log(LOG, SOURCE);
        assert_eq!(diags.len(), 4, "{diags:#?}");
        let d = &diags[0];
        assert!(d.is_error());
        assert_eq!(d.message, "too few arguments in function call");
        assert_eq!(d.rust_location, Some(("src/k.rs".into(), 12)));
        assert_eq!(d.generated_line, Some(16));
        assert!(d.details.is_empty(), "{:?}", d.details);
        assert_eq!(
            d.to_string(),
            "src/k.rs:12: error: too few arguments in function call\n  \
             (generated C line 16: `    int s = add3(out[0], 1);`)"
        );

        let t = &diags[1];
        assert_eq!(
            t.rust_location,
            Some(("src/k.rs".into(), 13)),
            "instantiated at"
        );
        assert_eq!(t.generated_line, Some(1), "the template's own line");
        assert_eq!(t.details.len(), 1);

        let w = &diags[2];
        assert!(!w.is_error());
        assert_eq!(w.code.as_deref(), Some("177-D"));
        assert_eq!(w.generated_line, Some(6));
        assert!(w
            .to_string()
            .starts_with("src/k.rs:31: warning #177-D: variable"));

        // The second C line of the statement at Rust line 13: NVRTC counts on to 14.
        let z = &diags[3];
        assert_eq!(z.generated_line, Some(19));
        assert_eq!(z.rust_location, Some(("src/k.rs".into(), 13)));

        let text = compile_message("k", &diags, LOG, &["-lineinfo".into()]);
        assert!(
            text.starts_with(
                "kernel `k` failed to compile with NVRTC:\n  \
                 src/k.rs:12: error: too few arguments in function call\n    \
                 (generated C line 16: `    int s = add3(out[0], 1);`)\n  \
                 src/k.rs:13: error: expression must have class type"
            ),
            "{text}"
        );
        assert!(text.ends_with("NVRTC options: -lineinfo)"), "{text}");
        assert!(!text.contains("detected in the compilation"), "{text}");
    }

    #[test]
    fn unplaced_and_unknown_lines() {
        let log = "At end of source: error: expected a \"}\"\n\
                   src/k.rs(10): note #3196-D: to match this \"{\"\n  \
                   extern \"C\" __global__ void k(int* out) {\n  \
                   ^\n\
                   nvrtc: something unexpected\n\
                   error: invalid value for --gpu-architecture\n";
        let diags = parse_log(log, SOURCE);
        assert_eq!(diags.len(), 4, "{diags:#?}");
        assert_eq!(diags[0].generated_line, Some(20), "the last line");
        assert_eq!(diags[0].rust_location, None);
        assert!(diags[0]
            .to_string()
            .starts_with("generated C: error: expected"));
        assert_eq!(diags[1].severity, "note");
        assert_eq!(diags[1].generated_line, Some(9));
        assert_eq!(diags[2].severity, "");
        assert_eq!(diags[2].to_string(), "nvrtc: something unexpected");
        assert_eq!(
            diags[3].to_string(),
            "error: invalid value for --gpu-architecture"
        );
        // Nothing recognisable: the raw log is shown.
        let text = compile_message("k", &[], "raw\nlog", &[]);
        assert!(text.contains("\n  raw\n  log\n"), "{text}");
    }
}
