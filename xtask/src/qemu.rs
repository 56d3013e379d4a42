//! `cargo xtask qemu [--icount N] [board]`: builds the board firmwares and runs them under QEMU.
//!
//! A *board* is a package of the firmware workspace (`examples/firmware`) with a
//! `[package.metadata.qemu]` table:
//!
//! ```toml
//! [package.metadata.qemu]
//! target = "armv7a-none-eabi"                 # triple to build for
//! command = ["qemu-system-arm", "-M", "smdkc210", "-nographic", "-semihosting",
//!            "-icount", "shift=0",            # the default shift; `--icount N` replaces it
//!            "-kernel", "{elf}"]              # `{elf}` = path of the release binary
//! timeout = 30                                # seconds; optional, default 30
//! ```
//!
//! A run passes when QEMU exits with status 0 before the timeout and its output (the UART on
//! stdio) satisfies the board's `expected.txt`; see [`crate::expect`] for that format. Adding a
//! board needs no change here.
//!
//! # The `-icount` shift
//!
//! Under `-icount shift=N` QEMU runs each guest instruction in 2^N ns of virtual time. The
//! boards' commands say `shift=0`; `--icount N` (0 to 10, or `auto`) replaces the `shift=`
//! option of the argument after `-icount` for this run, and fails for a board whose command
//! has no `-icount`. In the command and in `expected.txt`, `{icount}` stands for the shift of
//! the run: the LoongArch board passes it to its firmware through `-fw_cfg` (it has no
//! instruction counter to measure it with), and the boards' `expected.txt` require the shift
//! the firmware measured or was told to be that one (for `auto`, any number). `cargo xtask
//! bench` runs at the commands' own shift.

use crate::expect;
use crate::net;
use crate::util::{
    CrossToolchain, Package, TargetKind, TimedOutput, arguments, firmware_dir, metadata,
    package_dir, read_file, run, run_with_timeout, target_names, workspace_packages,
};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// Timeout for a board without `timeout` in its metadata. The boards finish in about a second.
const DEFAULT_TIMEOUT_SECS: u64 = 30;

/// A board's `[package.metadata.qemu]` table.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct QemuMetadata {
    target: String,
    command: Vec<String>,
    /// Whole seconds.
    timeout: Option<u64>,
    net: Option<Net>,
}

/// `net = "tcp-echo"`, the only host side of [`crate::net`] so far.
#[derive(serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
enum Net {
    TcpEcho,
}

/// A firmware that runs under QEMU.
pub struct Board {
    /// Package name, used as the board name.
    pub name: String,
    /// Target triple.
    target: String,
    /// QEMU command line, `{elf}` not yet substituted.
    command: Vec<String>,
    /// Kill QEMU after this long.
    timeout: Duration,
    /// The package directory (holds `expected.txt`).
    dir: PathBuf,
    /// Name of the binary target.
    bin: String,
    /// `net = "tcp-echo"`: QEMU runs with the host side of [`crate::net`] (ports for
    /// `{port7}` / `{port9}`, the echo client, the stream sink).
    net: bool,
}

/// The `-icount` shift of a run: `shift=N` or `shift=auto`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Shift {
    /// `shift=N`: every instruction takes 2^N ns of virtual time.
    Fixed(u32),
    /// `shift=auto`: QEMU adapts the shift to keep virtual time near host time.
    Auto,
}

impl Shift {
    /// Largest shift QEMU accepts.
    const MAX: u32 = 10;

    /// Parses `0`..`10` or `auto`.
    pub fn parse(text: &str) -> Result<Shift, String> {
        if text == "auto" {
            return Ok(Shift::Auto);
        }
        match text.parse::<u32>() {
            Ok(n) if n <= Self::MAX => Ok(Shift::Fixed(n)),
            _ => Err(format!(
                "bad -icount shift {text:?}: use 0 to {} or `auto`",
                Self::MAX
            )),
        }
    }

