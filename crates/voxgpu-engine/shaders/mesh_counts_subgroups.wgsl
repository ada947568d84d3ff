enable subgroups;

// The mesher's count sums with subgroup operations (part of mesh.wgsl's subgroup variant, chosen
// at start-up where the device has subgroups of at least 4 invocations; mesh_counts_plain.wgsl is
// the other): the entry point, and `face_starts` from one exclusive prefix sum per subgroup and
// a short sum over the subgroups before it. Nothing assumes a subgroup size, or that a subgroup
// holds consecutive invocations or invocations of one face only: both faces' counts are summed
// side by side, and invocations are ordered by (subgroup, invocation in it).

// Per subgroup: both faces' quads (x face 0, y face 1; opaque in the low 16 bits, transparent in
// the high) and skirts. 64 subgroups at most: 256 invocations, at least 4 per subgroup.
var<workgroup> subgroup_totals: array<vec2<u32>, 64>;
var<workgroup> subgroup_skirts: array<vec2<u32>, 64>;
var<private> subgroup_index: u32;
var<private> subgroup_count: u32;
var<private> subgroup_lane: u32;

@compute @workgroup_size(256)
fn main(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
    @builtin(subgroup_id) sg_id: u32,
    @builtin(num_subgroups) sg_count: u32,
    @builtin(subgroup_invocation_id) sg_lane: u32,
) {
    subgroup_index = sg_id;
    subgroup_count = sg_count;
    subgroup_lane = sg_lane;
    mesh_main(group.xy, groups.x, lid);
}

// As in mesh_counts_plain.wgsl: the first stream indices of invocation `lid` (face `half`,
// having counted `own`), x opaque and y transparent, with the face totals left in `face_totals`
// and `face_skirts`. Every invocation calls it (it has barriers and subgroup operations).
fn face_starts(lid: u32, half: u32, own: vec3<u32>) -> vec2<u32> {
    let packed = own.x | (own.y << 16u);
    let mine = select(vec2<u32>(packed, 0u), vec2<u32>(0u, packed), half == 1u);
    let skirts = select(vec2<u32>(own.z, 0u), vec2<u32>(0u, own.z), half == 1u);
    let before = subgroupExclusiveAdd(mine);
    let totals = subgroupAdd(mine);
    let skirt_totals = subgroupAdd(skirts);
    if subgroup_lane == 0u {
        subgroup_totals[subgroup_index] = totals;
        subgroup_skirts[subgroup_index] = skirt_totals;
    }
    workgroupBarrier();
    var earlier = vec2<u32>(0u);
    var all = vec2<u32>(0u);
    var all_skirts = vec2<u32>(0u);
    for (var s = 0u; s < subgroup_count; s++) {
        let t = subgroup_totals[s];
        earlier += select(vec2<u32>(0u), t, s < subgroup_index);
        all += t;
        all_skirts += subgroup_skirts[s];
    }
    let face_all = select(all.x, all.y, half == 1u);
    if lid % face_group == 0u {
        face_totals[half] = face_all;
        face_skirts[half] = select(all_skirts.x, all_skirts.y, half == 1u);
    }
    let start = select(earlier.x + before.x, earlier.y + before.y, half == 1u);
    return vec2<u32>(start & 0xffffu, (face_all & 0xffffu) + (start >> 16u));
}
