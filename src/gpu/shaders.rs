//! The WGSL sources, embedded at build time. Each pipeline's file is compiled with
//! `shaders/common.wgsl` prepended, since WGSL has no include.

/// One file in `shaders/`.
#[derive(Clone, Copy, Debug)]
pub struct ShaderFile {
    pub name: &'static str,
    pub source: &'static str,
}

pub const COMMON: ShaderFile =
    ShaderFile { name: "common.wgsl", source: include_str!("../../shaders/common.wgsl") };
pub const CHUNK_DRAW: ShaderFile =
    ShaderFile { name: "chunk_draw.wgsl", source: include_str!("../../shaders/chunk_draw.wgsl") };

/// Every pipeline shader (not the common header), for validation tests.
pub const SHADERS: [ShaderFile; 1] = [CHUNK_DRAW];

/// The complete source of a pipeline shader: the common header, then the file.
pub fn shader_source(file: ShaderFile) -> String {
    format!("{}\n{}", COMMON.source, file.source)
}