    /// What `{icount}` becomes in `expected.txt`: the number, or `{n}` (any number) for
    /// `auto`, whose shift QEMU picks.
    fn expected_pattern(&self) -> String {
        match self {
            Shift::Fixed(n) => n.to_string(),
            Shift::Auto => "{n}".to_owned(),
        }
    }
}

impl std::fmt::Display for Shift {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Shift::Fixed(n) => write!(f, "{n}"),
            Shift::Auto => f.write_str("auto"),
        }
    }
}

/// What one QEMU run produced.
pub struct BoardRun {
    /// Board name.
    pub name: String,
    /// The `-icount` shift it ran at, if its command has `-icount`.
    pub shift: Option<Shift>,
    /// QEMU's exit status and output.
    pub output: TimedOutput,
    /// `Ok` if the run passed, or why it did not.
    pub verdict: Result<(), String>,
}

impl Board {
    /// The target triple the board's firmware is built for.
    pub fn target(&self) -> &str {
        &self.target
    }

    /// How long a run may take.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// The QEMU machine it runs on: the emulator binary and its `-M` value. Boards on the
    /// same machine share the setup probe's boot check.
    pub fn machine(&self) -> (String, String) {
        let program = self.command.first().cloned().unwrap_or_default();
        let model = self
            .command
            .iter()
            .position(|arg| arg == "-M" || arg == "-machine")
            .and_then(|i| self.command.get(i + 1))
            .cloned()
            .unwrap_or_default();
        (program, model)
    }

    /// The board's QEMU command line with `elf` as the kernel.
    pub fn command(&self, elf: &Path) -> Command {
        let elf = elf.to_string_lossy();
        let args: Vec<String> = self
            .command
            .iter()
            .map(|arg| arg.replace("{elf}", &elf))
            .collect();
        let mut cmd = Command::new(&args[0]);
        cmd.args(&args[1..]);
        cmd
    }
}

/// What `cargo xtask qemu` was asked for.
#[derive(Debug, PartialEq)]
struct Args {
    /// `--icount N`: the shift to run at instead of the commands' own.
    shift: Option<Shift>,
    /// The one board to run (and show the output of), or all.
    board: Option<String>,
}

const USAGE: &str = "usage: cargo xtask qemu [--icount N|auto] [board]";

/// Parses `[--icount N] [board]`, in any order; `--icount=N` works too.
fn parse_args(args: &[String]) -> Result<Args, String> {
    let mut args = arguments(args);
    let shift = args
        .opt_value_from_fn("--icount", Shift::parse)
        .map_err(|e| format!("--icount: {e}; {USAGE}"))?;
    let board = match args.finish().as_slice() {
        [] => None,
        [board] if !board.to_string_lossy().starts_with('-') => {
            Some(board.to_string_lossy().into_owned())
        }
        [.., arg] => return Err(format!("unexpected argument {arg:?}; {USAGE}")),
    };
    Ok(Args { shift, board })
}

/// Runs all boards or one (`qemu <board>`, which also prints its output), at the commands'
/// own `-icount` shift or at `--icount N`.
pub fn main(args: &[String]) -> Result<(), String> {
    let args = parse_args(args)?;
    let toolchain = CrossToolchain::find()?;
    let mut boards = boards(&toolchain)?;
    let verbose = match &args.board {
        None => false,
        Some(name) => {
            let known: Vec<&str> = boards.iter().map(|b| b.name.as_str()).collect();
            if !known.contains(&name.as_str()) {
                return Err(format!(
                    "unknown board {name:?}; boards: {}",
                    known.join(", ")
                ));
            }
            boards.retain(|b| &b.name == name);
            true
        }
    };
    let runs = build_and_run_at(&toolchain, &boards, args.shift.as_ref())?;
    let mut failed = 0;
    for run in &runs {
        let seconds = run.output.elapsed.as_secs_f32();
        let shift = run
            .shift
            .as_ref()
            .map_or_else(|| "no -icount".to_owned(), |s| format!("-icount shift={s}"));
        if verbose {
            println!(
                "----- {} output -----\n{}",
                run.name,
                run.output.stdout.trim_end()
            );
            if !run.output.stderr.trim().is_empty() {
                println!(
                    "----- {} stderr -----\n{}",
                    run.name,
                    run.output.stderr.trim_end()
                );
            }
            println!("-----");
        }
        match &run.verdict {
            Ok(()) => println!("qemu: {:<20} pass ({seconds:.1} s, {shift})", run.name),
            Err(reason) => {
                failed += 1;
                println!(
                    "qemu: {:<20} FAIL ({seconds:.1} s, {shift}): {reason}",
                    run.name
                );
                if !verbose {
                    println!("----- output -----\n{}", run.output.stdout.trim_end());
                    println!(
                        "----- stderr -----\n{}\n-----",
                        run.output.stderr.trim_end()
                    );
                }
            }
        }
    }
    if failed == 0 {
        Ok(())
    } else {
        Err(format!("qemu: {failed} of {} board(s) failed", runs.len()))
    }
}

