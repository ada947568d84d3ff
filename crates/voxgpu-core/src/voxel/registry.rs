//! What each block id means: opaque or transparent, its colour, its texture tiles, and how it
//! passes and gives light.

use super::{BlockId, FaceTiles, Tile};

/// How a block interacts with the faces of its neighbours.
///
/// The face rule (pinned by the mesher's tests): a face of block `b` towards neighbour `n` is drawn
/// when `n` is not opaque and `n != b`. So an opaque face against water is drawn, water against
/// air is drawn, water against water is not, and water against glass is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Opacity {
    /// Hides every neighbour face that touches it; drawn by the opaque pass.
    Opaque,
    /// Hides only faces of the same block (water against water); drawn blended, sorted back to
    /// front.
    Transparent,
}

/// What one block id means: its name, opacity, colour and texture tiles.
#[derive(Clone, Debug, PartialEq)]
pub struct BlockInfo {
    /// Human-readable name (`"grass"`, `"palette-12"`). The registry never looks blocks up by name,
    /// so names need not be unique.
    pub name: String,
    /// Whether the block hides its neighbours' faces, which also decides the pass that draws it.
    pub opacity: Opacity,
    /// Linear-ish sRGB colour with alpha, as `[r, g, b, a]`. Alpha matters only for transparent
    /// blocks.
    pub color: [u8; 4],
    /// The atlas tiles its faces show. [`Tile::Plain`] is tinted by `color`; other tiles carry
    /// their own colours (and, for transparent blocks, alpha).
    pub tiles: FaceTiles,
    /// How much light it takes from light passing into it, 0..=15 ([`crate::light`]): 0 lets it
    /// through (air, glass), 1 dims it one more level a block (water, leaves), 15 stops it. A field
    /// of its own, apart from `opacity`: leaves hide faces yet pass light, water shows them yet
    /// dims it.
    pub light_opacity: u8,
    /// The block light it gives, 0..=15 (a lamp 15).
    pub emission: u8,
}

impl BlockInfo {
    /// A block of `opacity` with the light rule that opacity implies: an opaque block stops
    /// light, a transparent one passes it, and neither gives any.
    pub fn new(name: impl Into<String>, opacity: Opacity, color: [u8; 4], tiles: FaceTiles) -> Self {
        let light_opacity = match opacity {
            Opacity::Opaque => crate::light::MAX_LIGHT,
            Opacity::Transparent => 0,
        };
        Self { name: name.into(), opacity, color, tiles, light_opacity, emission: 0 }
    }

    /// The same block with light opacity `light_opacity` and emission `emission` (each clamped
    /// to 15).
    pub fn with_light(self, light_opacity: u8, emission: u8) -> Self {
        let max = crate::light::MAX_LIGHT;
        Self { light_opacity: light_opacity.min(max), emission: emission.min(max), ..self }
    }
}

/// Maps each [`BlockId`] to its [`BlockInfo`]. Id 0 is always air.
#[derive(Clone, Debug)]
pub struct BlockRegistry {
    blocks: Vec<BlockInfo>,
}

impl Default for BlockRegistry {
    fn default() -> Self {
        Self::new()
    }
}

impl BlockRegistry {
    /// A registry holding only air.
    pub fn new() -> Self {
        let air = BlockInfo::new("air", Opacity::Transparent, [0, 0, 0, 0], FaceTiles::all(Tile::Plain));
        Self { blocks: vec![air] }
    }

    /// Adds a block and returns its id.
    ///
    /// # Panics
    /// When more than `u16::MAX` blocks are registered, which is a programming error.
    pub fn register(&mut self, info: BlockInfo) -> BlockId {
        let id = u16::try_from(self.blocks.len()).expect("more than 65535 block types");
        self.blocks.push(info);
        BlockId(id)
    }

    /// The info of `id`, or `None` for an id never registered. Air, id 0, is always there.
    pub fn get(&self, id: BlockId) -> Option<&BlockInfo> {
        self.blocks.get(id.0 as usize)
    }

    /// Opaque blocks hide the faces of their neighbours. Air and unknown ids are not opaque, so an
    /// unknown id never hides a face.
    #[inline]
    pub fn is_opaque(&self, id: BlockId) -> bool {
        !id.is_air() && self.get(id).is_some_and(|b| b.opacity == Opacity::Opaque)
    }

    /// Number of ids, air included.
    pub fn len(&self) -> usize {
        self.blocks.len()
    }

    /// Whether no block besides air is registered. Air always counts in [`BlockRegistry::len`], so
    /// this is `len() <= 1`, not `len() == 0`.
    pub fn is_empty(&self) -> bool {
        self.blocks.len() <= 1
    }

    /// Every registered id with its info, in id order, air first.
    pub fn iter(&self) -> impl Iterator<Item = (BlockId, &BlockInfo)> {
        self.blocks.iter().enumerate().map(|(i, b)| (BlockId(i as u16), b))
    }

