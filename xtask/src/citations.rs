//! `cargo xtask citations`: every document the repository cites exists, and nothing cites
//! the reference notes that live outside it.
//!
//! Two rules, over every text file of the repository (build output, `.git` and this
//! checker's own rules and fixtures excepted):
//!
//! 1. **Cited documents exist.** A path to a Markdown file with a `docs` directory in it
//!    (`docs/otto-timer.md`, `../../docs/qemu.md`), optionally followed by `#anchor`, must
//!    name an existing file, and the anchor must be produced by one of its headings the way
//!    GitHub makes heading anchors (or by an explicit `<a name|id="...">`). Paths starting
//!    with `./` or `../` are relative to the citing file, other paths to the repository
//!    root, except in a library crate (`crates/<name>/`), where they are relative to the
//!    crate: a published crate ships what it cites, so a crate's files may cite only files
//!    inside the crate (its own `docs/`). In Markdown files, a link target (`[text](target.md#anchor)`, `[text](#anchor)`)
//!    is relative to the file, as GitHub resolves it; such links are checked when they point
//!    into a `docs` directory or, for a bare `#anchor`, when the file itself is under `docs/`.
//! 2. **No citations of the external reference notes.** Outside `docs/`, the file names
//!    listed in [`EXTERNAL_NOTES`] may only appear as part of a `docs/...` path: a bare
//!    name cites the notes the project was written from, which readers of the repository do
//!    not have. Inside `docs/` a bare name is a relative link to a sibling document, which
//!    rule 1 checks.
//!
//! URLs (`scheme://...`), absolute paths and placeholders with `...` in them are not checked.

use crate::util::{arguments, no_more_args, repo_root};
use pulldown_cmark::{Event, Parser, Tag, TagEnd};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::fs;
use std::path::{Component, Path, PathBuf};
use walkdir::WalkDir;

/// File names of the reference notes kept outside the repository. Outside `docs/` they
/// must not be cited; the repository's own documents under `docs/` replace them.
pub const EXTERNAL_NOTES: [&str; 4] = ["hardware.md", "qemu.md", "STYLE.md", "rust-ecosystem.md"];

/// Paths (relative to the repository root, `/`-separated) that are not scanned: the
/// checkers' own sources and fixtures spell out the names and broken citations they test
/// (`figures` tests name the documents of its fixture repository).
const EXEMPT: [&str; 3] = [
    "xtask/src/citations.rs",
    "xtask/src/figures.rs",
    "xtask/fixtures",
];

/// Directories never scanned, wherever they are.
const SKIPPED_DIRS: [&str; 2] = ["target", ".git"];

/// Files larger than this are not text we write (and are skipped).
const MAX_FILE_BYTES: u64 = 2 << 20;

/// One problem found.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Finding {
    /// The citing file, relative to the scanned root, `/`-separated.
    pub file: String,
    /// 1-based line number.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.file, self.line, self.message)
    }
}

/// Runs the check on the repository and prints every finding.
pub fn main(args: &[String]) -> Result<(), String> {
    no_more_args(arguments(args), "`citations` takes no arguments")?;
    let root = repo_root();
    let (scanned, findings) = check_tree(&root, &EXEMPT);
    for finding in &findings {
        println!("{finding}");
    }
    if findings.is_empty() {
        println!("citations: {scanned} files checked, every cited document and anchor exists");
        Ok(())
    } else {
        Err(format!(
            "citations: {} problem(s) in {scanned} files checked",
            findings.len()
        ))
    }
}

/// Checks every text file under `root` except `exempt` paths (relative to `root`); returns
/// the number of files checked and the findings, sorted.
pub fn check_tree(root: &Path, exempt: &[&str]) -> (usize, Vec<Finding>) {
    let mut files = Vec::new();
    collect_files(root, root, exempt, &mut files);
    files.sort();
    let mut docs = DocCache::default();
    let mut findings = Vec::new();
    let mut scanned = 0;
    for file in &files {
        let Ok(text) = fs::read_to_string(root.join(file)) else {
            continue; // not UTF-8: not a text file we write
        };
        scanned += 1;
        findings.extend(check_file(root, file, &text, &mut docs));
    }
    findings.sort();
    (scanned, findings)
}

/// Files under `dir`, as paths relative to `root`.
fn collect_files(root: &Path, dir: &Path, exempt: &[&str], out: &mut Vec<PathBuf>) {
    let skipped = |entry: &walkdir::DirEntry| {
        let rel = entry.path().strip_prefix(root).map(slash_path);
        SKIPPED_DIRS.iter().any(|s| entry.file_name() == *s)
            || rel.is_ok_and(|rel| {
                exempt
                    .iter()
                    .any(|e| rel == *e || rel.starts_with(&format!("{e}/")))
            })
    };
    let walk = WalkDir::new(dir).min_depth(1).into_iter();
    for entry in walk.filter_entry(|e| !skipped(e)).flatten() {
        let small = entry.metadata().is_ok_and(|m| m.len() <= MAX_FILE_BYTES);
        if entry.file_type().is_file()
            && small
            && let Ok(relative) = entry.path().strip_prefix(root)
        {
            out.push(relative.to_path_buf());
        }
    }
}

