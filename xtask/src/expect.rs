//! Golden-file checks of firmware output (`examples/firmware/<board>/expected.txt`).
//!
//! # Format
//!
//! * Every line of `expected.txt` that is neither empty nor a comment (first character `#`) is
//!   a *pattern*. The patterns must match lines of the output **in order**; output lines that
//!   match no pattern may appear anywhere in between (boot noise, debug prints).
//! * A pattern matches a whole output line (trailing whitespace and `\r` ignored on both).
//! * Placeholders: `{n}` one or more decimal digits, `{x}` one or more hex digits, `{*}` any
//!   text (possibly empty). Write `{{` and `}}` for literal braces. Everything else is literal.
//! * `{icount}` is not a placeholder of this module: `cargo xtask qemu` replaces it with the
//!   `-icount` shift of the run before the file is parsed (see [`crate::qemu`]).
//!
//! Example: `MCT FRC: {n} -> {n} (advancing)` matches `MCT FRC: 12 -> 733 (advancing)`.
//!
//! A lower bound: `{n>=N}` is a decimal number (all the digits at that point) of at least
//! `N`, so `wakes={n>=1000} early=0` requires a thousand wakes and none early.
//!
//! Independently of the patterns, an output line starting with `PANIC` fails the check (the
//! firmware panic handlers print `PANIC: ...`), so a board that cannot report a failure exit
//! status still fails visibly.

/// One piece of a pattern.
#[derive(Debug, Clone, PartialEq)]
enum Token {
    /// Text that must appear as-is.
    Literal(String),
    /// `{n}`: decimal digits.
    Decimal,
    /// `{x}`: hex digits.
    Hex,
    /// `{*}`: anything.
    Any,
    /// `{n>=N}`: all the decimal digits at this point, forming a number of at least `N`.
    AtLeast(u64),
}

/// A compiled line pattern.
#[derive(Debug, Clone)]
pub struct Pattern {
    source: String,
    tokens: Vec<Token>,
}

impl Pattern {
    /// Compiles one pattern line.
    pub fn new(source: &str) -> Result<Pattern, String> {
        let mut tokens = Vec::new();
        let mut literal = String::new();
        let mut rest = source;
        while let Some(ch) = rest.chars().next() {
            let placeholder = [
                ("{n}", Token::Decimal),
                ("{x}", Token::Hex),
                ("{*}", Token::Any),
            ]
            .into_iter()
            .find(|(text, _)| rest.starts_with(text));
            if let Some((text, token)) = placeholder {
                if !literal.is_empty() {
                    tokens.push(Token::Literal(std::mem::take(&mut literal)));
                }
                tokens.push(token);
                rest = &rest[text.len()..];
            } else if let Some(bound) = rest.strip_prefix("{n>=") {
                let end = bound
                    .find('}')
                    .ok_or_else(|| format!("unclosed {{n>=...}} in {source:?}"))?;
                let min = bound[..end]
                    .parse::<u64>()
                    .map_err(|_| format!("bad bound in {{n>={}}} in {source:?}", &bound[..end]))?;
                if !literal.is_empty() {
                    tokens.push(Token::Literal(std::mem::take(&mut literal)));
                }
                tokens.push(Token::AtLeast(min));
                rest = &bound[end + 1..];
            } else if rest.starts_with("{{") || rest.starts_with("}}") {
                literal.push(ch);
                rest = &rest[2..];
            } else if ch == '{' {
                return Err(format!(
                    "unknown placeholder in {source:?}: use {{n}}, {{x}}, {{*}} or {{{{ for `{{`"
                ));
            } else {
                literal.push(ch);
                rest = &rest[ch.len_utf8()..];
            }
        }
        if !literal.is_empty() {
            tokens.push(Token::Literal(literal));
        }
        Ok(Pattern {
            source: source.to_owned(),
            tokens,
        })
    }

    /// The pattern as written.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// Whether the pattern matches the whole of `line`.
    pub fn matches(&self, line: &str) -> bool {
        match_tokens(&self.tokens, line.trim_end())
    }
}

