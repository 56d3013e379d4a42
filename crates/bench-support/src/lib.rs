//! The line protocol of the workspace's benchmarks, for the benches that print it and the
//! xtask that reads it. Dev-only (`publish = false`): no driver crate depends on it except
//! as a dev-dependency.
//!
//! A bench is a `[[bench]]` target with `harness = false`, a plain `main` that prints its
//! results on stdout, one per line:
//!
//! ```text
//! bench: <crate>/<metric> = <value> <unit>
//! series: <crate>/<series> = <x> <x-unit> <y> <y-unit>
//! ```
//!
//! * A `bench:` line is one **figure**, e.g. `bench: otto-timer/seed_delay_10us_continuous_avg
//!   = 10.560 us`. `cargo xtask bench` collects and prints them.
//! * A `series:` line is one **point** of a series, e.g. `series:
//!   loongarch-timer/fire_error_min1000 = 0.010 us 9.990 us` (requested 0.01 µs, fired 9.99 µs
//!   late). The points of a series are the lines with its name, in order; every point of a
//!   series has the same units. `cargo xtask plots` draws them.
//!
//! `<crate>` is the package name, `<metric>` and `<series>` contain no whitespace, numbers are
//! finite and in Rust's `f64` syntax, a unit is one word (`us`, `s`, `calls`, `reads`, ...).
//! Any other line is a comment for humans; a line that starts with one of the two prefixes
//! but does not follow its format is an error for the readers.
//!
//! ```
//! use bench_support::{Printer, parse_point};
//!
//! const OUT: Printer = Printer::new("my-crate");
//! let line = OUT.point_line("latency", 1.5, "ms", 1000, "us").unwrap();
//! assert_eq!(line, "series: my-crate/latency = 1.5 ms 1000 us");
//! assert_eq!(parse_point(&line).unwrap().y, 1000.0);
//! ```
//!
//! ## Features
//!
#![doc = document_features::document_features!()]

use std::fmt::{self, Display};

#[cfg(feature = "baseline")]
pub mod baseline;
pub mod instr;

/// Start of a figure line.
pub const FIGURE_PREFIX: &str = "bench: ";
/// Start of a series point line.
pub const POINT_PREFIX: &str = "series: ";

/// The printer of one crate's benches: prefixes every line with the protocol's tag and the
/// crate name, and checks that what it prints parses back.
///
/// A bench makes one with its own package name:
///
/// ```
/// const OUT: bench_support::Printer = bench_support::Printer::new(env!("CARGO_PKG_NAME"));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Printer {
    krate: &'static str,
}

impl Printer {
    /// The printer for package `krate`.
    pub const fn new(krate: &'static str) -> Self {
        Self { krate }
    }

    /// Prints the figure `bench: <crate>/<metric> = <value> <unit>`.
    ///
    /// # Panics
    ///
    /// If the line would be malformed (see [`Printer::figure_line`]): a bench that cannot
    /// report its result fails rather than print something the xtask would reject later.
    pub fn figure(&self, metric: &str, value: impl Display, unit: &str) {
        match self.figure_line(metric, value, unit) {
            Ok(line) => println!("{line}"),
            Err(e) => panic!("{e}"),
        }
    }

    /// Prints one point of `series`, `series: <crate>/<series> = <x> <x_unit> <y> <y_unit>`.
    ///
    /// # Panics
    ///
    /// If the line would be malformed (see [`Printer::point_line`]).
    pub fn point(
        &self,
        series: &str,
        x: impl Display,
        x_unit: &str,
        y: impl Display,
        y_unit: &str,
    ) {
        match self.point_line(series, x, x_unit, y, y_unit) {
            Ok(line) => println!("{line}"),
            Err(e) => panic!("{e}"),
        }
    }

    /// The figure line, or why it would be malformed: a metric with whitespace, a value
    /// that is not a finite number, a unit that is not one word.
    pub fn figure_line(
        &self,
        metric: &str,
        value: impl Display,
        unit: &str,
    ) -> Result<String, String> {
        let line = format!("{FIGURE_PREFIX}{}/{metric} = {value} {unit}", self.krate);
        match parse_figure(&line) {
            Some(f) if f.krate == self.krate && f.metric == metric && f.unit == unit => Ok(line),
            _ => Err(format!(
                "malformed figure line {line:?}; \
                 expected `{FIGURE_PREFIX}<crate>/<metric> = <value> <unit>`"
            )),
        }
    }

