//! Level-of-detail selection: which mip level each chunk is meshed at, from its distance to the
//! camera. This is the CPU reference of `shaders/lod.wgsl`, which must choose the same levels.
//!
//! Level `L` meshes the chunk's `(32 >> L)³` mip, so each voxel is `2^L` blocks wide. Thresholds
//! double per level (`first_distance × 2^L`), which keeps a voxel's size on screen roughly constant
//! across levels: a level-L voxel at its threshold looks like a level-0 voxel at `first_distance`.
//!
//! **Hysteresis.** A chunk keeps its level while its distance stays inside that level's band
//! widened by `hysteresis` (a fraction of the threshold) on both sides. Only when it leaves the
//! widened band does it take the plain level for its distance, which then lies well inside the new
//! band. A camera jittering by less than the margin around a threshold therefore never changes a
//! chunk's level; crossing the whole margin changes it once.

use glam::Vec3;

use crate::voxel::{ChunkPos, MIP_LEVELS, chunk_aabb};

/// The coarsest level: 1³, the whole chunk as one voxel.
pub const MAX_LEVEL: u32 = MIP_LEVELS as u32;
/// A chunk that has not been given a level yet (new in its slot).
pub const LEVEL_UNSET: u32 = u32::MAX;

/// How levels are chosen. `Default` is sized for the default view distance of 8 chunks: the
/// nearest 4 chunks at full detail, the rest of the view at level 1.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LodSettings {
    /// Distance in blocks from the camera to a chunk's box where level 1 begins; level `L` begins
    /// at `first_distance × 2^(L-1)`.
    pub first_distance: f32,
    /// Widening of each level's band, as a fraction of the threshold, before a chunk leaves it.
    pub hysteresis: f32,
    /// Coarsest level used; 0 turns LOD off.
    pub max_level: u32,
}

impl Default for LodSettings {
    fn default() -> Self {
        Self { first_distance: 128.0, hysteresis: 0.1, max_level: MAX_LEVEL }
    }
}

impl LodSettings {
    /// Every chunk at full detail.
    pub const OFF: LodSettings = LodSettings { first_distance: 128.0, hysteresis: 0.1, max_level: 0 };

    /// The settings with LOD on (the defaults) or off.
    pub fn enabled(on: bool) -> Self {
        if on { Self::default() } else { Self::OFF }
    }

    pub fn is_on(&self) -> bool {
        self.max_level > 0
    }

    /// Distance where level `k + 1` begins, for `k` in `0..MAX_LEVEL`.
    pub fn thresholds(&self) -> [f32; MIP_LEVELS] {
        std::array::from_fn(|k| self.first_distance * (1u32 << k) as f32)
    }

    /// The level for `distance` with no history: the number of thresholds at or below it.
    pub fn plain_level(&self, distance: f32) -> u32 {
        let thresholds = self.thresholds();
        let mut level = 0;
        while level < self.max_level && distance >= thresholds[level as usize] {
            level += 1;
        }
        level
    }

    /// The level for `distance` given the chunk's `current` level ([`LEVEL_UNSET`] for a new
    /// chunk). Twin of `select_level` in `shaders/lod.wgsl`.
    pub fn select(&self, distance: f32, current: u32) -> u32 {
        if current <= self.max_level {
            let thresholds = self.thresholds();
            let (low, high) = self.band(&thresholds, current);
            if distance >= low && high.is_none_or(|high| distance < high) {
                return current;
            }
        }
        self.plain_level(distance)
    }

    /// The band `[low, high)` a chunk at `level` stays in; `None` is unbounded.
    fn band(&self, thresholds: &[f32; MIP_LEVELS], level: u32) -> (f32, Option<f32>) {
        let low = if level == 0 { 0.0 } else { thresholds[level as usize - 1] * (1.0 - self.hysteresis) };
        let high = if level == self.max_level {
            None
        } else {
            Some(thresholds[level as usize] * (1.0 + self.hysteresis))
        };
        (low, high)
    }

    /// Whether `distance` is within `epsilon` of an edge that `select` compares against, for a
    /// chunk at `current`: where the GPU's float rounding may legitimately disagree with the CPU's.
    pub fn is_borderline(&self, distance: f32, current: u32, epsilon: f32) -> bool {
        let thresholds = self.thresholds();
        let mut edges: Vec<f32> = thresholds.to_vec();
        if current <= self.max_level {
            let (low, high) = self.band(&thresholds, current);
            edges.push(low);
            edges.extend(high);
        }
        edges.iter().any(|edge| (distance - edge).abs() <= epsilon * edge.max(1.0))
    }
}

/// Distance from `eye` to the nearest point of the chunk's box (0 inside it). Twin of
/// `chunk_distance` in `shaders/lod.wgsl`.
pub fn chunk_distance(pos: ChunkPos, eye: Vec3) -> f32 {
    let (min, max) = chunk_aabb(pos);
    let gap = (min - eye).max(eye - max).max(Vec3::ZERO);
    (gap.x * gap.x + gap.y * gap.y + gap.z * gap.z).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_start_at_doubling_distances() {
        let s = LodSettings::default();
        assert_eq!(s.thresholds(), [128.0, 256.0, 512.0, 1024.0, 2048.0]);
        assert_eq!(s.plain_level(0.0), 0);
        assert_eq!(s.plain_level(127.9), 0);
        assert_eq!(s.plain_level(128.0), 1);
        assert_eq!(s.plain_level(600.0), 3);
        assert_eq!(s.plain_level(1.0e9), MAX_LEVEL);
        assert_eq!(LodSettings::OFF.plain_level(1.0e9), 0);
    }

    #[test]
    fn a_chunk_keeps_its_level_inside_the_widened_band() {
        let s = LodSettings::default();
        // At level 1 ([128, 256)), widened by 10%: [115.2, 281.6).
        assert_eq!(s.select(120.0, 1), 1);
        assert_eq!(s.select(270.0, 1), 1);
        assert_eq!(s.select(110.0, 1), 0);
        assert_eq!(s.select(290.0, 1), 2);
        // A new chunk takes the plain level.
        assert_eq!(s.select(120.0, LEVEL_UNSET), 0);
        // A level above max_level (LOD just turned off) is dropped at once.
        assert_eq!(LodSettings::OFF.select(300.0, 2), 0);
    }

    #[test]
    fn jitter_across_a_threshold_changes_the_level_at_most_once() {
        let s = LodSettings::default();
        for start in [120.0f32, 136.0] {
            let mut level = s.select(start, LEVEL_UNSET);
            let mut changes = 0;
            for i in 0..1000 {
                // ±8 blocks around 128: less than the 12.8-block margin.
                let distance = 128.0 + 8.0 * (i as f32 * 0.37).sin();
                let next = s.select(distance, level);
                changes += (next != level) as u32;
                level = next;
            }
            assert!(changes <= 1, "start {start}: {changes} changes");
        }
    }

    #[test]
    fn distance_is_to_the_box() {
        let pos = ChunkPos::new(1, 0, 0);
        assert_eq!(chunk_distance(pos, Vec3::new(40.0, 5.0, 5.0)), 0.0);
        assert_eq!(chunk_distance(pos, Vec3::new(0.0, 5.0, 5.0)), 32.0);
        assert_eq!(chunk_distance(pos, Vec3::new(64.0 + 3.0, 32.0 + 4.0, 5.0)), 5.0);
    }
}
