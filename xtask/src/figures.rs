//! `cargo xtask figures`: every figure the documents quote from a bench is the one the last
//! `cargo xtask bench` printed, so a figure left behind by a code change fails the check.
//!
//! # Marking a figure
//!
//! Right after a number quoted from a `bench:` line, an HTML comment names that line
//! (GitHub and rustdoc do not show it):
//!
//! ```text
//! | `FrcTime::now` | 1 | 25.6 <!-- bench: exynos-mct/fw_time64_now_insns --> | yes |
//! `read` takes 4 <!-- bench: otto-timer/mips_read_insns --> instructions on MIPS.
//! ```
//!
//! * A marker `<!-- bench: <crate>/<metric> -->` quotes the **last number before it in its
//!   table cell** (or paragraph, list item, heading), after the previous marker there: one
//!   cell may hold several figures, each followed by its marker. Markup and a unit between
//!   the number and the marker do not matter (`**10.560 µs**<!-- bench: ... -->`); another
//!   number would, so put the marker right after its figure.
//! * A number is decimal digits with at most one `.`, optionally signed (`-` or `−`), and not
//!   the end of a word (`time64`, `Cortex-A9`). Write it without digit grouping (`10000`,
//!   not `10 000`).
//! * A marker in code (a code span or block) is text, not a marker.
//! * The figure must be the measured value **at the precision it is written with**: `22.6`
//!   quotes anything from 22.55 to 22.65, `187` anything from 186.5 to 187.5. It may not show
//!   more decimals than the bench prints. Units are not converted: quote the bench's unit.
//!
//! Scanned: `README.md`, `crates/*/README.md`, `docs/*.md` and the crates' own notes,
//! `crates/*/docs/*.md`. Measured: the `bench:` lines of every output `cargo xtask bench`
//! saved in `target/bench-data/` (see [`crate::bench`]); a line that two producers print must
//! agree with the figure in both.
//!
//! The check fails, with `file:line`, the name, the documented and the measured value, when a
//! quoted figure differs, when no saved output has the line it names, or when a marker has
//! no number before it; and, if anything is marked, when nothing is saved yet. With no
//! markers at all it only says so.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use bench_support::{FIGURE_PREFIX, parse_figure};
use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};

use crate::bench::data_dir;
use crate::util::{arguments, no_more_args, read_file, repo_root};

/// One marked figure of a document.
#[derive(Debug, PartialEq)]
pub struct Quote {
    /// 1-based line of the marker.
    pub line: usize,
    /// The bench line it names, `<crate>/<metric>`.
    pub name: String,
    /// The number it quotes, as written (`-` for a minus sign); `None` if there is none.
    pub figure: Option<String>,
}

/// A measured value: as printed, its unit, and the file it was saved in.
type Measured = (String, String, String);

/// Checks the documents of the repository against the saved bench output.
pub fn main(args: &[String]) -> Result<(), String> {
    no_more_args(arguments(args), "`figures` takes no arguments")?;
    let root = repo_root();
    let documents = documents(&root);
    let (quoted, findings) = check(&root, &documents, &data_dir())?;
    for finding in &findings {
        println!("{finding}");
    }
    if !findings.is_empty() {
        return Err(format!(
            "figures: {} of {quoted} quoted figure(s) do not match target/bench-data/ \
             (rerun `cargo xtask bench`, then update the documents)",
            findings.len()
        ));
    }
    if quoted == 0 {
        println!(
            "figures: no figure is marked in the {} documents (mark one with \
             `<!-- bench: <crate>/<metric> -->` right after it)",
            documents.len()
        );
    } else {
        println!(
            "figures: {quoted} quoted figure(s) in {} documents match target/bench-data/",
            documents.len()
        );
    }
    Ok(())
}