    /// The point line, or why it would be malformed (as for [`Printer::figure_line`]).
    pub fn point_line(
        &self,
        series: &str,
        x: impl Display,
        x_unit: &str,
        y: impl Display,
        y_unit: &str,
    ) -> Result<String, String> {
        let line = format!(
            "{POINT_PREFIX}{}/{series} = {x} {x_unit} {y} {y_unit}",
            self.krate
        );
        match parse_point(&line) {
            Some(p)
                if p.krate == self.krate
                    && p.series == series
                    && p.x_unit == x_unit
                    && p.y_unit == y_unit =>
            {
                Ok(line)
            }
            _ => Err(format!(
                "malformed series line {line:?}; expected \
                 `{POINT_PREFIX}<crate>/<series> = <x> <x-unit> <y> <y-unit>`"
            )),
        }
    }
}

/// One parsed `bench:` line.
#[derive(Debug, Clone, PartialEq)]
pub struct Figure {
    /// Package name.
    pub krate: String,
    /// Metric name.
    pub metric: String,
    /// The value as printed (so it is shown with the bench's own precision).
    pub value: String,
    /// Unit.
    pub unit: String,
}

impl Figure {
    /// `<crate>/<metric>`.
    pub fn name(&self) -> String {
        format!("{}/{}", self.krate, self.metric)
    }

    /// The value as a number (finite: [`parse_figure`] checked it).
    pub fn number(&self) -> f64 {
        self.value.parse().unwrap_or(f64::NAN)
    }
}

impl Display for Figure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{FIGURE_PREFIX}{}/{} = {} {}",
            self.krate, self.metric, self.value, self.unit
        )
    }
}

/// One parsed `series:` line.
#[derive(Debug, Clone, PartialEq)]
pub struct Point {
    /// Package name.
    pub krate: String,
    /// Series name.
    pub series: String,
    /// Abscissa.
    pub x: f64,
    /// Its unit.
    pub x_unit: String,
    /// Ordinate.
    pub y: f64,
    /// Its unit.
    pub y_unit: String,
}

impl Point {
    /// `<crate>/<series>`.
    pub fn name(&self) -> String {
        format!("{}/{}", self.krate, self.series)
    }
}

/// Parses `bench: <crate>/<metric> = <value> <unit>` (trailing whitespace allowed); `None`
/// if the line is not exactly that.
pub fn parse_figure(line: &str) -> Option<Figure> {
    let (krate, metric, rest) = split_name(line, FIGURE_PREFIX)?;
    let [value, unit] = words(rest)?;
    number(value)?;
    Some(Figure {
        krate: krate.to_owned(),
        metric: metric.to_owned(),
        value: value.to_owned(),
        unit: unit.to_owned(),
    })
}

/// Parses `series: <crate>/<series> = <x> <x-unit> <y> <y-unit>` (trailing whitespace
/// allowed); `None` if the line is not exactly that.
pub fn parse_point(line: &str) -> Option<Point> {
    let (krate, series, rest) = split_name(line, POINT_PREFIX)?;
    let [x, x_unit, y, y_unit] = words(rest)?;
    Some(Point {
        krate: krate.to_owned(),
        series: series.to_owned(),
        x: number(x)?,
        x_unit: x_unit.to_owned(),
        y: number(y)?,
        y_unit: y_unit.to_owned(),
    })
}

/// `<prefix><crate>/<name> = <rest>` → (crate, name, rest).
fn split_name<'a>(line: &'a str, prefix: &str) -> Option<(&'a str, &'a str, &'a str)> {
    let rest = line.trim_end().strip_prefix(prefix)?;
    let (name, rest) = rest.split_once(" = ")?;
    let (krate, metric) = name.split_once('/')?;
    let ok = !krate.is_empty() && !metric.is_empty() && !name.contains(char::is_whitespace);
    ok.then_some((krate, metric, rest))
}

