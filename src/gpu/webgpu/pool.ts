/**
 * Reuses GPU buffers between compiled models. Sizes are rounded up to a power of two (at least
 * 256 bytes) so that a released buffer fits the next request of a similar size; buffers are never
 * shrunk. Bound to one device: after a device loss the pool is dropped with it.
 */
export class BufferPool {
  private readonly free = new Map<string, GPUBuffer[]>();
  private readonly live = new Set<GPUBuffer>();
  /** Buffers created on the device so far (a hit in the free lists creates none). */
  created = 0;

  constructor(private readonly device: GPUDevice) {}

  static roundSize(bytes: number): number {
    return Math.max(256, 2 ** Math.ceil(Math.log2(Math.max(bytes, 1))));
  }

  acquire(bytes: number, usage: GPUBufferUsageFlags, label?: string): GPUBuffer {
    const size = BufferPool.roundSize(bytes);
    const key = `${usage}:${size}`;
    const buf =
      this.free.get(key)?.pop() ??
      this.device.createBuffer({ size, usage, ...(label === undefined ? {} : { label }) });
    this.live.add(buf);
    return buf;
  }

  release(buf: GPUBuffer): void {
    if (!this.live.delete(buf)) return;
    const key = `${buf.usage}:${buf.size}`;
    const list = this.free.get(key) ?? [];
    list.push(buf);
    this.free.set(key, list);
  }

  /** Number of buffers handed out and not yet released. */
  get liveCount(): number {
    return this.live.size;
  }

  destroy(): void {
    for (const list of this.free.values()) for (const b of list) b.destroy();
    for (const b of this.live) b.destroy();
    this.free.clear();
    this.live.clear();
  }
}
