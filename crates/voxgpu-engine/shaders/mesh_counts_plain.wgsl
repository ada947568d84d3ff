// The mesher's count sums without subgroup operations (part of mesh.wgsl's plain variant, which
// includes this file; mesh_counts_subgroups.wgsl is the other): the entry point, and
// `face_starts` through workgroup memory, one invocation per face adding up its counts (128, or
// 256 where the workgroup works on one face).

// Per invocation: its quads counted (opaque in bits 0..10, transparent in 10..20, skirts in
// 20..30; at most 8 rows of 16 runs each), then its first stream indices (opaque in the low 16
// bits, transparent in the high; a face has at most 32,768 quads of each kind).
var<workgroup> counts: array<u32, GROUP>;

@compute @workgroup_size(256)
fn main(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    mesh_main(group.xy, groups.x, lid);
}

// The first stream indices of invocation `lid` (working on face `half` of the pair, having
// counted `own`: opaque, transparent and skirt quads), x opaque and y transparent, in the stream
// layout: all opaque quads by invocation, then all transparent quads by invocation. Leaves the
// face totals in `face_totals` and `face_skirts`. Every invocation calls it (it has barriers).
fn face_starts(lid: u32, half: u32, own: vec3<u32>) -> vec2<u32> {
    counts[lid] = own.x | (own.y << 10u) | (own.z << 20u);
    workgroupBarrier();
    if lid % face_group == 0u {
        var total = vec2<u32>(0u);
        var skirts = 0u;
        for (var i = 0u; i < face_group; i++) {
            let c = counts[lid + i];
            total += vec2<u32>(c & 0x3ffu, (c >> 10u) & 0x3ffu);
            skirts += c >> 20u;
        }
        var next = vec2<u32>(0u, total.x);
        for (var i = 0u; i < face_group; i++) {
            let c = counts[lid + i];
            counts[lid + i] = next.x | (next.y << 16u);
            next += vec2<u32>(c & 0x3ffu, (c >> 10u) & 0x3ffu);
        }
        face_totals[half] = total.x | (total.y << 16u);
        face_skirts[half] = skirts;
    }
    workgroupBarrier();
    let starts = counts[lid];
    return vec2<u32>(starts & 0xffffu, starts >> 16u);
}