/// Exactly `N` whitespace-separated words.
fn words<const N: usize>(text: &str) -> Option<[&str; N]> {
    let words: Vec<&str> = text.split_whitespace().collect();
    words.try_into().ok()
}

/// A finite number.
fn number(text: &str) -> Option<f64> {
    text.parse::<f64>().ok().filter(|v| v.is_finite())
}

#[cfg(test)]
mod tests {
    use super::*;

    const OUT: Printer = Printer::new("exynos-mct");

    #[test]
    fn parses_figures() {
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
        assert_eq!(figure.name(), "exynos-mct/read_frc");
        assert_eq!(figure.number(), 12.0);
        assert_eq!(figure.to_string(), "bench: exynos-mct/read_frc = 12 insns");
        let figure = parse_figure("bench: hwtimer-core/x = 3.5e1 ns\r").unwrap();
        assert_eq!(figure.number(), 35.0);
        for bad in [
            "bench: nocrate = 1 ns",
            "bench: /m = 1 ns",
            "bench: c/ = 1 ns",
            "bench: a/b = fast ns",
            "bench: a/b = NaN ns",
            "bench: a/b = inf ns",
            "bench: a/b = 1",
            "bench: a/b = 1 ns extra",
            "bench: a b/c = 1 ns",
            "bench: a/b=1 ns",
            "series: a/b = 1 ns",
        ] {
            assert!(parse_figure(bad).is_none(), "{bad:?}");
        }
    }

    #[test]
    fn parses_points() {
        let p = parse_point("series: otto-timer/delay = 10.560 us 9990 calls  ").unwrap();
        assert_eq!(p.name(), "otto-timer/delay");
        assert_eq!((p.x, p.x_unit.as_str()), (10.56, "us"));
        assert_eq!((p.y, p.y_unit.as_str()), (9990.0, "calls"));
        for bad in [
            "series: a/b = 1 us 2",
            "series: a/b = 1 us 2 calls more",
            "series: a/b = one us 2 calls",
            "series: a/b = 1 us NaN calls",
            "series: a/b 1 us 2 calls",
            "series: ab = 1 us 2 calls",
            "bench: a/b = 1 us 2 calls",
        ] {
            assert!(parse_point(bad).is_none(), "{bad:?}");
        }
    }

    #[test]
    fn printer_lines_parse_back() {
        let line = OUT.figure_line("reads", format!("{:.3}", 2.0112), "reads");
        assert_eq!(line.as_deref(), Ok("bench: exynos-mct/reads = 2.011 reads"));
        let line = OUT.point_line("lat", 0.5, "ms", 9997u64, "us").unwrap();
        let p = parse_point(&line).unwrap();
        assert_eq!((p.krate.as_str(), p.series.as_str()), ("exynos-mct", "lat"));
        assert_eq!((p.x, p.y), (0.5, 9997.0));
    }

    #[test]
    fn printer_refuses_malformed_lines() {
        // A value that is not a number (stmmac's old "never" latency), an empty unit, a unit
        // of two words, whitespace in a name, a non-finite number.
        assert!(OUT.figure_line("latency", "never", "").is_err());
        assert!(OUT.figure_line("latency", 1, "").is_err());
        assert!(OUT.figure_line("latency", 1, "micro seconds").is_err());
        assert!(OUT.figure_line("two words", 1, "us").is_err());
        assert!(OUT.figure_line("ratio", f64::INFINITY, "x").is_err());
        assert!(OUT.point_line("s", f64::NAN, "us", 1, "calls").is_err());
        assert!(OUT.point_line("s", 1, "us", 1, "").is_err());
        assert!(OUT.point_line("s", 1, "", 1, "calls").is_err());
        assert!(OUT.point_line("", 1, "us", 1, "calls").is_err());
        // A unit that would swallow the next word can't sneak through either.
        assert!(OUT.point_line("s", 1, "us 2", 3, "calls").is_err());
    }

    #[test]
    #[should_panic(expected = "malformed figure line")]
    fn figure_panics_on_malformed_line() {
        OUT.figure("latency", "never", "");
    }
}
