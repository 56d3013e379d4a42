//! `cargo xtask setup`: installs the cross toolchain and QEMU 10 from Debian (as root).
//!
//! What is installed, and from where:
//!
//! * `rustc-web cargo-web rust-web-src lld-22` from the release's own suites: a rustc recent
//!   enough for edition 2024 together with the `core` sources that `-Zbuild-std=core` needs,
//!   and the `lld` that `/usr/bin/rust-lld` points to.
//! * `qemu-system-arm qemu-system-misc qemu-system-mips` (QEMU 10, for `smdkc210`,
//!   `npcm750-evb`, LoongArch `virt` and MIPS `malta`) with `-t <codename>-backports`.
//! * `valgrind` from the release's own suites: the benches count instructions with its
//!   callgrind (`hwtimer_core::sim::instr`), and print no instruction figures without it.
//!
//! The backports suite is added by *deriving* `/etc/apt/sources.list.d/<codename>-backports.sources`
//! from the system's own Debian entry (same URIs, components and keyring; the suite changed),
//! so no mirror host name is ever written into this repository. Each step is skipped when its
//! result is already in place, so on a prepared machine the command changes nothing and needs
//! no root.
//!
//! Whether it installed something or not, setup then **verifies the chain** (see
//! [`probe`]): one `core` build and link per target and one QEMU boot per board, with a
//! tiny probe, so that a missing piece (rust-src, rust-lld, clippy, a QEMU binary, a ROM
//! file) fails here, by name, rather than in a later step. `--check` verifies too (it
//! needs no root); it only skips installing.

use crate::probe;
use crate::util::{arguments, capture, no_more_args, run};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Debian packages providing the cross toolchain.
/// `rust-web-llvm` owns the `/usr/bin/rust-lld` link and `rust-web-clippy` the clippy for
/// this toolchain; `rustc-web` only *recommends* them, and `--no-install-recommends` (used
/// below) leaves them out, so they are named here.
const RUST_PACKAGES: [&str; 6] = [
    "rustc-web",
    "cargo-web",
    "rust-web-src",
    "lld-22",
    "rust-web-llvm",
    "rust-web-clippy",
];
/// Debian packages the benches need: callgrind counts their instructions.
const BENCH_PACKAGES: [&str; 1] = ["valgrind"];
/// Debian packages providing QEMU, installed from backports.
const QEMU_PACKAGES: [&str; 3] = ["qemu-system-arm", "qemu-system-misc", "qemu-system-mips"];
/// The QEMU binaries the firmware runs need, with the lowest acceptable major version.
const QEMU_BINARIES: [&str; 3] = [
    "qemu-system-arm",
    "qemu-system-loongarch64",
    "qemu-system-mips",
];
/// Lowest QEMU major version (the board models' behaviour was verified with 10.0).
const QEMU_MIN_MAJOR: u32 = 10;

const APT_DIR: &str = "/etc/apt";

