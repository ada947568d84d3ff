//! Occlusion culling's CPU twin: the depth pyramid built from a frame's depth (twin of
//! `shaders/hiz.wgsl`) and the test of a box against it (twin of `pyramid_occludes` in
//! `shaders/pyramid_test.wgsl`, which the cull and shadow caster passes share).
//!
//! **Depth** is reverse-Z (1 at the near plane, 0 infinitely far), so a pixel's *farthest*
//! surface is its *smallest* depth, and a pyramid texel keeps the minimum of the pixels it covers.
//!
//! **The pyramid.** Level 0 is `⌈W/2⌉ × ⌈H/2⌉` texels for a `W × H` frame, each the minimum of
//! the 2 × 2 pixels it covers (those that exist: at an odd edge one or two); level `k + 1` halves
//! level `k` the same way, down to one texel. Texel `(x, y)` of level `k` so covers exactly the
//! pixels `[x·2^(k+1), (x+1)·2^(k+1)) × [y·2^(k+1), (y+1)·2^(k+1))` inside the frame. Minima are
//! exact, so the GPU's pyramid equals this one bit for bit. The levels lie end to end in one
//! array, level 0 first, rows of x.
//!
//! **The test.** A box is *occluded* when every pixel it could cover already holds a surface
//! nearer than the box's nearest point. Its eight corners are projected; a corner behind the
//! near plane makes it visible (it reaches the eye). The corners' screen rectangle, widened by
//! a pixel on each side, is read at the finest level where it spans at most four texels per
//! axis (at most 16 reads), and the box is occluded when its largest corner depth, raised by
//! [`DEPTH_MARGIN`], is still below the smallest depth read. The nearest point of a box is a
//! corner (depth falls with the distance along the view axis), and every quad of a face stream
//! lies inside its box, so an occluded stream's fragments would all fail the depth test: drawn
//! or not, the frame is the same.
//!
//! Why it is safe two-phase: the pyramid is built from the depth of the frame's first phase,
//! which draws a subset of the frame's surfaces; depth only ever rises through a frame, so at
//! every pixel the final depth is at least the pyramid's.

use glam::{Mat4, UVec2, Vec3, Vec4};

/// Relative raise of a box's nearest depth before it is compared (the depth of a box corner and
/// of a rasterised fragment on its quads differ by rounding): 2^-12, a 0.025% nearer box.
pub const DEPTH_MARGIN: f32 = 1.0 / 4096.0;

/// The most levels a pyramid has (frames up to 65,536 pixels wide).
pub const MAX_LEVELS: u32 = 16;

/// The most texels the test reads per axis.
pub const TEST_TEXELS: u32 = 4;

/// Level 0's size for a `width × height` frame: half of it, rounded up.
pub fn base_size(width: u32, height: u32) -> UVec2 {
    UVec2::new(width.div_ceil(2), height.div_ceil(2))
}

/// Level `level`'s size for a frame whose level 0 is `base`.
pub fn level_size(base: UVec2, level: u32) -> UVec2 {
    (base + UVec2::splat((1 << level) - 1)) >> level
}

/// How many levels a pyramid over level 0 of `base` has: down to one texel.
pub fn level_count(base: UVec2) -> u32 {
    let mut levels = 1;
    while level_size(base, levels - 1) != UVec2::ONE {
        levels += 1;
    }
    levels
}

/// Where level `level` starts in the packed array.
pub fn level_offset(base: UVec2, level: u32) -> u32 {
    (0..level).map(|k| level_size(base, k).element_product()).sum()
}

/// Texels of every level together.
pub fn texel_count(width: u32, height: u32) -> u32 {
    let base = base_size(width, height);
    level_offset(base, level_count(base))
}

/// A frame's depth pyramid, every level packed as the GPU packs it.
#[derive(Clone, Debug, PartialEq)]
pub struct DepthPyramid {
    /// The frame's size in pixels.
    pub width: u32,
    /// The frame's size in pixels.
    pub height: u32,
    /// Every level's texels, level 0 first, each level's rows of x.
    pub texels: Vec<f32>,
}

