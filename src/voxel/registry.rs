//! What each block id means: opaque or transparent, its colour and its texture tile.

use super::BlockId;

/// How a block interacts with the faces of its neighbours.
///
/// The face rule (pinned by the mesher's tests): a face of block `b` towards neighbour `n` is drawn
/// when `n` is not opaque and `n != b`. So an opaque face against water is drawn, water against
/// air is drawn, water against water is not, and water against glass is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Opacity {
    Opaque,
    Transparent,
}

#[derive(Clone, Debug, PartialEq)]
pub struct BlockInfo {
    pub name: String,
    pub opacity: Opacity,
    /// Linear-ish sRGB colour with alpha, as `[r, g, b, a]`. Alpha matters only for transparent
    /// blocks.
    pub color: [u8; 4],
    /// Tile index in the texture atlas (issue 8 draws it; until then the colour is used).
    pub tile: u8,
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
        let air =
            BlockInfo { name: "air".into(), opacity: Opacity::Transparent, color: [0, 0, 0, 0], tile: 0 };
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

    pub fn is_empty(&self) -> bool {
        self.blocks.len() <= 1
    }

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
        for (name, opacity, color, tile) in builtin::TABLE {
            reg.register(BlockInfo { name: name.to_string(), opacity, color, tile });
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
    use super::{BlockId, Opacity};
    use Opacity::{Opaque, Transparent};

    pub const GRASS: BlockId = BlockId(1);
    pub const SNOW: BlockId = BlockId(2);
    pub const SAND: BlockId = BlockId(3);
    pub const LEAVES: BlockId = BlockId(4);
    pub const DIRT: BlockId = BlockId(5);
    pub const GRAVEL: BlockId = BlockId(6);
    pub const STONE: BlockId = BlockId(7);
    pub const LOG: BlockId = BlockId(8);
    pub const BRICK: BlockId = BlockId(9);
    pub const WATER: BlockId = BlockId(10);
    pub const GLASS: BlockId = BlockId(11);

    pub(super) const TABLE: [(&str, Opacity, [u8; 4], u8); 11] = [
        ("grass", Opaque, [95, 159, 53, 255], 3),
        ("snow", Opaque, [240, 245, 250, 255], 8),
        ("sand", Opaque, [219, 207, 163, 255], 4),
        ("leaves", Opaque, [58, 120, 40, 255], 7),
        ("dirt", Opaque, [134, 96, 67, 255], 2),
        ("gravel", Opaque, [136, 126, 126, 255], 9),
        ("stone", Opaque, [125, 125, 130, 255], 1),
        ("log", Opaque, [102, 81, 50, 255], 6),
        ("brick", Opaque, [150, 74, 60, 255], 11),
        ("water", Transparent, [48, 98, 196, 160], 5),
        ("glass", Transparent, [200, 230, 240, 90], 10),
    ];
}
