//! Debug render modes as data: a [`RasterPass`] is one pipeline (its fragment shader, polygon
//! mode, depth state and blending baked in) and the draw lists it draws; a [`RenderMode`] is an
//! ordered list of passes. The frame records one render pass per raster pass of the mode.

/// One raster pipeline and what it draws.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RasterPass {
    /// Depth only, of the opaque quads: the pre-pass, so the shaded pass runs its fragment
    /// shader once per pixel.
    DepthPrepass,
    /// Opaque quads (their surface key, the quad drawn at each pixel, for the shade pass;
    /// shaded forward where the depth target cannot be read); depth written.
    Opaque,
    /// The opaque pass after the pre-pass: depth tested for equality, not written.
    OpaqueAfterPrepass,
    /// Shaded transparent quads, alpha-blended, depth tested but not written.
    Transparent,
    /// Every quad's edges in a dark colour, over whatever was drawn before.
    Wireframe,
    /// Every quad coloured by its chunk's level of detail (skirts lighter).
    LodColors,
    /// Every quad coloured by its chunk.
    ChunkColors,
    /// Every quad coloured by its area: how well greedy merging worked.
    QuadSize,
    /// The face streams occlusion culled, in magenta (the occluded list).
    Occluded,
    /// Every surface in grey by the light sampled in front of it alone (sky light at full
    /// daylight, block light, the brighter), without colour, texture or ambient occlusion.
    LightLevels,
}

impl RasterPass {
    /// Every raster pass; its length is the number of variants, checked at compile time.
    pub const ALL: [RasterPass; 10] = [
        RasterPass::DepthPrepass,
        RasterPass::Opaque,
        RasterPass::OpaqueAfterPrepass,
        RasterPass::Transparent,
        RasterPass::Wireframe,
        RasterPass::LodColors,
        RasterPass::ChunkColors,
        RasterPass::QuadSize,
        RasterPass::Occluded,
        RasterPass::LightLevels,
    ];

    /// Position in [`RasterPass::ALL`] (the exhaustive match keeps `ALL` complete).
    pub const fn index(self) -> usize {
        match self {
            RasterPass::DepthPrepass => 0,
            RasterPass::Opaque => 1,
            RasterPass::OpaqueAfterPrepass => 2,
            RasterPass::Transparent => 3,
            RasterPass::Wireframe => 4,
            RasterPass::LodColors => 5,
            RasterPass::ChunkColors => 6,
            RasterPass::QuadSize => 7,
            RasterPass::Occluded => 8,
            RasterPass::LightLevels => 9,
        }
    }

    /// Its profiling scope and render pass label.
    pub fn label(self) -> &'static str {
        use super::profiling::stage;
        match self {
            RasterPass::DepthPrepass => stage::DRAW_DEPTH_PREPASS,
            RasterPass::Opaque | RasterPass::OpaqueAfterPrepass => stage::DRAW_OPAQUE,
            RasterPass::Transparent => stage::DRAW_TRANSPARENT,
            RasterPass::Wireframe => "draw.wireframe",
            RasterPass::LodColors => "draw.lod",
            RasterPass::ChunkColors => "draw.chunks",
            RasterPass::QuadSize => "draw.quad_size",
            RasterPass::Occluded => "draw.occluded",
            RasterPass::LightLevels => "draw.light",
        }
    }

    /// Its label in the first phase of an occlusion-culled frame (`draw_first.*`), which draws
    /// the passes that draw the opaque lists.
    pub fn first_phase_label(self) -> &'static str {
        match self {
            RasterPass::DepthPrepass => "draw_first.depth_prepass",
            RasterPass::Opaque | RasterPass::OpaqueAfterPrepass => "draw_first.opaque",
            RasterPass::Transparent => "draw_first.transparent",
            RasterPass::Wireframe => "draw_first.wireframe",
            RasterPass::LodColors => "draw_first.lod",
            RasterPass::ChunkColors => "draw_first.chunks",
            RasterPass::QuadSize => "draw_first.quad_size",
            RasterPass::Occluded => "draw_first.occluded",
            RasterPass::LightLevels => "draw_first.light",
        }
    }

    /// The draw lists it draws: 0 opaque, 1 transparent, 3 occluded. Debug views draw both
    /// opaquely, so their picture does not depend on the lists' order.
    pub fn lists(self) -> &'static [u32] {
        match self {
            RasterPass::DepthPrepass | RasterPass::Opaque | RasterPass::OpaqueAfterPrepass => &[0],
            RasterPass::Transparent => &[1],
            RasterPass::Occluded => &[super::draw::LIST_OCCLUDED],
            _ => &[0, 1],
        }
    }

    /// The fragment entry point in `shaders/chunk_draw.wgsl` (`fs_wire` needs line polygon mode;
    /// without it `fs_wire_edges` draws the edges from filled triangles).
    /// `None` for the depth-only pre-pass.
    pub fn fragment(self, lines: bool) -> Option<&'static str> {
        Some(match self {
            RasterPass::DepthPrepass => return None,
            RasterPass::Opaque | RasterPass::OpaqueAfterPrepass => "fs_opaque",
            RasterPass::Transparent => "fs_transparent",
            RasterPass::Wireframe if lines => "fs_wire",
            RasterPass::Wireframe => "fs_wire_edges",
            RasterPass::LodColors => "fs_lod",
            RasterPass::ChunkColors => "fs_chunks",
            RasterPass::QuadSize => "fs_quad_size",
            RasterPass::Occluded => "fs_occluded",
            RasterPass::LightLevels => "fs_light",
        })
    }

    /// Whether the pass also draws the opaque faces of cross-fading nodes (list 2), through a
    /// variant of its pipeline that dithers: every pass that draws the opaque list.
    pub fn draws_fading(self) -> bool {
        self.lists().contains(&0)
    }

    /// The fragment entry point of the pass's cross-fading variant: its own, or for the
    /// depth-only pre-pass one that only discards.
    pub fn fading_fragment(self, lines: bool) -> &'static str {
        self.fragment(lines).unwrap_or("fs_fade_depth")
    }

    /// Whether the pass's own pipeline dithers cross-fading nodes: every pass that draws the
    /// transparent list, which holds their transparent faces among the others (the transparent
    /// pass blends, so a discard costs it no early depth test; the debug views that draw both
    /// lists in one pipeline give it up).
    pub fn dithers(self) -> bool {
        self.lists().contains(&1)
    }

    /// Whether the pass writes the surface key target (the quad drawn at each pixel) for the shade
    /// pass to colour and light once per pixel, rather than shaded colour: the shaded opaque
    /// passes.
    pub fn shades_later(self) -> bool {
        matches!(self, RasterPass::Opaque | RasterPass::OpaqueAfterPrepass)
    }

    /// Whether the pipeline alpha-blends its colour: only the transparent pass.
    pub fn blends(self) -> bool {
        self == RasterPass::Transparent
    }

    /// Transparent surfaces are drawn from both sides: a water surface also shows from under
    /// the water. Everything else is closed, so back faces are culled.
    pub fn cull_mode(self) -> Option<wgpu::Face> {
        (self != RasterPass::Transparent).then_some(wgpu::Face::Back)
    }

    /// Whether the pipeline writes depth: every pass but the transparent one and the shaded pass
    /// after the pre-pass (whose depth the pre-pass wrote).
    pub fn writes_depth(self) -> bool {
        !matches!(self, RasterPass::Transparent | RasterPass::OpaqueAfterPrepass)
    }

    /// Passes at equal depth: the shaded pass after the pre-pass, and the wireframe (which is
    /// also pulled a little towards the eye).
    pub fn depth_compare(self) -> wgpu::CompareFunction {
        // Reverse-Z: nearer is greater.
        match self {
            RasterPass::OpaqueAfterPrepass => wgpu::CompareFunction::Equal,
            RasterPass::Wireframe => wgpu::CompareFunction::GreaterEqual,
            _ => wgpu::CompareFunction::Greater,
        }
    }

    /// Wireframe lies exactly on surfaces already drawn.
    pub fn is_overlay(self) -> bool {
        self == RasterPass::Wireframe
    }
}