/// Runs the setup; `--check` only reports what would be done (never needs root).
pub fn main(args: &[String]) -> Result<(), String> {
    let mut args = arguments(args);
    let check_only = args.contains("--check");
    no_more_args(args, "`setup` takes only `--check`")?;
    let release = fs::read_to_string("/etc/os-release").unwrap_or_default();
    let field = |key: &str| os_release_field(&release, key);
    if field("ID").as_deref() != Some("debian") {
        return Err(
            "`cargo xtask setup` supports Debian only (/etc/os-release ID is not \
                    `debian`); install a rustc with rust-src, rust-lld and QEMU >= 10 by hand"
                .into(),
        );
    }
    let codename = field("VERSION_CODENAME")
        .filter(|c| !c.is_empty())
        .ok_or("/etc/os-release has no VERSION_CODENAME (Debian testing/sid?)")?;
    let backports = format!("{codename}-backports");
    let sources_path = Path::new(APT_DIR)
        .join("sources.list.d")
        .join(format!("{backports}.sources"));

    // Work out what is missing before touching anything.
    let missing_packages: Vec<&str> = RUST_PACKAGES
        .into_iter()
        .chain(BENCH_PACKAGES)
        .filter(|p| !dpkg_installed(p))
        .collect();
    let qemu_problem = QEMU_BINARIES.into_iter().find_map(qemu_version_problem);
    // Always derived (it is cheap and read-only) so that `--check` shows the result, but only
    // written, and only fatal if underivable, when QEMU has to come from backports.
    let sources = planned_sources(&codename, &sources_path);
    match &sources {
        Ok(None) => println!("setup: {backports} sources: up to date"),
        Ok(Some(content)) => println!(
            "setup: {backports} sources: would write {}:\n{content}",
            sources_path.display()
        ),
        Err(e) => println!("setup: {backports} sources: {e}"),
    }

    if missing_packages.is_empty() && qemu_problem.is_none() {
        println!(
            "setup: nothing to install ({}, {} and QEMU >= {QEMU_MIN_MAJOR} are installed)",
            RUST_PACKAGES.join(", "),
            BENCH_PACKAGES.join(", ")
        );
        return probe::verify();
    }
    if !missing_packages.is_empty() {
        println!("setup: missing packages: {}", missing_packages.join(" "));
    }
    if let Some(problem) = &qemu_problem {
        println!("setup: {problem}");
    }
    if check_only {
        return Err("setup --check: the machine is not set up".into());
    }
    if !is_root() {
        return Err(
            "setup must run as root to install packages (try `sudo -E cargo xtask setup`)".into(),
        );
    }

    if qemu_problem.is_some()
        && let Some(content) = sources?
    {
        println!("setup: writing {}", sources_path.display());
        fs::write(&sources_path, content)
            .map_err(|e| format!("cannot write {}: {e}", sources_path.display()))?;
    }
    // Something is installed below, so the package lists must be current.
    run(apt().arg("update"))?;
    if !missing_packages.is_empty() {
        run(apt()
            .args(["install", "-y", "--no-install-recommends"])
            .args(&missing_packages))?;
    }
    if qemu_problem.is_some() {
        run(apt()
            .args(["install", "-y", "--no-install-recommends", "-t", &backports])
            .args(QEMU_PACKAGES))?;
        if let Some(problem) = QEMU_BINARIES.into_iter().find_map(qemu_version_problem) {
            return Err(format!("QEMU still not usable after installing: {problem}"));
        }
    }
    println!("setup: installed");
    probe::verify()
}

/// `apt-get` without prompts.
fn apt() -> Command {
    let mut cmd = Command::new("apt-get");
    cmd.env("DEBIAN_FRONTEND", "noninteractive");
    cmd
}

/// Whether the effective user is root, from `/proc/self/status` (no libc dependency).
fn is_root() -> bool {
    let status = fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix("Uid:"))
        .and_then(|ids| ids.split_whitespace().nth(1)) // real, *effective*, saved, fs
        .is_some_and(|euid| euid == "0")
}

/// A value from /etc/os-release, unquoted.
fn os_release_field(text: &str, key: &str) -> Option<String> {
    text.lines()
        .find_map(|line| line.strip_prefix(key)?.strip_prefix('='))
        .map(|value| value.trim().trim_matches('"').trim_matches('\'').to_owned())
}

/// Whether a Debian package is installed (`dpkg-query` says `installed`).
fn dpkg_installed(package: &str) -> bool {
    capture(Command::new("dpkg-query").args(["-W", "-f=${db:Status-Status}", package]))
        .is_ok_and(|status| status.trim() == "installed")
}

/// Why `binary` is not a usable QEMU (missing, or older than [`QEMU_MIN_MAJOR`]), if it is not.
fn qemu_version_problem(binary: &str) -> Option<String> {
    let Ok(text) = capture(Command::new(binary).arg("--version")) else {
        return Some(format!("{binary} is not installed"));
    };
    // First line: "QEMU emulator version 10.0.2 (Debian 1:10.0.2+ds-...)".
    let major = text
        .split_whitespace()
        .skip_while(|word| *word != "version")
        .nth(1)
        .and_then(|version| version.split('.').next()?.parse::<u32>().ok());
    match major {
        Some(major) if major >= QEMU_MIN_MAJOR => None,
        Some(major) => Some(format!(
            "{binary} is QEMU {major}, need >= {QEMU_MIN_MAJOR}"
        )),
        None => Some(format!(
            "cannot parse `{binary} --version`: {}",
            text.trim()
        )),
    }
}

