//! The kinds of chart a [`Figure`] can be, and their rendering to SVG with plotters.
//!
//! plotters is built without its `ttf` feature: the SVG backend writes text as `<text>`
//! elements with a generic `sans-serif` family that the viewer resolves, so no system font
//! (and no fontconfig) is needed to render. Text extents are estimated from the character
//! count, hence the generous label areas below.

use std::ops::Range;

use plotters::coord::Shift;
use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::element::DynElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use bench_support::Figure as BenchFigure;

use crate::data::{Data, Series};

/// Size of every figure, pixels.
pub const SIZE: (u32, u32) = (960, 540);

/// Colours of the series, in order (Okabe–Ito: readable with the common colour-vision
/// deficiencies).
const PALETTE: [RGBColor; 6] = [
    RGBColor(213, 94, 0),
    RGBColor(0, 114, 178),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(230, 159, 0),
    RGBColor(86, 180, 233),
];
/// Colour of reference marks.
const MARK: RGBColor = RGBColor(96, 96, 96);
const FONT: &str = "sans-serif";

/// One SVG file.
#[derive(Debug)]
pub struct Figure {
    /// File name under the output directory, e.g. `otto-delay.svg`.
    pub file: &'static str,
    /// Caption above the chart.
    pub title: &'static str,
    /// What to draw.
    pub chart: Chart,
}

/// A kind of chart and the data it shows.
#[derive(Debug)]
pub enum Chart {
    /// One line with markers per `series:` series, points joined in the order printed.
    Lines {
        /// Horizontal axis (the series' x).
        x: Axis,
        /// Vertical axis (the series' y).
        y: Axis,
        /// The series, one line each.
        series: &'static [Source],
        /// Reference lines.
        marks: &'static [Mark],
    },
    /// A distribution: each `series:` series holds (value, count) points, counts are summed
    /// into bins along x.
    Histogram {
        /// The values' axis; bins are equal on its scale.
        x: Axis,
        /// The counts' axis.
        y: Axis,
        /// Bins per decade on a log x axis, bins across the data on a linear one.
        bins_per_decade: u32,
        /// The distributions, one colour each.
        series: &'static [Source],
        /// Reference lines.
        marks: &'static [Mark],
    },
    /// Grouped bars of `bench:` figures: one group per label along x, one bar per
    /// [`BarGroup`] in each group.
    Bars {
        /// The values' axis (linear, from 0).
        y: Axis,
        /// Group labels, left to right.
        groups: &'static [&'static str],
        /// The bars: each names one figure per group (`None`: no bar there).
        bars: &'static [BarGroup],
    },
}

/// An axis: its description (the unit, from the data, is appended) and scale.
#[derive(Debug, Clone, Copy)]
pub struct Axis {
    /// What the axis measures, e.g. `achieved delay`.
    pub label: &'static str,
    /// Linear or logarithmic.
    pub scale: Scale,
    /// Fixed range; `None` fits the data (and the marks).
    pub range: Option<(f64, f64)>,
}

impl Axis {
    /// A linear axis fitted to the data, starting at 0 when the data is not negative.
    pub const fn linear(label: &'static str) -> Self {
        Self {
            label,
            scale: Scale::Linear,
            range: None,
        }
    }

    /// A logarithmic axis fitted to the data (which must be positive).
    pub const fn log(label: &'static str) -> Self {
        Self {
            label,
            scale: Scale::Log,
            range: None,
        }
    }

    /// The same axis over a fixed range.
    pub const fn range(self, lo: f64, hi: f64) -> Self {
        Self {
            range: Some((lo, hi)),
            ..self
        }
    }
}

/// Scale of an axis.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scale {
    /// Linear.
    Linear,
    /// Base 10 logarithmic.
    Log,
}

/// A series shown in a chart.
#[derive(Debug, Clone, Copy)]
pub struct Source {
    /// Legend text.
    pub legend: &'static str,
    /// `<crate>/<series>` as the bench prints it.
    pub name: &'static str,
}

/// One bar per group, all the same colour and legend.
#[derive(Debug, Clone, Copy)]
pub struct BarGroup {
    /// Legend text.
    pub legend: &'static str,
    /// `<crate>/<metric>` of the figure in each group, or `None`.
    pub names: &'static [Option<&'static str>],
}

