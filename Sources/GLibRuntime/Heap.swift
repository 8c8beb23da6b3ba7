import CGStreamer

public enum Heap {
    /// Returns freed memory at the top of glibc's heaps to the kernel. After a pipeline is
    /// torn down its decoders' buffers would otherwise stay resident in per-thread arenas.
    public static func trim() {
        malloc_trim(0)
    }
}