/// The boards of the firmware workspace, sorted by name.
pub fn boards(toolchain: &CrossToolchain) -> Result<Vec<Board>, String> {
    let packages = workspace_packages(toolchain.cargo(&firmware_dir()))?;
    packages
        .iter()
        .filter(|p| !p.metadata["qemu"].is_null())
        .map(board_from)
        .collect()
}

/// Reads a board's `[package.metadata.qemu]`.
fn board_from(pkg: &Package) -> Result<Board, String> {
    let bad = |what: &str| format!("{}: [package.metadata.qemu] {what}", pkg.name);
    let qemu: QemuMetadata = metadata(pkg, "qemu")?.ok_or_else(|| bad("is missing"))?;
    if !qemu.command.iter().any(|arg| arg.contains("{elf}")) {
        return Err(bad("needs a `command` list containing `{elf}`"));
    }
    let bin = target_names(pkg, TargetKind::Bin)
        .first()
        .map(|name| (*name).to_owned())
        .ok_or_else(|| bad("is set on a package without a binary"))?;
    Ok(Board {
        name: pkg.name.to_string(),
        target: qemu.target,
        command: qemu.command,
        timeout: Duration::from_secs(qemu.timeout.unwrap_or(DEFAULT_TIMEOUT_SECS)),
        dir: package_dir(pkg),
        bin,
        net: matches!(qemu.net, Some(Net::TcpEcho)),
    })
}

/// Builds the given boards (release, one cargo call per target) and runs each under QEMU with
/// the command of its metadata as written.
pub fn build_and_run(
    toolchain: &CrossToolchain,
    boards: &[Board],
) -> Result<Vec<BoardRun>, String> {
    build_and_run_at(toolchain, boards, None)
}

/// [`build_and_run`], with every board's `-icount` shift replaced by `shift` if given.
pub fn build_and_run_at(
    toolchain: &CrossToolchain,
    boards: &[Board],
    shift: Option<&Shift>,
) -> Result<Vec<BoardRun>, String> {
    // Check every command before the (slow) build.
    for board in boards {
        board.command_line("{elf}", shift)?;
    }
    let mut by_target: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for board in boards {
        by_target
            .entry(&board.target)
            .or_default()
            .push(&board.name);
    }
    // One cargo call per board: built together, the boards of one target would share the
    // union of their dependencies' features (cargo unifies them), so a board's figures would
    // depend on which other boards were built with it (loongarch-virt's `set_next_event`
    // measured 52 instructions when built beside loongarch-virt-async, whose loongarch-timer
    // has `rtic`, against 13 on its own). Each firmware is measured as it is built alone.
    for (target, names) in &by_target {
        println!("qemu: building {} for {target}", names.join(", "));
        for name in names {
            let mut cmd = toolchain.cargo(&firmware_dir());
            cmd.args([
                "build",
                "--quiet",
                "-Zbuild-std=core",
                "--release",
                "--target",
                target,
                "-p",
                name,
            ]);
            run(&mut cmd)?;
        }
    }
    boards.iter().map(|b| run_board(b, shift)).collect()
}