/// The content to write to `target` (the backports `.sources` file), or `None` if the
/// backports suite is already configured (by that file with the same content, or elsewhere).
fn planned_sources(codename: &str, target: &Path) -> Result<Option<String>, String> {
    let backports = format!("{codename}-backports");
    let entries = system_entries(target);
    if entries
        .iter()
        .any(|e| e.suites.contains(&backports) && e.is_debian())
    {
        return Ok(None); // e.g. listed in debian.sources next to the release suite
    }
    let base = entries
        .iter()
        .find(|e| {
            e.types.iter().any(|t| t == "deb")
                && e.suites.iter().any(|s| s == codename)
                && e.is_debian()
        })
        .ok_or_else(|| {
            format!(
                "no Debian archive entry for `{codename}` found in {APT_DIR}/sources.list(.d); \
                 cannot derive a {backports} entry"
            )
        })?;
    let content = base.backports_stanza(&backports);
    // A file of that name with other content is replaced: the name is this command's.
    match fs::read_to_string(target) {
        Ok(existing) if existing == content => Ok(None),
        _ => Ok(Some(content)),
    }
}

/// One APT source entry, from either format.
#[derive(Debug, Default, PartialEq)]
struct SourceEntry {
    /// `deb`, `deb-src`.
    types: Vec<String>,
    /// Archive URIs.
    uris: Vec<String>,
    /// Suites (distributions).
    suites: Vec<String>,
    /// Components (`main`, `contrib`, ...).
    components: Vec<String>,
    /// `Signed-By`, verbatim (a keyring path, or an inline key as continuation lines).
    signed_by: Option<String>,
}

impl SourceEntry {
    /// Whether this looks like the Debian archive: signed with the Debian archive keyring, or
    /// a URI whose path ends in `/debian` (which excludes `/debian-security` and third parties).
    fn is_debian(&self) -> bool {
        self.signed_by
            .as_deref()
            .is_some_and(|s| s.contains("debian-archive-keyring"))
            || self
                .uris
                .iter()
                .any(|uri| uri.trim_end_matches('/').ends_with("/debian"))
    }

    /// A deb822 stanza with this entry's types, URIs, components and key, for `suite`.
    fn backports_stanza(&self, suite: &str) -> String {
        let mut text = format!(
            "Types: {}\nURIs: {}\nSuites: {suite}\nComponents: {}\n",
            self.types.join(" "),
            self.uris.join(" "),
            self.components.join(" ")
        );
        if let Some(key) = &self.signed_by {
            text.push_str(&format!("Signed-By: {key}\n"));
        }
        text
    }
}

/// All enabled entries of the system's APT configuration, `.sources` files first (the modern
/// format, Debian 12's default), then `sources.list`, then `.list` files. `skip` (the file this
/// command writes) is left out so it can never be its own template.
fn system_entries(skip: &Path) -> Vec<SourceEntry> {
    let dir = Path::new(APT_DIR).join("sources.list.d");
    let mut files: Vec<PathBuf> = fs::read_dir(&dir)
        .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    files.sort();
    let mut entries = Vec::new();
    for file in files
        .iter()
        .filter(|f| f.extension().is_some_and(|e| e == "sources"))
    {
        if file != skip {
            entries.extend(parse_deb822(&fs::read_to_string(file).unwrap_or_default()));
        }
    }
    let list = Path::new(APT_DIR).join("sources.list");
    let lists = std::iter::once(list).chain(
        files
            .into_iter()
            .filter(|f| f.extension().is_some_and(|e| e == "list")),
    );
    for file in lists {
        if let Ok(text) = fs::read_to_string(&file) {
            entries.extend(parse_one_line(&text));
        }
    }
    entries
}

/// Parses a deb822 `.sources` file: stanzas separated by blank lines, `Key: value` fields,
/// continuation lines starting with a space, `#` comments. Stanzas with `Enabled: no` are
/// dropped.
// No deb822 crate: the maintained one (deb822-lossless) brings a syntax tree for four fields.
fn parse_deb822(text: &str) -> Vec<SourceEntry> {
    let mut entries = Vec::new();
    let mut fields: Vec<(String, String)> = Vec::new();
    let mut finish = |fields: &mut Vec<(String, String)>| {
        if fields.is_empty() {
            return;
        }
        let get = |key: &str| {
            fields
                .iter()
                .find(|(k, _)| k.eq_ignore_ascii_case(key))
                .map(|(_, v)| v.clone())
        };
        let words = |key: &str| {
            get(key)
                .map(|v| v.split_whitespace().map(str::to_owned).collect())
                .unwrap_or_default()
        };
        if !get("Enabled").is_some_and(|v| v.trim().eq_ignore_ascii_case("no")) {
            entries.push(SourceEntry {
                types: words("Types"),
                uris: words("URIs"),
                suites: words("Suites"),
                components: words("Components"),
                signed_by: get("Signed-By").map(|v| v.trim().to_owned()),
            });
        }
        fields.clear();
    };
    for line in text.lines() {
        if line.starts_with('#') {
            continue;
        }
        if line.trim().is_empty() {
            finish(&mut fields);
        } else if line.starts_with([' ', '\t']) {
            if let Some((_, value)) = fields.last_mut() {
                value.push('\n');
                value.push_str(line);
            }
        } else if let Some((key, value)) = line.split_once(':') {
            fields.push((key.trim().to_owned(), value.trim().to_owned()));
        }
    }
    finish(&mut fields);
    entries
}

