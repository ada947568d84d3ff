//! What the renderer requires of an adapter (downlevel abilities, limits, a GL version with
//! compute shaders), the optional features it uses, and the one-line summary of an adapter.

/// Downlevel abilities the renderer cannot work without: vertex pulling reads storage buffers in
/// the vertex shader, draws are indirect with a base vertex, and the LOD, mip, mesh and cull
/// passes are compute shaders.
pub const REQUIRED_DOWNLEVEL: wgpu::DownlevelFlags = wgpu::DownlevelFlags::VERTEX_STORAGE
    .union(wgpu::DownlevelFlags::BASE_VERTEX)
    .union(wgpu::DownlevelFlags::INDIRECT_EXECUTION)
    .union(wgpu::DownlevelFlags::COMPUTE_SHADERS);

/// The optional features the renderer uses when the adapter has them, and what it does otherwise.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Capabilities {
    /// GPU timestamp queries (`voxgpu profile`). Without them profiling reports that it cannot run.
    pub timestamps: bool,
    /// Timestamps between passes (`TIMESTAMP_QUERY_INSIDE_ENCODERS`): time the upload copies and
    /// the scopes that group passes. Without it those are left out of the profile.
    pub timestamps_inside_encoders: bool,
    /// `multi_draw_indexed_indirect_count`: the GPU decides how many draws run. Without it the
    /// renderer issues `multi_draw_indexed_indirect` with a count the CPU passes.
    pub multi_draw_indirect_count: bool,
    /// Line polygon mode for the wireframe debug view; without it the wireframe is drawn from
    /// filled triangles with an edge test in the fragment shader.
    pub polygon_mode_line: bool,
    /// Subgroup operations (`Features::SUBGROUP`, subgroups of at least 4 invocations): the
    /// mesher sums its counts with them. Without them it sums them in workgroup memory.
    pub subgroups: bool,
}

/// The wgpu features the renderer uses when the device has them (see [`Capabilities`]).
pub const OPTIONAL_FEATURES: wgpu::Features = wgpu::Features::TIMESTAMP_QUERY
    .union(wgpu::Features::TIMESTAMP_QUERY_INSIDE_ENCODERS)
    .union(wgpu::Features::MULTI_DRAW_INDIRECT_COUNT)
    .union(wgpu::Features::POLYGON_MODE_LINE)
    .union(wgpu::Features::SUBGROUP);

/// The smallest subgroup the subgroup mesher works with (WebGPU's guaranteed minimum).
pub const MIN_SUBGROUP_SIZE: u32 = 4;

/// Storage buffers one shader stage binds at most (the mesher's passes): WebGPU's default.
pub const STORAGE_BUFFERS_PER_STAGE: u32 = 8;

/// The oldest OpenGL (desktop) and OpenGL ES contexts whose shading language wgpu can write
/// compute shaders in: naga's GLSL writer needs GLSL 4.20 or GLSL ES 3.10 for them. wgpu's GL
/// backend asks for a 3.3 context, and a driver offering `GL_ARB_compute_shader` there (NVIDIA's
/// does) reports `COMPUTE_SHADERS` and real compute limits, so only the version tells that
/// the first compute pipeline would fail.
const MIN_DESKTOP_GL: (u32, u32) = (4, 2);
const MIN_GLES: (u32, u32) = (3, 1);

/// The OpenGL version a GL adapter's `driver_info` (the context's `GL_VERSION`) names, and
/// whether it is OpenGL ES: `"3.3.0 NVIDIA 570.124.06"`, `"4.5 (Core Profile) Mesa 24.2.8"`,
/// `"OpenGL ES 3.2 Mesa 24.2.8"`. `None` when it names none.
fn gl_version(driver_info: &str) -> Option<(bool, (u32, u32))> {
    let (es, rest) = match driver_info.find("OpenGL ES ") {
        Some(at) => (true, &driver_info[at + "OpenGL ES ".len()..]),
        None => (false, driver_info),
    };
    let mut numbers = rest.split(|c: char| !c.is_ascii_digit());
    let major = numbers.next()?.parse().ok()?;
    let minor = numbers.next()?.parse().ok()?;
    Some((es, (major, minor)))
}

