//! The benches' output, parsed: `series:` points grouped into series, and `bench:` figures.

use std::collections::BTreeMap;

use bench_support::{FIGURE_PREFIX, Figure, POINT_PREFIX, parse_figure, parse_point};

/// The points of one series, in the order the bench printed them.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// Unit of every x.
    pub x_unit: String,
    /// Unit of every y.
    pub y_unit: String,
    /// (x, y).
    pub points: Vec<(f64, f64)>,
}

/// Everything the benches printed.
#[derive(Debug, Default)]
pub struct Data {
    series: BTreeMap<String, Series>,
    figures: BTreeMap<String, Figure>,
}

impl Data {
    /// Adds the output of one bench; `source` names it in error messages. Fails on a
    /// malformed `bench:` or `series:` line, on a series whose units change, and on a figure
    /// printed twice.
    pub fn add(&mut self, source: &str, text: &str) -> Result<(), String> {
        for (i, line) in text.lines().enumerate() {
            let at = || format!("{source}:{}", i + 1);
            if line.starts_with(POINT_PREFIX) {
                let p = parse_point(line).ok_or_else(|| {
                    format!("{}: malformed series line {:?}", at(), line.trim_end())
                })?;
                let series = self.series.entry(p.name()).or_insert_with(|| Series {
                    x_unit: p.x_unit.clone(),
                    y_unit: p.y_unit.clone(),
                    points: Vec::new(),
                });
                if (series.x_unit.as_str(), series.y_unit.as_str())
                    != (p.x_unit.as_str(), p.y_unit.as_str())
                {
                    return Err(format!(
                        "{}: series {} changes units from {} {} to {} {}",
                        at(),
                        p.name(),
                        series.x_unit,
                        series.y_unit,
                        p.x_unit,
                        p.y_unit
                    ));
                }
                series.points.push((p.x, p.y));
            } else if line.starts_with(FIGURE_PREFIX) {
                let f = parse_figure(line).ok_or_else(|| {
                    format!("{}: malformed figure line {:?}", at(), line.trim_end())
                })?;
                if let Some(old) = self.figures.insert(f.name(), f.clone()) {
                    return Err(format!("{}: figure {} printed twice", at(), old.name()));
                }
            }
        }
        Ok(())
    }

    /// The series `<crate>/<name>`.
    pub fn series(&self, name: &str) -> Result<&Series, String> {
        self.series.get(name).ok_or_else(|| {
            format!(
                "no series {name} in the bench output \
                 (does its bench print `series: {name} = ...` lines?)"
            )
        })
    }

    /// The figure `<crate>/<metric>`.
    pub fn figure(&self, name: &str) -> Result<&Figure, String> {
        self.figures.get(name).ok_or_else(|| {
            format!(
                "no figure {name} in the bench output (does its bench print `bench: {name} = ...`?)"
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_points_and_figures() {
        let mut data = Data::default();
        let out = "# comment\n\
                   series: a/s = 1 us 10 calls\n\
                   bench: a/m = 2.50 s\n\
                   series: a/s = 2 us 20 calls\n\
                   series: a/t = 1 ms 5 us\n";
        data.add("a.seed", out).unwrap();
        let s = data.series("a/s").unwrap();
        assert_eq!(s.points, vec![(1.0, 10.0), (2.0, 20.0)]);
        assert_eq!((s.x_unit.as_str(), s.y_unit.as_str()), ("us", "calls"));
        assert_eq!(data.figure("a/m").unwrap().value, "2.50");
        assert!(data.series("a/m").unwrap_err().contains("no series a/m"));
        assert!(data.figure("a/s").is_err());
    }

    #[test]
    fn rejects_bad_output() {
        let mut data = Data::default();
        let e = data.add("x", "ok\nseries: a/s = 1 us\n").unwrap_err();
        assert!(e.starts_with("x:2: malformed series line"), "{e}");
        let e = data.add("x", "bench: a/m = never\n").unwrap_err();
        assert!(e.contains("malformed figure line"), "{e}");
        let e = data
            .add(
                "y",
                "series: a/s = 1 us 1 calls\nseries: a/s = 1 ms 1 calls\n",
            )
            .unwrap_err();
        assert!(e.contains("changes units"), "{e}");
        let e = data
            .add("z", "bench: b/m = 1 s\nbench: b/m = 1 s\n")
            .unwrap_err();
        assert!(e.contains("printed twice"), "{e}");
    }
}
