//! Which node columns are resident around the camera, per level: the clipmap the streaming
//! manager keeps and headless commands generate at once.
//!
//! - The **top level** is the coarsest: its columns cover the whole view distance, at most
//!   [`TOP_RADIUS_NODES`] nodes from the camera, so the count per level stays bounded however far
//!   the view reaches. A view of 8 chunks or less has top level 0: chunks only.
//! - Below the top, a level's columns are the children of the parent columns that the LOD pass
//!   may split: those nearer (horizontally, which never exceeds the true distance) than where
//!   the parent's level begins, widened by the hysteresis and by [`EYE_SLACK`] for the eye's
//!   place within its column. A parent is always wanted where its children are.
//!
//! Residency depends only on the column the camera is in, never on the path that led there.

use glam::{IVec2, Vec2};

use voxgpu_core::lod::LodSettings;
use voxgpu_core::voxel::{CHUNK_SIZE, MAX_NODE_LEVEL, NodeColumn};

/// Top-level nodes reach at most this many node sizes from the camera (below the coarsest top
/// level, which reaches the whole view).
pub const TOP_RADIUS_NODES: u32 = 8;
/// The coarsest top level: 128-block cells, two to terrain's 256-block height; coarser cells
/// would be taller than the terrain, so views beyond 32,768 blocks use more level-7 nodes
/// instead.
pub const MAX_TOP_LEVEL: u32 = 7;
/// Blocks added to every split distance: the eye lies up to 16·√2 blocks from its column's
/// centre, which residency is decided around.
pub const EYE_SLACK: f32 = 32.0;
/// The largest view distance, in chunks: 65,536 blocks.
pub const MAX_VIEW_CHUNKS: u32 = 2048;

/// A view distance as a user writes it: chunks (`8`, `8c`) or blocks (`8192b`, rounded up to
/// whole chunks), 1 to [`MAX_VIEW_CHUNKS`] chunks; the chunks, or why it is not one.
pub fn parse_view_distance(s: &str) -> Result<u32, String> {
    let (number, blocks) = match s.strip_suffix('b') {
        Some(n) => (n, true),
        None => (s.strip_suffix('c').unwrap_or(s), false),
    };
    let bad = || {
        format!(
            "{s:?} is not a view distance: give chunks (8, 8c) or blocks (8192b), up to {MAX_VIEW_CHUNKS} chunks (65536b)"
        )
    };
    let value: u64 = number.parse().map_err(|_| bad())?;
    let chunks = if blocks { value.div_ceil(voxgpu_core::voxel::CHUNK_SIZE as u64) } else { value };
    if !(1..=MAX_VIEW_CHUNKS as u64).contains(&chunks) {
        return Err(bad());
    }
    Ok(chunks as u32)
}

/// The coarsest node level for a view distance of `view_distance` chunks.
pub fn top_level(view_distance: u32) -> u32 {
    let mut level = 0;
    while (TOP_RADIUS_NODES << level) < view_distance && level < MAX_TOP_LEVEL.min(MAX_NODE_LEVEL) {
        level += 1;
    }
    level
}

/// The point residency is decided around: the centre of the level-0 column holding `(x, z)`.
pub fn centre_of(block: IVec2) -> Vec2 {
    let size = CHUNK_SIZE as i32;
    (block.div_euclid(IVec2::splat(size)) * size).as_vec2() + Vec2::splat(size as f32 / 2.0)
}