/// A board's QEMU command for one run.
#[derive(Debug, PartialEq)]
struct CommandLine {
    /// Program and arguments, placeholders substituted.
    args: Vec<String>,
    /// The shift of the run (`None`: the command has no `-icount`).
    shift: Option<Shift>,
}

impl Board {
    /// The QEMU command with `{elf}` replaced by `elf`, the `shift=` option of `-icount`
    /// replaced by `shift` if given, and `{icount}` by the shift of the run.
    ///
    /// Errors: `shift` given for a command without `-icount` (or an `-icount` without a
    /// `shift=` option), a malformed `shift=` in the command, or `{icount}` in a command
    /// without `-icount`.
    fn command_line(&self, elf: &str, shift: Option<&Shift>) -> Result<CommandLine, String> {
        let mut args = self.command.clone();
        let mut run_shift = None;
        if let Some(pos) = args.iter().position(|a| a == "-icount") {
            let options = args
                .get_mut(pos + 1)
                .ok_or_else(|| format!("{}: `-icount` without its options", self.name))?;
            let mut parts: Vec<String> = options.split(',').map(str::to_owned).collect();
            if let Some(part) = parts.iter_mut().find(|p| p.starts_with("shift=")) {
                let own = Shift::parse(&part["shift=".len()..])
                    .map_err(|e| format!("{}: {e}", self.name))?;
                let chosen = shift.cloned().unwrap_or(own);
                *part = format!("shift={chosen}");
                run_shift = Some(chosen);
            }
            *options = parts.join(",");
        }
        if let (Some(wanted), None) = (shift, &run_shift) {
            return Err(format!(
                "{}: --icount {wanted} needs `-icount shift=...` in its QEMU command",
                self.name
            ));
        }
        let icount = run_shift.as_ref().map(Shift::to_string);
        for arg in &mut args {
            if arg.contains("{icount}") {
                let value = icount.as_deref().ok_or_else(|| {
                    format!(
                        "{}: `{{icount}}` in a QEMU command without `-icount shift=...`",
                        self.name
                    )
                })?;
                *arg = arg.replace("{icount}", value);
            }
            *arg = arg.replace("{elf}", elf);
        }
        Ok(CommandLine {
            args,
            shift: run_shift,
        })
    }
}

/// `expected.txt` with `{icount}` replaced for a run at `shift` (left alone without one, so
/// that the pattern parser rejects it).
fn expected_for(text: &str, shift: Option<&Shift>) -> String {
    match shift {
        Some(shift) => text.replace("{icount}", &shift.expected_pattern()),
        None => text.to_owned(),
    }
}

/// Runs one (already built) board at `shift` (or its own) and checks its output.
fn run_board(board: &Board, shift: Option<&Shift>) -> Result<BoardRun, String> {
    let elf = firmware_dir()
        .join("target")
        .join(&board.target)
        .join("release")
        .join(&board.bin);
    let CommandLine { mut args, shift } = board.command_line(&elf.to_string_lossy(), shift)?;
    let expected = expected_for(&read_file(&board.dir.join("expected.txt"))?, shift.as_ref());
    let patterns = expect::parse_expected(&expected)
        .map_err(|e| format!("{}/expected.txt: {e}", board.name))?;
    let rig = if board.net {
        let rig = net::NetRig::start()?;
        for arg in &mut args {
            *arg = arg
                .replace("{port7}", &rig.port7.to_string())
                .replace("{port9}", &rig.port9.to_string());
        }
        Some(rig)
    } else {
        None
    };
    let mut cmd = Command::new(&args[0]);
    cmd.args(&args[1..]);
    let mut output = run_with_timeout(&mut cmd, board.timeout)?;
    let mut checked = expect::check(&patterns, &output.stdout);
    if let Some(rig) = rig {
        match rig.finish(&output.stdout) {
            Ok(summary) => {
                output.stdout.push_str(&format!("[xtask] {summary}\n"));
            }
            Err(e) => {
                checked = Err(match checked {
                    Ok(()) => e,
                    Err(c) => format!("{c}; {e}"),
                });
            }
        }
    }
    let exit = match output.status {
        None => Err(format!("timed out after {} s", board.timeout.as_secs())),
        Some(status) if !status.success() => Err(format!("QEMU exited with {status}")),
        Some(_) => Ok(()),
    };
    let verdict = match (exit, checked) {
        (Ok(()), checked) => checked,
        (Err(exit), Ok(())) => Err(exit),
        (Err(exit), Err(checked)) => Err(format!("{exit}; {checked}")),
    };
    Ok(BoardRun {
        name: board.name.clone(),
        shift,
        output,
        verdict,
    })
}

