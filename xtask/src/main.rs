//! Project automation for the timer-family workspace, run as `cargo xtask <command>`.
//!
//! The `xtask` pattern: a plain binary crate in the workspace, reached through the cargo alias
//! in `.cargo/config.toml`, instead of shell scripts or make. Beside `bench-support` it uses a
//! few small crates for what it would otherwise parse by hand (`cargo metadata`'s JSON,
//! Markdown, arguments; see its Cargo.toml); plotting lives in the separate `xtask-plots`
//! binary. Commands:
//!
//! | command | module | does |
//! |---|---|---|
//! | `setup [--check]` | [`setup`], [`probe`] | installs Debian's Rust (with `core` sources, rust-lld, clippy) and QEMU 10, as root, then verifies the chain with a probe |
//! | `cross` | [`cross`] | builds each library crate for five bare-metal targets, links `no-std-smoke`, runs Debian's clippy on the bare-metal code |
//! | `qemu [--icount N] [board]` | [`qemu`] | builds the board firmwares, runs them in QEMU (at `-icount shift=N`), checks `expected.txt` |
//! | `templates` | [`templates`] | checks each firmware template's own files hold rustup's configuration only, builds and boots it (`cargo run --release`, Debian's rustc and build-std given from outside), checks its wakes and that a failing copy exits non-zero |
//! | `bench` | [`mod@bench`] | runs host benches and the firmware, prints the `bench: ` figures |
//! | `plots [--reuse]` | [`plots`] | renders `docs/plots/*.svg` from the benches' series (`xtask-plots`) |
//! | `features` | [`features`] | checks every feature of every library crate on its own |
//! | `package` | [`package`] | checks the publishing metadata, runs `cargo package --workspace` |
//! | `docs` | [`docs`] | documents every library crate as docs.rs does |
//! | `citations` | [`citations`] | checks that every cited `docs/...md` (and `#anchor`) exists |
//! | `figures` | [`figures`] | checks the figures the documents quote against the last `bench` output |
//! | `soak` | [`soak`] | the tests in release mode with 10 000 property-test cases |
//! | `ci` | | runs `.ci/run`, the whole CI pipeline |
//!
//! Bare-metal builds use Debian's toolchain (`/usr/bin/cargo`, `/usr/bin/rustc`) with
//! `RUSTC_BOOTSTRAP=1 -Zbuild-std=core`; see [`util::CrossToolchain`].

mod bench;
mod citations;
mod cross;
mod docs;
mod expect;
mod features;
mod figures;
mod lint;
mod net;
mod package;
mod plots;
mod probe;
mod qemu;
mod setup;
mod soak;
mod templates;
mod util;

use std::process::{Command, ExitCode};

const HELP: &str = "\
cargo xtask <command> [args]