/// The documents that may quote figures, relative to `root`: `README.md`,
/// `crates/*/README.md`, `docs/*.md`, `crates/*/docs/*.md`, sorted.
pub fn documents(root: &Path) -> Vec<PathBuf> {
    let children = |dir: &Path| -> Vec<PathBuf> {
        let entries = fs::read_dir(root.join(dir)).into_iter().flatten().flatten();
        entries.map(|e| dir.join(e.file_name())).collect()
    };
    let markdown = |dir: &Path| {
        let files = children(dir).into_iter();
        files.filter(|p| p.extension().is_some_and(|e| e == "md"))
    };
    let crates = children(Path::new("crates"));
    let mut found = vec![PathBuf::from("README.md")];
    found.extend(crates.iter().map(|c| c.join("README.md")));
    found.extend(markdown(Path::new("docs")));
    found.extend(crates.iter().flat_map(|c| markdown(&c.join("docs"))));
    found.retain(|p| root.join(p).is_file());
    found.sort();
    found
}

/// Checks the quotes of `documents` (relative to `root`) against the outputs saved in
/// `data`; returns how many figures are quoted and what is wrong, one line each.
pub fn check(
    root: &Path,
    documents: &[PathBuf],
    data: &Path,
) -> Result<(usize, Vec<String>), String> {
    let mut quotes = Vec::new();
    for document in documents {
        let text = read_file(&root.join(document))?;
        let shown = document.to_string_lossy().replace('\\', "/");
        quotes.extend(quotes_of(&text).into_iter().map(|q| (shown.clone(), q)));
    }
    if quotes.is_empty() {
        return Ok((0, Vec::new()));
    }
    let measured = measured(data)?;
    if measured.is_empty() {
        return Err(format!(
            "figures: no saved bench output in {}; run `cargo xtask bench` first",
            data.display()
        ));
    }
    let mut findings = Vec::new();
    for (file, quote) in &quotes {
        let at = format!("{file}:{}: {}", quote.line, quote.name);
        let Some(figure) = &quote.figure else {
            findings.push(format!("{at}: the marker has no number before it"));
            continue;
        };
        let Some(values) = measured.get(&quote.name) else {
            findings.push(format!(
                "{at}: documented {figure}, but no saved bench output has this line"
            ));
            continue;
        };
        let wrong: Vec<String> = values
            .iter()
            .filter_map(|(value, unit, source)| {
                let why = agrees(figure, value).err()?;
                Some(match values.len() {
                    1 => format!("{value} {unit}{why}"),
                    _ => format!("{value} {unit} in {source}{why}"),
                })
            })
            .collect();
        if !wrong.is_empty() {
            findings.push(format!(
                "{at}: documented {figure}, measured {}",
                wrong.join(", ")
            ));
        }
    }
    Ok((quotes.len(), findings))
}

/// The `bench:` lines of the outputs saved in `dir`, by name (malformed lines are left to
/// `cargo xtask bench`, which reports them).
fn measured(dir: &Path) -> Result<BTreeMap<String, Vec<Measured>>, String> {
    let mut files: Vec<PathBuf> = match fs::read_dir(dir) {
        Ok(entries) => entries.flatten().map(|e| e.path()).collect(),
        Err(_) => Vec::new(),
    };
    files.retain(|p| p.extension().is_some_and(|e| e == "txt"));
    files.sort();
    let mut figures: BTreeMap<String, Vec<Measured>> = BTreeMap::new();
    for file in &files {
        let source = file.file_name().unwrap_or_default().to_string_lossy();
        let text = read_file(file)?;
        let lines = text.lines().filter(|l| l.starts_with(FIGURE_PREFIX));
        for figure in lines.filter_map(parse_figure) {
            let entry = figures.entry(figure.name()).or_default();
            entry.push((figure.value, figure.unit, source.clone().into_owned()));
        }
    }
    Ok(figures)
}

/// The marked figures of a Markdown document, in order.
pub fn quotes_of(text: &str) -> Vec<Quote> {
    let line_of = |offset: usize| text[..offset].matches('\n').count() + 1;
    let mut quotes = Vec::new();
    // The text since the start of the cell (paragraph, ...) or the previous marker in it.
    let mut since = String::new();
    for (event, range) in Parser::new_ext(text, Options::ENABLE_TABLES).into_offset_iter() {
        match event {
            Event::Text(text) | Event::Code(text) => since.push_str(&text),
            Event::SoftBreak | Event::HardBreak => since.push(' '),
            Event::Html(html) | Event::InlineHtml(html) => {
                for name in markers(&html) {
                    quotes.push(Quote {
                        line: line_of(range.start),
                        name,
                        figure: last_number(&since),
                    });
                    since.clear();
                }
            }
            Event::Start(tag) if !is_inline(&tag) => since.clear(),
            Event::End(tag) if !is_inline_end(tag) => since.clear(),
            _ => {}
        }
    }
    quotes
}

