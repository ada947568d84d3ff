// Copy bandwidth probe for `voxgpu bench`: copies one storage buffer into another so the bench
// can state the adapter's measured memory bandwidth, the physical floor the mesher is held to.
//
// Reads:  src. Writes: dst.
// Dispatch: any number of 256-wide workgroups; a grid-stride loop covers the whole buffer.

@group(0) @binding(0) var<storage, read> src: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read_write> dst: array<vec4<u32>>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let stride = groups.x * 256u;
    for (var i = id.x; i < arrayLength(&src); i += stride) {
        dst[i] = src[i];
    }
}
