//! Pictures: a renderer's frame as an image, NVIDIA's FLIP between two, and the golden-image
//! comparison.

use std::path::Path;

use voxgpu_engine::{GpuError, Offscreen, Pixels};

/// A FLIP error above this is a clearly visible difference at that pixel.
pub const VISIBLE_ERROR: f32 = 0.3;
/// The largest mean FLIP error (0 = identical, 1 = maximal) a picture may have against its
/// reference: rasterisation and interpolation differ slightly between adapters.
pub const MEAN_FLIP_THRESHOLD: f32 = 0.01;
/// However small the mean, the share of pixels with a clearly visible error is capped too.
pub const MAX_VISIBLE_ERROR_SHARE: f32 = 0.002;

/// A frame read back by the engine as an `image` buffer (what the application's `to_image` does).
pub fn to_image(pixels: Pixels) -> image::RgbaImage {
    let Pixels { width, height, rgba } = pixels;
    image::RgbaImage::from_raw(width, height, rgba).expect("the engine reads width × height × 4 bytes")
}

/// The last frame of an offscreen renderer as an `image` buffer.
pub trait ReadImage {
    fn read_image(&self) -> Result<image::RgbaImage, GpuError>;
}

impl ReadImage for Offscreen {
    fn read_image(&self) -> Result<image::RgbaImage, GpuError> {
        self.read_pixels().map(to_image)
    }
}

/// A FLIP comparison of two same-sized pictures.
pub struct Flip {
    /// Mean FLIP error.
    pub mean: f32,
    /// Share of pixels above [`VISIBLE_ERROR`].
    pub visible: f32,
    /// The error, colour-mapped, for a person to look at.
    pub difference: image::RgbImage,
}

impl Flip {
    /// Within [`MEAN_FLIP_THRESHOLD`] and [`MAX_VISIBLE_ERROR_SHARE`].
    pub fn passes(&self) -> bool {
        self.mean <= MEAN_FLIP_THRESHOLD && self.visible <= MAX_VISIBLE_ERROR_SHARE
    }
}

impl std::fmt::Display for Flip {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "mean FLIP {:.5} (max {MEAN_FLIP_THRESHOLD}), visible errors {:.3}% (max {:.3}%)",
            self.mean,
            self.visible * 100.0,
            MAX_VISIBLE_ERROR_SHARE * 100.0
        )
    }
}

/// The one picture comparison of the tests: NVIDIA's FLIP between `reference` and `actual`.
pub fn flip(reference: &image::RgbaImage, actual: &image::RgbaImage) -> Flip {
    let (w, h) = reference.dimensions();
    let rgb = |img: &image::RgbaImage| img.pixels().flat_map(|p| [p[0], p[1], p[2]]).collect::<Vec<u8>>();
    let r = nv_flip::FlipImageRgb8::with_data(w, h, &rgb(reference));
    let a = nv_flip::FlipImageRgb8::with_data(w, h, &rgb(actual));
    let error = nv_flip::flip(r, a, nv_flip::DEFAULT_PIXELS_PER_DEGREE);
    let mean = nv_flip::FlipPool::from_image(&error).mean();
    let values = error.to_vec();
    let visible = values.iter().filter(|&&e| e > VISIBLE_ERROR).count() as f32 / values.len() as f32;
    let colored = error.apply_color_lut(&nv_flip::magma_lut());
    let difference = image::RgbImage::from_raw(w, h, colored.to_vec()).expect("sized");
    Flip { mean, visible, difference }
}

/// Compares `actual` with the reference `<golden>/<file>.png` (`golden` is the calling crate's
/// `tests/golden`); on a difference beyond the thresholds writes `tests/output/<label>-actual.png`
/// and `-difference.png` (the workspace's, [`crate::output_dir`]) and returns the failure's line.
/// With `VOXGPU_BLESS=1` and `bless_this` it rewrites the reference instead.
pub fn compare_golden(
    golden: &Path,
    file: &str,
    label: &str,
    actual: &image::RgbaImage,
    bless_this: bool,
) -> Result<(), String> {
    let reference_path = golden.join(format!("{file}.png"));
    if bless_this && std::env::var("VOXGPU_BLESS").as_deref() == Ok("1") {
        actual.save(&reference_path).expect("write reference");
        eprintln!("blessed {}", reference_path.display());
        return Ok(());
    }
    let reference = image::open(&reference_path)
        .unwrap_or_else(|e| {
            panic!("{}: {e} (run with VOXGPU_BLESS=1 to create it)", reference_path.display())
        })
        .to_rgba8();
    let result = flip(&reference, actual);
    eprintln!("{label:<28} {result}");
    if result.passes() {
        return Ok(());
    }
    let out = crate::output_dir();
    std::fs::create_dir_all(&out).expect("create tests/output");
    actual.save(out.join(format!("{label}-actual.png"))).expect("write actual");
    result.difference.save(out.join(format!("{label}-difference.png"))).expect("write difference");
    Err(format!("{label}: {result}; see {}/{label}-actual.png and -difference.png", out.display()))
}
