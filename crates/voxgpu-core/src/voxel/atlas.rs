//! The texture atlas: 16×16 pixel-art tiles painted by code, one per [`Tile`], in a grid.
//!
//! Tiles are painted from a few base colours with hashed per-pixel noise and a pattern each
//! (cracks, planks of bark, brick courses, pebbles), so the atlas is the project's own work and
//! needs no file. [`Tile::Plain`] is a near-white tile that blocks without a texture of their own
//! (`.vox` palettes) use, tinted by the block's colour. The draw shader repeats a tile once per
//! block, however large the greedy quad, and fades to [`Atlas::averages`] where a pixel covers
//! more than a texel (the atlas texture has a single mip level).

/// Edge of one tile in pixels.
pub const TILE_SIZE: usize = 16;
/// Tiles per atlas row.
pub const ATLAS_COLUMNS: usize = 8;

/// The atlas's tiles; the discriminant is the tile's index (row-major in the grid).
#[repr(u8)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Tile {
    /// Near-white, tinted by the block's colour.
    Plain = 0,
    /// The top of grass: green.
    GrassTop,
    /// The side of grass: dirt under a ragged green fringe.
    GrassSide,
    /// Brown dirt; also the bottom of grass and snow.
    Dirt,
    /// Grey stone with dark cracks.
    Stone,
    /// Pale sand.
    Sand,
    /// The top of snow: near-white.
    Snow,
    /// The side of snow: dirt under a ragged white fringe.
    SnowSide,
    /// Pebbles of different greys with dark gaps.
    Gravel,
    /// The bark of a log: vertical grooves every 4 pixels.
    LogSide,
    /// The cut end of a log: rings inside a band of bark.
    LogTop,
    /// Clumps of leaves with dark gaps.
    Leaves,
    /// Brick courses with light mortar.
    Brick,
    /// Deep blue with light streaks, translucent (alpha 160).
    Water,
    /// A pale frame round a nearly clear pane (alpha 50) with a diagonal glint.
    Glass,
}

impl Tile {
    /// Every tile in index order (`Tile::ALL[t as usize] == t`), the order they are laid out in the
    /// atlas.
    pub const ALL: [Tile; 15] = [
        Tile::Plain,
        Tile::GrassTop,
        Tile::GrassSide,
        Tile::Dirt,
        Tile::Stone,
        Tile::Sand,
        Tile::Snow,
        Tile::SnowSide,
        Tile::Gravel,
        Tile::LogSide,
        Tile::LogTop,
        Tile::Leaves,
        Tile::Brick,
        Tile::Water,
        Tile::Glass,
    ];
}

/// Which tile each side of a block shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FaceTiles {
    /// The +Y face.
    pub top: Tile,
    /// The four horizontal-facing faces.
    pub side: Tile,
    /// The −Y face.
    pub bottom: Tile,
}

impl FaceTiles {
    /// The same tile on every face.
    pub const fn all(tile: Tile) -> Self {
        Self { top: tile, side: tile, bottom: tile }
    }

    /// The three tile indices packed as the draw shader reads them: top, side, bottom, 8 bits
    /// each from bit 0.
    pub fn packed(self) -> u32 {
        self.top as u32 | (self.side as u32) << 8 | (self.bottom as u32) << 16
    }
}

/// The painted atlas: RGBA8 (sRGB) pixels, `width()` × `height()`, rows top first.
pub struct Atlas {
    /// `width() × height() × 4` bytes: RGBA8 pixels (sRGB), row-major, top row first.
    pub rgba: Vec<u8>,
}

impl Atlas {
    /// Atlas width in pixels: [`ATLAS_COLUMNS`] tiles of [`TILE_SIZE`] pixels.
    pub fn width() -> u32 {
        (ATLAS_COLUMNS * TILE_SIZE) as u32
    }

    /// Atlas height in pixels: as many rows of [`TILE_SIZE`]-pixel tiles as [`Tile::ALL`] needs at
    /// [`ATLAS_COLUMNS`] per row.
    pub fn height() -> u32 {
        (Tile::ALL.len().div_ceil(ATLAS_COLUMNS) * TILE_SIZE) as u32
    }

    /// Paints every tile.
    pub fn builtin() -> Self {
        let (w, h) = (Self::width() as usize, Self::height() as usize);
        let mut rgba = vec![0u8; w * h * 4];
        for tile in Tile::ALL {
            let (tx, ty) = Self::origin(tile);
            for y in 0..TILE_SIZE {
                for x in 0..TILE_SIZE {
                    let at = ((ty + y) * w + tx + x) * 4;
                    rgba[at..at + 4].copy_from_slice(&paint(tile, x, y));
                }
            }
        }
        Self { rgba }
    }

