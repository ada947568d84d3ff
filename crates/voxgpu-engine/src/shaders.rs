//! The WGSL sources, embedded at build time. Each pipeline's file is compiled with
//! `shaders/common.wgsl` prepended, then the shared files it names, since WGSL has no include.

/// One file in `shaders/`, and the shared files compiled in front of it (after the common
/// header).
#[derive(Clone, Copy, Debug)]
pub struct ShaderFile {
    /// The file name in `shaders/`, which validation errors name.
    pub name: &'static str,
    /// The file's WGSL text as embedded.
    pub source: &'static str,
    /// The shared files compiled between the common header and this file, in order.
    pub includes: &'static [ShaderFile],
}

macro_rules! shader {
    ($name:literal $(, $include:ident)*) => {
        ShaderFile {
            name: $name,
            source: include_str!(concat!("../shaders/", $name)),
            includes: &[$($include),*],
        }
    };
}

pub const COMMON: ShaderFile = shader!("common.wgsl");
/// Walking neighbour links (`slot_at`), for shaders that declare `links`.
pub const CHUNK_LINKS: ShaderFile = shader!("chunk_links.wgsl");
/// Light, shadow and haze of a surface point, included by `chunk_draw.wgsl` and `shade.wgsl`.
pub const LIGHTING: ShaderFile = shader!("lighting.wgsl");
/// A quad's place and a surface's colour before light, included by `chunk_draw.wgsl` and
/// `shade.wgsl`.
pub const SURFACE: ShaderFile = shader!("surface.wgsl");
pub const CHUNK_DRAW: ShaderFile = shader!("chunk_draw.wgsl", LIGHTING, SURFACE);
/// Where the shade pass writes: `lit`, or straight into the colour target.
pub const SHADE_LIT: ShaderFile = shader!("shade_lit.wgsl");
pub const SHADE_COLOR: ShaderFile = shader!("shade_color.wgsl");
/// The opaque surfaces' shading, once per pixel in compute, into `lit`.
pub const SHADE: ShaderFile = shader!("shade.wgsl", LIGHTING, SURFACE, SHADE_LIT);
/// The same shading straight into a colour target it can store to, the sky with it.
pub const SHADE_INTO_COLOR: ShaderFile =
    ShaderFile { name: SHADE.name, source: SHADE.source, includes: &[LIGHTING, SURFACE, SHADE_COLOR] };
/// The shaded opaque surfaces into the colour target.
pub const COMPOSE: ShaderFile = shader!("compose.wgsl");
pub const MESH_COLLECT: ShaderFile = shader!("mesh_collect.wgsl");
pub const MESH_RELEASE: ShaderFile = shader!("mesh_release.wgsl");
/// The mesher's build steps (planes, halo, skirt rows), included by `mesh.wgsl`.
pub const MESH_BUILD: ShaderFile = shader!("mesh_build.wgsl");
/// The mesher's ambient occlusion as bit planes, included by `mesh.wgsl`.
pub const MESH_AO: ShaderFile = shader!("mesh_ao.wgsl");
pub const MESH_ROWS: ShaderFile = shader!("mesh_rows.wgsl");
pub const MESH_COUNTS_PLAIN: ShaderFile = shader!("mesh_counts_plain.wgsl");
pub const MESH_COUNTS_SUBGROUPS: ShaderFile = shader!("mesh_counts_subgroups.wgsl");
/// The mesher as every adapter runs it.
pub const MESH: ShaderFile =
    shader!("mesh.wgsl", CHUNK_LINKS, MESH_BUILD, MESH_AO, MESH_ROWS, MESH_COUNTS_PLAIN);
