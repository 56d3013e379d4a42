//! The figures `cargo xtask plots` draws, one entry each in [`FIGURES`].
//!
//! Adding a figure: make a bench print its data (`bench_support::Printer::point` for a
//! series, `Printer::figure` for a single value), then add an entry below naming that data
//! by `<crate>/<name>`. `cargo xtask plots` runs the benches of every crate named here, so
//! nothing else needs to change. The kinds of chart are in [`crate::chart::Chart`]; units come
//! from the data and are added to the axis labels.

use crate::chart::{Axis, BarGroup, Chart, Figure, Mark, Source};

/// Firmware boards whose UART output (saved by `cargo xtask bench` as
/// `target/bench-data/firmware.<board>.txt`) some figure reads: `cargo xtask plots` runs
/// them under QEMU unless `--reuse` is given.
pub const FIRMWARE: &[&str] = &["npcm750-net"];

/// Every figure, in the order docs/performance.md shows them.
pub const FIGURES: &[Figure] = &[
    Figure {
        file: "otto-delay.svg",
        title: "Otto (RTL838x): 10,000 × delay_us(10), achieved delay per call",
        chart: Chart::Histogram {
            x: Axis::log("achieved delay"),
            y: Axis::linear("calls"),
            bins_per_decade: 20,
            series: &[
                Source {
                    legend: "hwtimer Delay on the Otto clocksource",
                    name: "otto-timer/seed_delay_10us_continuous",
                },
                Source {
                    legend: "seed: sleep on a HZ=100 tick alone",
                    name: "otto-timer/seed_delay_10us_tick_hz100",
                },
            ],
            marks: &[Mark::x(10.0, "requested: 10 µs")],
        },
    },
    Figure {
        file: "stmmac-reclaim-latency.svg",
        title: "DWMAC TX cleanup: reclaim latency of a 10-frame burst (tx-usecs 1000)",
        chart: Chart::Lines {
            x: Axis::linear("burst start within the 10 ms tick").range(0.0, 10.0),
            y: Axis::linear("reclaim latency of the last frame"),
            series: &[
                Source {
                    legend: "jiffies timer, HZ=100 (seed)",
                    name: "stmmac-coalesce/burst10_reclaim_latency_jiffies_hz100",
                },
                Source {
                    legend: "hrtimer, re-armed on every packet (Linux)",
                    name: "stmmac-coalesce/burst10_reclaim_latency_hrtimer_rearm",
                },
                Source {
                    legend: "hrtimer, armed once (this crate)",
                    name: "stmmac-coalesce/burst10_reclaim_latency_hrtimer_arm_once",
                },
            ],
            marks: &[Mark::y(1000.0, "tx-usecs: 1000 µs")],
        },
    },
    Figure {
        file: "loongarch-fire-error.svg",
        title: "LoongArch constant timer: how late a oneshot fires, by requested delta",
        chart: Chart::Lines {
            x: Axis::log("requested delta"),
            y: Axis::linear("fired late by"),
            series: &[
                Source {
                    legend: "min_delta 0x600 (Linux): clamps every delta below 15.36 µs",
                    name: "loongarch-timer/fire_error_min0x600",
                },
                Source {
                    legend: "min_delta 1000 (this crate's default): below 10 µs",
                    name: "loongarch-timer/fire_error_min1000",
                },
            ],
            marks: &[],
        },
    },
    Figure {
        file: "mv88e6xxx-probe.svg",
        title: "mv88e6xxx: probe time of a 3-chip, 20-port switch tree",
        chart: Chart::Bars {
            y: Axis::linear("probe time"),
            groups: &[
                "pre-seed (1–2 ms sleeps)",
                "patch 1 (50 ms deadline poll)",
                "this crate",
            ],
            bars: &[
                BarGroup {
                    legend: "Linux modprobe, measured (before and after its patches)",
                    names: &[
                        Some("mv88e6xxx-smi/seed_modprobe_before"),
                        Some("mv88e6xxx-smi/seed_modprobe_after_patch1"),
                        None,
                    ],
                },
                BarGroup {
                    legend: "model in virtual time, workload sized to the seed's pre-seed time",
                    names: &[
                        Some("mv88e6xxx-smi/probe_pre_seed"),
                        Some("mv88e6xxx-smi/probe_patch1"),
                        Some("mv88e6xxx-smi/probe_this_crate"),
                    ],
                },
            ],
        },
    },
    Figure {
        file: "stmmac-tcp-stream.svg",
        title: "DWMAC on QEMU: TCP stream by TX cleanup (tx-frames 25, tx-usecs 1000)",
        chart: Chart::Bars {
            y: Axis::linear("guest-time throughput"),
            groups: &[
                "10 ms tick (HZ=100, pre-seed)",
                "hrtimer re-armed every packet",
                "hrtimer armed once",
            ],
            bars: &[BarGroup {
                legend: "smoltcp on QEMU npcm750-evb",
                names: &[
                    Some("stmmac-coalesce/qemu_tcp_stream_jiffies"),
                    Some("stmmac-coalesce/qemu_tcp_stream_rearm"),
                    Some("stmmac-coalesce/qemu_tcp_stream_arm_once"),
                ],
            }],
        },
    },
];