/// Backtracking matcher; patterns are short, so the exponential worst case never matters.
// No regex crate: `{n>=N}` compares a number, which a regex cannot, and this is 25 lines.
fn match_tokens(tokens: &[Token], text: &str) -> bool {
    let Some((first, rest)) = tokens.split_first() else {
        return text.is_empty();
    };
    // Byte offsets at which the text following `first` may start.
    let run = |pred: fn(&char) -> bool| text.chars().take_while(pred).count();
    match first {
        Token::Literal(lit) => text
            .strip_prefix(lit.as_str())
            .is_some_and(|r| match_tokens(rest, r)),
        // Digits are ASCII, so a char count is also a byte count.
        Token::Decimal => (1..=run(char::is_ascii_digit)).any(|n| match_tokens(rest, &text[n..])),
        Token::Hex => (1..=run(char::is_ascii_hexdigit)).any(|n| match_tokens(rest, &text[n..])),
        Token::AtLeast(min) => {
            let n = run(char::is_ascii_digit);
            // Too many digits for u64 is a number above any bound.
            n > 0
                && text[..n].parse::<u64>().map_or(true, |v| v >= *min)
                && match_tokens(rest, &text[n..])
        }
        Token::Any => (0..=text.len())
            .filter(|&n| text.is_char_boundary(n))
            .any(|n| match_tokens(rest, &text[n..])),
    }
}

/// The patterns of an `expected.txt` file, in order.
pub fn parse_expected(text: &str) -> Result<Vec<Pattern>, String> {
    text.lines()
        .map(str::trim_end)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .map(Pattern::new)
        .collect()
}

/// Checks `output` against `patterns`; on failure, explains what was missing.
pub fn check(patterns: &[Pattern], output: &str) -> Result<(), String> {
    if let Some(panic) = output.lines().find(|line| line.starts_with("PANIC")) {
        return Err(format!("firmware panicked: {}", panic.trim_end()));
    }
    let mut lines = output.lines();
    for (index, pattern) in patterns.iter().enumerate() {
        if !lines.any(|line| pattern.matches(line)) {
            return Err(format!(
                "expected line {} of {} not found (in order): {:?}",
                index + 1,
                patterns.len(),
                pattern.source()
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{Pattern, check, parse_expected};

    fn matches(pattern: &str, line: &str) -> bool {
        Pattern::new(pattern).unwrap().matches(line)
    }

    #[test]
    fn placeholders() {
        assert!(matches(
            "FRC: {n} -> {n} (advancing)",
            "FRC: 12 -> 733 (advancing)"
        ));
        assert!(!matches("FRC: {n} -> {n}", "FRC: 12 -> x"));
        assert!(!matches("{n}", ""));
        assert!(matches("MPIDR = 0x{x}", "MPIDR = 0x80000900\r"));
        assert!(!matches("MPIDR = 0x{x}", "MPIDR = 0xzz"));
        assert!(matches("a{*}b", "ab"));
        assert!(matches("a{*}b", "a-é-b"));
        assert!(matches("{n}{n}", "12"));
        assert!(matches("{{n}} }}", "{n} }"));
        assert!(!matches("done", "done and more"));
        assert!(Pattern::new("{y}").is_err());
    }

    #[test]
    fn lower_bounds() {
        let p = "wakes={n>=1000} early=0";
        assert!(matches(p, "wakes=1000 early=0"));
        assert!(matches(p, "wakes=123456 early=0"));
        assert!(matches(p, "wakes=99999999999999999999999 early=0"));
        assert!(!matches(p, "wakes=999 early=0"));
        assert!(!matches(p, "wakes=0999 early=0"));
        assert!(!matches(p, "wakes= early=0"));
        assert!(!matches(p, "wakes=1000 early=1"));
        // All the digits count: 10001 is not read as 1000 followed by "1".
        assert!(!matches("x={n>=1000}1", "x=10001"));
        assert!(matches("{n>=0}", "0"));
        assert!(Pattern::new("{n>=}").is_err());
        assert!(Pattern::new("{n>=12").is_err());
    }

    #[test]
    fn ordered_lines_with_noise_between() {
        let patterns = parse_expected("# comment\n\nbanner\nvalue = {n}\ndone\n").unwrap();
        assert_eq!(patterns.len(), 3);
        assert!(check(&patterns, "noise\nbanner\nmore noise\nvalue = 5\ndone\n").is_ok());
        let err = check(&patterns, "value = 5\nbanner\ndone\n").unwrap_err();
        assert!(err.contains("value = {n}"), "{err}");
        assert!(check(&patterns, "banner\nPANIC: at x\nvalue = 1\ndone\n").is_err());
    }
}