/// Whether the renderer can run on an adapter, from what the adapter reports (no device is
/// made): the [`REQUIRED_DOWNLEVEL`] abilities, on OpenGL a context new enough for compute
/// shaders (OpenGL 4.2 or OpenGL ES 3.1), and the limits [`required_limits`] asks for. `Ok` is
/// those limits; `Err` names what is missing, in one line.
pub(crate) fn check_adapter(
    info: &wgpu::AdapterInfo,
    downlevel: &wgpu::DownlevelCapabilities,
    limits: &wgpu::Limits,
) -> Result<wgpu::Limits, String> {
    let missing = REQUIRED_DOWNLEVEL - downlevel.flags;
    if !missing.is_empty() {
        return Err(format!("{missing:?}"));
    }
    if info.backend == wgpu::Backend::Gl
        && let Some((es, version)) = gl_version(&info.driver_info)
        && version < if es { MIN_GLES } else { MIN_DESKTOP_GL }
    {
        let name = if es { "OpenGL ES" } else { "OpenGL" };
        return Err(format!(
            "compute shaders: wgpu writes them for OpenGL {}.{} or OpenGL ES {}.{} and up, and this is an {name} {}.{} context",
            MIN_DESKTOP_GL.0, MIN_DESKTOP_GL.1, MIN_GLES.0, MIN_GLES.1, version.0, version.1
        ));
    }
    required_limits(limits)
}

/// The device limits the renderer needs, on an adapter with `adapter` limits: wgpu's defaults
/// (lowered to the adapter's where it offers less, so a device can always be made), with the
/// storage buffers per stage and the workgroup memory the mesher needs, and the adapter's own
/// buffer, binding and texture sizes, which bound how large a world and a frame fit. `Err`
/// names what the adapter lacks.
pub fn required_limits(adapter: &wgpu::Limits) -> Result<wgpu::Limits, String> {
    let defaults = wgpu::Limits::default().or_worse_values_from(adapter);
    if adapter.max_storage_buffers_per_shader_stage < STORAGE_BUFFERS_PER_STAGE {
        return Err(format!(
            "{STORAGE_BUFFERS_PER_STAGE} storage buffers per shader stage (it offers {})",
            adapter.max_storage_buffers_per_shader_stage
        ));
    }
    // The shade pass writes the opaque surfaces' shaded colour to a storage texture.
    if adapter.max_storage_textures_per_shader_stage < 1 {
        return Err("a storage texture per shader stage for shading the surfaces (it offers none)".into());
    }
    if adapter.max_compute_workgroup_storage_size < crate::MESH_WORKGROUP_BYTES {
        return Err(format!(
            "{} bytes of compute workgroup memory for the mesher (it offers {})",
            crate::MESH_WORKGROUP_BYTES,
            adapter.max_compute_workgroup_storage_size
        ));
    }
    Ok(wgpu::Limits {
        max_storage_buffers_per_shader_stage: STORAGE_BUFFERS_PER_STAGE
            .max(defaults.max_storage_buffers_per_shader_stage),
        max_compute_workgroup_storage_size: crate::MESH_WORKGROUP_BYTES
            .max(defaults.max_compute_workgroup_storage_size),
        max_storage_buffer_binding_size: adapter.max_storage_buffer_binding_size,
        max_buffer_size: adapter.max_buffer_size,
        max_texture_dimension_2d: adapter.max_texture_dimension_2d,
        max_storage_textures_per_shader_stage: defaults.max_storage_textures_per_shader_stage.max(1),
        ..defaults
    })
}

impl Capabilities {
    /// What the renderer uses on a device with `features`.
    pub fn of(features: wgpu::Features) -> Self {
        Self {
            timestamps: features.contains(wgpu::Features::TIMESTAMP_QUERY),
            timestamps_inside_encoders: features.contains(wgpu::Features::TIMESTAMP_QUERY_INSIDE_ENCODERS)
                && features.contains(wgpu::Features::TIMESTAMP_QUERY),
            multi_draw_indirect_count: features.contains(wgpu::Features::MULTI_DRAW_INDIRECT_COUNT),
            polygon_mode_line: features.contains(wgpu::Features::POLYGON_MODE_LINE),
            subgroups: features.contains(wgpu::Features::SUBGROUP),
        }
    }

