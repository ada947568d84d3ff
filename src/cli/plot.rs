//! Line charts as PNG, for `profile --soak --plot`: panels stacked over one shared time axis, each
//! with its series, a grid and labelled ticks. Drawn into an `image` buffer, text by `ab_glyph`
//! in the monospace font egui ships (Hack), so no system font or plotting crate is needed.

use ab_glyph::{Font, FontRef, PxScale, ScaleFont, point};
use image::{Rgb, RgbImage};

/// One series: its name (in the legend) and its colour; points are (x, y).
pub struct Series {
    pub name: String,
    pub color: [u8; 3],
    pub points: Vec<(f64, f64)>,
}

/// One panel: a title with its unit, and the series drawn on its own y range.
pub struct Panel {
    pub title: String,
    pub series: Vec<Series>,
}

const WIDTH: u32 = 1200;
const PANEL_HEIGHT: u32 = 220;
const LEFT: u32 = 90;
const RIGHT: u32 = 20;
const TOP: u32 = 44;
const BOTTOM: u32 = 40;
const TEXT: [u8; 3] = [30, 30, 30];
const GRID: [u8; 3] = [225, 225, 225];
const AXIS: [u8; 3] = [120, 120, 120];

/// Draws `panels` under `title`, every panel over `x_label` (the shared x range of all series).
pub fn render(title: &str, x_label: &str, panels: &[Panel]) -> RgbImage {
    let height = TOP + panels.len() as u32 * PANEL_HEIGHT + BOTTOM;
    let mut image = RgbImage::from_pixel(WIDTH, height, Rgb([255, 255, 255]));
    let font = FontRef::try_from_slice(epaint_default_fonts::HACK_REGULAR).expect("the bundled font parses");
    text(&mut image, &font, 16.0, LEFT as f32, 8.0, title, TEXT);
    let points = || panels.iter().flat_map(|p| &p.series).flat_map(|s| &s.points);
    let (x0, x1) = range(points().map(|p| p.0), false);
    for (i, panel) in panels.iter().enumerate() {
        let top = TOP + i as u32 * PANEL_HEIGHT;
        draw_panel(&mut image, &font, panel, top, (x0, x1));
    }
    let last = TOP + panels.len() as u32 * PANEL_HEIGHT;
    text(&mut image, &font, 13.0, (WIDTH / 2) as f32 - 60.0, last as f32 + 14.0, x_label, TEXT);
    image
}

/// The range shown for `values`: from the data's minimum (or zero, for magnitudes), padded 5%
/// above, never empty.
fn range(values: impl Iterator<Item = f64>, from_zero: bool) -> (f64, f64) {
    let (mut lo, mut hi) = values.fold((f64::MAX, f64::MIN), |(lo, hi), v| (lo.min(v), hi.max(v)));
    if lo > hi {
        (lo, hi) = (0.0, 1.0);
    }
    if from_zero {
        lo = lo.min(0.0);
        hi += (hi - lo) * 0.05;
    }
    if hi - lo < 1e-9 {
        hi = lo + 1.0;
    }
    (lo, hi)
}

fn draw_panel(image: &mut RgbImage, font: &FontRef, panel: &Panel, top: u32, (x0, x1): (f64, f64)) {
    let (left, right) = (LEFT as f32, (WIDTH - RIGHT) as f32);
    let (y_top, y_bottom) = (top as f32 + 24.0, (top + PANEL_HEIGHT) as f32 - 18.0);
    let (v0, v1) = range(panel.series.iter().flat_map(|s| &s.points).map(|p| p.1), true);
    let px = |x: f64| left + ((x - x0) / (x1 - x0)) as f32 * (right - left);
    let py = |v: f64| y_bottom - ((v - v0) / (v1 - v0)) as f32 * (y_bottom - y_top);
    text(image, font, 13.0, left, top as f32 + 4.0, &panel.title, TEXT);
    // Legend, right-aligned on the title's line.
    let mut at = right;
    for series in panel.series.iter().rev() {
        at -= 10.0 + 8.0 * series.name.len() as f32;
        text(image, font, 12.0, at + 10.0, top as f32 + 5.0, &series.name, TEXT);
        fill(image, at, top as f32 + 10.0, 7.0, 3.0, series.color);
        at -= 12.0;
    }
    for k in 0..=4 {
        let v = v0 + (v1 - v0) * k as f64 / 4.0;
        line(image, (left, py(v)), (right, py(v)), GRID);
        let label = tick(v);
        text(image, font, 11.0, left - 8.0 - 7.0 * label.len() as f32, py(v) - 7.0, &label, TEXT);
        let x = x0 + (x1 - x0) * k as f64 / 4.0;
        line(image, (px(x), y_top), (px(x), y_bottom), GRID);
        text(image, font, 11.0, px(x) - 12.0, y_bottom + 3.0, &tick(x), TEXT);
    }
    line(image, (left, y_bottom), (right, y_bottom), AXIS);
    line(image, (left, y_top), (left, y_bottom), AXIS);
    for series in &panel.series {
        for pair in series.points.windows(2) {
            let (a, b) = (pair[0], pair[1]);
            line(image, (px(a.0), py(a.1)), (px(b.0), py(b.1)), series.color);
            line(image, (px(a.0), py(a.1) + 1.0), (px(b.0), py(b.1) + 1.0), series.color);
        }
    }
}

