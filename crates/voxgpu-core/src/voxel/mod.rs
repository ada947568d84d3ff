//! Plain voxel data: block ids, the block registry, 32³ chunks and the sparse world.
//! Nothing here touches wgpu; the GPU side reads these types through `bytemuck`.

mod atlas;
mod chunk;
mod mips;
mod node;
mod raycast;
mod registry;
mod world;

pub use atlas::{ATLAS_COLUMNS, Atlas, FaceTiles, TILE_SIZE, Tile};
pub use chunk::{CHUNK_SIZE, CHUNK_VOLUME, Chunk, ChunkPos, LocalPos, chunk_aabb, digest, voxel_index};
pub use mips::{MIP_LEVELS, MipPyramid, cell_block, downsample};
pub use node::{MAX_NODE_LEVEL, NodeColumn, NodeKey, node_from_children, octant};
pub use raycast::{RayHit, raycast};
pub use registry::{BlockInfo, BlockRegistry, Opacity, builtin as blocks};
pub use world::{World, with_edited_chunks};

/// A block type. `0` is air; every other id is looked up in a [`BlockRegistry`].
#[repr(transparent)]
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, bytemuck::Pod, bytemuck::Zeroable,
)]
pub struct BlockId(pub u16);

impl BlockId {
    /// Id 0: empty space. Never drawn, never opaque, and not solid in the mip rule.
    pub const AIR: BlockId = BlockId(0);

    /// Whether this is [`BlockId::AIR`].
    pub fn is_air(self) -> bool {
        self.0 == 0
    }
}
