// Release: returns the pages of every face on the work list to the allocator, before the mesher
// allocates new ones in the next dispatch (pushes and pops never share a dispatch).
//
// Reads:  work (jobs), faces (page lists).
// Writes: allocator (free stack).
// Dispatch: indirect from work[0..3], one workgroup of 64 per job.

@group(0) @binding(0) var<storage, read> work: array<u32>;
@group(0) @binding(1) var<storage, read> faces: array<FaceMesh>;
@group(0) @binding(2) var<storage, read_write> allocator: Allocator;

var<workgroup> base: u32;

@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let face_index = work[WORK_JOBS_OFFSET + group.x] & ~JOB_RELEASE_ONLY;
    let count = faces[face_index].page_count;
    if lid == 0u {
        base = atomicAdd(&allocator.free_count, count);
    }
    let first = workgroupUniformLoad(&base);
    for (var i = lid; i < count; i += 64u) {
        allocator.free[first + i] = faces[face_index].pages[i];
    }
}
