//! Level-of-detail selection: which nodes are drawn, and at which mip level each is meshed, from
//! their distance to the camera. This is the CPU reference of `shaders/lod.wgsl`, which must
//! decide the same.
//!
//! Levels are absolute: at level `L` a cell is `2^L` blocks wide. A level-`N` node meshed at mip
//! `m` is at level `N + m`. Thresholds double per level (`first_distance × 2^L`), which keeps a
//! cell's size on screen roughly constant across levels: a level-L cell at its threshold looks
//! like a block at `first_distance`.
//!
//! **Which nodes are drawn.** A level-`N` node (`N > 0`) is *split* when it is nearer than the
//! distance where level `N` begins. It is drawn unless it is split and every one of its child
//! columns has been generated (then its children stand in for it), and only where its parent is
//! split with every child column generated. A parent that is all air (no slot) counts as split
//! by its distance alone; nodes of the top level have no parent. A node's box lies inside its
//! parent's, so a split node's parent is split too: the drawn nodes cover each place once.
//!
//! **Cross-fade.** When a node starts or stops being drawn because its parent or its children
//! took its place, it fades over `fade_frames` frames instead of switching in one: a node
//! fading out keeps its quads and is still drawn, and both the fading-in and the fading-out
//! nodes are drawn through a screen-space dither whose pattern they share, so at each pixel
//! exactly one of the two levels shows, the new one on a growing share of the pixels. A node
//! new to the pool fades in only where its parent was drawn the frame before (something then
//! stood in its place); a chunk an edit creates inside drawn terrain appears at once.
//!
//! **Hysteresis.** A chunk keeps its level while its distance stays inside that level's band
//! widened by `hysteresis` (a fraction of the threshold) on both sides. Only when it leaves the
//! widened band does it take the plain level for its distance, which then lies well inside the new
//! band. A camera jittering by less than the margin around a threshold therefore never changes a
//! chunk's level; crossing the whole margin changes it once.

use crate::voxel::MIP_LEVELS;

mod nodes;
pub use nodes::{NodeState, Readiness, chunk_distance, next_fade, node_distance, select_nodes};

/// The coarsest mip level within a node: 1³, the whole node as one cell.
pub const MAX_LEVEL: u32 = MIP_LEVELS as u32;
/// Absolute levels with a threshold: node levels up to `voxel::MAX_NODE_LEVEL` plus their mips,
/// capped. Twin of `LEVEL_THRESHOLDS` in `shaders/common.wgsl`.
pub const LEVELS: usize = 16;
/// A chunk that has not been given a level yet (new in its slot).
pub const LEVEL_UNSET: u32 = u32::MAX;

/// The coarsest absolute level: the last one with a threshold. `shaders/lod.wgsl` clamps a node's
/// coarsest level to `LEVEL_THRESHOLDS - 1u`, the same number (`LEVEL_THRESHOLDS` is checked
/// against [`LEVELS`] by the engine's shader tests).
pub const TOP_LEVEL: u32 = LEVELS as u32 - 1;
/// Largest `first_distance` accepted: the top threshold (`first_distance × 2^(LEVELS-1)`) stays
/// far inside `f32` range.
pub const MAX_FIRST_DISTANCE: f32 = 1.0e12;
/// Largest hysteresis accepted: below 1, so a band's widened low edge (`threshold × (1 - h)`)
/// stays positive, and at most half, so a band never swallows the next one whole.
pub const MAX_HYSTERESIS: f32 = 0.5;
/// Frames a cross-fade between levels lasts by default: about a quarter of a second at 60 fps.
pub const DEFAULT_FADE_FRAMES: u32 = 16;
/// The longest cross-fade accepted: the frames left are kept in 8 bits on the GPU.
pub const MAX_FADE_FRAMES: u32 = 255;

/// Why [`LodSettings::new`] refused its arguments; each prints as one line.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LodError {
    /// `first_distance` is not finite, not above zero, or above [`MAX_FIRST_DISTANCE`].
    FirstDistance(f32),
    /// `hysteresis` is not in `0..=MAX_HYSTERESIS`.
    Hysteresis(f32),
    /// `max_level` is above [`MAX_LEVEL`].
    MaxLevel(u32),
    /// `fade_frames` is above [`MAX_FADE_FRAMES`].
    FadeFrames(u32),
}

impl std::fmt::Display for LodError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::FirstDistance(d) => {
                write!(
                    f,
                    "LOD distance {d} is not a distance in blocks above 0 and at most {MAX_FIRST_DISTANCE:e}"
                )
            }
            Self::Hysteresis(h) => write!(f, "LOD hysteresis {h} is not a fraction in 0..={MAX_HYSTERESIS}"),
            Self::MaxLevel(l) => write!(
                f,
                "LOD max level {l} is above {MAX_LEVEL}, the coarsest mip a node has (1 cell across)"
            ),
            Self::FadeFrames(n) => {
                write!(f, "LOD cross-fade of {n} frames is longer than {MAX_FADE_FRAMES} frames")
            }
        }
    }
}