#[cfg(test)]
mod tests {
    use super::{Args, Board, Shift, board_from, expected_for, parse_args};
    use crate::util::{firmware_dir, host_cargo, workspace_packages};
    use std::path::PathBuf;
    use std::time::Duration;

    /// The firmware workspace's real `[package.metadata.qemu]` tables, through
    /// `cargo metadata` (the host cargo reads them; nothing is built), then broken ones.
    #[test]
    fn board_metadata_is_read_and_checked() {
        let mut cargo = host_cargo();
        cargo.current_dir(firmware_dir());
        let packages = workspace_packages(cargo).expect("cargo metadata of examples/firmware");
        let boards: Vec<Board> = packages
            .iter()
            .filter(|p| !p.metadata["qemu"].is_null())
            .map(|p| board_from(p).unwrap())
            .collect();
        let mut net: Vec<&str> = boards
            .iter()
            .filter(|b| b.net)
            .map(|b| b.name.as_str())
            .collect();
        net.sort_unstable();
        assert_eq!(net, ["npcm750-embassy-net", "npcm750-net"]);
        let smdkc210 = boards.iter().find(|b| b.name == "smdkc210").unwrap();
        assert_eq!(smdkc210.target, "armv7a-none-eabi");
        assert_eq!(smdkc210.timeout, Duration::from_secs(30));
        assert!(smdkc210.dir.join("expected.txt").is_file());

        let mut pkg = packages
            .iter()
            .find(|p| p.name == "smdkc210")
            .unwrap()
            .clone();
        let good = pkg.metadata["qemu"].clone();
        for (key, value, error) in [
            ("net", "\"udp\"", "unknown variant `udp`"),
            ("timeout", "\"long\"", "invalid type"),
            ("shift", "0", "unknown field `shift`"),
            ("command", "[\"qemu\"]", "containing `{elf}`"),
        ] {
            pkg.metadata["qemu"] = good.clone();
            pkg.metadata["qemu"][key] = serde_json::from_str(value).unwrap();
            let got = board_from(&pkg).err().unwrap_or_default();
            assert!(got.contains(error), "{key} = {value}: {got}");
        }
    }

    fn board(command: &[&str]) -> Board {
        Board {
            name: "b".into(),
            target: "t".into(),
            command: command.iter().map(|s| (*s).to_owned()).collect(),
            timeout: Duration::from_secs(1),
            dir: PathBuf::new(),
            bin: "b".into(),
            net: false,
        }
    }