    /// The wgpu features to request: the wanted ones the adapter has.
    pub(super) fn features(self) -> wgpu::Features {
        let mut f = wgpu::Features::empty();
        f.set(wgpu::Features::TIMESTAMP_QUERY, self.timestamps);
        f.set(
            wgpu::Features::TIMESTAMP_QUERY_INSIDE_ENCODERS,
            self.timestamps && self.timestamps_inside_encoders,
        );
        f.set(wgpu::Features::MULTI_DRAW_INDIRECT_COUNT, self.multi_draw_indirect_count);
        f.set(wgpu::Features::POLYGON_MODE_LINE, self.polygon_mode_line);
        f.set(wgpu::Features::SUBGROUP, self.subgroups);
        f
    }

    /// One line per feature: used, or missing and the fallback taken.
    pub fn report(self) -> Vec<String> {
        let line = |name: &str, have: bool, fallback: &str| {
            if have { format!("{name}: used") } else { format!("{name}: missing; {fallback}") }
        };
        vec![
            line("TIMESTAMP_QUERY", self.timestamps, "GPU profiling is unavailable"),
            line(
                "TIMESTAMP_QUERY_INSIDE_ENCODERS",
                self.timestamps_inside_encoders,
                "the profile leaves out the upload stage and the scopes that group passes",
            ),
            line(
                "MULTI_DRAW_INDIRECT_COUNT",
                self.multi_draw_indirect_count,
                "draws use multi_draw_indexed_indirect with a CPU-side count",
            ),
            line(
                "POLYGON_MODE_LINE",
                self.polygon_mode_line,
                "the wireframe view draws edges from filled triangles",
            ),
            line("SUBGROUP", self.subgroups, "the mesher sums its counts in workgroup memory"),
        ]
    }
}

/// Name, backend and device type of one adapter, for `voxgpu info` and test output.
#[derive(Clone, Debug)]
pub struct AdapterSummary {
    /// The adapter's name as the driver reports it (what `WGPU_ADAPTER_NAME` matches against).
    pub name: String,
    /// The wgpu backend it runs on (Vulkan, Metal, DX12, GL).
    pub backend: wgpu::Backend,
    /// Discrete, integrated, virtual, CPU (software) or other.
    pub device_type: wgpu::DeviceType,
    /// Driver name and driver info joined by a space, trimmed; empty when the driver gives none.
    pub driver: String,
    /// Why the renderer cannot run on it (what [`crate::GpuContext::from_adapter`] would refuse it
    /// for, in one line), or `None` when it can.
    pub refused: Option<String>,
}

impl std::fmt::Display for AdapterSummary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({:?}, {:?}", self.name, self.backend, self.device_type)?;
        if !self.driver.is_empty() {
            write!(f, ", {}", self.driver)?;
        }
        write!(f, ")")
    }
}