impl std::error::Error for LodError {}

/// How levels are chosen. `Default` is sized for the default view distance of 8 chunks: the
/// nearest 4 chunks at full detail, the rest of the view at level 1.
///
/// Only [`LodSettings::new`] (and the `with_` methods, which go through it) makes one, so every
/// value is one the GPU pass decides the same way as this twin: `max_level` at most
/// [`MAX_LEVEL`] (the mesher on both sides has no mip above it, and every chunk's levels then have
/// thresholds), a finite positive `first_distance`, and a hysteresis in `0..=MAX_HYSTERESIS`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LodSettings {
    /// Distance in blocks from the camera to a node's box where level 1 begins; level `L` begins
    /// at `first_distance × 2^(L-1)`.
    first_distance: f32,
    /// Widening of each level's band, as a fraction of the threshold, before a node leaves it.
    hysteresis: f32,
    /// Coarsest mip level a node is meshed at above its own level; 0 turns per-node mips off
    /// (with chunks only, LOD off).
    max_level: u32,
    /// Frames a node cross-fades over when it replaces another level or is replaced; 0 switches
    /// in one frame.
    fade_frames: u32,
}

impl Default for LodSettings {
    fn default() -> Self {
        Self {
            first_distance: 128.0,
            hysteresis: 0.1,
            max_level: MAX_LEVEL,
            fade_frames: DEFAULT_FADE_FRAMES,
        }
    }
}

impl LodSettings {
    /// Every chunk at full detail.
    pub const OFF: LodSettings = LodSettings {
        first_distance: 128.0,
        hysteresis: 0.1,
        max_level: 0,
        fade_frames: DEFAULT_FADE_FRAMES,
    };

    /// Settings from their three numbers (and the default cross-fade), or the first one out of
    /// range.
    pub fn new(first_distance: f32, hysteresis: f32, max_level: u32) -> Result<Self, LodError> {
        // `contains` is false for NaN.
        if !(first_distance > 0.0 && first_distance <= MAX_FIRST_DISTANCE) {
            return Err(LodError::FirstDistance(first_distance));
        }
        if !(0.0..=MAX_HYSTERESIS).contains(&hysteresis) {
            return Err(LodError::Hysteresis(hysteresis));
        }
        if max_level > MAX_LEVEL {
            return Err(LodError::MaxLevel(max_level));
        }
        Ok(Self { first_distance, hysteresis, max_level, fade_frames: DEFAULT_FADE_FRAMES })
    }

    /// These settings with level 1 beginning at `first_distance`.
    pub fn with_first_distance(self, first_distance: f32) -> Result<Self, LodError> {
        Ok(Self {
            fade_frames: self.fade_frames,
            ..Self::new(first_distance, self.hysteresis, self.max_level)?
        })
    }

    /// These settings with `hysteresis`.
    pub fn with_hysteresis(self, hysteresis: f32) -> Result<Self, LodError> {
        Ok(Self {
            fade_frames: self.fade_frames,
            ..Self::new(self.first_distance, hysteresis, self.max_level)?
        })
    }

    /// These settings with `max_level`.
    pub fn with_max_level(self, max_level: u32) -> Result<Self, LodError> {
        Ok(Self {
            fade_frames: self.fade_frames,
            ..Self::new(self.first_distance, self.hysteresis, max_level)?
        })
    }

    /// These settings with level changes cross-faded over `fade_frames` frames (0: none).
    pub fn with_fade_frames(self, fade_frames: u32) -> Result<Self, LodError> {
        if fade_frames > MAX_FADE_FRAMES {
            return Err(LodError::FadeFrames(fade_frames));
        }
        Ok(Self { fade_frames, ..self })
    }

    /// Frames a level change cross-fades over; 0 switches in one frame.
    pub fn fade_frames(&self) -> u32 {
        self.fade_frames
    }

    /// Distance in blocks from the camera to a node's box where level 1 begins.
    pub fn first_distance(&self) -> f32 {
        self.first_distance
    }

    /// Widening of each level's band, as a fraction of the threshold.
    pub fn hysteresis(&self) -> f32 {
        self.hysteresis
    }

    /// Coarsest mip level a node is meshed at above its own level, at most [`MAX_LEVEL`].
    pub fn max_level(&self) -> u32 {
        self.max_level
    }

