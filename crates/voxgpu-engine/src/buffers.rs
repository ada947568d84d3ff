//! A storage buffer that grows and keeps its contents: the one mechanism behind every pool that
//! must outlive a resize (voxels, chunk records, quads, page tables, the free stack).

/// A GPU buffer of `capacity` elements of `element_size` bytes.
pub struct GrowableBuffer {
    pub buffer: wgpu::Buffer,
    label: &'static str,
    usage: wgpu::BufferUsages,
    element_size: u64,
    /// Fixed bytes before the elements (a header), kept across growth.
    header: u64,
    capacity: u64,
}

impl GrowableBuffer {
    pub fn new(
        device: &wgpu::Device,
        label: &'static str,
        usage: wgpu::BufferUsages,
        header: u64,
        element_size: u64,
        capacity: u64,
    ) -> Self {
        let usage = usage | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST;
        let buffer = Self::create(device, label, usage, header + element_size * capacity.max(1));
        Self { buffer, label, usage, element_size, header, capacity: capacity.max(1) }
    }

    fn create(device: &wgpu::Device, label: &str, usage: wgpu::BufferUsages, size: u64) -> wgpu::Buffer {
        device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size,
            usage,
            mapped_at_creation: false,
        })
    }

    pub fn capacity(&self) -> u64 {
        self.capacity
    }

    /// Byte offset of element `index`.
    pub fn offset(&self, index: u64) -> u64 {
        self.header + index * self.element_size
    }

    /// The most elements this buffer may hold on `device` (one storage binding).
    pub fn max_capacity(&self, device: &wgpu::Device) -> u64 {
        let limits = device.limits();
        let limit = limits.max_storage_buffer_binding_size.min(limits.max_buffer_size);
        limit.saturating_sub(self.header) / self.element_size
    }

    /// Makes room for `needed` elements, at least doubling. The old contents are copied in a
    /// submission of their own, so writes queued earlier land in the old buffer first and writes
    /// queued later land in the new one. Returns whether the buffer was replaced; `None` when
    /// `needed` exceeds what the adapter allows in one binding.
    pub fn ensure(&mut self, device: &wgpu::Device, queue: &wgpu::Queue, needed: u64) -> Option<bool> {
        if needed <= self.capacity {
            return Some(false);
        }
        let max = self.max_capacity(device);
        if needed > max {
            return None;
        }
        let capacity = needed.max(self.capacity.saturating_mul(2)).min(max);
        let buffer = Self::create(device, self.label, self.usage, self.header + self.element_size * capacity);
        let mut encoder =
            device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some(self.label) });
        encoder.copy_buffer_to_buffer(&self.buffer, 0, &buffer, 0, self.buffer.size());
        queue.submit([encoder.finish()]);
        log::info!("{} grew from {} to {} elements", self.label, self.capacity, capacity);
        self.buffer = buffer;
        self.capacity = capacity;
        Some(true)
    }
}

/// A buffer holding `contents` (its size rounded up to 4 bytes), written through the queue.
/// wgpu's `create_buffer_init` maps the new buffer and panics when that fails, as it does on a
/// lost device; this way a lost device is reported like every other call's, through the device's
/// error handler, and the renderer can be made (and recovered) whatever the device's state.
pub fn buffer_with(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    label: &str,
    contents: &[u8],
    usage: wgpu::BufferUsages,
) -> wgpu::Buffer {
    let size = (contents.len() as u64).next_multiple_of(wgpu::COPY_BUFFER_ALIGNMENT).max(4);
    let buffer = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size,
        usage: usage | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut padded = contents.to_vec();
    padded.resize(size as usize, 0);
    queue.write_buffer(&buffer, 0, &padded);
    buffer
}