/// `path` with `/` separators.
fn slash_path(path: &Path) -> String {
    path.components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

/// The anchors of the Markdown documents read so far, by path relative to the root.
#[derive(Default)]
struct DocCache {
    anchors: BTreeMap<PathBuf, Option<BTreeSet<String>>>,
}

impl DocCache {
    /// The anchors of `path` (relative to `root`), or `None` if it is not a readable file.
    fn anchors(&mut self, root: &Path, path: &Path) -> Option<&BTreeSet<String>> {
        self.anchors
            .entry(path.to_path_buf())
            .or_insert_with(|| {
                let full = root.join(path);
                if !full.is_file() {
                    return None;
                }
                fs::read_to_string(&full).ok().map(|text| anchors_of(&text))
            })
            .as_ref()
    }
}

/// The findings of one file (`file` relative to `root`).
fn check_file(root: &Path, file: &Path, text: &str, docs: &mut DocCache) -> Vec<Finding> {
    let file_str = slash_path(file);
    // The package a file ships in, when it is a library crate's: `crates/<name>`.
    let package = match file_str.split('/').collect::<Vec<_>>().as_slice() {
        ["crates", name, _, ..] => Some(PathBuf::from("crates").join(name)),
        _ => None,
    };
    let in_docs = file_str.starts_with("docs/")
        || package
            .as_ref()
            .is_some_and(|p| file.starts_with(p.join("docs")));
    let is_markdown = file_str.ends_with(".md");
    let dir = file.parent().unwrap_or(Path::new(""));
    let mut findings = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let mut report = |message: String| {
            findings.push(Finding {
                file: file_str.clone(),
                line: index + 1,
                message,
            })
        };
        for token in path_tokens(line) {
            let segments: Vec<&str> = token.path.split('/').collect();
            let last = segments.last().copied().unwrap_or_default();
            let in_docs_path = segments.len() >= 2 && segments[segments.len() - 2] == "docs";
            let has_docs_segment = segments[..segments.len().saturating_sub(1)].contains(&"docs");

            // Rule 2: a bare external note name.
            if !in_docs && EXTERNAL_NOTES.contains(&last) && !in_docs_path {
                report(format!(
                    "cites `{}`, a reference note outside the repository; cite the \
                     repository's docs/ instead",
                    token.path
                ));
                continue;
            }

            if token.path.is_empty() && token.markdown_link && is_markdown {
                // `[text](#anchor)`: an anchor of this very file.
                if let (true, Some(anchor)) = (in_docs, &token.anchor) {
                    let target = file.to_path_buf();
                    if let Some(problem) =
                        check_target(root, &target, &format!("#{anchor}"), Some(anchor), docs)
                    {
                        report(problem);
                    }
                }
                continue;
            }
            // Not checked: other files, absolute paths, URLs, and placeholders (`docs/...md`).
            if !token.path.ends_with(".md")
                || token.path.starts_with('/')
                || token.url
                || token.path.contains("...")
            {
                continue;
            }
            let relative_to_file = token.markdown_link && is_markdown
                || token.path.starts_with("./")
                || token.path.starts_with("../");
            let target = if relative_to_file {
                normalize(&dir.join(&token.path))
            } else if let Some(package) = &package {
                normalize(&package.join(&token.path))
            } else {
                normalize(Path::new(&token.path))
            };
            let Some(target) = target else {
                report(format!(
                    "cites `{}`, which leaves the repository",
                    token.path
                ));
                continue;
            };
            if let Some(package) = &package
                && !target.starts_with(package)
            {
                report(format!(
                    "cites `{}`, outside its crate: the published package would not contain it",
                    token.path
                ));
                continue;
            }
            let target_in_docs = slash_path(&target)
                .split('/')
                .rev()
                .skip(1)
                .any(|s| s == "docs");
            if !(has_docs_segment || (token.markdown_link && is_markdown && target_in_docs)) {
                continue;
            }
            let cited = match &token.anchor {
                Some(anchor) => format!("{}#{anchor}", token.path),
                None => token.path.clone(),
            };
            if let Some(problem) =
                check_target(root, &target, &cited, token.anchor.as_deref(), docs)
            {
                report(problem);
            }
        }
    }
    findings
}