/// A tick label: few digits, thousands as `k`, millions as `M`.
fn tick(v: f64) -> String {
    let a = v.abs();
    if a >= 1e6 {
        format!("{:.1}M", v / 1e6)
    } else if a >= 1e4 {
        format!("{:.0}k", v / 1e3)
    } else if a >= 100.0 || v == v.round() {
        format!("{v:.0}")
    } else {
        format!("{v:.2}")
    }
}

fn blend(image: &mut RgbImage, x: i64, y: i64, color: [u8; 3], coverage: f32) {
    if x < 0 || y < 0 || x >= image.width() as i64 || y >= image.height() as i64 {
        return;
    }
    let pixel = image.get_pixel_mut(x as u32, y as u32);
    for c in 0..3 {
        let mixed = pixel[c] as f32 * (1.0 - coverage) + color[c] as f32 * coverage;
        pixel[c] = mixed.round() as u8;
    }
}

fn fill(image: &mut RgbImage, x: f32, y: f32, w: f32, h: f32, color: [u8; 3]) {
    for yy in y as i64..(y + h) as i64 {
        for xx in x as i64..(x + w) as i64 {
            blend(image, xx, yy, color, 1.0);
        }
    }
}

/// A one-pixel line, one step per pixel along its longer axis.
fn line(image: &mut RgbImage, (x0, y0): (f32, f32), (x1, y1): (f32, f32), color: [u8; 3]) {
    let steps = (x1 - x0).abs().max((y1 - y0).abs()).ceil().max(1.0) as i64;
    for i in 0..=steps {
        let t = i as f32 / steps as f32;
        blend(image, (x0 + (x1 - x0) * t).round() as i64, (y0 + (y1 - y0) * t).round() as i64, color, 1.0);
    }
}

/// `s` at `size` pixels with its top-left corner at (x, y).
fn text(image: &mut RgbImage, font: &FontRef, size: f32, x: f32, y: f32, s: &str, color: [u8; 3]) {
    let scaled = font.as_scaled(PxScale::from(size));
    let mut caret = x;
    for ch in s.chars() {
        let glyph = scaled.scaled_glyph(ch);
        let id = glyph.id;
        let glyph = glyph.id.with_scale_and_position(size, point(caret, y + scaled.ascent()));
        if let Some(outline) = font.outline_glyph(glyph) {
            let bounds = outline.px_bounds();
            outline.draw(|gx, gy, c| {
                blend(image, bounds.min.x as i64 + gx as i64, bounds.min.y as i64 + gy as i64, color, c)
            });
        }
        caret += scaled.h_advance(id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_every_series_and_the_labels() {
        let series = |name: &str, color, k: f64| Series {
            name: name.into(),
            color,
            points: (0..50).map(|i| (i as f64, k * (i as f64 * 0.2).sin().abs())).collect(),
        };
        let panels = [
            Panel { title: "nodes".into(), series: vec![series("resident", [200, 40, 40], 1000.0)] },
            Panel { title: "MiB".into(), series: vec![series("rss", [40, 40, 200], 50.0)] },
        ];
        let image = render("soak", "seconds", &panels);
        assert_eq!(image.dimensions(), (WIDTH, TOP + 2 * PANEL_HEIGHT + BOTTOM));
        let count = |c: [u8; 3]| image.pixels().filter(|p| p.0 == c).count();
        assert!(count([200, 40, 40]) > 200, "the first series is drawn");
        assert!(count([40, 40, 200]) > 200, "the second series is drawn");
        let dark = image.pixels().filter(|p| p.0.iter().all(|&c| c < 80)).count();
        assert!(dark > 300, "text is drawn: {dark} dark pixels");
    }
}