/// A labelled reference line across the chart (a requested value, a configured timeout).
#[derive(Debug, Clone, Copy)]
pub struct Mark {
    /// Vertical (at an x value) or horizontal (at a y value).
    pub vertical: bool,
    /// Where, in the axis' unit.
    pub at: f64,
    /// Legend text.
    pub label: &'static str,
}

impl Mark {
    /// A vertical line at `x`.
    pub const fn x(at: f64, label: &'static str) -> Self {
        Self {
            vertical: true,
            at,
            label,
        }
    }

    /// A horizontal line at `y`.
    pub const fn y(at: f64, label: &'static str) -> Self {
        Self {
            vertical: false,
            at,
            label,
        }
    }
}

impl Figure {
    /// Every `<crate>/<name>` the figure reads.
    pub fn names(&self) -> Vec<&'static str> {
        match &self.chart {
            Chart::Lines { series, .. } | Chart::Histogram { series, .. } => {
                series.iter().map(|s| s.name).collect()
            }
            Chart::Bars { bars, .. } => bars
                .iter()
                .flat_map(|b| b.names.iter().flatten().copied())
                .collect(),
        }
    }

    /// Renders the figure from `data` to SVG text.
    pub fn render(&self, data: &Data) -> Result<String, String> {
        let mut svg = String::new();
        {
            let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
            root.fill(&WHITE).map_err(plot_err)?;
            match &self.chart {
                Chart::Lines {
                    x,
                    y,
                    series,
                    marks,
                } => lines(&root, self.title, x, y, &sources(data, series)?, marks)?,
                Chart::Histogram {
                    x,
                    y,
                    bins_per_decade,
                    series,
                    marks,
                } => histogram(
                    &root,
                    self.title,
                    x,
                    y,
                    *bins_per_decade,
                    &sources(data, series)?,
                    marks,
                )?,
                Chart::Bars { y, groups, bars } => {
                    self::bars(&root, self.title, y, groups, bars, data)?
                }
            }
            root.present().map_err(plot_err)?;
        }
        Ok(svg)
    }
}

type Root<'a> = DrawingArea<SVGBackend<'a>, Shift>;
/// A chart on an SVG drawing with coordinates `X`, `Y`.
type Chart2d<'a, 'b, X, Y> = ChartContext<'a, SVGBackend<'b>, Cartesian2d<X, Y>>;

fn plot_err(e: impl std::fmt::Display) -> String {
    format!("plotters: {e}")
}

/// The series of `list`, looked up in `data`.
fn sources<'d>(data: &'d Data, list: &[Source]) -> Result<Vec<(Source, &'d Series)>, String> {
    if list.is_empty() {
        return Err("a chart needs at least one series".into());
    }
    list.iter()
        .map(|s| Ok((*s, data.series(s.name)?)))
        .collect()
}

/// The one unit all of `units` share.
fn common_unit<'u>(
    what: &str,
    mut units: impl Iterator<Item = &'u str>,
) -> Result<&'u str, String> {
    let first = units
        .next()
        .ok_or_else(|| format!("no data on the {what} axis"))?;
    match units.find(|u| *u != first) {
        None => Ok(first),
        Some(other) => Err(format!(
            "the {what} axis mixes units `{first}` and `{other}`"
        )),
    }
}

/// `label (unit)`, with `us` written `µs`; just `label` when the unit is the label.
fn describe(axis: &Axis, unit: &str) -> String {
    let unit = shown(unit);
    if unit == axis.label {
        axis.label.to_owned()
    } else {
        format!("{} ({unit})", axis.label)
    }
}

