// Release: returns the pages of every face on the work list to the allocator, before the mesher
// allocates new ones in the next dispatch (pushes and pops never share a dispatch).
//
// Reads:  work (jobs), faces (page lists).
// Writes: allocator (free stack).
// Dispatch: indirect from work[0..3], as the mesher: (job pairs, 2 or 1, 1) workgroups of 64,
//           workgroup (x, y) taking jobs 2x + y, 2x + y + (the y count), ... of pair x.

@group(0) @binding(0) var<storage, read> work: array<u32>;
@group(0) @binding(1) var<storage, read> faces: array<FaceMesh>;
@group(0) @binding(2) var<storage, read_write> allocator: Allocator;

var<workgroup> base: u32;

@compute @workgroup_size(64)
fn main(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    for (var job = group.y; job < 2u; job += groups.y) {
        let face = work[WORK_JOBS_OFFSET + 2u * group.x + job] & ~JOB_RELEASE_ONLY;
        let count = faces[face].page_count;
        if lid == 0u {
            base = atomicAdd(&allocator.free_count, count);
        }
        let first = workgroupUniformLoad(&base);
        for (var i = lid; i < count; i += 64u) {
            allocator.free[first + i] = faces[face].pages[i];
        }
    }
}