/// Markup inside a cell or paragraph, which does not separate a figure from its marker.
fn is_inline(tag: &Tag) -> bool {
    matches!(
        tag,
        Tag::Emphasis | Tag::Strong | Tag::Strikethrough | Tag::Link { .. } | Tag::Image { .. }
    )
}

/// The end of [`is_inline`] markup.
fn is_inline_end(tag: TagEnd) -> bool {
    matches!(
        tag,
        TagEnd::Emphasis | TagEnd::Strong | TagEnd::Strikethrough | TagEnd::Link | TagEnd::Image
    )
}

/// The names of the `<!-- bench: NAME -->` comments in a piece of HTML.
fn markers(html: &str) -> Vec<String> {
    html.split("<!--")
        .skip(1)
        .filter_map(|comment| {
            let (inside, _) = comment.split_once("-->")?;
            let name = inside.trim().strip_prefix("bench:")?.trim();
            Some(name.to_owned())
        })
        .collect()
}

/// The last number of `text` (see the module docs), with `-` for a minus sign.
fn last_number(text: &str) -> Option<String> {
    let chars: Vec<char> = text.chars().collect();
    let is_word = |i: usize| chars[i].is_alphanumeric() || chars[i] == '_' || chars[i] == '.';
    let digits_from = |mut i: usize| {
        while i < chars.len() && chars[i].is_ascii_digit() {
            i += 1;
        }
        i
    };
    let mut last = None;
    let mut i = 0;
    while i < chars.len() {
        if !chars[i].is_ascii_digit() || (i > 0 && is_word(i - 1)) {
            i += 1;
            continue;
        }
        let start = i;
        i = digits_from(i);
        if i + 1 < chars.len() && chars[i] == '.' && chars[i + 1].is_ascii_digit() {
            i = digits_from(i + 1);
        }
        let signed = start > 0
            && matches!(chars[start - 1], '-' | '−')
            && (start < 2 || !chars[start - 2].is_alphanumeric());
        let number: String = chars[start..i].iter().collect();
        last = Some(if signed { format!("-{number}") } else { number });
    }
    last
}