impl DepthPyramid {
    /// The pyramid of a `width × height` depth image (rows of x, reverse-Z).
    pub fn from_depth(width: u32, height: u32, depth: &[f32]) -> Self {
        assert_eq!(depth.len(), (width * height) as usize, "one depth per pixel");
        let base = base_size(width, height);
        let mut texels = Vec::with_capacity(texel_count(width, height) as usize);
        let reduce = |texels: &mut Vec<f32>, size: UVec2, src: UVec2, read: &dyn Fn(u32, u32) -> f32| {
            for y in 0..size.y {
                for x in 0..size.x {
                    let mut least = f32::INFINITY;
                    for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                        let (sx, sy) = (2 * x + dx, 2 * y + dy);
                        if sx < src.x && sy < src.y {
                            least = least.min(read(sx, sy));
                        }
                    }
                    texels.push(least);
                }
            }
        };
        reduce(&mut texels, base, UVec2::new(width, height), &|x, y| depth[(y * width + x) as usize]);
        for level in 1..level_count(base) {
            let (src, src_offset) = (level_size(base, level - 1), level_offset(base, level - 1));
            let below = texels.clone();
            let read = |x: u32, y: u32| below[(src_offset + y * src.x + x) as usize];
            reduce(&mut texels, level_size(base, level), src, &read);
        }
        Self { width, height, texels }
    }

    /// Texel `(x, y)` of `level`.
    pub fn texel(&self, level: u32, x: u32, y: u32) -> f32 {
        let base = base_size(self.width, self.height);
        let size = level_size(base, level);
        self.texels[(level_offset(base, level) + y * size.x + x) as usize]
    }

    /// The test of the box `[low, high]` (positions as `view_proj` takes them).
    pub fn test_box(&self, view_proj: Mat4, low: Vec3, high: Vec3) -> BoxTest {
        let Some(rect) = ScreenRect::of_box(view_proj, low, high, self.width, self.height) else {
            return BoxTest { occluded: false, marginal: false };
        };
        let base = base_size(self.width, self.height);
        let (level, lo, hi) = rect.texels(base, level_count(base));
        let mut farthest = f32::INFINITY;
        for y in lo.y..=hi.y {
            for x in lo.x..=hi.x {
                farthest = farthest.min(self.texel(level, x, y));
            }
        }
        let nearest = rect.depth + rect.depth * DEPTH_MARGIN;
        // Rounding on either side could move a rectangle edge across a pixel or flip the
        // comparison only this close to it.
        let near_pixel_edge = [rect.min.x, rect.min.y, rect.max.x, rect.max.y]
            .iter()
            .any(|&v| (v - v.round()).abs() < (1e-6 * v.abs()).max(1e-3));
        let near_depth = (nearest - farthest).abs() <= 1e-5 * farthest.abs();
        BoxTest { occluded: nearest < farthest, marginal: near_pixel_edge || near_depth }
    }
}

/// A box's verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BoxTest {
    /// Every pixel the box could cover holds a nearer surface.
    pub occluded: bool,
    /// Within rounding of another verdict: a rectangle edge within a thousandth of a pixel of a
    /// pixel edge, or the depths within a relative 10^-5; the GPU (which may fuse the
    /// projection's multiply-adds) can then differ, and a twin comparison counts these apart.
    pub marginal: bool,
}

/// A box's projection: the corners' screen rectangle in pixels (y down) and their largest depth.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ScreenRect {
    /// Smallest corner x and y, in pixels from the frame's top left.
    pub min: glam::Vec2,
    /// Largest corner x and y.
    pub max: glam::Vec2,
    /// The largest corner depth: the box's nearest point.
    pub depth: f32,
    /// The frame's size in pixels.
    pub frame: UVec2,
}

impl ScreenRect {
    /// The projection of `[low, high]`, or `None` when a corner lies on or behind the near
    /// plane (or behind the eye), where the box reaches the eye and cannot be tested.
    pub fn of_box(view_proj: Mat4, low: Vec3, high: Vec3, width: u32, height: u32) -> Option<Self> {
        let frame = glam::Vec2::new(width as f32, height as f32);
        let mut min = glam::Vec2::splat(f32::INFINITY);
        let mut max = glam::Vec2::splat(f32::NEG_INFINITY);
        let mut depth = 0.0f32;
        for i in 0..8 {
            let corner = Vec3::new(
                if i & 1 == 0 { low.x } else { high.x },
                if i & 2 == 0 { low.y } else { high.y },
                if i & 4 == 0 { low.z } else { high.z },
            );
            let clip = view_proj * Vec4::from((corner, 1.0));
            if clip.w <= 0.0 || clip.z >= clip.w {
                return None;
            }
            let ndc = clip.truncate() / clip.w;
            let pixel = glam::Vec2::new(ndc.x * 0.5 + 0.5, 0.5 - ndc.y * 0.5) * frame;
            min = min.min(pixel);
            max = max.max(pixel);
            depth = depth.max(ndc.z);
        }
        Some(Self { min, max, depth, frame: UVec2::new(width, height) })
    }

    /// The pixels the rectangle may cover, widened by one each side and clipped to the frame,
    /// as inclusive corners.
    pub fn pixels(&self) -> (UVec2, UVec2) {
        let last = self.frame.as_vec2() - 1.0;
        let lo = (self.min.floor() - 1.0).clamp(glam::Vec2::ZERO, last);
        let hi = (self.max.floor() + 1.0).clamp(glam::Vec2::ZERO, last);
        (lo.as_uvec2(), hi.as_uvec2())
    }

