//! Shared plumbing: repository paths, running commands, the cross toolchain, `cargo metadata`.

pub use cargo_metadata::{Package, TargetKind};
use serde::de::DeserializeOwned;
use std::ffi::OsString;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};
use std::{env, fs, thread};
use wait_timeout::ChildExt as _;

/// The five targets every library crate must build for unless it declares its own list in
/// `[package.metadata.cross] targets = [...]`.
pub const CROSS_TARGETS: [&str; 5] = [
    "mips-mti-none-elf",
    "armv7a-none-eabi",
    "loongarch64-unknown-none",
    "thumbv7em-none-eabihf",
    "aarch64-unknown-none",
];

/// The repository root (the parent of this crate's directory).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives one level below the repository root")
        .to_path_buf()
}

/// The firmware workspace, `examples/firmware`.
pub fn firmware_dir() -> PathBuf {
    repo_root().join("examples").join("firmware")
}

/// The host cargo: the one running this xtask (`$CARGO`), or `cargo` from `PATH`.
pub fn host_cargo() -> Command {
    let mut cmd = Command::new(env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    cmd.current_dir(repo_root());
    cmd
}

/// The toolchain for bare-metal builds: Debian's rustc and cargo, which ship the `core`
/// sources that `-Zbuild-std=core` needs (rustup's stable toolchain here has no `rust-src`).
///
/// Defaults to `/usr/bin/cargo` and `/usr/bin/rustc`; `XTASK_CROSS_CARGO` and
/// `XTASK_CROSS_RUSTC` override them (e.g. for a nightly with `rust-src`).
pub struct CrossToolchain {
    cargo: PathBuf,
    rustc: PathBuf,
}

impl CrossToolchain {
    /// Locates the toolchain and checks that it can build `core` and link with `rust-lld`.
    pub fn find() -> Result<Self, String> {
        let pick = |var: &str, default: &str| {
            env::var_os(var).map_or_else(|| PathBuf::from(default), PathBuf::from)
        };
        let toolchain = CrossToolchain {
            cargo: pick("XTASK_CROSS_CARGO", "/usr/bin/cargo"),
            rustc: pick("XTASK_CROSS_RUSTC", "/usr/bin/rustc"),
        };
        let hint = "run `cargo xtask setup` (as root) to install it";
        for (tool, package) in [
            (&toolchain.cargo, "cargo-web"),
            (&toolchain.rustc, "rustc-web"),
        ] {
            if !tool.exists() {
                return Err(format!(
                    "{} not found (Debian package {package}); {hint}",
                    tool.display()
                ));
            }
        }
        let sysroot = capture(Command::new(&toolchain.rustc).args(["--print", "sysroot"]))?;
        let core_src = Path::new(sysroot.trim()).join("lib/rustlib/src/rust/library/core");
        if !core_src.exists() {
            return Err(format!(
                "{} is missing (no rust-src: Debian package rust-web-src); {hint}",
                core_src.display()
            ));
        }
        // `/usr/bin/rust-lld` is a symlink into lld-22; `exists` follows it, so a dangling link
        // (rustc-web installed without lld-22) is caught here instead of at the first link.
        let lld_ok = toolchain
            .search_path()
            .iter()
            .any(|dir| dir.join("rust-lld").exists());
        if !lld_ok {
            return Err(format!(
                "rust-lld not found, or a dangling symlink (Debian packages rust-web-llvm, \
                 which owns /usr/bin/rust-lld, and lld-22, which it points to); {hint}"
            ));
        }
        Ok(toolchain)
    }

    /// Checks that `cargo clippy` runs this toolchain's clippy (Debian's `rust-web-clippy`
    /// provides `cargo-clippy` and `clippy-driver` next to its `cargo`). Without it, cargo
    /// would find another `cargo-clippy` (rustup's, in `~/.cargo/bin`) built for a different
    /// rustc, which cannot read the `core` this rustc builds: the versions must match.
    pub fn clippy(&self) -> Result<(), String> {
        let fix = "run `cargo xtask setup` (as root) to install Debian's rust-web-clippy";
        let mut cmd = self.cargo(Path::new("/"));
        cmd.args(["clippy", "--version"]);
        let clippy = capture(&mut cmd).map_err(|e| {
            format!(
                "`cargo clippy` does not run with {} ({}); {fix}",
                self.cargo.display(),
                e.lines().next().unwrap_or_default()
            )
        })?;
        let rustc = capture(Command::new(&self.rustc).arg("--version"))?;
        // "clippy 0.1.96 (...)" belongs to "rustc 1.96.0 (...)".
        let clippy_minor = version_field(&clippy, "clippy", 2);
        let rustc_minor = version_field(&rustc, "rustc", 1);
        if clippy_minor.is_some() && clippy_minor == rustc_minor {
            Ok(())
        } else {
            Err(format!(
                "`cargo clippy` runs {:?}, not the clippy of {:?}; {fix}",
                clippy.trim(),
                rustc.trim()
            ))
        }
    }

    /// `PATH` with the cross rustc's directory first, so its `rust-lld` is the one found.
    fn search_path(&self) -> Vec<PathBuf> {
        let mut dirs: Vec<PathBuf> = self
            .rustc
            .parent()
            .map(Path::to_path_buf)
            .into_iter()
            .collect();
        dirs.extend(env::split_paths(&env::var_os("PATH").unwrap_or_default()));
        dirs
    }

    /// A `cargo` command for the cross toolchain, running in `dir`.
    ///
    /// Sets `RUSTC_BOOTSTRAP=1` (for `-Zbuild-std`) and removes the variables through which
    /// rustup or the outer `cargo run` would point it back at the host toolchain.
    pub fn cargo(&self, dir: &Path) -> Command {
        let mut cmd = Command::new(&self.cargo);
        let path =
            env::join_paths(self.search_path()).unwrap_or_else(|_| OsString::from("/usr/bin"));
        cmd.current_dir(dir)
            .env("PATH", path)
            .env("RUSTC", &self.rustc)
            .env("RUSTC_BOOTSTRAP", "1")
            .env_remove("RUSTUP_TOOLCHAIN")
            .env_remove("RUSTDOC")
            .env_remove("CARGO_TARGET_DIR")
            .env_remove("CARGO_BUILD_TARGET");
        cmd
    }
}

/// Field `index` (0-based) of the dotted version after `tool ` in `text`
/// (`version_field("rustc 1.96.0 (...)", "rustc", 1)` is `Some("96")`).
fn version_field<'a>(text: &'a str, tool: &str, index: usize) -> Option<&'a str> {
    let version = text.trim().strip_prefix(tool)?.split_whitespace().next()?;
    version.split(['.', '-']).nth(index)
}

