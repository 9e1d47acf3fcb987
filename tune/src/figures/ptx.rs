//! The PTX side of what the tuner reads: kernels, their block sizes, each
//! function's text and who calls whom.

use std::collections::{BTreeMap, BTreeSet};

/// A PTX module's functions, as the tuner needs them: which are kernels,
/// their block sizes, each definition's text (to tell whether two builds
/// made the same PTX of a function), and what each kernel calls.
pub struct Ptx<'a> {
    text: &'a str,
    /// Each function definition (declarations without a body are not), in
    /// order: (name, is a kernel, its text).
    definitions: Vec<(&'a str, bool, &'a str)>,
}

impl<'a> Ptx<'a> {
    pub fn new(text: &'a str) -> Self {
        let mut definitions = Vec::new();
        let mut offset = 0;
        for line in text.split_inclusive('\n') {
            let start = offset;
            offset += line.len();
            let Some((entry, name, after_name)) = function_header(line) else { continue };
            // The parameters and directives up to the body hold no `;` or `{`:
            // a `;` first ends a declaration.
            let from = start + after_name;
            let Some(open) = text[from..].find([';', '{']).filter(|&i| text.as_bytes()[from + i] == b'{')
            else {
                continue;
            };
            // The body ends at a line that is `}` alone (braces inside it, of
            // call sequences, are indented); a body that reaches the next
            // function without one is not read.
            let body = from + open;
            let mut at = text[body..].find('\n').map_or(text.len(), |i| body + i + 1);
            let close = text[at..].split_inclusive('\n').find_map(|inner| {
                let line_start = at;
                at += inner.len();
                if function_header(inner).is_some() {
                    Some(None)
                } else {
                    (inner.trim_end() == "}").then_some(Some(line_start + 1))
                }
            });
            if let Some(Some(end)) = close {
                definitions.push((name, entry, &text[start..end]));
            }
        }
        Ptx { text, definitions }
    }

    /// The architecture of the `.target` directive (`sm_90a`), if any.
    pub fn target(&self) -> Option<&'a str> {
        self.text.lines().find_map(|line| {
            let code = line.split("//").next()?.trim();
            let targets = code.strip_prefix(".target")?;
            targets.split(',').map(str::trim).find(|t| t.starts_with("sm_"))
        })
    }

    /// Threads a block of `kernel`: the product of its `.reqntid` (the
    /// block size it must be launched with) or else its `.maxntid` (the most
    /// it may be launched with, as `__launch_bounds__` sets; occupancy is
    /// reckoned at that). None where the PTX sets neither.
    pub fn block_threads(&self, kernel: &str) -> Option<u32> {
        let text = self.function_text(kernel)?;
        let header = &text[..text.find('{')?];
        let directive = |name: &str| {
            header.lines().find_map(|line| {
                let code = line.split("//").next()?;
                let at = code.find(name)?;
                let numbers = code[at + name.len()..].split(',').map(|n| n.trim().parse::<u32>().ok());
                numbers.product::<Option<u32>>()
            })
        };
        directive(".reqntid").or_else(|| directive(".maxntid"))
    }

    /// The definition of function `name` (from its header line to the `}`
    /// that closes its body), or None where it is only declared or absent.
    pub fn function_text(&self, name: &str) -> Option<&'a str> {
        self.definitions.iter().find(|d| d.0 == name).map(|d| d.2)
    }

    /// Each defined function's text as a digest: two builds whose digests of
    /// a function agree made the same PTX of it.
    pub fn function_digests(&self) -> BTreeMap<String, String> {
        use sha2::{Digest, Sha256};
        self.definitions
            .iter()
            .map(|(name, _, text)| {
                let digest = Sha256::digest(text.as_bytes());
                (name.to_string(), digest.iter().take(16).map(|b| format!("{b:02x}")).collect())
            })
            .collect()
    }

    /// Per kernel, the functions it calls, directly or through others.
    /// ptxas compiles a called function into each kernel that calls it and
    /// reports no registers of its own for it, so a called function's PTX
    /// shows in its callers' figures only.
    pub fn called_functions(&self) -> BTreeMap<String, BTreeSet<String>> {
        let kernels: BTreeSet<&str> = self.definitions.iter().filter(|d| d.1).map(|d| d.0).collect();
        let calls = |name: &str| -> Vec<&'a str> {
            let text = self.function_text(name).unwrap_or("");
            called_names(text).filter(|callee| !kernels.contains(callee)).collect()
        };
        let mut reach = BTreeMap::new();
        for &kernel in &kernels {
            let mut seen = BTreeSet::new();
            let mut todo = calls(kernel);
            while let Some(f) = todo.pop() {
                if seen.insert(f.to_string()) {
                    todo.extend(calls(f));
                }
            }
            reach.insert(kernel.to_string(), seen);
        }
        reach
    }
}

/// Whether `line` opens a function (`.entry` or `.func`, after any linkage
/// such as `.visible` or `.extern`), and if so (is a kernel, its name, the
/// offset in `line` just past the name). A `.func` returning a value has its
/// return parameter before the name: `.func (.param .b32 func_retval0) f(`.
fn function_header(line: &str) -> Option<(bool, &str, usize)> {
    let code = line.split("//").next()?;
    let (entry, after) = [(true, ".entry"), (false, ".func")].into_iter().find_map(|(entry, keyword)| {
        code.match_indices(keyword)
            .find(|&(i, _)| {
                code[..i].chars().next_back().is_none_or(char::is_whitespace)
                    && code[i + keyword.len()..].starts_with(char::is_whitespace)
            })
            .map(|(i, _)| (entry, i + keyword.len()))
    })?;
    let mut rest = code[after..].trim_start();
    if rest.starts_with('(') {
        rest = rest[rest.find(')')? + 1..].trim_start();
    }
    let len = rest.find(|c: char| !is_identifier(c)).unwrap_or(rest.len());
    let start = code.len() - rest.len();
    (len > 0).then(|| (entry, &rest[..len], start + len))
}