/// The range to show `values` on `axis`: its fixed range, or the data's with some room
/// (from 0 on a linear axis when nothing is negative; a factor 2 either side on a log one).
fn fit(
    axis: &Axis,
    what: &str,
    values: impl Iterator<Item = f64> + Clone,
) -> Result<Range<f64>, String> {
    if let Some((lo, hi)) = axis.range {
        if lo < hi && (axis.scale == Scale::Linear || lo > 0.0) {
            return Ok(lo..hi);
        }
        return Err(format!("bad fixed range {lo}..{hi} on the {what} axis"));
    }
    let lo = values.clone().fold(f64::INFINITY, f64::min);
    let hi = values.fold(f64::NEG_INFINITY, f64::max);
    if !(lo.is_finite() && hi.is_finite()) {
        return Err(format!("no data on the {what} axis"));
    }
    match axis.scale {
        Scale::Linear => {
            let lo = lo.min(0.0);
            let hi = if hi > lo { hi } else { lo + 1.0 };
            let pad = (hi - lo) * 0.06;
            Ok(if lo < 0.0 { lo - pad } else { lo }..hi + pad)
        }
        Scale::Log if lo > 0.0 => Ok(lo / 2.0..hi * 2.0),
        Scale::Log => Err(format!(
            "the {what} axis is logarithmic but the data reaches {lo}"
        )),
    }
}

/// Tick label: up to three significant digits, no trailing zeros.
pub fn tick(v: f64) -> String {
    significant(v, 3)
}

/// `v` with up to `digits` significant digits (all of its integer part), no trailing zeros.
pub fn significant(v: f64, digits: i32) -> String {
    if v == 0.0 || !v.is_finite() {
        return "0".into();
    }
    let magnitude = v.abs().log10().floor() as i32;
    let decimals = (digits - 1 - magnitude).clamp(0, 9) as usize;
    let text = format!("{v:.decimals$}");
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_owned()
    } else {
        text
    }
}

/// A unit as printed: `us` becomes `µs`.
fn shown(unit: &str) -> &str {
    if unit == "us" { "µs" } else { unit }
}

/// Calls `$f` with the two coordinate specs built for the axes' scales (plotters has one
/// coordinate type per scale, so each combination is its own instance of `$f`).
macro_rules! on_scales {
    ($f:ident($xs:expr, $xr:expr, $ys:expr, $yr:expr $(, $arg:expr)* $(,)?)) => {
        match ($xs, $ys) {
            (Scale::Linear, Scale::Linear) => $f($xr, $yr $(, $arg)*),
            (Scale::Linear, Scale::Log) => $f($xr, $yr.log_scale() $(, $arg)*),
            (Scale::Log, Scale::Linear) => $f($xr.log_scale(), $yr $(, $arg)*),
            (Scale::Log, Scale::Log) => $f($xr.log_scale(), $yr.log_scale() $(, $arg)*),
        }
    };
}

/// Caption, axes, grid and axis labels.
fn frame<'a, 'b, X, Y>(
    root: &'a Root<'b>,
    title: &str,
    x: X,
    y: Y,
    x_desc: &str,
    y_desc: &str,
) -> Result<Chart2d<'a, 'b, X::CoordDescType, Y::CoordDescType>, String>
where
    X: AsRangedCoord<Value = f64>,
    Y: AsRangedCoord<Value = f64>,
    X::CoordDescType: ValueFormatter<f64>,
    Y::CoordDescType: ValueFormatter<f64>,
{
    let mut chart = ChartBuilder::on(root)
        .caption(title, (FONT, 22))
        .margin(18)
        .x_label_area_size(56)
        .y_label_area_size(80)
        .build_cartesian_2d(x, y)
        .map_err(plot_err)?;
    chart
        .configure_mesh()
        .x_desc(x_desc)
        .y_desc(y_desc)
        .x_label_formatter(&|v| tick(*v))
        .y_label_formatter(&|v| tick(*v))
        .label_style((FONT, 14))
        .axis_desc_style((FONT, 16))
        .light_line_style(RGBColor(0, 0, 0).mix(0.04))
        .bold_line_style(RGBColor(0, 0, 0).mix(0.12))
        .draw()
        .map_err(plot_err)?;
    Ok(chart)
}

/// The legend box.
fn legend<'a, 'b: 'a>(
    chart: &mut ChartContext<'a, SVGBackend<'b>, impl CoordTranslate>,
    at: SeriesLabelPosition,
) -> Result<(), String> {
    chart
        .configure_series_labels()
        .position(at)
        .label_font((FONT, 14))
        .background_style(WHITE.mix(0.9))
        .border_style(RGBColor(0, 0, 0).mix(0.4))
        .margin(12)
        .draw()
        .map_err(plot_err)
}

