//! The crack test's measure, shared by the level-of-detail and node crack tests: background
//! pixels where the surface as drawn must be.

use glam::{IVec3, Vec3};
use voxgpu_core::camera::Camera;
use voxgpu_core::voxel::{BlockId, blocks as ids, raycast};

/// The sky colour of the crack scenes: magenta, which no block has, with fog pushed out of view.
pub const SKY: Vec3 = Vec3::new(1.0, 0.0, 1.0);
pub const SKY_SRGB: [u8; 4] = [255, 0, 255, 255];

/// Whether the ray from `origin` along `dir` enters a block of the shape `solid` within `reach`
/// blocks: the picking walk (`voxel::raycast`) over the shape.
fn ray_hits(solid: &dyn Fn(IVec3) -> bool, origin: Vec3, dir: Vec3, reach: f32) -> bool {
    raycast(origin, dir, reach, |p| if solid(p) { ids::STONE } else { BlockId::AIR }).is_some()
}

/// Background pixels of `on` where the surface drawn must be: the pixel is surface in the
/// full-detail `off`, and rays through its centre and four points 0.35 px around it all enter a
/// solid block of the shape as drawn (`solid`). A coarser silhouette is not counted (the rays
/// miss the coarse shape there); light through a seam is.
pub fn crack_pixels(
    on: &image::RgbaImage,
    off: &image::RgbaImage,
    camera: &Camera,
    solid: &dyn Fn(IVec3) -> bool,
) -> Vec<(u32, u32)> {
    let (w, h) = on.dimensions();
    let inverse = camera.view_proj(w as f32 / h as f32).inverse();
    let ray = |x: f32, y: f32| {
        let ndc = Vec3::new(x / w as f32 * 2.0 - 1.0, 1.0 - y / h as f32 * 2.0, 0.5);
        (inverse.project_point3(ndc) - camera.eye).normalize()
    };
    let mut cracks = Vec::new();
    for (x, y, pixel) in on.enumerate_pixels() {
        if pixel.0 != SKY_SRGB || off.get_pixel(x, y).0 == SKY_SRGB {
            continue;
        }
        let (cx, cy) = (x as f32 + 0.5, y as f32 + 0.5);
        let offsets = [(0.0, 0.0), (-0.35, -0.35), (0.35, -0.35), (-0.35, 0.35), (0.35, 0.35)];
        if offsets.iter().all(|(dx, dy)| ray_hits(solid, camera.eye, ray(cx + dx, cy + dy), 2000.0)) {
            cracks.push((x, y));
        }
    }
    cracks
}

/// Asserts that `on` shows no background through a seam. First, that the scene means something
/// (the surface fills a tenth of the view) and that the measure has teeth (a one-pixel hole
/// punched near the middle of the surface is counted). On failure the two pictures go to
/// `tests/output/<stem>-on.png` and `-off.png`.
pub fn assert_no_cracks(
    on: &image::RgbaImage,
    off: &image::RgbaImage,
    camera: &Camera,
    solid: &dyn Fn(IVec3) -> bool,
    what: &str,
    stem: &str,
) {
    let (w, h) = on.dimensions();
    let surface = off.pixels().filter(|p| p.0 != SKY_SRGB).count();
    assert!(surface as u32 > w * h / 10, "{what}: the surface must fill the view");
    let cracks = crack_pixels(on, off, camera, solid);
    let middle = (0..64 * 64)
        .map(|i| (w / 2 - 32 + i % 64, h / 2 - 32 + i / 64))
        .find(|&(x, y)| {
            let around = |img: &image::RgbaImage| {
                (0..9).all(|k| img.get_pixel(x + k % 3 - 1, y + k / 3 - 1).0 != SKY_SRGB)
            };
            around(on) && around(off)
        })
        .expect("surface near the middle");
    let mut holed = on.clone();
    holed.put_pixel(middle.0, middle.1, image::Rgba(SKY_SRGB));
    assert_eq!(
        crack_pixels(&holed, off, camera, solid).len(),
        cracks.len() + 1,
        "{what}: a punched hole counts"
    );
    if !cracks.is_empty() {
        let dir = crate::output_dir();
        std::fs::create_dir_all(&dir).expect("output dir");
        on.save(dir.join(format!("{stem}-on.png"))).expect("write");
        off.save(dir.join(format!("{stem}-off.png"))).expect("write");
    }
    assert!(
        cracks.is_empty(),
        "{what}: {} background pixels through seams, first {:?} (images in tests/output)",
        cracks.len(),
        &cracks[..cracks.len().min(8)]
    );
}
