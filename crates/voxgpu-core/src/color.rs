//! Colour difference as a viewer sees it: CIELAB (D65) from sRGB bytes and the ΔE*76 distance
//! between two colours, for measures that compare pictures or block colours.

/// CIELAB (D65) `[L, a, b]` of an sRGB colour given as bytes.
pub fn srgb_to_lab(rgb: [u8; 3]) -> [f64; 3] {
    let lin = rgb.map(|c| {
        let c = f64::from(c) / 255.0;
        if c <= 0.04045 { c / 12.92 } else { ((c + 0.055) / 1.055).powf(2.4) }
    });
    let xyz = [
        (0.412_456_4 * lin[0] + 0.357_576_1 * lin[1] + 0.180_437_5 * lin[2]) / 0.950_47,
        0.212_672_9 * lin[0] + 0.715_152_2 * lin[1] + 0.072_175_0 * lin[2],
        (0.019_333_9 * lin[0] + 0.119_192_0 * lin[1] + 0.950_304_1 * lin[2]) / 1.088_83,
    ];
    let f = xyz.map(|t| if t > 216.0 / 24389.0 { t.cbrt() } else { (24389.0 / 27.0 * t + 16.0) / 116.0 });
    [116.0 * f[1] - 16.0, 500.0 * (f[0] - f[1]), 200.0 * (f[1] - f[2])]
}

/// CIELAB ΔE*76 (the Euclidean distance) between two Lab colours.
pub fn delta_e(p: [f64; 3], q: [f64; 3]) -> f64 {
    ((p[0] - q[0]).powi(2) + (p[1] - q[1]).powi(2) + (p[2] - q[2]).powi(2)).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn white_black_and_a_known_red() {
        let white = srgb_to_lab([255, 255, 255]);
        assert!((white[0] - 100.0).abs() < 0.01 && white[1].abs() < 0.01 && white[2].abs() < 0.01);
        assert!(srgb_to_lab([0, 0, 0])[0].abs() < 1e-9);
        // sRGB red is about L 53.2, a 80.1, b 67.2.
        assert!(delta_e(srgb_to_lab([255, 0, 0]), [53.24, 80.09, 67.20]) < 0.1);
    }
}