    /// The settings with LOD on (the defaults) or off.
    pub fn enabled(on: bool) -> Self {
        if on { Self::default() } else { Self::OFF }
    }

    /// Whether LOD is on: nodes may be meshed at a coarser mip than their own level (`max_level >
    /// 0`).
    pub fn is_on(&self) -> bool {
        self.max_level > 0
    }

    /// Distance where absolute level `k + 1` begins.
    pub fn thresholds(&self) -> [f32; LEVELS] {
        std::array::from_fn(|k| self.first_distance * (1u32 << k) as f32)
    }

    /// The level for `distance` with no history, for a chunk: the number of thresholds at or
    /// below it, up to `max_level`.
    pub fn plain_level(&self, distance: f32) -> u32 {
        self.plain_level_in(distance, 0, self.highest(0))
    }

    /// The level for `distance` with no history, within `[lowest, highest]`; `highest` is taken
    /// at most [`TOP_LEVEL`], the coarsest level with a threshold.
    pub fn plain_level_in(&self, distance: f32, lowest: u32, highest: u32) -> u32 {
        let highest = highest.min(TOP_LEVEL);
        let thresholds = self.thresholds();
        let mut level = lowest;
        while level < highest && distance >= thresholds[level as usize] {
            level += 1;
        }
        level
    }

    /// The level for `distance` given a chunk's `current` level ([`LEVEL_UNSET`] for a new
    /// chunk).
    pub fn select(&self, distance: f32, current: u32) -> u32 {
        self.select_in(distance, current, 0, self.highest(0))
    }

    /// The level for `distance` given the `current` one, within `[lowest, highest]`. Twin of
    /// `select_level` in `shaders/lod.wgsl`. `highest` is taken at most [`TOP_LEVEL`], as every
    /// caller of the shader's function clamps it.
    pub fn select_in(&self, distance: f32, current: u32, lowest: u32, highest: u32) -> u32 {
        let highest = highest.min(TOP_LEVEL);
        if (lowest..=highest).contains(&current) {
            let (low, high) = self.band(current, lowest, highest);
            if distance >= low && high.is_none_or(|high| distance < high) {
                return current;
            }
        }
        self.plain_level_in(distance, lowest, highest)
    }

    /// The coarsest absolute level a level-`node_level` node is meshed at: the shader's
    /// `min(node_level + max_level, LEVEL_THRESHOLDS - 1u)`.
    pub fn highest(&self, node_level: u32) -> u32 {
        node_level.saturating_add(self.max_level).min(TOP_LEVEL)
    }

    /// The mip a level-`node_level` node at `distance` is meshed at, given its current mip
    /// ([`LEVEL_UNSET`] for a new node).
    pub fn node_mip(&self, node_level: u32, distance: f32, current_mip: u32) -> u32 {
        let current = if current_mip == LEVEL_UNSET { LEVEL_UNSET } else { node_level + current_mip };
        self.select_in(distance, current, node_level, self.highest(node_level)) - node_level
    }

    /// Whether a level-`node_level` node at `distance` is split, given its last decision (`None`
    /// for a new node). Twin of `decide_split` in `shaders/lod.wgsl`.
    pub fn split(&self, node_level: u32, distance: f32, previous: Option<bool>) -> bool {
        if node_level == 0 {
            return false;
        }
        let begins = self.thresholds()[node_level as usize - 1];
        match previous {
            None => distance < begins,
            Some(true) => distance < begins * (1.0 + self.hysteresis),
            Some(false) => distance < begins * (1.0 - self.hysteresis),
        }
    }

    /// The band `[low, high)` a node at `level` stays in; `None` is unbounded.
    fn band(&self, level: u32, lowest: u32, highest: u32) -> (f32, Option<f32>) {
        let thresholds = self.thresholds();
        let low =
            if level == lowest { 0.0 } else { thresholds[level as usize - 1] * (1.0 - self.hysteresis) };
        let high = (level < highest).then(|| thresholds[level as usize] * (1.0 + self.hysteresis));
        (low, high)
    }

