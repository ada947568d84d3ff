//! The WGSL sources, embedded at build time. Each pipeline's file is compiled with
//! `shaders/common.wgsl` prepended, since WGSL has no include.

/// One file in `shaders/`.
#[derive(Clone, Copy, Debug)]
pub struct ShaderFile {
    pub name: &'static str,
    pub source: &'static str,
}

macro_rules! shader {
    ($name:literal) => {
        ShaderFile { name: $name, source: include_str!(concat!("../../shaders/", $name)) }
    };
}

pub const COMMON: ShaderFile = shader!("common.wgsl");
pub const CHUNK_DRAW: ShaderFile = shader!("chunk_draw.wgsl");
pub const MESH_COLLECT: ShaderFile = shader!("mesh_collect.wgsl");
pub const MESH_RELEASE: ShaderFile = shader!("mesh_release.wgsl");
pub const MESH: ShaderFile = shader!("mesh.wgsl");
pub const LOD: ShaderFile = shader!("lod.wgsl");
pub const MIPS: ShaderFile = shader!("mips.wgsl");
pub const MIPS_BUILD: ShaderFile = shader!("mips_build.wgsl");
pub const CULL: ShaderFile = shader!("cull.wgsl");
pub const SKY: ShaderFile = shader!("sky.wgsl");
pub const OUTLINE: ShaderFile = shader!("outline.wgsl");
pub const QUAD_POOL_GROW: ShaderFile = shader!("quad_pool_grow.wgsl");
pub const COPY_BANDWIDTH: ShaderFile = shader!("copy_bandwidth.wgsl");

/// Every pipeline shader (not the common header), for validation tests.
pub const SHADERS: [ShaderFile; 12] = [
    CHUNK_DRAW,
    SKY,
    OUTLINE,
    LOD,
    MIPS,
    MIPS_BUILD,
    MESH_COLLECT,
    MESH_RELEASE,
    MESH,
    CULL,
    QUAD_POOL_GROW,
    COPY_BANDWIDTH,
];

/// The complete source of a pipeline shader: the common header, then the file.
pub fn shader_source(file: ShaderFile) -> String {
    format!("{}\n{}", COMMON.source, file.source)
}