    fn strings(args: &[&str]) -> Vec<String> {
        args.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn shift_parses_numbers_and_auto() {
        assert_eq!(Shift::parse("0"), Ok(Shift::Fixed(0)));
        assert_eq!(Shift::parse("10"), Ok(Shift::Fixed(10)));
        assert_eq!(Shift::parse("auto"), Ok(Shift::Auto));
        assert!(Shift::parse("11").is_err());
        assert!(Shift::parse("-1").is_err());
        assert!(Shift::parse("").is_err());
    }

    #[test]
    fn args_take_icount_and_board_in_any_order() {
        let parse = |a: &[&str]| parse_args(&strings(a));
        assert_eq!(
            parse(&[]),
            Ok(Args {
                shift: None,
                board: None
            })
        );
        let want = Ok(Args {
            shift: Some(Shift::Fixed(4)),
            board: Some("npcm750".into()),
        });
        assert_eq!(parse(&["--icount", "4", "npcm750"]), want);
        assert_eq!(parse(&["npcm750", "--icount=4"]), want);
        assert_eq!(
            parse(&["--icount", "auto"]).map(|a| a.shift),
            Ok(Some(Shift::Auto))
        );
        assert!(parse(&["--icount"]).is_err());
        assert!(parse(&["--icount", "12"]).is_err());
        assert!(parse(&["--icount", "1", "--icount", "2"]).is_err());
        assert!(parse(&["a", "b"]).is_err());
        assert!(parse(&["--verbose"]).is_err());
    }

    #[test]
    fn the_shift_option_of_icount_is_replaced() {
        let b = board(&[
            "qemu",
            "-icount",
            "shift=0,sleep=off,align=off",
            "-fw_cfg",
            "name=opt/x,string={icount}",
            "-kernel",
            "{elf}",
        ]);
        let own = b.command_line("/fw.elf", None).unwrap();
        assert_eq!(own.shift, Some(Shift::Fixed(0)));
        assert_eq!(
            own.args,
            strings(&[
                "qemu",
                "-icount",
                "shift=0,sleep=off,align=off",
                "-fw_cfg",
                "name=opt/x,string=0",
                "-kernel",
                "/fw.elf",
            ])
        );
        let four = b.command_line("/fw.elf", Some(&Shift::Fixed(4))).unwrap();
        assert_eq!(four.shift, Some(Shift::Fixed(4)));
        assert_eq!(four.args[2], "shift=4,sleep=off,align=off");
        assert_eq!(four.args[4], "name=opt/x,string=4");
        let auto = b.command_line("/fw.elf", Some(&Shift::Auto)).unwrap();
        assert_eq!(auto.args[2], "shift=auto,sleep=off,align=off");
        assert_eq!(auto.args[4], "name=opt/x,string=auto");
    }

    #[test]
    fn a_shift_needs_an_icount_option() {
        let plain = board(&["qemu", "-kernel", "{elf}"]);
        assert_eq!(plain.command_line("e", None).unwrap().shift, None);
        assert!(plain.command_line("e", Some(&Shift::Fixed(2))).is_err());
        let no_shift = board(&["qemu", "-icount", "sleep=off", "-kernel", "{elf}"]);
        assert!(no_shift.command_line("e", Some(&Shift::Fixed(2))).is_err());
        let placeholder = board(&["qemu", "-fw_cfg", "string={icount}", "-kernel", "{elf}"]);
        assert!(placeholder.command_line("e", None).is_err());
        let bad = board(&["qemu", "-icount", "shift=x", "-kernel", "{elf}"]);
        assert!(bad.command_line("e", None).is_err());
        let dangling = board(&["qemu", "-kernel", "{elf}", "-icount"]);
        assert!(dangling.command_line("e", None).is_err());
    }

    #[test]
    fn expected_icount_is_the_shift_or_any_number_for_auto() {
        let text = "icount shift {icount}: {n} ns\n";
        assert_eq!(
            expected_for(text, Some(&Shift::Fixed(3))),
            "icount shift 3: {n} ns\n"
        );
        assert_eq!(
            expected_for(text, Some(&Shift::Auto)),
            "icount shift {n}: {n} ns\n"
        );
        assert_eq!(expected_for(text, None), text);
        let patterns = crate::expect::parse_expected(&expected_for(text, Some(&Shift::Fixed(3))));
        let patterns = patterns.unwrap();
        assert!(crate::expect::check(&patterns, "icount shift 3: 8 ns").is_ok());
        assert!(crate::expect::check(&patterns, "icount shift 0: 1 ns").is_err());
        assert!(crate::expect::parse_expected(text).is_err());
    }
}
