//! `cargo xtask bench`: collects benchmark figures from the host benches and the firmware.
//!
//! # Protocol
//!
//! A figure is one line on stdout:
//!
//! ```text
//! bench: <crate>/<metric> = <value> <unit>
//! ```
//!
//! e.g. `bench: hwtimer-core/extend_32_to_64 = 3.1 ns`. `<crate>` and `<metric>` contain no
//! spaces, `<value>` is a number, `<unit>` one word (`ns`, `insns`, `cycles`, `bytes`, ...).
//! Producers:
//!
//! * **Host benches**: every `[[bench]]` target of a root-workspace package, declared with
//!   `harness = false` so it is a plain `main` that prints its figures. It is run with
//!   `cargo bench -p <package> --bench <name>`; other output is ignored.
//! * **Firmware**: every board of `cargo xtask qemu` is built and run; lines of its UART output
//!   that start with `bench: ` are figures too (for instance instruction counts measured under
//!   `-icount`, which are deterministic).
//!
//! The figures are printed sorted by crate and metric, in the same format. A line that starts
//! with `bench: ` but does not follow the format fails the command, as does a failing bench
//! or board. With no producers at all, a note says so and the command succeeds.

use crate::qemu;
use crate::util::{CrossToolchain, capture, host_cargo, workspace_packages};

/// One parsed `bench:` line.
#[derive(Debug, PartialEq)]
struct Figure {
    krate: String,
    metric: String,
    value: String,
    unit: String,
}

/// Runs all producers and prints the collected figures.
pub fn main(args: &[String]) -> Result<(), String> {
    let skip_firmware = match args {
        [] => false,
        [flag] if flag == "--host-only" => true,
        _ => return Err("usage: cargo xtask bench [--host-only]".into()),
    };
    // (source, stdout) of every producer.
    let mut outputs: Vec<(String, String)> = Vec::new();
    let mut errors: Vec<String> = Vec::new();

    for pkg in workspace_packages(host_cargo())? {
        for bench in pkg.target_names("bench") {
            println!("running host bench {}/{bench}", pkg.name);
            let mut cmd = host_cargo();
            cmd.args(["bench", "--quiet", "-p", &pkg.name, "--bench", bench]);
            match capture(&mut cmd) {
                Ok(stdout) => outputs.push((format!("{}/{bench}", pkg.name), stdout)),
                Err(e) => errors.push(e),
            }
        }
    }

    if !skip_firmware {
        let toolchain = CrossToolchain::find()?;
        let boards = qemu::boards(&toolchain)?;
        for run in qemu::build_and_run(&toolchain, &boards)? {
            match run.verdict {
                Ok(()) => outputs.push((format!("firmware {}", run.name), run.output.stdout)),
                Err(e) => errors.push(format!("board {} failed: {e}", run.name)),
            }
        }
    }

    let mut figures = Vec::new();
    for (source, stdout) in &outputs {
        for line in stdout.lines().filter(|l| l.starts_with("bench: ")) {
            match parse_figure(line) {
                Some(figure) => figures.push(figure),
                None => errors.push(format!(
                    "{source}: malformed line {:?} (expected `bench: <crate>/<metric> = <value> <unit>`)",
                    line.trim_end()
                )),
            }
        }
    }
    figures.sort_by(|a, b| (&a.krate, &a.metric).cmp(&(&b.krate, &b.metric)));

    if outputs.is_empty() {
        println!("note: no benchmarks yet (no [[bench]] targets and no firmware boards)");
    } else if figures.is_empty() {
        println!(
            "note: {} producer(s) ran but printed no `bench: ` lines",
            outputs.len()
        );
    }
    for figure in &figures {
        println!(
            "bench: {}/{} = {} {}",
            figure.krate, figure.metric, figure.value, figure.unit
        );
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors.join("\n"))
    }
}

/// Parses `bench: <crate>/<metric> = <value> <unit>`.
fn parse_figure(line: &str) -> Option<Figure> {
    let rest = line.trim_end().strip_prefix("bench: ")?;
    let (name, rest) = rest.split_once(" = ")?;
    let (krate, metric) = name.split_once('/')?;
    let mut words = rest.split_whitespace();
    let (value, unit) = (words.next()?, words.next()?);
    let well_formed = !krate.is_empty()
        && !metric.is_empty()
        && !name.contains(char::is_whitespace)
        && value.parse::<f64>().is_ok()
        && words.next().is_none();
    well_formed.then(|| Figure {
        krate: krate.to_owned(),
        metric: metric.to_owned(),
        value: value.to_owned(),
        unit: unit.to_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::parse_figure;

    #[test]
    fn parses_the_protocol() {
        let figure = parse_figure("bench: exynos-mct/read_frc = 12 insns").unwrap();
        assert_eq!(
            (
                figure.krate.as_str(),
                figure.metric.as_str(),
                figure.value.as_str(),
                figure.unit.as_str()
            ),
            ("exynos-mct", "read_frc", "12", "insns")
        );
        assert!(parse_figure("bench: hwtimer-core/x = 3.5e1 ns\r").is_some());
        for bad in [
            "bench: nocrate = 1 ns",
            "bench: a/b = fast ns",
            "bench: a/b = 1",
            "bench: a/b = 1 ns extra",
            "bench: a b/c = 1 ns",
        ] {
            assert!(parse_figure(bad).is_none(), "{bad:?}");
        }
    }
}