/// Draws `marks` as dashed grey lines across the plotting area (before the data, so they
/// stay beneath it).
fn draw_marks<X, Y>(chart: &mut Chart2d<'_, '_, X, Y>, marks: &[Mark]) -> Result<(), String>
where
    X: Ranged<ValueType = f64>,
    Y: Ranged<ValueType = f64>,
{
    let (xr, yr) = (chart.x_range(), chart.y_range());
    for mark in marks {
        let ends = if mark.vertical {
            [(mark.at, yr.start), (mark.at, yr.end)]
        } else {
            [(xr.start, mark.at), (xr.end, mark.at)]
        };
        chart
            .draw_series(DashedLineSeries::new(ends, 8, 6, MARK.stroke_width(2)))
            .map_err(plot_err)?;
    }
    Ok(())
}

/// The legend entries of `marks` (after the data's, so the data comes first).
fn label_marks<'a, 'b: 'a, X, Y>(
    chart: &mut Chart2d<'a, 'b, X, Y>,
    marks: &[Mark],
) -> Result<(), String>
where
    X: Ranged<ValueType = f64>,
    Y: Ranged<ValueType = f64>,
{
    for mark in marks {
        chart
            .draw_series(std::iter::empty::<Circle<(f64, f64), i32>>())
            .map_err(plot_err)?
            .label(mark.label)
            .legend(|(x, y)| {
                let style = MARK.stroke_width(2);
                EmptyElement::at((x, y))
                    + PathElement::new([(0, 0), (8, 0)], style)
                    + PathElement::new([(13, 0), (20, 0)], style)
            });
    }
    Ok(())
}

/// The marker of the `i`-th series at `at` (data or legend coordinates): circles,
/// triangles, crosses, rings, so that lines on top of each other stay distinguishable.
fn marker<'a, 'b, C: Clone + 'static>(
    i: usize,
    at: C,
    color: RGBColor,
) -> DynElement<'a, SVGBackend<'b>, C> {
    match i % 4 {
        0 => Circle::new(at, 4, color.filled()).into_dyn(),
        1 => TriangleMarker::new(at, 8, color.stroke_width(2)).into_dyn(),
        2 => Cross::new(at, 5, color.stroke_width(2)).into_dyn(),
        _ => Circle::new(at, 6, color.stroke_width(2)).into_dyn(),
    }
}

fn lines(
    root: &Root<'_>,
    title: &str,
    x: &Axis,
    y: &Axis,
    series: &[(Source, &Series)],
    marks: &[Mark],
) -> Result<(), String> {
    let x_unit = common_unit("x", series.iter().map(|(_, s)| s.x_unit.as_str()))?;
    let y_unit = common_unit("y", series.iter().map(|(_, s)| s.y_unit.as_str()))?;
    let xs = series
        .iter()
        .flat_map(|(_, s)| s.points.iter().map(|p| p.0));
    let ys = series
        .iter()
        .flat_map(|(_, s)| s.points.iter().map(|p| p.1));
    let mark_at = |vertical: bool| {
        marks
            .iter()
            .filter(move |m| m.vertical == vertical)
            .map(|m| m.at)
    };
    let xr = fit(x, "x", xs.chain(mark_at(true)))?;
    let yr = fit(y, "y", ys.chain(mark_at(false)))?;
    let (x_desc, y_desc) = (describe(x, x_unit), describe(y, y_unit));
    on_scales!(draw_lines(
        x.scale, xr, y.scale, yr, root, title, &x_desc, &y_desc, series, marks
    ))
}