/// `Ok` if `documented` is `measured` at the precision `documented` is written with (half a
/// unit of its last decimal either way); otherwise why not, as a suffix for the report.
pub fn agrees(documented: &str, measured: &str) -> Result<(), String> {
    let decimals = |s: &str| s.split_once('.').map_or(0, |(_, fraction)| fraction.len());
    let places = decimals(documented);
    // A value printed with an exponent has no fixed number of decimals.
    if !measured.contains(['e', 'E']) && places > decimals(measured) {
        return Err(" (the document shows more decimals than the bench prints)".into());
    }
    let (Ok(doc), Ok(value)) = (documented.parse::<f64>(), measured.parse::<f64>()) else {
        return Err(" (not a number)".into());
    };
    let half_unit = 0.5 * 10f64.powi(-(places as i32));
    // The slack absorbs the binary rounding of values that sit exactly on a half unit.
    if (doc - value).abs() <= half_unit * (1.0 + 1e-9) {
        Ok(())
    } else {
        Err(String::new())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn quote(line: usize, name: &str, figure: Option<&str>) -> Quote {
        Quote {
            line,
            name: name.into(),
            figure: figure.map(Into::into),
        }
    }

    #[test]
    fn markers_quote_the_last_number_of_their_cell() {
        let doc = "\
| read | MMIO reads | instructions |
|---|---|---|
| `Frc::read64` (2^32) | 3 | **25.6** insns <!-- bench: a/now --> |
| two | 2.011 <!-- bench: a/reads --> then 4 <!--bench:a/high--> | `12`<!-- bench: a/code --> |
| none | x86-64 <!-- bench: a/sign --> | <!-- bench: a/empty --> |

Prose: 
it takes (−3 <!-- bench: a/neg -->) and time64 <!-- bench: a/word -->.

`<!-- bench: a/in-code -->` and <!-- not a marker -->

```text
7 <!-- bench: a/in-block -->
```
<!-- bench: a/block -->
";
        assert_eq!(
            quotes_of(doc),
            [
                quote(3, "a/now", Some("25.6")),
                quote(4, "a/reads", Some("2.011")),
                quote(4, "a/high", Some("4")),
                quote(4, "a/code", Some("12")),
                quote(5, "a/sign", Some("64")),
                quote(5, "a/empty", None),
                quote(8, "a/neg", Some("-3")),
                quote(8, "a/word", None),
                quote(15, "a/block", None),
            ]
        );
    }

    #[test]
    fn numbers_are_not_parts_of_words() {
        assert_eq!(last_number("10.560 µs (min 10.500"), Some("10.500".into()));
        assert_eq!(last_number("Cortex-A9"), None);
        assert_eq!(last_number("v1.2.3"), None);
        assert_eq!(last_number("1.2.3"), Some("1.2".into()));
        assert_eq!(last_number("ends at 22."), Some("22".into()));
        assert_eq!(last_number("1-2"), Some("2".into()));
        assert_eq!(last_number("- 5"), Some("5".into()));
        assert_eq!(last_number("-5"), Some("-5".into()));
        assert_eq!(last_number(""), None);
    }

    #[test]
    fn figures_agree_at_their_own_precision() {
        assert_eq!(agrees("25.6", "25.6"), Ok(()));
        assert_eq!(agrees("22.6", "22.63"), Ok(()));
        assert_eq!(agrees("2.011", "2.01120"), Ok(()));
        assert_eq!(agrees("187", "186.5"), Ok(()));
        assert_eq!(agrees("22.7", "22.65"), Ok(()));
        assert_eq!(agrees("22.6", "22.65"), Ok(()));
        assert_eq!(agrees("35", "3.5e1"), Ok(()));
        assert_eq!(agrees("-3", "-3"), Ok(()));
        assert_eq!(agrees("25.6", "25.7"), Err(String::new()));
        assert_eq!(agrees("22.6", "22.66"), Err(String::new()));
        assert_eq!(agrees("187", "185"), Err(String::new()));
        assert_eq!(agrees("3", "-3"), Err(String::new()));
        assert!(agrees("1.00", "1").is_err());
        assert!(agrees("22.60", "22.6").is_err());
    }

    /// The fixture under `xtask/fixtures/figures`: a miniature repository with saved bench
    /// output, quoting figures right and wrong.
    #[test]
    fn fixture_findings() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/figures");
        let documents = documents(&root);
        let shown: Vec<String> = documents.iter().map(|d| d.display().to_string()).collect();
        assert_eq!(
            shown,
            [
                "README.md",
                "crates/a/README.md",
                "crates/a/docs/notes.md",
                "docs/README.md"
            ]
        );
        let (quoted, findings) = check(&root, &documents, &root.join("bench-data")).unwrap();
        assert_eq!(quoted, 9, "{findings:#?}");
        assert_eq!(
            findings,
            [
                "README.md:5: a/now_insns: documented 25.6, measured 26.1 insns",
                "README.md:6: a/gone: documented 3, but no saved bench output has this line",
                "crates/a/README.md:3: a/reads: documented 1.0000, measured 1.000 reads \
                 (the document shows more decimals than the bench prints)",
                "crates/a/docs/notes.md:1: a/ns: documented 22, measured 22.63 ns",
                "docs/README.md:3: a/shared: documented 12, measured 13 insns in firmware.b.txt",
                "docs/README.md:4: a/lost: the marker has no number before it",
            ]
        );
    }

    #[test]
    fn quotes_without_saved_output_fail() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/figures");
        let error = check(&root, &documents(&root), &root.join("none")).unwrap_err();
        assert!(error.contains("run `cargo xtask bench` first"), "{error}");
        let (quoted, findings) = check(&root, &[], &root.join("none")).unwrap();
        assert_eq!((quoted, findings.len()), (0, 0));
    }
}
