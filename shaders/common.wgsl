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

// The voxel pool: one slot of SLOT_WORDS u32 per resident chunk. LOD 0 (32^3 u16 block ids, two
// per word, x fastest) fills the first 16384 words; the rest is reserved for the mip levels.
const SLOT_WORDS: u32 = 18752u;
// A neighbour or slot index meaning "none".
const NO_SLOT: u32 = 0xffffffffu;
// The most pages one face of one chunk can need: 32768 quads (every voxel showing the face as its
// own quad: a 3D checkerboard of two different transparent blocks) / 256.
const MAX_FACE_PAGES: u32 = 128u;
// The mesh work list: words 0..3 are the indirect dispatch size (x, y, z), word 3 counts the jobs
// asked for, jobs start at word WORK_JOBS_OFFSET. A job is slot * 6 + face, with JOB_RELEASE_ONLY
// set when the chunk left and its pages only need freeing.
const WORK_JOBS_OFFSET: u32 = 4u;
const JOB_RELEASE_ONLY: u32 = 0x80000000u;
// ChunkLinks::state values.
const CHUNK_CLEAN: u32 = 0u;
const CHUNK_DIRTY: u32 = 1u;
const CHUNK_EVICTED: u32 = 2u;

// Per-chunk record, indexed by chunk slot. Rust twin: gpu::ChunkMeta.
struct ChunkMeta {
    // World block coordinates of the chunk's minimum corner.
    origin: vec3<i32>,
    // Level of detail: quad coordinates are scaled by 2^lod.
    lod: u32,
}

// Per-chunk links for the mesher, indexed by slot. Rust twin: gpu::ChunkLinks. The CPU writes
// the record when the chunk or a neighbour changes (state = CHUNK_DIRTY) or leaves
// (CHUNK_EVICTED); the collect pass resets the state once the chunk's jobs are queued, and the
// mesher sets CHUNK_DIRTY again when it could not get pages.
struct ChunkLinks {
    neighbours: array<u32, 6>,
    state: u32,
    _pad: u32,
}

// Where one face direction of one chunk keeps its quads, indexed by slot * 6 + face. The face's
// stream holds its opaque quads, then its transparent ones; stream index i lives in page
// pages[i >> QUAD_PAGE_LOG2] at offset i & 255. Rust twin: gpu::FaceMesh.
struct FaceMesh {
    opaque: u32,
    transparent: u32,
    page_count: u32,
    _pad: u32,
    pages: array<u32, 128>,
}

// The GPU page allocator: a stack of free page numbers, `free_count` deep. The release pass
// pushes (atomicAdd on free_count). The mesher pops without contention loops: each workgroup
// takes a range of a per-frame cursor (atomicAdd on `popped`) and gets pages
// free[free_count - popped_end, free_count - popped_start); a range past the stack's depth fails.
// The commit step then lowers free_count by what was granted. Pushes and pops never share a
// dispatch. Rust twin of the header: gpu::AllocatorHeader.
struct Allocator {
    free_count: atomic<u32>,
    // Pages asked for but not granted, summed since creation; the CPU grows the pool when it
    // rises.
    failed_pages: atomic<u32>,
    // Pages asked for by this frame's mesh pass so far (runs past free_count once requests fail).
    popped: atomic<u32>,
    // End of the granted part of `popped`: requests succeed in cursor order up to the first
    // that does not fit, so the granted pages are exactly [0, granted) of the cursor.
    granted: atomic<u32>,
    free: array<u32>,
}

// One indexed indirect draw, as wgpu reads it. Rust twin: wgpu::util::DrawIndexedIndirectArgs.
struct DrawArgs {
    index_count: u32,
    instance_count: u32,
    first_index: u32,
    base_vertex: i32,
    first_instance: u32,
}

// Sizes the compute passes need, written by the CPU once per frame. Rust twin: gpu::PassParams.
struct PassParams {
    // Slots in use (the highest slot + 1).
    slot_count: u32,
    // Most jobs the work list holds (a multiple of 6).
    max_jobs: u32,
    // Commands each of the opaque and transparent draw lists holds.
    draw_capacity: u32,
    // CHUNK_SIZE, passed at run time as the mesher's loop bound (see mesh.wgsl).
    chunk_size: u32,
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

fn put_field(quad: ptr<function, vec2<u32>>, word: u32, shift: u32, value: u32) {
    (*quad)[word] |= value << shift;
}

// Twin of mesh::PackedQuad::pack. `size` is the extent along the two tangent axes (1..=32).
fn pack_quad(min: vec3<u32>, size: vec2<u32>, face: u32, block: u32) -> vec2<u32> {
    var q = vec2<u32>(0u, 0u);
    put_field(&q, QUAD_X_WORD, QUAD_X_SHIFT, min.x);
    put_field(&q, QUAD_Y_WORD, QUAD_Y_SHIFT, min.y);
    put_field(&q, QUAD_Z_WORD, QUAD_Z_SHIFT, min.z);
    put_field(&q, QUAD_W_WORD, QUAD_W_SHIFT, size.x - 1u);
    put_field(&q, QUAD_H_WORD, QUAD_H_SHIFT, size.y - 1u);
    put_field(&q, QUAD_FACE_WORD, QUAD_FACE_SHIFT, face);
    put_field(&q, QUAD_BLOCK_WORD, QUAD_BLOCK_SHIFT, block);
    return q;
}

// Chunk-local position of the voxel at depth `a` along `axis` and tangent coordinates (u, v),
// the tangent axes being (axis + 1) % 3 and (axis + 2) % 3. Twin of greedy.rs `voxel_at`.
fn voxel_pos(axis: u32, a: u32, u: u32, v: u32) -> vec3<u32> {
    switch axis {
        case 0u: { return vec3<u32>(a, u, v); }
        case 1u: { return vec3<u32>(v, a, u); }
        default: { return vec3<u32>(u, v, a); }
    }
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