fn is_identifier(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '$'
}

/// The functions a PTX function's `call` instructions name:
/// `call.uni (retval0), f, (param0);` and `call f, (param0);`. Indirect
/// calls (through a register, `%rd1`) name none.
fn called_names(text: &str) -> impl Iterator<Item = &str> {
    text.match_indices("call").filter_map(move |(i, _)| {
        if text[..i].chars().next_back().is_some_and(is_identifier) {
            return None;
        }
        let rest = &text[i + "call".len()..];
        let rest = rest.strip_prefix(".uni").unwrap_or(rest);
        if !rest.starts_with(char::is_whitespace) {
            return None;
        }
        let mut rest = rest.trim_start();
        if rest.starts_with('(') {
            rest = rest[rest.find(')')? + 1..].trim_start().strip_prefix(',')?.trim_start();
        }
        let len = rest.find(|c: char| !is_identifier(c)).unwrap_or(rest.len());
        (len > 0).then(|| &rest[..len])
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Trimmed clang 22 PTX: a function returning a value, a declaration of
    /// a function defined later and an extern one, calls through others, and
    /// kernels with and without launch bounds.
    const MODULE: &str = "\
.version 8.8
.target sm_90a
.address_size 64

.extern .func  (.param .b32 func_retval0) vprintf
(
\t.param .b64 vprintf_param_0,
\t.param .b64 vprintf_param_1
)
;
.visible .func  (.param .b32 func_retval0) _Z5outerf(
\t.param .b32 _Z5outerf_param_0
)
;
\t// .globl\t_Z6helperf              // -- Begin function _Z6helperf
.visible .func  (.param .b32 func_retval0) _Z6helperf(
\t.param .b32 _Z6helperf_param_0
)                                       // @_Z6helperf
{
\t.reg .b32 \t%r<3>;

\tld.param.b32 \t%r1, [_Z6helperf_param_0];
\tst.param.b32 \t[func_retval0], %r1;
\tret;
                                        // -- End function
}
.visible .func  (.param .b32 func_retval0) _Z5outerf(
\t.param .b32 _Z5outerf_param_0
)
{
\t.reg .b32 \t%r<4>;

\t{ // callseq 0, 0
\t.param .b32 param0;
\t.param .b32 retval0;
\tcall.uni (retval0), _Z6helperf, (param0);
\t} // callseq 0
\tret;
}
.visible .func _Z4noopv()
{
\tret;
}
\t// .globl\tlb_kernel               // -- Begin function lb_kernel
.visible .entry lb_kernel(
\t.param .u64 .ptr .align 1 lb_kernel_param_0
)
.maxntid 256
.minnctapersm 2                         // @lb_kernel
{
\t{ // callseq 1, 0
\tcall.uni (retval0), _Z5outerf, (param0);
\t} // callseq 1
\tcall.uni _Z4noopv, ();
\tcall (retval0), %rd4, (param0), prototype_1;
\tret;
}
.visible .entry tiles(
\t.param .u64 tiles_param_0
)
.maxntid 1024, 1, 1
.reqntid 16, 16, 1
{
\tret;
}
.entry plain()
{
\tcall.uni (retval0), vprintf, (param0, param1);
\tret;
}
";

    #[test]
    fn ptx_functions() {
        let ptx = Ptx::new(MODULE);
        assert_eq!(ptx.target(), Some("sm_90a"));
        assert_eq!(ptx.block_threads("lb_kernel"), Some(256));
        assert_eq!(ptx.block_threads("tiles"), Some(256));
        assert_eq!(ptx.block_threads("plain"), None);
        assert_eq!(ptx.block_threads("absent"), None);

        let outer = ptx.function_text("_Z5outerf").unwrap();
        assert!(outer.starts_with(".visible .func  (.param .b32 func_retval0) _Z5outerf(\n"));
        assert!(
            outer.contains("call.uni (retval0), _Z6helperf") && outer.ends_with("\tret;\n}"),
            "{outer:?}"
        );
        assert!(ptx.function_text("_Z6helperf").unwrap().ends_with("// -- End function\n}"));
        assert_eq!(ptx.function_text("_Z4noopv"), Some(".visible .func _Z4noopv()\n{\n\tret;\n}"));
        assert_eq!(ptx.function_text("vprintf"), None);
        assert_eq!(ptx.function_text("func_retval0"), None);
        assert_eq!(ptx.function_text("_Z5outer"), None);

        let calls = ptx.called_functions();
        let names = |k: &str| calls[k].iter().map(String::as_str).collect::<Vec<_>>();
        assert_eq!(names("lb_kernel"), ["_Z4noopv", "_Z5outerf", "_Z6helperf"]);
        assert!(names("tiles").is_empty());
        assert_eq!(names("plain"), ["vprintf"]);
    }

    #[test]
    fn block_threads_without_commas_in_comments() {
        let ptx = Ptx::new(".entry k()\n.maxntid 128 // three, four\n{\n\tret;\n}\n");
        assert_eq!(ptx.block_threads("k"), Some(128));
    }
}
