// Release: returns the pages of every face on the work list to the allocator, before the mesher
// allocates new ones in the next dispatch (pushes and pops never share a dispatch).
//
// Reads:  work (jobs), faces (page lists).
// Writes: allocator (free stack).
// Dispatch: indirect from work[0..3], as the mesher: one workgroup of 64 per pair of jobs (the
//           two faces of one axis of one chunk).

@group(0) @binding(0) var<storage, read> work: array<u32>;
@group(0) @binding(1) var<storage, read> faces: array<FaceMesh>;
@group(0) @binding(2) var<storage, read_write> allocator: Allocator;

var<workgroup> base: u32;

@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let first_face = work[WORK_JOBS_OFFSET + 2u * group.x] & ~JOB_RELEASE_ONLY;
    let count = faces[first_face].page_count;
    let total = count + faces[first_face + 1u].page_count;
    if lid == 0u {
        base = atomicAdd(&allocator.free_count, total);
    }
    let first = workgroupUniformLoad(&base);
    for (var i = lid; i < total; i += 64u) {
        let face = select(first_face + 1u, first_face, i < count);
        allocator.free[first + i] = faces[face].pages[select(i - count, i, i < count)];
    }
}