#[allow(clippy::too_many_arguments)]
fn draw_lines<X, Y>(
    x: X,
    y: Y,
    root: &Root<'_>,
    title: &str,
    x_desc: &str,
    y_desc: &str,
    series: &[(Source, &Series)],
    marks: &[Mark],
) -> Result<(), String>
where
    X: AsRangedCoord<Value = f64>,
    Y: AsRangedCoord<Value = f64>,
    X::CoordDescType: ValueFormatter<f64>,
    Y::CoordDescType: ValueFormatter<f64>,
{
    let mut chart = frame(root, title, x, y, x_desc, y_desc)?;
    draw_marks(&mut chart, marks)?;
    for (i, (source, data)) in series.iter().enumerate() {
        let color = PALETTE[i % PALETTE.len()];
        chart
            .draw_series(LineSeries::new(
                data.points.iter().copied(),
                color.stroke_width(2),
            ))
            .map_err(plot_err)?
            .label(source.legend)
            .legend(move |(x, y)| {
                EmptyElement::at((x, y))
                    + PathElement::new([(0, 0), (20, 0)], color.stroke_width(2))
                    + marker(i, (10, 0), color)
            });
        chart
            .draw_series(data.points.iter().map(|&p| marker(i, p, color)))
            .map_err(plot_err)?;
    }
    label_marks(&mut chart, marks)?;
    legend(&mut chart, SeriesLabelPosition::UpperRight)
}

/// Counts of a (value, count) series summed into bins: `(lo, hi, count)` for each non-empty
/// bin, in order. On a log axis the bin edges are `10^(k / per_decade)`; on a linear one
/// `per_decade` bins span `range`.
pub fn bin(
    points: &[(f64, f64)],
    scale: Scale,
    per_decade: u32,
    range: &Range<f64>,
) -> Vec<(f64, f64, f64)> {
    let n = f64::from(per_decade.max(1));
    let width = (range.end - range.start) / n;
    let index = |v: f64| match scale {
        Scale::Log => (v.log10() * n).floor(),
        Scale::Linear => ((v - range.start) / width).floor().min(n - 1.0),
    };
    let edge = |k: f64| match scale {
        Scale::Log => 10f64.powf(k / n),
        Scale::Linear => range.start + k * width,
    };
    let mut bins: Vec<(f64, f64)> = Vec::new();
    for &(value, count) in points {
        let k = index(value);
        match bins.iter_mut().find(|(j, _)| *j == k) {
            Some((_, c)) => *c += count,
            None => bins.push((k, count)),
        }
    }
    bins.sort_by(|a, b| a.0.total_cmp(&b.0));
    bins.into_iter()
        .map(|(k, c)| (edge(k), edge(k + 1.0), c))
        .collect()
}

#[allow(clippy::too_many_arguments)]
fn histogram(
    root: &Root<'_>,
    title: &str,
    x: &Axis,
    y: &Axis,
    per_decade: u32,
    series: &[(Source, &Series)],
    marks: &[Mark],
) -> Result<(), String> {
    let x_unit = common_unit("x", series.iter().map(|(_, s)| s.x_unit.as_str()))?;
    let y_unit = common_unit("y", series.iter().map(|(_, s)| s.y_unit.as_str()))?;
    let values = series
        .iter()
        .flat_map(|(_, s)| s.points.iter().map(|p| p.0));
    let data_range = fit(&Axis { range: None, ..*x }, "x", values)?;
    let binned: Vec<_> = series
        .iter()
        .map(|(_, s)| bin(&s.points, x.scale, per_decade, &data_range))
        .collect();
    let edges = binned.iter().flatten().flat_map(|b| [b.0, b.1]);
    let mark_x = marks.iter().filter(|m| m.vertical).map(|m| m.at);
    let xr = fit(x, "x", edges.chain(mark_x))?;
    let counts = binned.iter().flatten().map(|b| b.2);
    let mark_y = marks.iter().filter(|m| !m.vertical).map(|m| m.at);
    let yr = fit(y, "y", counts.chain(mark_y))?;
    // Legend: the spread and mean of each distribution, from its points.
    let legends: Vec<String> = series
        .iter()
        .map(|(source, s)| {
            let total: f64 = s.points.iter().map(|p| p.1).sum();
            let mean = s.points.iter().map(|p| p.0 * p.1).sum::<f64>() / total;
            let lo = s.points.iter().map(|p| p.0).fold(f64::INFINITY, f64::min);
            let hi = s
                .points
                .iter()
                .map(|p| p.0)
                .fold(f64::NEG_INFINITY, f64::max);
            let (digits, unit) = (5, shown(x_unit));
            let spread = if lo == hi {
                format!("all {} {unit}", significant(lo, digits))
            } else {
                format!(
                    "{}–{} {unit}, mean {} {unit}",
                    significant(lo, digits),
                    significant(hi, digits),
                    significant(mean, digits)
                )
            };
            format!("{}: {} {y_unit}, {spread}", source.legend, tick(total))
        })
        .collect();
    let (x_desc, y_desc) = (describe(x, x_unit), describe(y, y_unit));
    on_scales!(draw_histogram(
        x.scale, xr, y.scale, yr, root, title, &x_desc, &y_desc, &binned, &legends, marks
    ))
}

