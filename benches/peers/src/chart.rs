//! Grouped bar chart (SVG) of ratio-to-fastest per workload per library.

use std::path::Path;

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::LIBS;
use crate::common::Workload;

/// Bars start here (log scale cannot reach 0), so the fastest library still shows a stub.
const BASE: f64 = 0.8;

const COLORS: [RGBColor; 5] = [
    RGBColor(0xd6, 0x27, 0x28),
    RGBColor(0x1f, 0x77, 0xb4),
    RGBColor(0x2c, 0xa0, 0x2c),
    RGBColor(0xff, 0x7f, 0x0e),
    RGBColor(0x94, 0x67, 0xbd),
];

pub fn draw(
    path: &Path,
    ratios: &[(Workload, Vec<f64>)],
) -> Result<(), Box<dyn std::error::Error>> {
    let group = LIBS.len() as f64 + 1.0;
    let max = ratios
        .iter()
        .flat_map(|(_, r)| r.iter().copied())
        .fold(1.0f64, f64::max);
    let root = SVGBackend::new(path, (1000, 520)).into_drawing_area();
    root.fill(&WHITE)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(
            "time / fastest per workload (log scale; lower is better)",
            ("sans-serif", 20),
        )
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(48)
        .build_cartesian_2d(
            0.0..group * ratios.len() as f64,
            (BASE..max * 2.0).log_scale(),
        )?;
    let names: Vec<&str> = ratios.iter().map(|(w, _)| w.name()).collect();
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(0)
        .y_desc("ratio to fastest")
        .draw()?;
    for (li, lib) in LIBS.iter().enumerate() {
        let color = COLORS[li];
        chart
            .draw_series(ratios.iter().enumerate().map(|(g, (_, r))| {
                let x0 = g as f64 * group + li as f64;
                Rectangle::new([(x0 + 0.05, BASE), (x0 + 0.95, r[li])], color.filled())
            }))?
            .label(*lib)
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 10, y + 5)], color.filled()));
    }
    // Workload names above each group (plotters' numeric x labels cannot hit group centres).
    let style =
        TextStyle::from(("sans-serif", 14).into_font()).pos(Pos::new(HPos::Center, VPos::Top));
    chart.draw_series(names.iter().enumerate().map(|(g, n)| {
        let centre = g as f64 * group + (group - 1.0) / 2.0;
        Text::new(n.to_string(), (centre, max * 1.9), style.clone())
    }))?;
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .position(SeriesLabelPosition::MiddleRight)
        .draw()?;
    root.present()?;
    Ok(())
}
