//! The renderer behind `cargo xtask plots`: SVG figures from the benches' output.
//!
//! A separate binary so that `cargo xtask` itself keeps compiling in seconds; the xtask runs
//! the benches and calls this with their output. Usage:
//!
//! ```text
//! xtask-plots needs                    the crates whose benches the figures read, one a line
//! xtask-plots render <dir> <file>...   render every figure into <dir>/<name>.svg from the
//!                                      bench output in the files
//! ```
//!
//! The figures are declared in [`figures::FIGURES`]; the kinds of chart in [`chart`].

mod chart;
mod data;
mod figures;

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;
use std::process::ExitCode;

use data::Data;
use figures::FIGURES;

const USAGE: &str = "usage: xtask-plots needs | xtask-plots render <out-dir> <bench-output>...";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.split_first() {
        Some((cmd, [])) if cmd == "needs" => {
            for krate in needs() {
                println!("{krate}");
            }
            for board in figures::FIRMWARE {
                println!("firmware:{board}");
            }
            Ok(())
        }
        Some((cmd, [out, files @ ..])) if cmd == "render" && !files.is_empty() => {
            render(Path::new(out), files)
        }
        _ => Err(USAGE.to_owned()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The crates named by the figures' data, sorted.
fn needs() -> BTreeSet<&'static str> {
    FIGURES
        .iter()
        .flat_map(|f| f.names())
        .filter_map(|name| name.split_once('/').map(|(krate, _)| krate))
        .collect()
}

/// Renders every figure into `out`, reporting each file as new, updated or unchanged. All
/// figures are attempted; the first errors are reported together.
fn render(out: &Path, files: &[String]) -> Result<(), String> {
    let mut data = Data::default();
    for file in files {
        let text = fs::read_to_string(file).map_err(|e| format!("cannot read {file}: {e}"))?;
        data.add(file, &text)?;
    }
    fs::create_dir_all(out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    let mut errors = Vec::new();
    for figure in FIGURES {
        let path = out.join(figure.file);
        let svg = match figure.render(&data) {
            Ok(svg) => svg,
            Err(e) => {
                errors.push(format!("{}: {e}", figure.file));
                continue;
            }
        };
        let state = match fs::read_to_string(&path) {
            Ok(old) if old == svg => "unchanged",
            Ok(_) => "updated",
            Err(_) => "new",
        };
        match fs::write(&path, &svg) {
            Ok(()) => println!("plots: {} ({state})", path.display()),
            Err(e) => errors.push(format!("cannot write {}: {e}", path.display())),
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors.join("\n"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figures_are_well_formed() {
        let mut files = BTreeSet::new();
        for figure in FIGURES {
            assert!(figure.file.ends_with(".svg"), "{}", figure.file);
            assert!(files.insert(figure.file), "{} twice", figure.file);
            assert!(!figure.names().is_empty(), "{} reads nothing", figure.file);
            for name in figure.names() {
                let (krate, rest) = name.split_once('/').unwrap_or_default();
                assert!(!krate.is_empty() && !rest.is_empty(), "{name}");
            }
        }
        assert!(needs().contains("otto-timer"));
    }

    /// Every figure renders from data shaped like its bench's, with its title, axis labels,
    /// legends and tick labels as SVG text (no font needed at render time).
    #[test]
    fn every_figure_renders_with_its_text() {
        let mut data = Data::default();
        for figure in FIGURES {
            for name in figure.names() {
                let line = match figure.chart {
                    chart::Chart::Bars { .. } => format!("bench: {name} = 2.5 s\n"),
                    _ => {
                        format!("series: {name} = 1.5 us 3 calls\nseries: {name} = 15 us 4 calls\n")
                    }
                };
                data.add(name, &line).unwrap();
            }
        }
        for figure in FIGURES {
            let svg = figure
                .render(&data)
                .unwrap_or_else(|e| panic!("{}: {e}", figure.file));
            assert!(svg.starts_with("<svg"), "{}", figure.file);
            let text = svg_text(&svg);
            assert!(
                text.iter().any(|t| t == figure.title),
                "{}: no title in {text:?}",
                figure.file
            );
            let expect: Vec<&str> = match &figure.chart {
                chart::Chart::Lines { x, y, series, .. }
                | chart::Chart::Histogram { x, y, series, .. } => {
                    let mut v = vec![x.label, y.label];
                    v.extend(series.iter().map(|s| s.legend));
                    v
                }
                chart::Chart::Bars { y, groups, bars } => {
                    let mut v = vec![y.label];
                    v.extend(groups.iter().copied());
                    v.extend(bars.iter().map(|b| b.legend));
                    v
                }
            };
            for want in expect {
                assert!(
                    text.iter().any(|t| t.contains(want)),
                    "{}: no text {want:?} in {text:?}",
                    figure.file
                );
            }
        }
    }

    /// docs/performance.md shows every figure, and the drawing it shows is committed.
    #[test]
    fn every_figure_is_committed_and_in_the_performance_doc() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let doc =
            fs::read_to_string(root.join("docs/performance.md")).expect("docs/performance.md");
        for figure in FIGURES {
            let path = format!("docs/plots/{}", figure.file);
            assert!(
                root.join(&path).is_file(),
                "{path} missing: run `cargo xtask plots`"
            );
            let shown = format!("(plots/{})", figure.file);
            assert!(
                doc.contains(&shown),
                "docs/performance.md does not show {path}"
            );
        }
    }

    #[test]
    fn missing_data_is_an_error_naming_it() {
        let e = FIGURES[0].render(&Data::default()).unwrap_err();
        assert!(e.contains(FIGURES[0].names()[0]), "{e}");
    }

    /// The contents of the `<text>` elements, unescaped.
    fn svg_text(svg: &str) -> Vec<String> {
        svg.split("<text")
            .skip(1)
            .filter_map(|t| {
                let body = t.split_once('>')?.1;
                Some(body.split_once("</text>")?.0.to_owned())
            })
            .map(|t| {
                t.trim()
                    .replace("&amp;", "&")
                    .replace("&lt;", "<")
                    .replace("&gt;", ">")
                    .replace("&apos;", "'")
                    .replace("&quot;", "\"")
            })
            .collect()
    }
}