#[allow(clippy::too_many_arguments)]
fn draw_histogram<X, Y>(
    x: X,
    y: Y,
    root: &Root<'_>,
    title: &str,
    x_desc: &str,
    y_desc: &str,
    binned: &[Vec<(f64, f64, f64)>],
    legends: &[String],
    marks: &[Mark],
) -> Result<(), String>
where
    X: AsRangedCoord<Value = f64>,
    Y: AsRangedCoord<Value = f64>,
    X::CoordDescType: ValueFormatter<f64>,
    Y::CoordDescType: ValueFormatter<f64>,
{
    let mut chart = frame(root, title, x, y, x_desc, y_desc)?;
    draw_marks(&mut chart, marks)?;
    let floor = chart.y_range().start;
    for (i, (bins, text)) in binned.iter().zip(legends).enumerate() {
        let color = PALETTE[i % PALETTE.len()];
        chart
            .draw_series(bins.iter().map(|&(lo, hi, count)| {
                Rectangle::new([(lo, floor), (hi, count)], color.mix(0.75).filled())
            }))
            .map_err(plot_err)?
            .label(text.as_str())
            .legend(move |(x, y)| {
                Rectangle::new([(x, y - 6), (x + 20, y + 6)], color.mix(0.75).filled())
            });
    }
    label_marks(&mut chart, marks)?;
    legend(&mut chart, SeriesLabelPosition::UpperMiddle)
}

