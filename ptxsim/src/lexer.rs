//! Splits PTX text into tokens. PTX opcodes, register names and special
//! registers contain dots (`ld.global.b32`, `%tid.x`), so a word runs on
//! through dots; a word that starts with a dot is a directive or type.

use crate::Error;

#[derive(Clone, Debug, PartialEq)]
pub enum Tok {
    /// Identifier, opcode, register (`%r1`), label or symbol.
    Word(String),
    /// `.reg`, `.b32`, `.global`, ...: the text after the dot.
    Dir(String),
    /// Integer literal (decimal or 0x hex), as written; sign is a separate token.
    Int(u64),
    /// `0fXXXXXXXX` (f32) or `0dXXXXXXXXXXXXXXXX` (f64) literal: its bits.
    F32(u32),
    F64(u64),
    Punct(char),
}

pub struct Token {
    pub tok: Tok,
    pub line: u32,
}

fn is_word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '$' || c == '%' || c == '.'
}

pub fn lex(src: &str) -> Result<Vec<Token>, Error> {
    let bytes: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let (mut i, mut line) = (0, 1u32);
    let err = |line: u32, msg: String| Error::Parse(format!("line {line}: {msg}"));
    while i < bytes.len() {
        let c = bytes[i];
        if c == '\n' {
            line += 1;
            i += 1;
        } else if c.is_whitespace() {
            i += 1;
        } else if c == '/' && bytes.get(i + 1) == Some(&'/') {
            while i < bytes.len() && bytes[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && bytes.get(i + 1) == Some(&'*') {
            i += 2;
            while i + 1 < bytes.len() && !(bytes[i] == '*' && bytes[i + 1] == '/') {
                line += (bytes[i] == '\n') as u32;
                i += 1;
            }
            i += 2;
        } else if c == '"' {
            // Only in `.file`/`.section` debug directives; skipped whole.
            i += 1;
            while i < bytes.len() && bytes[i] != '"' {
                i += 1;
            }
            i += 1;
            out.push(Token { tok: Tok::Word(String::from("\"\"")), line });
        } else if c.is_ascii_digit() {
            let start = i;
            while i < bytes.len() && bytes[i].is_ascii_alphanumeric() {
                i += 1;
            }
            let text: String = bytes[start..i].iter().collect();
            let tok = if let Some(h) = text.strip_prefix("0f").or(text.strip_prefix("0F")) {
                Tok::F32(u32::from_str_radix(h, 16).map_err(|e| err(line, format!("{text}: {e}")))?)
            } else if let Some(h) = text.strip_prefix("0d").or(text.strip_prefix("0D")) {
                Tok::F64(u64::from_str_radix(h, 16).map_err(|e| err(line, format!("{text}: {e}")))?)
            } else if let Some(h) = text.strip_prefix("0x").or(text.strip_prefix("0X")) {
                Tok::Int(
                    u64::from_str_radix(h.trim_end_matches('U'), 16)
                        .map_err(|e| err(line, format!("{text}: {e}")))?,
                )
            } else {
                Tok::Int(text.trim_end_matches('U').parse().map_err(|e| err(line, format!("{text}: {e}")))?)
            };
            out.push(Token { tok, line });
        } else if c == '.' && bytes.get(i + 1).is_some_and(|c| c.is_ascii_alphabetic() || *c == '_') {
            let start = i + 1;
            i += 1;
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == '_') {
                i += 1;
            }
            out.push(Token { tok: Tok::Dir(bytes[start..i].iter().collect()), line });
        } else if is_word_char(c) {
            let start = i;
            while i < bytes.len() && is_word_char(bytes[i]) {
                i += 1;
            }
            out.push(Token { tok: Tok::Word(bytes[start..i].iter().collect()), line });
        } else if ",;:[]{}()+-@!=<>|".contains(c) {
            out.push(Token { tok: Tok::Punct(c), line });
            i += 1;
        } else {
            return Err(err(line, format!("unexpected character {c:?}")));
        }
    }
    Ok(out)
}