/// Checks that `target` exists and, with `anchor`, that it produces that anchor.
fn check_target(
    root: &Path,
    target: &Path,
    cited: &str,
    anchor: Option<&str>,
    docs: &mut DocCache,
) -> Option<String> {
    let shown = slash_path(target);
    let Some(anchors) = docs.anchors(root, target) else {
        return Some(format!("cites `{cited}`, but {shown} does not exist"));
    };
    let anchor = anchor?;
    if anchors.contains(anchor) {
        return None;
    }
    let known: Vec<&str> = anchors.iter().map(String::as_str).take(12).collect();
    Some(format!(
        "cites `{cited}`, but no heading of {shown} produces the anchor `#{anchor}` \
         (its anchors: {}{})",
        if known.is_empty() {
            "none".to_owned()
        } else {
            known.join(", ")
        },
        if anchors.len() > known.len() {
            ", ..."
        } else {
            ""
        }
    ))
}

/// `path` with `.` and `..` resolved, or `None` if it climbs above its start.
fn normalize(path: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    return None;
                }
            }
            Component::Normal(part) => out.push(part),
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    Some(out)
}

/// A path-like word of a line.
#[derive(Debug, PartialEq)]
struct PathToken {
    /// The path, trailing sentence punctuation removed (may be empty for `](#anchor)`).
    path: String,
    /// The `#anchor` right after it, without `#`.
    anchor: Option<String>,
    /// It is the target of a Markdown inline link, `](...)`.
    markdown_link: bool,
    /// It is part of a URL (`scheme://...`).
    url: bool,
}

/// Characters a cited path is made of.
fn is_path_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '/' | '-' | '~')
}

/// Characters of an anchor.
fn is_anchor_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '-')
}

/// The path-like words of `line` that name a Markdown file, a `docs/` path, or a link
/// target.
fn path_tokens(line: &str) -> Vec<PathToken> {
    let chars: Vec<(usize, char)> = line.char_indices().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let (start, c) = chars[i];
        let link_anchor_only = c == '#' && line[..start].ends_with("](");
        if !is_path_char(c) && !link_anchor_only {
            i += 1;
            continue;
        }
        let mut j = i;
        while j < chars.len() && is_path_char(chars[j].1) {
            j += 1;
        }
        let end = chars.get(j).map_or(line.len(), |(pos, _)| *pos);
        let raw = &line[start..end];
        let path = raw.trim_end_matches(['.', '/']);
        let trimmed = path.len() != raw.len();
        let mut anchor = None;
        let mut next = j;
        if !trimmed && chars.get(j).is_some_and(|(_, c)| *c == '#') {
            let mut k = j + 1;
            while k < chars.len() && is_anchor_char(chars[k].1) {
                k += 1;
            }
            if k > j + 1 {
                let a_start = chars[j + 1].0;
                let a_end = chars.get(k).map_or(line.len(), |(pos, _)| *pos);
                anchor = Some(line[a_start..a_end].to_owned());
                next = k;
            }
        }
        let before = &line[..start];
        let markdown_link = before.ends_with("](") || before.ends_with("](<");
        let url = before.ends_with(':') || raw.starts_with("//");
        let relevant =
            path.ends_with(".md") || (markdown_link && path.is_empty() && anchor.is_some());
        if relevant {
            tokens.push(PathToken {
                path: path.to_owned(),
                anchor,
                markdown_link,
                url,
            });
        }
        i = next.max(i + 1);
    }
    tokens
}

/// Every anchor a Markdown document provides: one per heading, GitHub-style (with `-1`,
/// `-2`, ... for repeated headings), plus explicit `<a name="...">` / `id="..."` in its HTML.
pub fn anchors_of(text: &str) -> BTreeSet<String> {
    let mut anchors = BTreeSet::new();
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    // The rendered text of the heading being read.
    let mut heading: Option<String> = None;
    for event in Parser::new(text) {
        match event {
            Event::Start(Tag::Heading { .. }) => heading = Some(String::new()),
            Event::End(TagEnd::Heading(_)) => {
                let base = github_slug(&heading.take().unwrap_or_default());
                let count = seen.entry(base.clone()).or_insert(0);
                anchors.insert(match *count {
                    0 => base,
                    n => format!("{base}-{n}"),
                });
                *count += 1;
            }
            Event::Text(text) | Event::Code(text) => {
                if let Some(heading) = &mut heading {
                    heading.push_str(&text);
                }
            }
            Event::Html(html) | Event::InlineHtml(html) => {
                for attr in ["name=\"", "id=\""] {
                    for (pos, _) in html.match_indices(attr) {
                        let value = &html[pos + attr.len()..];
                        if let Some(end) = value.find('"') {
                            anchors.insert(value[..end].to_owned());
                        }
                    }
                }
            }
            _ => {}
        }
    }
    anchors
}