const _: () = {
    let mut i = 0;
    while i < RasterPass::ALL.len() {
        assert!(RasterPass::ALL[i].index() == i, "RasterPass::ALL is in index order");
        i += 1;
    }
};

/// What the frame draws: an ordered list of raster passes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum RenderMode {
    /// Shaded, opaque then transparent.
    #[default]
    Filled,
    /// Edges only.
    Wireframe,
    /// Shaded, with edges over it.
    FilledWireframe,
    /// Coloured by level of detail.
    Lod,
    /// Coloured by chunk.
    Chunks,
    /// Coloured by quad size.
    QuadSize,
    /// Shaded, with the face streams occlusion culled drawn in magenta: freeze culling (`C`)
    /// and move away to see what the depth pyramid hid.
    Occlusion,
    /// Grey by light alone: where sky and block light reach, and how smoothly.
    Light,
}

impl RenderMode {
    /// Every render mode: the viewer's mode `n` is `ALL[n - 1]`, and `--mode` accepts their
    /// [`RenderMode::name`]s.
    pub const ALL: [RenderMode; 8] = [
        RenderMode::Filled,
        RenderMode::Wireframe,
        RenderMode::FilledWireframe,
        RenderMode::Lod,
        RenderMode::Chunks,
        RenderMode::QuadSize,
        RenderMode::Occlusion,
        RenderMode::Light,
    ];

    /// The passes, with the opaque pass split into a depth pre-pass and a shaded pass at equal
    /// depth when `prepass` (a runtime switch; whether it pays depends on the adapter).
    pub fn passes(self, prepass: bool) -> &'static [RasterPass] {
        use RasterPass::*;
        match self {
            RenderMode::Filled if prepass => &[DepthPrepass, OpaqueAfterPrepass, Transparent],
            RenderMode::FilledWireframe if prepass => {
                &[DepthPrepass, OpaqueAfterPrepass, Transparent, Wireframe]
            }
            RenderMode::Filled => &[Opaque, Transparent],
            RenderMode::Wireframe => &[Wireframe],
            RenderMode::FilledWireframe => &[Opaque, Transparent, Wireframe],
            RenderMode::Lod => &[LodColors],
            RenderMode::Chunks => &[ChunkColors],
            RenderMode::QuadSize => &[QuadSize],
            RenderMode::Occlusion => &[Opaque, Transparent, Occluded],
            RenderMode::Light => &[LightLevels],
        }
    }

    /// Whether occlusion culling may draw the mode in two phases: not when a pass lays lines
    /// over what was drawn (the wireframe views). Such a pass must come after every opaque and
    /// transparent pass and see every stream, and a line pulled towards the eye shows through a
    /// surface the pyramid counts as hiding it; these debug views are drawn without occlusion
    /// culling.
    pub fn allows_occlusion(self) -> bool {
        !self.passes(false).iter().any(|p| p.is_overlay())
    }

    /// The spelling of `--mode`.
    pub fn name(self) -> &'static str {
        match self {
            RenderMode::Filled => "filled",
            RenderMode::Wireframe => "wireframe",
            RenderMode::FilledWireframe => "filled-wireframe",
            RenderMode::Lod => "lod",
            RenderMode::Chunks => "chunks",
            RenderMode::QuadSize => "quad-size",
            RenderMode::Occlusion => "occlusion",
            RenderMode::Light => "light",
        }
    }
}
