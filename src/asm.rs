//! What an inline assembly string tells about when its outputs are written.
//!
//! LLVM lets an output share a register with an input unless the constraint
//! says early clobber (`=&r`), trusting the asm to read every input before it
//! writes any output. CUDA code does not keep that promise: its headers'
//! asm (the sinf/cosf argument reduction) writes `$0` and then reads `$2`,
//! written for compilers that give every output a register of its own. So an
//! output may share a register with the inputs only where the text shows it
//! safe: straight-line PTX whose statements read the inputs before the
//! statement that first names the output, or in that statement itself when
//! it is one instruction writing that output alone (`add.f16 $0, $1, $2`
//! reads its sources before it writes). An instruction with several outputs
//! is not trusted either: ptxas may split it (wmma's mma became two HMMAs
//! that both read A after the first wrote part of D).

/// Whether asm output `$output` is written only after every input in
/// `inputs` has been read, as the asm `text` (LLVM's asm string, operands
/// named `$N` or `${N:modifier}`) shows. False wherever the text is not
/// plain straight-line statements.
pub fn output_written_after_inputs(text: &str, output: u32, inputs: &[u32], outputs: &[u32]) -> bool {
    let Some(statements) = statements(text) else { return false };
    let last_input = statements.iter().rposition(|named| named.iter().any(|n| inputs.contains(n)));
    let Some(first) = statements.iter().position(|named| named.contains(&output)) else {
        // Never named, never written by the text.
        return true;
    };
    match last_input {
        None => true,
        Some(last) if first > last => true,
        Some(last) if first == last => {
            let named_outputs = statements[first].iter().filter(|n| outputs.contains(n)).count();
            named_outputs == 1
        }
        Some(_) => false,
    }
}

/// The operand numbers each statement names, in order (an operand named
/// twice in one statement is listed twice); `None` for text with control
/// flow (a label, a branch, a call or a return) or an operand reference it
/// cannot read.
fn statements(text: &str) -> Option<Vec<Vec<u32>>> {
    let code = strip_comments(text);
    let mut statements = Vec::new();
    for statement in code.split(';') {
        // Scope braces go; `${N}` keeps its own.
        let bare = statement.replace("${", "$").replace(['{', '}'], " ");
        let bare = bare.trim();
        if bare.is_empty() {
            continue;
        }
        if has_control_flow(bare) {
            return None;
        }
        statements.push(operand_numbers(bare)?);
    }
    Some(statements)
}

fn strip_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix("//") {
            rest = after.find('\n').map_or("", |end| &after[end..]);
        } else if let Some(after) = rest.strip_prefix("/*") {
            rest = after.find("*/").map_or("", |end| &after[end + 2..]);
            out.push(' ');
        } else {
            let c = rest.chars().next().expect("rest is not empty");
            out.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    out
}

fn has_control_flow(statement: &str) -> bool {
    // A label: "L1:" before the first space.
    if statement.split_whitespace().next().is_some_and(|w| w.contains(':')) {
        return true;
    }
    // The mnemonic is the first word, or the second after a guard "@p".
    let mnemonic = statement.split_whitespace().find(|w| !w.starts_with('@')).unwrap_or("");
    let base = mnemonic.split('.').next().unwrap_or("");
    matches!(base, "bra" | "brx" | "call" | "ret")
}

/// `$N` references in order (`${N:modifier}` already without its brace);
/// `$$` is a literal dollar.
fn operand_numbers(statement: &str) -> Option<Vec<u32>> {
    let mut numbers = Vec::new();
    let mut chars = statement.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        if c != '$' {
            continue;
        }
        let rest = &statement[at + 1..];
        if rest.starts_with('$') {
            chars.next();
            continue;
        }
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        if digits.is_empty() {
            return None;
        }
        numbers.push(digits.parse().ok()?);
    }
    Some(numbers)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_instruction_reads_before_it_writes() {
        let text = "{add.f16 $0,$1,$2;\n}";
        assert!(output_written_after_inputs(text, 0, &[1, 2], &[0]));
    }

    #[test]
    fn inputs_read_into_temporaries_first_may_share() {
        // The shape of CUDA's 128-bit multiply in its double trig reduction.
        let text = "{\n\t.reg .u32 r0, r1, alo, ahi;\n\tmov.b64 {alo,ahi}, $2;\n\tmov.b64 {blo,bhi}, $3;\n\t\
                    mul.lo.u32 r0, alo, blo;\n\tmov.b64 $0, {r0,r1};\n\tmov.b64 $1, {r2,r3};\n}";
        assert!(output_written_after_inputs(text, 0, &[2, 3], &[0, 1]));
        assert!(output_written_after_inputs(text, 1, &[2, 3], &[0, 1]));
    }

    #[test]
    fn an_output_written_before_an_input_is_read_may_not() {
        // CUDA's sinf/cosf reduction: $0 written, then $2 read again.
        let text = "{\n\tmul.lo.u32 $0, $2, $3;\n\tmad.hi.u32 $1, $2, $3, $4;\n}";
        assert!(!output_written_after_inputs(text, 0, &[2, 3, 4], &[0, 1]));
        assert!(output_written_after_inputs(text, 1, &[2, 3, 4], &[0, 1]));
    }

    #[test]
    fn an_instruction_with_several_outputs_is_not_trusted() {
        let text = "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {$0,$1}, {$2}, {$3}, {$0,$1};";
        assert!(!output_written_after_inputs(text, 0, &[2, 3], &[0, 1]));
    }

    #[test]
    fn control_flow_and_unreadable_references_are_not_trusted() {
        assert!(!output_written_after_inputs("L1: add.s32 $0, $1, 1; @p bra L1;", 0, &[1], &[0]));
        assert!(!output_written_after_inputs("add.s32 $0, $1, 1; bra.uni done; done:", 0, &[1], &[0]));
        assert!(!output_written_after_inputs("mov.b32 $0, $x;", 0, &[1], &[0]));
    }

    #[test]
    fn comments_modifiers_and_literal_dollars_are_read() {
        let text = "// $0 in a comment\nmov.b32 ${0:r}, ${1};  /* $2 */ mov.b32 $$tmp, 1;";
        assert!(output_written_after_inputs(text, 0, &[1, 2], &[0]));
    }
}