    /// Whether `distance` is within `epsilon` of an edge that `select` or `split` compares
    /// against: where the GPU's float rounding may legitimately disagree with the CPU's.
    pub fn is_borderline(&self, distance: f32, epsilon: f32) -> bool {
        let h = self.hysteresis;
        self.thresholds()
            .iter()
            .flat_map(|t| [*t, t * (1.0 - h), t * (1.0 + h)])
            .any(|edge| (distance - edge).abs() <= epsilon * edge.max(1.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_start_at_doubling_distances() {
        let s = LodSettings::default();
        assert_eq!(s.thresholds()[..5], [128.0, 256.0, 512.0, 1024.0, 2048.0]);
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
    fn a_split_node_keeps_its_decision_inside_the_margin() {
        let s = LodSettings::default();
        // Level 2 begins at 256: split nearer than that, 10% either way once decided.
        assert!(s.split(2, 250.0, None));
        assert!(!s.split(2, 260.0, None));
        assert!(s.split(2, 270.0, Some(true)));
        assert!(!s.split(2, 240.0, Some(false)));
        assert!(!s.split(0, 0.0, None));
        // A level-2 node is meshed at absolute level 2 or coarser, never finer.
        assert_eq!(s.node_mip(2, 0.0, LEVEL_UNSET), 0);
        assert_eq!(s.node_mip(2, 600.0, LEVEL_UNSET), 1);
    }

    #[test]
    fn settings_the_gpu_cannot_follow_are_refused_at_construction() {
        assert_eq!(LodSettings::new(128.0, 0.1, MAX_LEVEL), Ok(LodSettings::default()));
        assert_eq!(LodSettings::new(128.0, 0.1, 0), Ok(LodSettings::OFF));
        for level in [MAX_LEVEL + 1, TOP_LEVEL, LEVELS as u32, LEVELS as u32 + 1, u32::MAX] {
            assert_eq!(LodSettings::new(128.0, 0.1, level), Err(LodError::MaxLevel(level)));
        }
        for d in [0.0, -1.0, f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 1.0e13] {
            assert!(matches!(LodSettings::new(d, 0.1, 1), Err(LodError::FirstDistance(_))), "{d}");
        }
        for h in [-0.01, 0.6, 1.0, f32::NAN, f32::INFINITY] {
            assert!(matches!(LodSettings::default().with_hysteresis(h), Err(LodError::Hysteresis(_))), "{h}");
        }
        for error in
            [LodSettings::default().with_max_level(16), LodSettings::default().with_first_distance(-2.0)]
        {
            let line = error.expect_err("refused").to_string();
            assert!(!line.is_empty() && !line.contains('\n'), "{line:?}");
        }
    }

    /// `decide_shown`'s rule in `shaders/lod.wgsl`, transcribed: the coarsest level is
    /// `min(node_level + max_level, LEVEL_THRESHOLDS - 1u)`, then `select_level`.
    fn shader_level(s: &LodSettings, node_level: u32, distance: f32, current: u32) -> u32 {
        let t = s.thresholds();
        let highest = (node_level + s.max_level()).min(LEVELS as u32 - 1);
        if current >= node_level && current <= highest {
            let low =
                if current > node_level { t[current as usize - 1] * (1.0 - s.hysteresis()) } else { 0.0 };
            let bounded = current < highest;
            let high = if bounded { t[current as usize] * (1.0 + s.hysteresis()) } else { 0.0 };
            if distance >= low && (!bounded || distance < high) {
                return current;
            }
        }
        let mut level = node_level;
        while level < highest && distance >= t[level as usize] {
            level += 1;
        }
        level
    }

    #[test]
    fn at_the_coarsest_allowed_level_the_twin_decides_as_the_shader() {
        let s = LodSettings::default().with_max_level(MAX_LEVEL).expect("the top allowed level");
        let far = s.thresholds()[LEVELS - 1] * 4.0;
        for node_level in 0..=crate::voxel::MAX_NODE_LEVEL {
            for i in 0..=400 {
                let distance = far * (i as f32 / 400.0).powi(4);
                for current in [LEVEL_UNSET, node_level, node_level + 2, node_level + MAX_LEVEL, TOP_LEVEL] {
                    let twin = if node_level == 0 {
                        s.select(distance, current)
                    } else {
                        let mip = current.checked_sub(node_level).unwrap_or(LEVEL_UNSET);
                        node_level + s.node_mip(node_level, distance, mip)
                    };
                    assert_eq!(
                        twin,
                        shader_level(&s, node_level, distance, current),
                        "{node_level} {distance} {current}"
                    );
                    assert!(twin <= TOP_LEVEL);
                }
            }
        }
        // Far away a chunk goes to MAX_LEVEL, a top-level node no further than TOP_LEVEL.
        assert_eq!(s.select(far, LEVEL_UNSET), MAX_LEVEL);
        let top = crate::voxel::MAX_NODE_LEVEL;
        assert_eq!(top + s.node_mip(top, far, LEVEL_UNSET), TOP_LEVEL.min(top + MAX_LEVEL));
        // The public band helpers never read past the thresholds, whatever range they are given.
        assert_eq!(s.select_in(far, LEVEL_UNSET, 0, 17), TOP_LEVEL);
        assert_eq!(s.plain_level_in(far, 0, u32::MAX), TOP_LEVEL);
    }
}