/// The node columns to keep resident for a camera in the level-0 column whose centre is
/// `centre`, with a view of `view_distance` chunks: every level's, sorted by (level, x, z).
pub fn wanted_columns(centre: Vec2, view_distance: u32, lod: &LodSettings) -> Vec<NodeColumn> {
    let top = top_level(view_distance);
    let radius = (view_distance * CHUNK_SIZE as u32) as f32;
    let mut level_columns = top_columns(centre, top, radius);
    let mut all = level_columns.clone();
    let thresholds = lod.thresholds();
    for level in (0..top).rev() {
        // Children of the parents that may be split: nearer than where the parent's level
        // (level + 1) begins, widened.
        let reach = thresholds[level as usize] * (1.0 + lod.hysteresis()) + EYE_SLACK;
        level_columns = level_columns
            .iter()
            .filter(|parent| parent.distance(centre) < reach)
            .flat_map(|parent| parent.children())
            .collect();
        all.extend_from_slice(&level_columns);
    }
    all.sort();
    all
}

/// Level-`level` columns whose centre lies within `radius` blocks of `centre`, and the one holding
/// it.
fn top_columns(centre: Vec2, level: u32, radius: f32) -> Vec<NodeColumn> {
    let size = (CHUNK_SIZE << level) as f32;
    let home = (centre / size).floor().as_ivec2();
    let reach = (radius / size).ceil() as i32 + 1;
    let mut out = Vec::new();
    for z in home.y - reach..=home.y + reach {
        for x in home.x - reach..=home.x + reach {
            let xz = IVec2::new(x, z);
            let middle = (xz.as_vec2() + 0.5) * size;
            if middle.distance_squared(centre) <= radius * radius || xz == home {
                out.push(NodeColumn::new(level, xz));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn the_top_level_grows_with_the_logarithm_of_the_view() {
        assert_eq!(top_level(8), 0);
        assert_eq!(top_level(16), 1);
        assert_eq!(top_level(256), 5);
        assert_eq!(top_level(1024), 7);
        assert_eq!(top_level(MAX_VIEW_CHUNKS), MAX_TOP_LEVEL);
    }

    #[test]
    fn view_distances_read_as_chunks_or_blocks() {
        assert_eq!(parse_view_distance("8"), Ok(8));
        assert_eq!(parse_view_distance("8c"), Ok(8));
        assert_eq!(parse_view_distance("4096b"), Ok(128));
        assert_eq!(parse_view_distance("33b"), Ok(2), "blocks round up to whole chunks");
        assert_eq!(parse_view_distance("65536b"), Ok(MAX_VIEW_CHUNKS));
        for bad in ["0", "0b", "2049", "65537b", "", "b", "-4", "4.5", "4k", "1e3"] {
            assert!(parse_view_distance(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn a_small_view_is_the_circle_of_chunk_columns() {
        let centre = centre_of(IVec2::new(100, -40));
        let columns = wanted_columns(centre, 8, &LodSettings::default());
        let expected: Vec<NodeColumn> = crate::worldgen::columns_in_view(glam::IVec3::new(112, 0, -48), 8)
            .into_iter()
            .map(|xz| NodeColumn::new(0, xz))
            .collect();
        let mut expected = expected;
        expected.sort();
        assert_eq!(columns, expected);
    }

    #[test]
    fn parents_are_wanted_wherever_children_are_and_counts_stay_bounded() {
        let lod = LodSettings::default();
        for view in [16, 64, 256, 1024, MAX_VIEW_CHUNKS] {
            let columns = wanted_columns(centre_of(IVec2::new(5, 7)), view, &lod);
            let set: HashSet<NodeColumn> = columns.iter().copied().collect();
            let top = top_level(view);
            for c in &columns {
                if c.level < top {
                    assert!(set.contains(&c.parent()), "view {view}: {c:?} without its parent");
                    assert!(c.parent().children().iter().all(|s| set.contains(s)), "siblings of {c:?}");
                }
            }
            // Far fewer columns than the chunk circle: bounded per level below the top, and the
            // top level's circle (16 nodes wide at 65,536 blocks).
            for level in 0..top {
                let n = columns.iter().filter(|c| c.level == level).count();
                assert!(n <= 200, "view {view}: {n} columns at level {level}");
            }
            let n = columns.iter().filter(|c| c.level == top).count();
            assert!(n <= 850, "view {view}: {n} top-level columns");
        }
    }
}