/// The mesher where the device has subgroups: its counts summed by subgroup operations.
pub const MESH_SUBGROUPS: ShaderFile = ShaderFile {
    name: MESH.name,
    source: MESH.source,
    includes: &[CHUNK_LINKS, MESH_BUILD, MESH_AO, MESH_ROWS, MESH_COUNTS_SUBGROUPS],
};
pub const LOD: ShaderFile = shader!("lod.wgsl");
pub const MIPS: ShaderFile = shader!("mips.wgsl");
pub const MIPS_BUILD: ShaderFile = shader!("mips_build.wgsl", CHUNK_LINKS);
/// The depth pyramid's occlusion test, included by `cull.wgsl` and `shadow_cull.wgsl`.
pub const PYRAMID_TEST: ShaderFile = shader!("pyramid_test.wgsl");
pub const CULL: ShaderFile = shader!("cull.wgsl", PYRAMID_TEST);
/// Per-quad culling of the opaque draw lists into quad lists.
pub const QUAD_CULL: ShaderFile = shader!("quad_cull.wgsl", PYRAMID_TEST);
pub const TRANSPARENT_SORT: ShaderFile = shader!("transparent_sort.wgsl");
pub const SHADOW_CULL: ShaderFile = shader!("shadow_cull.wgsl", PYRAMID_TEST);
pub const HIZ: ShaderFile = shader!("hiz.wgsl");
/// The light rules and the helpers on packed light bytes, included by `light.wgsl`.
pub const LIGHT_BYTES: ShaderFile = shader!("light_bytes.wgsl");
/// The spread's per-invocation rounds (a word's, a line's sweeps), included by `light.wgsl`.
pub const LIGHT_SPREAD: ShaderFile = shader!("light_spread.wgsl");
pub const LIGHT: ShaderFile = shader!("light.wgsl", LIGHT_BYTES, LIGHT_SPREAD);
pub const SKY: ShaderFile = shader!("sky.wgsl");
pub const OUTLINE: ShaderFile = shader!("outline.wgsl");
/// The viewer's copy of the frame into the window.
pub const PRESENT: ShaderFile = shader!("present.wgsl");
pub const QUAD_POOL_GROW: ShaderFile = shader!("quad_pool_grow.wgsl");
pub const COPY_BANDWIDTH: ShaderFile = shader!("copy_bandwidth.wgsl");

/// Every pipeline shader (not the common header), for validation tests.
pub const SHADERS: [ShaderFile; 22] = [
    CHUNK_DRAW,
    SHADE,
    SHADE_INTO_COLOR,
    COMPOSE,
    SKY,
    OUTLINE,
    PRESENT,
    LOD,
    MIPS,
    MIPS_BUILD,
    MESH_COLLECT,
    MESH_RELEASE,
    MESH,
    MESH_SUBGROUPS,
    CULL,
    TRANSPARENT_SORT,
    QUAD_CULL,
    SHADOW_CULL,
    HIZ,
    LIGHT,
    QUAD_POOL_GROW,
    COPY_BANDWIDTH,
];

/// The complete source of a pipeline shader: the common header, its includes, then the file.
pub fn shader_source(file: ShaderFile) -> String {
    let parts: Vec<&str> =
        [COMMON.source].into_iter().chain(file.includes.iter().chain([&file]).map(|f| f.source)).collect();
    // WGSL wants its `enable` directives before any declaration, so they go first whichever part
    // asks for them. Browsers require `enable subgroups;` for subgroup operations; naga (every
    // native backend) allows them without it and rejects the directive, so natively it is left
    // out.
    let is_directive = |line: &str| line.trim_start().starts_with("enable ");
    let kept = |line: &&str| cfg!(target_arch = "wasm32") || line.trim() != "enable subgroups;";
    let mut source: String = parts
        .iter()
        .flat_map(|p| p.lines())
        .filter(|l| is_directive(l))
        .filter(kept)
        .map(|l| format!("{l}\n"))
        .collect();
    for part in parts {
        source.push('\n');
        for line in part.lines().filter(|l| !is_directive(l)) {
            source.push_str(line);
            source.push('\n');
        }
    }
    source
}