/// GitHub's anchor for a heading's rendered text: lower-cased, with everything but letters,
/// digits, `-`, `_` and spaces removed, spaces turned into `-`.
pub fn github_slug(text: &str) -> String {
    let mut slug = String::new();
    for c in text.trim().chars() {
        if c == ' ' {
            slug.push('-');
        } else if c.is_alphanumeric() || c == '-' || c == '_' {
            slug.extend(c.to_lowercase());
        }
    }
    slug
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_follow_github() {
        let slug = |heading: &str| {
            let anchors: Vec<String> = anchors_of(&format!("## {heading}\n")).into_iter().collect();
            anchors.concat()
        };
        assert_eq!(slug("Timing contract"), "timing-contract");
        assert_eq!(
            slug("3. NPCM750, `-M npcm750-evb` (armv7a-none-eabi, Cortex-A9 ×2)"),
            "3-npcm750--m-npcm750-evb-armv7a-none-eabi-cortex-a9-2"
        );
        assert_eq!(slug("The [`sim`](src/sim.rs) feature"), "the-sim-feature");
        assert_eq!(slug("§2.9 WSTAT <em>quirks</em>"), "29-wstat-quirks");
        assert_eq!(slug("snake_case and Ünïcode"), "snake_case-and-ünïcode");
        // The rendered text: an entity is its character (punctuation, dropped).
        assert_eq!(slug("A &amp; B"), "a--b");
    }

    #[test]
    fn anchors_count_repeats_and_skip_code() {
        let doc = "# Title\n## Usage\n```\n# not a heading\n```\n## Usage\nSetext\n------\n\
                   <a name=\"custom\"></a>\n#hashtag is not a heading\n## Closed ##\n";
        let anchors: Vec<String> = anchors_of(doc).into_iter().collect();
        assert_eq!(
            anchors,
            ["closed", "custom", "setext", "title", "usage", "usage-1"]
        );
    }

    #[test]
    fn tokens_find_paths_anchors_and_links() {
        let t = path_tokens(
            "see docs/otto-timer.md#quirks, [x](../docs/qemu.md), [y](#local) and \
             https://host.invalid/docs/a.md or docs/b.md.",
        );
        let summary: Vec<(&str, Option<&str>, bool, bool)> = t
            .iter()
            .map(|t| (t.path.as_str(), t.anchor.as_deref(), t.markdown_link, t.url))
            .collect();
        assert_eq!(
            summary,
            [
                ("docs/otto-timer.md", Some("quirks"), false, false),
                ("../docs/qemu.md", None, true, false),
                ("", Some("local"), true, false),
                ("//host.invalid/docs/a.md", None, false, true),
                ("docs/b.md", None, false, false),
            ]
        );
    }

    /// The fixture under `xtask/fixtures/citations`: a miniature repository with one
    /// correct and one broken citation of each kind.
    #[test]
    fn fixture_findings() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/citations");
        let (scanned, findings) = check_tree(&root, &[]);
        let got: Vec<String> = findings.iter().map(ToString::to_string).collect();
        assert_eq!(scanned, 7, "{got:#?}");
        assert_eq!(
            got,
            [
                "README.md:5: cites `docs/missing.md`, but docs/missing.md does not exist",
                "README.md:6: cites `docs/guide.md#nowhere`, but no heading of docs/guide.md \
                 produces the anchor `#nowhere` (its anchors: guide, quirks-2, setup, setup-1)",
                "README.md:7: cites `qemu.md`, a reference note outside the repository; cite \
                 the repository's docs/ instead",
                "crate/README.md:4: cites `../docs/guide.md#setup-2`, but no heading of \
                 docs/guide.md produces the anchor `#setup-2` (its anchors: guide, quirks-2, \
                 setup, setup-1)",
                "crate/src/lib.rs:2: cites `hardware.md`, a reference note outside the \
                 repository; cite the repository's docs/ instead",
                "crate/src/lib.rs:4: cites `docs/gone.md`, but docs/gone.md does not exist",
                // In a library crate a `docs/` path is the crate's own; nothing may leave it.
                "crates/lib/src/lib.rs:2: cites `../../docs/guide.md`, outside its crate: the \
                 published package would not contain it",
                "crates/lib/src/lib.rs:3: cites `docs/guide.md`, but crates/lib/docs/guide.md \
                 does not exist",
                "docs/guide.md:9: cites `#absent`, but no heading of docs/guide.md produces \
                 the anchor `#absent` (its anchors: guide, quirks-2, setup, setup-1)",
                "docs/guide.md:10: cites `other.md`, but docs/other.md does not exist",
            ]
        );
    }

    /// The exemptions are real paths: renaming the checker or its fixtures without updating
    /// [`EXEMPT`] would make the repository check fail on them.
    #[test]
    fn exempt_paths_exist() {
        for path in EXEMPT {
            assert!(repo_root().join(path).exists(), "{path}");
        }
    }
}