Commands:
  setup [--check]   Install the cross toolchain and QEMU 10 from Debian (as root):
                    rustc-web cargo-web rust-web-src lld-22 rust-web-llvm rust-web-clippy,
                    and qemu-system-arm qemu-system-misc qemu-system-mips from
                    <codename>-backports (whose
                    APT entry is derived from the system's Debian entry). Skips whatever is
                    already in place; --check only reports (no root). Then, in both modes,
                    verifies the chain with xtask/probe: one core build and link per target,
                    one QEMU boot per board; a missing piece fails here, by name.
  cross             Build every library crate under crates/ with -Zbuild-std=core for
                    mips-mti-none-elf, armv7a-none-eabi, loongarch64-unknown-none,
                    thumbv7em-none-eabihf and aarch64-unknown-none (or the crate's
                    [package.metadata.cross] targets), link examples/firmware/no-std-smoke
                    for each target, and run Debian's clippy -D warnings on the libraries per
                    target and on the firmware per board target. Prints a crate x target table.
  qemu [--icount N] [board]
                    Build the firmware boards (examples/firmware, [package.metadata.qemu]),
                    run each under QEMU and check its output against <board>/expected.txt.
                    With a board name: run only that one and print its output.
                    --icount N runs QEMU at -icount shift=N (0 to 10; default: the boards'
                    own, 0) instead: 2^N ns of virtual time per instruction. The firmware's
                    bounds are instructions plus timer ticks, so they do not depend on N;
                    every board passes at 0 to 4 (CI runs 0 and 4). From 5 up, the CPU work
                    of some scenarios outlasts the 100 us timer periods they use (see the
                    boards' module docs). `auto` is accepted, but QEMU then counts no
                    instructions on the ARM PMU and may change the shift while a board
                    runs, so instruction checks can fail.
  templates         Check that each template under examples/templates/ holds rustup's
                    configuration only (no Debian path, RUSTC_BOOTSTRAP or unstable cargo
                    key; Malta, a Tier 3 target, may keep [unstable] build-std), then
                    `cargo run --release` it in its folder with Debian's rustc and
                    build-std given from outside, check that it prints its wakes on time
                    and ends with done, and that a copy made to fail exits non-zero.
  bench [--host-only]
                    Run the [[bench]] targets (harness = false) and the firmware boards and
                    print every `bench: <crate>/<metric> = <value> <unit>` line they emit,
                    sorted. --host-only skips the firmware. Each one's output is also saved
                    in target/bench-data/.
  plots [--reuse]   Render the figures of xtask-plots/src/figures.rs into docs/plots/*.svg:
                    runs the benches of the crates they read (only those) and draws their
                    `series: <crate>/<name> = <x> <unit> <y> <unit>` and `bench:` lines with
                    plotters. --reuse takes the output the last `bench` saved instead of
                    running them. Says for each SVG whether it changed.
  lint              Clippy on every library target with the panic lints (no unwrap,
                    expect, panic, indexing or implicit overflow); `cross` applies them
                    per bare-metal target too.
  features          Check every library crate with --no-default-features, alone and with
                    each of its features alone, with -W unused-crate-dependencies (warnings
                    fail too).
  package [--allow-dirty]
                    Check that every publishable crate has its license files, docs.rs
                    metadata and no placeholder repository, then `cargo package --workspace`
                    (verifying each .crate by building it).
  docs              Document every library crate as docs.rs does ([package.metadata.docs.rs]
                    features, --cfg docsrs), rustdoc warnings denied.
  citations         Check that every cited docs/...md path (and #anchor) exists and that no
                    reference note outside the repository is cited outside docs/.
  figures           Check every figure that README.md, crates/*/README.md, docs/*.md and
                    crates/*/docs/*.md quote from a bench, marked
                    `<!-- bench: <crate>/<metric> -->` right after it, against the output
                    the last `bench` saved in target/bench-data/, at the precision the
                    document shows.
  soak [--cases N] [cargo test args]
                    Run `cargo test --workspace --release` with PROPTEST_CASES=N (default
                    10000): the property tests with a long budget. Extra arguments go to
                    cargo test (-p <crate> soaks one crate). Part of `ci`.
  ci                Run .ci/run (fmt, clippy, test, soak, doc, features, package, user
                    crate, setup, cross, qemu at shifts 0 and 4, templates, bench, figures,
                    plots, citations).
  help              Show this text.

Environment:
  XTASK_CROSS_CARGO, XTASK_CROSS_RUSTC
                    Toolchain for bare-metal builds (default /usr/bin/cargo, /usr/bin/rustc).
";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((command, rest)) = args.split_first() else {
        print!("{HELP}");
        return ExitCode::FAILURE;
    };
    let result = match command.as_str() {
        "setup" => setup::main(rest),
        "cross" => cross::main(rest),
        "qemu" => qemu::main(rest),
        "templates" => templates::main(rest),
        "bench" => bench::main(rest),
        "plots" => plots::main(rest),
        "citations" => citations::main(rest),
        "figures" => figures::main(rest),
        "docs" => docs::main(rest),
        "features" => features::main(rest),
        "lint" => lint::main(rest),
        "package" => package::main(rest),
        "soak" => soak::main(rest),
        "ci" => ci(rest),
        "help" | "-h" | "--help" => {
            print!("{HELP}");
            Ok(())
        }
        other => Err(format!("unknown command {other:?}; see `cargo xtask help`")),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

/// `cargo xtask ci`: the CI script is the single source of truth; this only runs it.
fn ci(args: &[String]) -> Result<(), String> {
    if let Some(arg) = args.first() {
        return Err(format!("`ci` takes no arguments (got {arg:?})"));
    }
    util::run(Command::new("bash").arg(util::repo_root().join(".ci").join("run")))
}