    /// Top-left pixel of `tile` in the atlas.
    pub fn origin(tile: Tile) -> (usize, usize) {
        let i = tile as usize;
        (i % ATLAS_COLUMNS * TILE_SIZE, i / ATLAS_COLUMNS * TILE_SIZE)
    }

    /// Each tile's mean colour (averaged in linear light, stored as sRGB bytes), in [`Tile`]
    /// order: what a tile looks like from far enough away that a pixel covers many texels.
    pub fn averages(&self) -> Vec<[u8; 4]> {
        let w = Self::width() as usize;
        Tile::ALL
            .iter()
            .map(|&tile| {
                let (tx, ty) = Self::origin(tile);
                let mut sum = [0.0f64; 4];
                for y in 0..TILE_SIZE {
                    for x in 0..TILE_SIZE {
                        let at = ((ty + y) * w + tx + x) * 4;
                        for (c, s) in sum.iter_mut().enumerate() {
                            let v = self.rgba[at + c] as f64 / 255.0;
                            *s += if c < 3 { v.powf(2.2) } else { v };
                        }
                    }
                }
                let n = (TILE_SIZE * TILE_SIZE) as f64;
                std::array::from_fn(|c| {
                    let mean = sum[c] / n;
                    let v = if c < 3 { mean.powf(1.0 / 2.2) } else { mean };
                    (v * 255.0).round() as u8
                })
            })
            .collect()
    }
}

/// A hash of a pixel and a salt, in [0, 1).
fn noise(x: usize, y: usize, salt: u32) -> f32 {
    let mut h = (x as u32).wrapping_mul(0x9e37_79b1)
        ^ (y as u32).wrapping_mul(0x85eb_ca77)
        ^ salt.wrapping_mul(0xc2b2_ae3d);
    h ^= h >> 15;
    h = h.wrapping_mul(0x2c1b_3c6d);
    h ^= h >> 12;
    h = h.wrapping_mul(0x297a_2d39);
    h ^= h >> 15;
    (h >> 8) as f32 / (1u32 << 24) as f32
}

/// `rgb` scaled by `k`, with alpha `a`.
fn shade(rgb: [u8; 3], k: f32, a: u8) -> [u8; 4] {
    let c = |v: u8| (v as f32 * k).round().clamp(0.0, 255.0) as u8;
    [c(rgb[0]), c(rgb[1]), c(rgb[2]), a]
}

const GRASS: [u8; 3] = [95, 159, 53];
const DIRT: [u8; 3] = [134, 96, 67];
const SNOW: [u8; 3] = [240, 245, 250];