/// Parses the one-line format: `deb [opt=value ...] URI suite component...`.
fn parse_one_line(text: &str) -> Vec<SourceEntry> {
    let mut entries = Vec::new();
    for line in text.lines() {
        let line = line.split('#').next().unwrap_or_default().trim();
        let Some((kind, mut rest)) = line.split_once(char::is_whitespace) else {
            continue;
        };
        if kind != "deb" && kind != "deb-src" {
            continue;
        }
        let mut signed_by = None;
        rest = rest.trim_start();
        if let Some(options) = rest.strip_prefix('[') {
            let Some((options, after)) = options.split_once(']') else {
                continue;
            };
            signed_by = options
                .split_whitespace()
                .find_map(|opt| opt.strip_prefix("signed-by="))
                .map(str::to_owned);
            rest = after;
        }
        let mut words = rest.split_whitespace().map(str::to_owned);
        let (Some(uri), Some(suite)) = (words.next(), words.next()) else {
            continue;
        };
        entries.push(SourceEntry {
            types: vec![kind.to_owned()],
            uris: vec![uri],
            suites: vec![suite],
            components: words.collect(),
            signed_by,
        });
    }
    entries
}

/// Unit tests of the parsers and the derivation; they never touch the system.
#[cfg(test)]
mod tests {
    use super::{os_release_field, parse_deb822, parse_one_line};

    const DEB822: &str = "Types: deb
# http://snapshot.invalid/archive/debian/20250520T000000Z
URIs: http://mirror.invalid/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://mirror.invalid/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
";

    #[test]
    fn derives_backports_from_deb822() {
        let entries = parse_deb822(DEB822);
        assert_eq!(entries.len(), 2);
        let base = entries
            .iter()
            .find(|e| e.suites.iter().any(|s| s == "bookworm"))
            .unwrap();
        assert!(base.is_debian());
        assert_eq!(
            base.backports_stanza("bookworm-backports"),
            "Types: deb\nURIs: http://mirror.invalid/debian\nSuites: bookworm-backports\n\
             Components: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n"
        );
    }

    #[test]
    fn disabled_stanzas_and_third_parties_are_ignored() {
        let text = "Types: deb\nURIs: https://vendor.invalid/apt\nSuites: bookworm\nComponents: main\n\n\
                    Enabled: no\nTypes: deb\nURIs: http://mirror.invalid/debian\nSuites: bookworm\n";
        let entries = parse_deb822(text);
        assert_eq!(entries.len(), 1);
        assert!(!entries[0].is_debian());
    }

    #[test]
    fn parses_one_line_format() {
        let text = "# comment\ndeb [arch=amd64 signed-by=/k.gpg] http://mirror.invalid/debian/ bookworm main contrib\n\
                    deb-src http://mirror.invalid/debian bookworm main\n";
        let entries = parse_one_line(text);
        assert_eq!(entries.len(), 2);
        assert_eq!(entries[0].signed_by.as_deref(), Some("/k.gpg"));
        assert_eq!(entries[0].components, ["main", "contrib"]);
        assert!(entries[0].is_debian());
        assert_eq!(
            entries[0].backports_stanza("bookworm-backports"),
            "Types: deb\nURIs: http://mirror.invalid/debian/\nSuites: bookworm-backports\n\
             Components: main contrib\nSigned-By: /k.gpg\n"
        );
    }

    #[test]
    fn reads_os_release() {
        let text = "PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nVERSION_CODENAME=bookworm\nID=debian\n";
        assert_eq!(os_release_field(text, "ID").as_deref(), Some("debian"));
        assert_eq!(
            os_release_field(text, "VERSION_CODENAME").as_deref(),
            Some("bookworm")
        );
    }
}