    /// Opacity of every id as a lookup table indexed by id, for the meshers' inner loops.
    pub fn opaque_table(&self) -> Vec<bool> {
        self.blocks.iter().enumerate().map(|(i, b)| i != 0 && b.opacity == Opacity::Opaque).collect()
    }

    /// The blocks of the built-in procedural worlds, with their ids as constants.
    pub fn builtin() -> Self {
        let mut reg = Self::new();
        for (name, opacity, color, tiles, light_opacity, emission) in builtin::TABLE {
            reg.register(BlockInfo::new(name, opacity, color, tiles).with_light(light_opacity, emission));
        }
        reg
    }
}

/// Ids of [`BlockRegistry::builtin`]. Their order is the order of `TABLE`.
///
/// The order is surface-first: blocks that cover others (grass, snow, sand, leaves) have lower
/// ids than what lies under them (dirt, stone, log). The mip rule breaks ties towards the lowest
/// id (`voxel::mips`), so a cell of 4 grass over 4 dirt stays grass and distant hills stay green.
pub mod builtin {
    use super::{BlockId, FaceTiles, Opacity, Tile};
    use Opacity::{Opaque, Transparent};

    const fn sides(top: Tile, side: Tile, bottom: Tile) -> FaceTiles {
        FaceTiles { top, side, bottom }
    }

    /// Opaque: grass top, grass side, dirt bottom.
    pub const GRASS: BlockId = BlockId(1);
    /// Opaque: snow top, snow side, dirt bottom.
    pub const SNOW: BlockId = BlockId(2);
    /// Opaque sand.
    pub const SAND: BlockId = BlockId(3);
    /// Leaves; opaque, so they hide what is behind them.
    pub const LEAVES: BlockId = BlockId(4);
    /// Opaque dirt.
    pub const DIRT: BlockId = BlockId(5);
    /// Opaque gravel.
    pub const GRAVEL: BlockId = BlockId(6);
    /// Opaque stone.
    pub const STONE: BlockId = BlockId(7);
    /// Opaque: bark on the sides, the cut end on top and bottom.
    pub const LOG: BlockId = BlockId(8);
    /// Opaque brick.
    pub const BRICK: BlockId = BlockId(9);
    /// Transparent, alpha 160 of 255.
    pub const WATER: BlockId = BlockId(10);
    /// Transparent, alpha 90 of 255.
    pub const GLASS: BlockId = BlockId(11);
    /// Opaque, gives block light 15.
    pub const LAMP: BlockId = BlockId(12);
    /// Opaque, gives block light 15.
    pub const GLOWSTONE: BlockId = BlockId(13);
    /// Opaque, gives block light 15.
    pub const LAVA: BlockId = BlockId(14);

    /// Name, opacity, colour, tiles, light opacity, emission.
    pub(super) const TABLE: [(&str, Opacity, [u8; 4], FaceTiles, u8, u8); 14] = [
        ("grass", Opaque, [95, 159, 53, 255], sides(Tile::GrassTop, Tile::GrassSide, Tile::Dirt), 15, 0),
        ("snow", Opaque, [240, 245, 250, 255], sides(Tile::Snow, Tile::SnowSide, Tile::Dirt), 15, 0),
        ("sand", Opaque, [219, 207, 163, 255], FaceTiles::all(Tile::Sand), 15, 0),
        // Leaves hide the faces behind them but let light through, a level a block.
        ("leaves", Opaque, [58, 120, 40, 255], FaceTiles::all(Tile::Leaves), 1, 0),
        ("dirt", Opaque, [134, 96, 67, 255], FaceTiles::all(Tile::Dirt), 15, 0),
        ("gravel", Opaque, [136, 126, 126, 255], FaceTiles::all(Tile::Gravel), 15, 0),
        ("stone", Opaque, [125, 125, 130, 255], FaceTiles::all(Tile::Stone), 15, 0),
        ("log", Opaque, [102, 81, 50, 255], sides(Tile::LogTop, Tile::LogSide, Tile::LogTop), 15, 0),
        ("brick", Opaque, [150, 74, 60, 255], FaceTiles::all(Tile::Brick), 15, 0),
        ("water", Transparent, [48, 98, 196, 160], FaceTiles::all(Tile::Water), 1, 0),
        ("glass", Transparent, [200, 230, 240, 90], FaceTiles::all(Tile::Glass), 0, 0),
        ("lamp", Opaque, [255, 226, 160, 255], FaceTiles::all(Tile::Plain), 15, 15),
        ("glowstone", Opaque, [238, 200, 110, 255], FaceTiles::all(Tile::Plain), 15, 15),
        ("lava", Opaque, [230, 92, 20, 255], FaceTiles::all(Tile::Plain), 15, 15),
    ];
}