    /// The level to read and its texels (inclusive corners): the finest of `levels` over level
    /// 0 of `base` where the pixels span at most [`TEST_TEXELS`] texels per axis.
    pub fn texels(&self, base: UVec2, levels: u32) -> (u32, UVec2, UVec2) {
        let (lo, hi) = self.pixels();
        let mut level = 0;
        while level + 1 < levels && ((hi >> (level + 1)) - (lo >> (level + 1))).max_element() >= TEST_TEXELS {
            level += 1;
        }
        let last = level_size(base, level) - 1;
        ((level), (lo >> (level + 1)).min(last), (hi >> (level + 1)).min(last))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_halve_down_to_one_texel_and_cover_every_pixel() {
        for (w, h) in [(1, 1), (2, 1), (3, 5), (480, 270), (1920, 1080), (1, 700)] {
            let base = base_size(w, h);
            let levels = level_count(base);
            assert_eq!(level_size(base, levels - 1), UVec2::ONE, "{w}×{h}");
            for k in 0..levels {
                let size = level_size(base, k);
                // Texel (size - 1) of level k starts inside the frame and the next would not.
                let span = 2u32 << k;
                assert!((size.x - 1) * span < w && size.x * span >= w, "{w}×{h} level {k}");
                assert!((size.y - 1) * span < h && size.y * span >= h, "{w}×{h} level {k}");
            }
        }
    }

    #[test]
    fn a_texel_is_the_farthest_depth_of_its_pixels() {
        let (w, h) = (7u32, 5u32);
        let depth: Vec<f32> = (0..w * h).map(|i| ((i * 37) % 23) as f32 / 23.0).collect();
        let pyramid = DepthPyramid::from_depth(w, h, &depth);
        let base = base_size(w, h);
        for k in 0..level_count(base) {
            let size = level_size(base, k);
            for y in 0..size.y {
                for x in 0..size.x {
                    let span = 2u32 << k;
                    let naive = (y * span..((y + 1) * span).min(h))
                        .flat_map(|py| (x * span..((x + 1) * span).min(w)).map(move |px| (px, py)))
                        .map(|(px, py)| depth[(py * w + px) as usize])
                        .fold(f32::INFINITY, f32::min);
                    assert_eq!(pyramid.texel(k, x, y), naive, "level {k} ({x}, {y})");
                }
            }
        }
    }

    fn wall_scene() -> (Mat4, DepthPyramid) {
        let camera = crate::camera::Camera::look_at(Vec3::ZERO, Vec3::new(0.0, 0.0, -1.0));
        let (w, h) = (64, 48);
        let view_proj = camera.view_proj(w as f32 / h as f32);
        // A wall 10 blocks ahead fills the frame: reverse-Z depth near / distance.
        let depth = vec![camera.near / 10.0; (w * h) as usize];
        (view_proj, DepthPyramid::from_depth(w, h, &depth))
    }

    #[test]
    fn a_box_behind_a_wall_is_occluded_and_one_before_it_is_not() {
        let (view_proj, pyramid) = wall_scene();
        let behind = pyramid.test_box(view_proj, Vec3::new(-1.0, -1.0, -30.0), Vec3::new(1.0, 1.0, -20.0));
        assert!(behind.occluded);
        let before = pyramid.test_box(view_proj, Vec3::new(-1.0, -1.0, -8.0), Vec3::new(1.0, 1.0, -5.0));
        assert!(!before.occluded);
        // Reaching through the wall: its nearest corner is in front.
        let through = pyramid.test_box(view_proj, Vec3::new(-1.0, -1.0, -30.0), Vec3::new(1.0, 1.0, -9.0));
        assert!(!through.occluded);
        // Around the eye: cannot be tested, so visible.
        let around = pyramid.test_box(view_proj, Vec3::splat(-1.0), Vec3::splat(1.0));
        assert!(!around.occluded);
    }

    #[test]
    fn a_hole_in_the_wall_shows_what_is_behind_it() {
        let (view_proj, mut pyramid) = wall_scene();
        let (w, h) = (pyramid.width, pyramid.height);
        let mut depth = vec![0.1 / 10.0; (w * h) as usize];
        // One far pixel in the middle: the sky through a hole.
        depth[((h / 2) * w + w / 2) as usize] = 0.0;
        pyramid = DepthPyramid::from_depth(w, h, &depth);
        let behind = pyramid.test_box(view_proj, Vec3::new(-1.0, -1.0, -30.0), Vec3::new(1.0, 1.0, -20.0));
        assert!(!behind.occluded, "the hole's pixel lies under the box");
        let aside = pyramid.test_box(view_proj, Vec3::new(-9.0, -1.0, -30.0), Vec3::new(-7.0, 1.0, -20.0));
        assert!(aside.occluded, "a box away from the hole stays hidden");
    }
}