impl AdapterSummary {
    pub(super) fn of(adapter: &wgpu::Adapter) -> Self {
        let info = adapter.get_info();
        let refused = check_adapter(&info, &adapter.get_downlevel_capabilities(), &adapter.limits()).err();
        let driver = format!("{} {}", info.driver, info.driver_info).trim().to_string();
        Self { name: info.name, backend: info.backend, device_type: info.device_type, driver, refused }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The downlevel flags wgpu-hal's GL backend (`gles/adapter.rs`, `expose`) reports for a
    /// context with compute shaders and storage buffers, by the core version or the ARB
    /// extensions, and with `GL_ARB_draw_indirect`.
    fn gl_flags_with_compute() -> wgpu::DownlevelFlags {
        use wgpu::DownlevelFlags as F;
        F::NON_POWER_OF_TWO_MIPMAPPED_TEXTURES
            | F::COMPARISON_SAMPLERS
            | F::SHADER_F16_IN_F32
            | F::MSL2_1
            | F::COMPUTE_SHADERS
            | F::FRAGMENT_WRITABLE_STORAGE
            | F::INDIRECT_EXECUTION
            | F::BASE_VERTEX
            | F::VERTEX_STORAGE
            | F::FRAGMENT_STORAGE
    }

    /// Limits of a GL context with compute: storage blocks and compute limits as NVIDIA's and
    /// Mesa's drivers report them (16 storage blocks per stage, 48 KiB of shared memory).
    fn gl_limits_with_compute() -> wgpu::Limits {
        wgpu::Limits {
            max_storage_buffers_per_shader_stage: 16,
            max_storage_buffer_binding_size: 1 << 27,
            max_compute_workgroup_storage_size: 49152,
            max_compute_invocations_per_workgroup: 1024,
            max_compute_workgroup_size_x: 1024,
            max_compute_workgroup_size_y: 1024,
            max_compute_workgroup_size_z: 64,
            max_compute_workgroups_per_dimension: 65535,
            ..wgpu::Limits::default()
        }
    }

    fn gl_info(name: &str, driver_info: &str) -> wgpu::AdapterInfo {
        wgpu::AdapterInfo {
            name: name.into(),
            driver_info: driver_info.into(),
            ..wgpu::AdapterInfo::new(wgpu::DeviceType::Other, wgpu::Backend::Gl)
        }
    }

    fn downlevel(flags: wgpu::DownlevelFlags) -> wgpu::DownlevelCapabilities {
        // wgpu-hal's GL backend reports shader model 5 whatever the context's version.
        wgpu::DownlevelCapabilities { flags, shader_model: wgpu::ShaderModel::Sm5, ..Default::default() }
    }

    #[test]
    fn an_opengl_3_3_context_is_refused_though_its_driver_offers_compute_extensions() {
        // NVIDIA's driver answers wgpu's request for a 3.3 core context with a 3.3 context that
        // offers GL_ARB_compute_shader and GL_ARB_shader_storage_buffer_object: wgpu-hal then
        // sets COMPUTE_SHADERS and VERTEX_STORAGE and queries real compute limits, so only the
        // version (GLSL 3.30, below the 4.20 naga writes compute shaders for) says no.
        let info = gl_info("NVIDIA H200/PCIe/SSE2", "3.3.0 NVIDIA 570.124.06");
        let refused = check_adapter(&info, &downlevel(gl_flags_with_compute()), &gl_limits_with_compute())
            .expect_err("GLSL 3.30 has no compute shaders");
        assert!(refused.contains("OpenGL 3.3 context"), "{refused}");
        assert!(!refused.contains('\n'), "one line: {refused}");
    }

    #[test]
    fn an_opengl_3_3_context_without_the_extensions_lacks_compute_flags() {
        // Without the ARB extensions wgpu-hal leaves the compute flags out and reports zero
        // compute limits: the downlevel check refuses it first.
        use wgpu::DownlevelFlags as F;
        let flags = gl_flags_with_compute()
            - (F::COMPUTE_SHADERS | F::INDIRECT_EXECUTION | F::VERTEX_STORAGE | F::FRAGMENT_STORAGE);
        let limits = wgpu::Limits {
            max_storage_buffers_per_shader_stage: 0,
            max_compute_workgroup_storage_size: 0,
            max_compute_invocations_per_workgroup: 0,
            max_compute_workgroups_per_dimension: 0,
            ..gl_limits_with_compute()
        };
        let refused = check_adapter(&gl_info("Some GPU", "3.3.0 Some Driver"), &downlevel(flags), &limits)
            .expect_err("no compute shaders");
        assert!(refused.contains("COMPUTE_SHADERS"), "{refused}");
    }

    #[test]
    fn opengl_4_2_and_up_and_opengl_es_3_1_and_up_pass() {
        for version in [
            "4.2.0 NVIDIA 570.124.06",
            "4.5 (Core Profile) Mesa 24.2.8-1ubuntu1~24.04.1",
            "4.6.0 NVIDIA 570.124.06",
            "OpenGL ES 3.1 Mesa 24.2.8",
            "OpenGL ES 3.2 NVIDIA 570.124.06",
        ] {
            let info = gl_info("a GL adapter", version);
            let checked =
                check_adapter(&info, &downlevel(gl_flags_with_compute()), &gl_limits_with_compute());
            assert!(checked.is_ok(), "{version}: {checked:?}");
        }
        let es_3_0 = gl_info("a GLES adapter", "OpenGL ES 3.0 Mesa 24.2.8");
        let refused = check_adapter(&es_3_0, &downlevel(gl_flags_with_compute()), &gl_limits_with_compute());
        assert!(refused.is_err_and(|r| r.contains("OpenGL ES 3.0 context")));
        // The version is a GL matter: Vulkan's driver info names the driver's own version.
        let vulkan = wgpu::AdapterInfo {
            driver_info: "Mesa 3.3.0".into(),
            ..wgpu::AdapterInfo::new(wgpu::DeviceType::Cpu, wgpu::Backend::Vulkan)
        };
        let all = downlevel(wgpu::DownlevelFlags::all());
        assert!(check_adapter(&vulkan, &all, &gl_limits_with_compute()).is_ok());
    }
}
