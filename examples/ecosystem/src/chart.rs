//! The population chart: every series of the table (prey, predators, grass) against the tick.
//!
//! Animals on the left axis, grass (a different unit: bites summed over the field) on the right;
//! integer labels on every axis; colours from the Okabe–Ito palette, which stays distinct for
//! colour-blind readers and in greyscale print.

use std::path::Path;

use plotters::prelude::*;

use crate::sim::Row;

const PREY: RGBColor = RGBColor(0, 114, 178); // blue
const PREDATORS: RGBColor = RGBColor(213, 94, 0); // vermillion
const GRASS: RGBColor = RGBColor(0, 158, 115); // bluish green

/// Writes `rows` as an SVG line chart to `path` (whose directory must exist).
pub fn write_svg(path: &Path, rows: &[Row]) -> Result<(), String> {
    let err = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
    let last_tick = rows.last().map_or(1, |r| r.tick).max(1);
    let max_animals = rows
        .iter()
        .map(|r| r.prey.max(r.predators))
        .max()
        .unwrap_or(0);
    let max_grass = rows.iter().map(|r| r.grass).fold(0.0f32, f32::max);
    // 5% headroom so the highest point does not sit on the frame.
    let animals_top = (max_animals as u64 + max_animals as u64 / 20).max(10);
    let grass_top = (f64::from(max_grass) * 1.05).max(10.0);

    let root = SVGBackend::new(path, (960, 540)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let mut chart = ChartBuilder::on(&root)
        .caption("population over time", ("sans-serif", 22))
        .margin(14)
        .x_label_area_size(40)
        .y_label_area_size(80)
        .right_y_label_area_size(80)
        .build_cartesian_2d(0u64..last_tick, 0u64..animals_top)
        .map_err(|e| err(&e))?
        .set_secondary_coord(0u64..last_tick, 0f64..grass_top);
    chart
        .configure_mesh()
        .x_desc("tick")
        .y_desc("animals")
        .draw()
        .map_err(|e| err(&e))?;
    chart
        .configure_secondary_axes()
        .y_desc("grass (total over the field)")
        .y_label_formatter(&|g| format!("{g:.0}"))
        .draw()
        .map_err(|e| err(&e))?;

    let style = |c: RGBColor| c.stroke_width(2);
    let legend = |c: RGBColor| move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], style(c));
    chart
        .draw_series(LineSeries::new(
            rows.iter().map(|r| (r.tick, r.prey as u64)),
            style(PREY),
        ))
        .map_err(|e| err(&e))?
        .label("prey")
        .legend(legend(PREY));
    chart
        .draw_series(LineSeries::new(
            rows.iter().map(|r| (r.tick, r.predators as u64)),
            style(PREDATORS),
        ))
        .map_err(|e| err(&e))?
        .label("predators")
        .legend(legend(PREDATORS));
    chart
        .draw_secondary_series(LineSeries::new(
            rows.iter().map(|r| (r.tick, f64::from(r.grass))),
            style(GRASS),
        ))
        .map_err(|e| err(&e))?
        .label("grass (right axis)")
        .legend(legend(GRASS));
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK)
        .draw()
        .map_err(|e| err(&e))?;
    root.present().map_err(|e| err(&e))
}