/// Runs `cmd` and returns its stdout; stderr is shown only if it fails.
pub fn capture(cmd: &mut Command) -> Result<String, String> {
    let output = cmd
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run {}: {e}", describe(cmd)))?;
    if !output.status.success() {
        return Err(format!(
            "{} failed ({})\n{}",
            describe(cmd),
            output.status,
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

/// Runs `cmd` with inherited stdio and fails if it does not exit successfully.
pub fn run(cmd: &mut Command) -> Result<(), String> {
    let status = cmd
        .status()
        .map_err(|e| format!("cannot run {}: {e}", describe(cmd)))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{} failed ({status})", describe(cmd)))
    }
}

/// The program and arguments of `cmd`, for messages.
pub fn describe(cmd: &Command) -> String {
    let mut text = cmd.get_program().to_string_lossy().into_owned();
    for arg in cmd.get_args() {
        text.push(' ');
        text.push_str(&arg.to_string_lossy());
    }
    text
}

/// What a command run with [`run_with_timeout`] did.
pub struct TimedOutput {
    /// Exit status; `None` if it was killed because it ran out of time.
    pub status: Option<ExitStatus>,
    /// Everything it wrote to stdout.
    pub stdout: String,
    /// Everything it wrote to stderr.
    pub stderr: String,
    /// Wall-clock run time.
    pub elapsed: Duration,
}

/// Runs `cmd` with stdin closed, capturing stdout and stderr, and kills it after `timeout`.
pub fn run_with_timeout(cmd: &mut Command, timeout: Duration) -> Result<TimedOutput, String> {
    let start = Instant::now();
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run {}: {e}", describe(cmd)))?;
    let stdout = drain(child.stdout.take());
    let stderr = drain(child.stderr.take());
    let status = match child.wait_timeout(timeout).map_err(|e| e.to_string())? {
        Some(status) => Some(status),
        None => {
            let _ = child.kill();
            let _ = child.wait();
            None
        }
    };
    Ok(TimedOutput {
        status,
        stdout: stdout.join().unwrap_or_default(),
        stderr: stderr.join().unwrap_or_default(),
        elapsed: start.elapsed(),
    })
}

/// Reads a child's pipe to the end on a thread of its own, so that a chatty child never
/// blocks on a full pipe while [`run_with_timeout`] waits.
fn drain(pipe: Option<impl Read + Send + 'static>) -> thread::JoinHandle<String> {
    thread::spawn(move || {
        let mut bytes = Vec::new();
        if let Some(mut pipe) = pipe {
            let _ = pipe.read_to_end(&mut bytes);
        }
        String::from_utf8_lossy(&bytes).into_owned()
    })
}

/// The arguments of a subcommand, for pico-args. Take the options and flags it knows from
/// them, then hand them to [`no_more_args`].
pub fn arguments(args: &[String]) -> pico_args::Arguments {
    pico_args::Arguments::from_vec(args.iter().map(Into::into).collect())
}

/// Fails with `usage` if anything was left in `args`.
pub fn no_more_args(args: pico_args::Arguments, usage: &str) -> Result<(), String> {
    match args.finish().first() {
        None => Ok(()),
        Some(arg) => Err(format!("unexpected argument {arg:?}; {usage}")),
    }
}

/// The members of the workspace rooted at `cmd`'s directory, sorted by name, via
/// `cargo metadata --no-deps`.
///
/// `cmd` is a cargo command (host or cross) already pointed at the workspace directory.
pub fn workspace_packages(mut cmd: Command) -> Result<Vec<Package>, String> {
    let text = capture(cmd.args(["metadata", "--no-deps", "--format-version", "1"]))?;
    let mut packages = cargo_metadata::MetadataCommand::parse(text)
        .map_err(|e| format!("cannot read `cargo metadata`: {e}"))?
        .packages;
    packages.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(packages)
}

/// The directory holding `pkg`'s Cargo.toml.
pub fn package_dir(pkg: &Package) -> PathBuf {
    pkg.manifest_path
        .parent()
        .map(|dir| dir.as_std_path().to_path_buf())
        .unwrap_or_default()
}

/// Names of `pkg`'s build targets of the given kind.
pub fn target_names(pkg: &Package, kind: TargetKind) -> Vec<&str> {
    pkg.targets
        .iter()
        .filter(|t| t.is_kind(kind.clone()))
        .map(|t| t.name.as_str())
        .collect()
}

/// Whether `pkg` has a library target (`lib` or `rlib`).
pub fn is_library(pkg: &Package) -> bool {
    pkg.targets.iter().any(|t| t.is_lib() || t.is_rlib())
}

/// Whether `pkg` may be published: `publish` is absent (any registry) or a non-empty list
/// of registries (`publish = false` is the empty list).
pub fn publishable(pkg: &Package) -> bool {
    pkg.publish
        .as_ref()
        .is_none_or(|registries| !registries.is_empty())
}

/// The table `[package.metadata.<path>]` (`path` may be dotted: `docs.rs`), read into a `T`;
/// `None` when absent.
pub fn metadata<T: DeserializeOwned>(pkg: &Package, path: &str) -> Result<Option<T>, String> {
    let value = path
        .split('.')
        .fold(&pkg.metadata, |value, key| &value[key]);
    if value.is_null() {
        return Ok(None);
    }
    T::deserialize(value)
        .map(Some)
        .map_err(|e| format!("{}: [package.metadata.{path}]: {e}", pkg.name))
}

/// The library crates: members of the root workspace that live directly under `crates/`,
/// except dev-only ones (`publish = false`, such as `bench-support`): those are neither built
/// for bare metal nor required in the no-std link check.
pub fn library_crates() -> Result<Vec<Package>, String> {
    let canonical = |path: &Path| fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let crates_dir = canonical(&repo_root().join("crates"));
    let mut libs = workspace_packages(host_cargo())?;
    libs.retain(|p| {
        let under_crates = package_dir(p).parent().map(canonical) == Some(crates_dir.clone());
        under_crates && publishable(p) && is_library(p)
    });
    Ok(libs)
}

/// Reads a file to a string, with the path in the error message.
pub fn read_file(path: &Path) -> Result<String, String> {
    fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::{library_crates, run_with_timeout, version_field};
    use std::process::Command;
    use std::time::Duration;

    #[test]
    fn a_command_past_its_timeout_is_killed() {
        let mut slow = Command::new("sh");
        // 2 s for `sh` to start and print on a loaded machine (200 ms lost the line once
        // while the whole workspace built); the kill must still come long before 60 s.
        slow.args(["-c", "echo started; exec sleep 60"]);
        let out = run_with_timeout(&mut slow, Duration::from_secs(2)).unwrap();
        assert!(out.status.is_none());
        assert_eq!(out.stdout, "started\n");
        assert!(out.elapsed < Duration::from_secs(20), "{:?}", out.elapsed);
        let mut quick = Command::new("sh");
        quick.args(["-c", "echo out; echo err >&2; exit 3"]);
        let out = run_with_timeout(&mut quick, Duration::from_secs(10)).unwrap();
        assert_eq!(out.status.and_then(|s| s.code()), Some(3));
        assert_eq!(
            (out.stdout.as_str(), out.stderr.as_str()),
            ("out\n", "err\n")
        );
    }

    #[test]
    fn dev_only_crates_are_not_libraries() {
        let libs = library_crates().expect("cargo metadata");
        let names: Vec<&str> = libs.iter().map(|p| p.name.as_str()).collect();
        assert!(names.contains(&"hwtimer-core"), "{names:?}");
        assert!(names.contains(&"stmmac-coalesce"), "{names:?}");
        assert!(!names.contains(&"bench-support"), "{names:?}");
    }

    #[test]
    fn clippy_and_rustc_versions_pair_up() {
        let clippy = "clippy 0.1.96 (ac68faa20d 2026-05-25)\n";
        let rustc = "rustc 1.96.0 (ac68faa20 2026-05-25) (built from a source tarball)\n";
        assert_eq!(version_field(clippy, "clippy", 2), Some("96"));
        assert_eq!(version_field(rustc, "rustc", 1), Some("96"));
        assert_eq!(version_field("clippy 0.1.95 (x)", "clippy", 2), Some("95"));
        assert_eq!(
            version_field("rustc 1.97.0-nightly", "rustc", 1),
            Some("97")
        );
        assert_eq!(version_field("garbage", "rustc", 1), None);
    }
}
