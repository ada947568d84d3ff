//! Errors of the GPU layer. Each message is one line, ready for the CLI to print.

/// What can go wrong between choosing an adapter and reading a frame back.
#[derive(Clone, Debug, thiserror::Error)]
pub enum GpuError {
    /// No adapter matched the backends allowed by `WGPU_BACKEND` (or none exists at all).
    #[error(
        "no GPU adapter found (backends: {backends}); install mesa-vulkan-drivers for lavapipe or check WGPU_BACKEND"
    )]
    NoAdapter {
        /// The backends that were tried, in the order tried.
        backends: String,
    },
    /// `WGPU_ADAPTER_NAME` was set but no adapter's name contains it.
    #[error("no adapter name contains WGPU_ADAPTER_NAME={wanted:?}; available: {available}")]
    AdapterNameNotFound {
        /// The value of `WGPU_ADAPTER_NAME`.
        wanted: String,
        /// The names of the adapters that were found, comma-separated.
        available: String,
    },
    /// The adapter lacks an ability the renderer needs (vertex storage, indirect draws, compute).
    #[error("{adapter} cannot run voxgpu: missing {missing}")]
    Unsupported {
        /// The adapter's [`crate::AdapterSummary`].
        adapter: String,
        /// What it lacks: downlevel flags, or a limit with the value it offers.
        missing: String,
    },
    /// The adapter refused to create a device with the features and limits we asked for.
    #[error("could not create a device on {adapter}: {reason}")]
    RequestDevice {
        /// The adapter's [`crate::AdapterSummary`].
        adapter: String,
        /// wgpu's error message.
        reason: String,
    },
    /// The render target size is zero or beyond the adapter's texture limit.
    #[error("image size {width}x{height} is out of range: each side must be 1..={max}")]
    TargetSize {
        /// The width asked for, in pixels.
        width: u32,
        /// The height asked for, in pixels.
        height: u32,
        /// The device's `max_texture_dimension_2d`: the largest side allowed, in pixels.
        max: u32,
    },
    /// The mega quad buffer cannot grow to hold every resident quad.
    #[error(
        "mega quad buffer full: {needed} bytes needed, the adapter allows at most {limit} in one binding"
    )]
    QuadBufferFull {
        /// Bytes of quads the pool would need: its pages plus those asked for.
        needed: u64,
        /// The most bytes of quads the adapter's buffer and binding limits allow.
        limit: u64,
    },
    /// The chunk pool cannot grow to hold another chunk on this adapter.
    #[error("chunk pool full: {slots} chunks needed, the adapter allows at most {limit} in one binding")]
    ChunkPoolFull {
        /// Slots (one per resident node) the pool would need.
        slots: u64,
        /// The most slots the adapter's buffer and binding limits allow in the pool buffer that
        /// could not grow.
        limit: u64,
    },
    /// The adapter (or the device as created) has no timestamp queries, which GPU timing needs.
    #[error("{adapter} has no timestamp queries (TIMESTAMP_QUERY); GPU timing is unavailable")]
    NoTimestamps {
        /// The adapter's name, backend and device type.
        adapter: String,
    },
    /// wgpu-profiler refused a frame or a setting (a scope left open, for instance).
    #[error("GPU profiler: {0}")]
    Profiler(String),
    /// `settle` rendered its frame limit and the mesher still had work.
    #[error("the world did not finish meshing within {frames} frames")]
    Unsettled {
        /// The frame limit that was reached.
        frames: u32,
    },
    /// `Renderer::record` was called without a `prepare` before it.
    #[error("a frame was recorded without prepare() before it")]
    NotPrepared,
    /// `Renderer::prepare` (or `timed_remesh`) found the frame recorded last never confirmed
    /// with `Renderer::frame_submitted`: its encoder is taken as dropped and its uploads are
    /// queued again, so the next `prepare` goes on with nothing lost.
    #[error(
        "the frame recorded last was not confirmed with frame_submitted() before the next prepare(); its encoder is taken as dropped and its uploads are queued again"
    )]
    FrameNotSubmitted,
    /// `Renderer::prepare` was given a camera (or the frozen culling camera) that cannot be drawn
    /// (`Camera::is_drawable`): a NaN or infinite eye, target, field of view or near plane, an eye
    /// beyond `MAX_EYE_COORDINATE`, or a view-projection or inverse that is not finite (a zero
    /// field of view or near plane).
    #[error(
        "the camera cannot be drawn: a NaN or infinite eye, target, field of view or near plane, an eye more than 2^30 blocks out, or a degenerate projection"
    )]
    InvalidCamera,
    /// Mapping the readback buffer failed, usually because the device was lost.
    #[error("reading the frame back failed: {0}")]
    Readback(String),
    /// A window surface could not be created or configured.
    #[error("window surface: {0}")]
    Surface(String),
    /// The device was lost; nothing more can be rendered with it.
    #[error("GPU device lost: {0}")]
    DeviceLost(String),
}