/// The colour of pixel `(x, y)` (y down) of `tile`.
fn paint(tile: Tile, x: usize, y: usize) -> [u8; 4] {
    let n = noise(x, y, tile as u32);
    // Two tones: most pixels near the base, some darker, a few lighter.
    let grain = |base: [u8; 3], spread: f32| shade(base, 1.0 + spread * (n - 0.5), 255);
    match tile {
        Tile::Plain => shade([255, 255, 255], 0.94 + 0.06 * n, 255),
        Tile::GrassTop => grain(GRASS, 0.35),
        Tile::Dirt => grain(DIRT, 0.4),
        Tile::GrassSide | Tile::SnowSide => {
            // Dirt with a ragged fringe of the top's colour hanging 2..5 pixels down.
            let fringe = 2 + (noise(x, 0, 91) * 4.0) as usize;
            let top = if tile == Tile::GrassSide { GRASS } else { SNOW };
            if y < fringe { grain(top, 0.3) } else { grain(DIRT, 0.4) }
        }
        Tile::Stone => {
            // Grey with dark cracks where a coarser noise crosses a band.
            let crack = noise(x / 3, y / 2, 17);
            let k = if (crack - 0.5).abs() < 0.06 { 0.7 } else { 1.0 + 0.25 * (n - 0.5) };
            shade([125, 125, 130], k, 255)
        }
        Tile::Sand => grain([219, 207, 163], 0.18),
        Tile::Snow => grain(SNOW, 0.08),
        Tile::Gravel => {
            // Pebbles: 3×3 cells of different greys with dark gaps between.
            let cell = noise(x / 3, y / 3, 5);
            let edge = x % 3 == 2 || y % 3 == 2;
            shade([136, 126, 126], if edge { 0.7 } else { 0.8 + 0.45 * cell }, 255)
        }
        Tile::LogSide => {
            // Bark: vertical grooves every 4 pixels, with a darker line.
            let groove = x.is_multiple_of(4);
            shade([102, 81, 50], if groove { 0.65 } else { 0.95 + 0.2 * (noise(x, y / 4, 3) - 0.5) }, 255)
        }
        Tile::LogTop => {
            // Rings around the centre inside a band of bark.
            let (dx, dy) = (x as f32 - 7.5, y as f32 - 7.5);
            let r = (dx * dx + dy * dy).sqrt();
            let grain = 0.12 * (n - 0.5);
            if r > 6.8 {
                shade([102, 81, 50], 0.8 + grain, 255)
            } else {
                shade([176, 142, 92], if (r as usize).is_multiple_of(2) { 0.85 } else { 1.0 } + grain, 255)
            }
        }
        Tile::Leaves => {
            // Clumps of leaves with dark gaps.
            let clump = noise(x / 2, y / 2, 11);
            shade([58, 120, 40], if clump < 0.25 { 0.45 } else { 0.85 + 0.35 * n }, 255)
        }
        Tile::Brick => {
            // Courses 4 pixels high, bricks 8 wide, offset by half on odd courses; mortar light.
            let course = y / 4;
            let offset = if course % 2 == 1 { 4 } else { 0 };
            let mortar = y % 4 == 3 || (x + offset) % 8 == 7;
            if mortar {
                shade([200, 195, 185], 0.95 + 0.1 * n, 255)
            } else {
                shade([150, 74, 60], 0.9 + 0.2 * noise(x / 8, course, 23) + 0.1 * (n - 0.5), 255)
            }
        }
        Tile::Water => {
            // Light streaks along x on a deep blue; translucent.
            let wave = ((x as f32 * 0.8 + y as f32 * 2.1).sin() * 0.5 + 0.5) * noise(x / 4, y, 29);
            shade([48, 98, 196], 0.9 + 0.35 * wave, 160)
        }
        Tile::Glass => {
            // A pale frame, a clear pane with a diagonal glint.
            let frame = x == 0 || y == 0 || x == TILE_SIZE - 1 || y == TILE_SIZE - 1;
            let glint = (x + y == 10 || x + y == 12) && (3..9).contains(&x);
            if frame {
                [214, 236, 244, 230]
            } else if glint {
                [255, 255, 255, 150]
            } else {
                shade([200, 230, 240], 0.96 + 0.08 * n, 50)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tile_has_its_own_square_and_the_atlas_is_deterministic() {
        let a = Atlas::builtin();
        assert_eq!(a.rgba.len(), (Atlas::width() * Atlas::height() * 4) as usize);
        assert_eq!(a.rgba, Atlas::builtin().rgba);
        let mut origins: Vec<_> = Tile::ALL.iter().map(|&t| Atlas::origin(t)).collect();
        origins.sort();
        origins.dedup();
        assert_eq!(origins.len(), Tile::ALL.len());
        for (i, t) in Tile::ALL.iter().enumerate() {
            assert_eq!(*t as usize, i, "Tile::ALL is in index order");
        }
    }

    #[test]
    fn tiles_have_texture_and_averages_near_their_colours() {
        let a = Atlas::builtin();
        let averages = a.averages();
        let w = Atlas::width() as usize;
        for tile in Tile::ALL {
            let (tx, ty) = Atlas::origin(tile);
            let mut distinct = std::collections::HashSet::new();
            for y in 0..TILE_SIZE {
                for x in 0..TILE_SIZE {
                    let at = ((ty + y) * w + tx + x) * 4;
                    distinct.insert([a.rgba[at], a.rgba[at + 1], a.rgba[at + 2]]);
                }
            }
            assert!(distinct.len() >= 4, "{tile:?} is flat: {} colours", distinct.len());
        }
        // Dirt averages brown, grass top green, water stays translucent.
        let dirt = averages[Tile::Dirt as usize];
        assert!(dirt[0] > dirt[2] && dirt[3] == 255, "{dirt:?}");
        let grass = averages[Tile::GrassTop as usize];
        assert!(grass[1] > grass[0] && grass[1] > grass[2], "{grass:?}");
        assert!(averages[Tile::Water as usize][3] < 200);
    }
}