fn bars(
    root: &Root<'_>,
    title: &str,
    y: &Axis,
    groups: &[&str],
    bars: &[BarGroup],
    data: &Data,
) -> Result<(), String> {
    if bars.iter().any(|b| b.names.len() != groups.len()) {
        return Err(format!(
            "every bar set needs one entry per group ({})",
            groups.len()
        ));
    }
    // values[set][group]: the figure shown by that bar, if any.
    let values = bars
        .iter()
        .map(|b| {
            b.names
                .iter()
                .map(|name| name.map(|n| data.figure(n)).transpose())
                .collect::<Result<Vec<_>, _>>()
        })
        .collect::<Result<Vec<_>, _>>()?;
    let shown_figures = || values.iter().flatten().flatten();
    let unit = common_unit("y", shown_figures().map(|f| f.unit.as_str()))?;
    // Room above the tallest bar for its value.
    let yr = fit(y, "y", shown_figures().map(|f| f.number() * 1.08))?;
    if y.scale != Scale::Linear {
        return Err("bars need a linear y axis".into());
    }
    let names = groups.to_vec();
    let mut chart = ChartBuilder::on(root)
        .caption(title, (FONT, 22))
        .margin(18)
        .x_label_area_size(56)
        .y_label_area_size(80)
        .build_cartesian_2d(-0.5..groups.len() as f64 - 0.5, yr)
        .map_err(plot_err)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(groups.len())
        .x_label_formatter(&|v| {
            let k = v.round();
            match names.get(k as usize) {
                Some(name) if (v - k).abs() < 1e-6 && k >= 0.0 => (*name).to_owned(),
                _ => String::new(),
            }
        })
        .y_label_formatter(&|v| tick(*v))
        .y_desc(describe(y, unit))
        .label_style((FONT, 15))
        .axis_desc_style((FONT, 16))
        .light_line_style(RGBColor(0, 0, 0).mix(0.04))
        .bold_line_style(RGBColor(0, 0, 0).mix(0.12))
        .draw()
        .map_err(plot_err)?;
    let width = 0.72 / bars.len() as f64;
    let shown_unit = shown(unit);
    for (j, (set, row)) in bars.iter().zip(&values).enumerate() {
        let color = PALETTE[j % PALETTE.len()];
        let left = |g: usize| g as f64 - 0.36 + j as f64 * width;
        let placed: Vec<(f64, &BenchFigure)> = row
            .iter()
            .enumerate()
            .filter_map(|(g, f)| f.map(|f| (left(g), f)))
            .collect();
        chart
            .draw_series(placed.iter().map(|(l, f)| {
                Rectangle::new(
                    [(*l + 0.01, 0.0), (*l + width - 0.01, f.number())],
                    color.filled(),
                )
            }))
            .map_err(plot_err)?
            .label(set.legend)
            .legend(move |(x, y)| Rectangle::new([(x, y - 6), (x + 20, y + 6)], color.filled()));
        chart
            .draw_series(placed.iter().map(|(l, f)| {
                EmptyElement::at((*l + width / 2.0, f.number()))
                    + Text::new(
                        format!("{} {shown_unit}", f.value),
                        (0, -6),
                        (FONT, 14)
                            .into_font()
                            .color(&BLACK)
                            .pos(Pos::new(HPos::Center, VPos::Bottom)),
                    )
            }))
            .map_err(plot_err)?;
    }
    legend(&mut chart, SeriesLabelPosition::UpperRight)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_short() {
        assert_eq!(tick(0.0), "0");
        assert_eq!(tick(10.0), "10");
        assert_eq!(tick(0.01), "0.01");
        assert_eq!(tick(15.36), "15.4");
        assert_eq!(tick(2500.0), "2500");
        assert_eq!(tick(-5.0), "-5");
        assert_eq!(tick(1.0e-3), "0.001");
    }

    #[test]
    fn log_bins_sum_counts_per_twentieth_of_a_decade() {
        let points = [(10.5, 4000.0), (10.6, 5999.0), (10.7, 1.0), (10_000.1, 7.0)];
        let bins = bin(&points, Scale::Log, 20, &(5.0..20_000.0));
        assert_eq!(bins.len(), 2);
        let (lo, hi, count) = bins[0];
        assert_eq!(count, 10_000.0);
        assert!(lo <= 10.5 && 10.7 < hi, "{lo}..{hi}");
        assert!((hi / lo - 10f64.powf(0.05)).abs() < 1e-9);
        assert_eq!(bins[1].2, 7.0);
        assert!(bins[1].0 <= 10_000.1 && 10_000.1 < bins[1].1);
    }

    #[test]
    fn linear_bins_cover_the_range() {
        let points = [(0.0, 1.0), (4.9, 2.0), (5.0, 3.0), (10.0, 4.0)];
        let bins = bin(&points, Scale::Linear, 2, &(0.0..10.0));
        assert_eq!(bins, vec![(0.0, 5.0, 3.0), (5.0, 10.0, 7.0)]);
    }

    #[test]
    fn fitting() {
        let lin = Axis::linear("t");
        assert_eq!(fit(&lin, "x", [2.0, 10.0].into_iter()).unwrap(), 0.0..10.6);
        assert_eq!(
            fit(&Axis::log("t"), "x", [0.01, 1000.0].into_iter()).unwrap(),
            0.005..2000.0
        );
        assert!(fit(&Axis::log("t"), "x", [0.0, 1.0].into_iter()).is_err());
        assert!(fit(&lin, "x", std::iter::empty()).is_err());
        assert_eq!(
            fit(&lin.range(0.0, 10.0), "x", [50.0].into_iter()).unwrap(),
            0.0..10.0
        );
    }

    #[test]
    fn units_are_shared_and_spelled_out() {
        assert_eq!(common_unit("x", ["us", "us"].into_iter()), Ok("us"));
        assert!(common_unit("x", ["us", "ms"].into_iter()).is_err());
        assert_eq!(describe(&Axis::linear("delay"), "us"), "delay (µs)");
        assert_eq!(describe(&Axis::linear("calls"), "calls"), "calls");
    }
}
