// Mip pyramid: rebuilds levels 1..5 of every chunk whose voxels changed. Twin of
// crates/voxgpu-core/src/voxel/mips.rs (`downsample`, `cell_block`), which it must match id for
// id.
//
// A 2x2x2 cell is solid when at least 4 of its 8 voxels are not air or one vertical pair is
// solid top and bottom, and air otherwise. Its id is read from above: each pair offers its upper
// voxel when that is not air and its lower one otherwise; the most frequent offer wins, ties to
// one offered from an upper voxel, then to the lowest id.
//
// Reads:  params, links (state, neighbours and their levels), voxels (each level as it is built).
// Writes: mip_work (the list of slots), voxels (levels 1..5 of each listed slot), links (VOXELS
//         cleared; DIRTY on neighbours meshed at a coarser level, whose borders read these mips).
// Dispatch: `collect` one invocation per slot, `finalize` one, then `build` indirect from
//           mip_work[0..3], one workgroup of 256 per listed slot. The CPU resets mip_work[0..4]
//           to (0, 1, 1, 0) before.

// Workgroups one indirect dispatch may have per dimension; later slots wait a frame.
const MAX_MIP_JOBS: u32 = 65535u;

@group(0) @binding(0) var<uniform> params: PassParams;
@group(0) @binding(1) var<storage, read_write> links: array<ChunkLinks>;
@group(0) @binding(2) var<storage, read_write> mip_work: array<atomic<u32>>;

@compute @workgroup_size(64)
fn collect(@builtin(global_invocation_id) id: vec3<u32>) {
    let slot = id.x;
    if slot >= params.slot_count {
        return;
    }
    let state = atomicLoad(&links[slot].state);
    if (state & (CHUNK_VOXELS | CHUNK_RESIDENT)) != (CHUNK_VOXELS | CHUNK_RESIDENT) {
        return;
    }
    let index = atomicAdd(&mip_work[3], 1u);
    if index < MAX_MIP_JOBS {
        atomicStore(&mip_work[WORK_JOBS_OFFSET + index], slot);
        atomicAnd(&links[slot].state, ~CHUNK_VOXELS);
    }
}

@compute @workgroup_size(1)
fn finalize() {
    atomicStore(&mip_work[0], min(atomicLoad(&mip_work[3]), MAX_MIP_JOBS));
}
