// Shared declarations: prepended to every other shader by `gpu::shader_source`.
//
// Every constant and struct here has one Rust twin, and `tests/shaders.rs` checks the two
// against each other: the quad bit layout (`mesh::QUAD_FIELDS`), the page size
// (`gpu::PAGE_QUADS_LOG2`), `ChunkMeta` and `Camera` (`gpu::layouts`).

const CHUNK_SIZE: u32 = 32u;

// Packed quad: two u32 words. See src/mesh/quad.rs for the table.
const QUAD_X_WORD: u32 = 0u;
const QUAD_X_SHIFT: u32 = 0u;
const QUAD_X_BITS: u32 = 5u;
const QUAD_Y_WORD: u32 = 0u;
const QUAD_Y_SHIFT: u32 = 5u;
const QUAD_Y_BITS: u32 = 5u;
const QUAD_Z_WORD: u32 = 0u;
const QUAD_Z_SHIFT: u32 = 10u;
const QUAD_Z_BITS: u32 = 5u;
const QUAD_W_WORD: u32 = 0u;
const QUAD_W_SHIFT: u32 = 15u;
const QUAD_W_BITS: u32 = 5u;
const QUAD_H_WORD: u32 = 0u;
const QUAD_H_SHIFT: u32 = 20u;
const QUAD_H_BITS: u32 = 5u;
const QUAD_FACE_WORD: u32 = 0u;
const QUAD_FACE_SHIFT: u32 = 25u;
const QUAD_FACE_BITS: u32 = 3u;
const QUAD_SKIRT_WORD: u32 = 0u;
const QUAD_SKIRT_SHIFT: u32 = 28u;
const QUAD_SKIRT_BITS: u32 = 1u;
const QUAD_BLOCK_WORD: u32 = 1u;
const QUAD_BLOCK_SHIFT: u32 = 0u;
const QUAD_BLOCK_BITS: u32 = 16u;
const QUAD_AO_WORD: u32 = 1u;
const QUAD_AO_SHIFT: u32 = 16u;
const QUAD_AO_BITS: u32 = 8u;

// The mega quad buffer is split into pages of 2^QUAD_PAGE_LOG2 quads; each page belongs to one
// chunk, and `page_owner[quad >> QUAD_PAGE_LOG2]` names it.
const QUAD_PAGE_LOG2: u32 = 8u;

// Face directions, in the order used everywhere: +X, -X, +Y, -Y, +Z, -Z.
const FACE_POS_X: u32 = 0u;
const FACE_NEG_X: u32 = 1u;
const FACE_POS_Y: u32 = 2u;
const FACE_NEG_Y: u32 = 3u;
const FACE_POS_Z: u32 = 4u;
const FACE_NEG_Z: u32 = 5u;

// Per-chunk record, indexed by chunk slot. Rust twin: gpu::ChunkMeta.
struct ChunkMeta {
    // World block coordinates of the chunk's minimum corner.
    origin: vec3<i32>,
    // Level of detail: quad coordinates are scaled by 2^lod.
    lod: u32,
}

// Camera uniform. Rust twin: gpu::CameraUniform (encase).
struct Camera {
    view_proj: mat4x4<f32>,
    eye: vec3<f32>,
    fog_start: f32,
    sky_color: vec3<f32>,
    fog_end: f32,
}

fn quad_field(quad: vec2<u32>, word: u32, shift: u32, bits: u32) -> u32 {
    return (quad[word] >> shift) & ((1u << bits) - 1u);
}

// Axis of a face direction: 0 = X, 1 = Y, 2 = Z.
fn face_axis(face: u32) -> u32 {
    return face >> 1u;
}

fn face_is_positive(face: u32) -> bool {
    return (face & 1u) == 0u;
}

// Unit vector along `axis`.
fn axis_unit(axis: u32) -> vec3<f32> {
    return vec3<f32>(f32(axis == 0u), f32(axis == 1u), f32(axis == 2u));
}

fn face_normal(face: u32) -> vec3<f32> {
    let sign = select(-1.0, 1.0, face_is_positive(face));
    return axis_unit(face_axis(face)) * sign;
}
