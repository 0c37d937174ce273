import CMalloc

/// glibc's allocator, tuned for a process that reads and writes megabytes in bursts: `todo` and the cloud it runs
/// (`todo server`), and the benchmark's cloud, which must measure what `todo server` is.
///
/// By default glibc hands memory back to the system as soon as 128 KB lie free at the top of the heap, and serves
/// blocks above its (adaptive) mmap threshold with their own mappings: a sync of 10,000 todos grows and shrinks
/// its request and answer buffers hundreds of times, each time faulting fresh pages in again. Keeping up to 64 MB
/// and growing the heap 16 MB at a time cut `todo sync` of 10,000 offline todos from 0.215 s to 0.205 s (median of
/// ten paired runs); memory the app no longer uses is still reused inside the process.
public enum MemoryTuning {
    /// Applies the settings; call first thing in `main`.
    public static func apply() {
        _ = mallopt(M_MMAP_THRESHOLD, 32 << 20)
        _ = mallopt(M_TRIM_THRESHOLD, 64 << 20)
        _ = mallopt(M_TOP_PAD, 16 << 20)
    }

    /// The terminal app's settings instead, applied once it is known the app runs (before its threads start): it lives
    /// for hours, holds its rows for good and builds large arrays briefly (a load, a sort, a merge). Two arenas, not
    /// one per thread of the pools; blocks of 1 MB and more in their own mappings, handed back when freed; 8 MB kept
    /// free at most. Measured on the real app over about 105,000 cached todos (docs/BENCHMARKS.md): its peak fell from
    /// 127 to 88 MB once loaded and connected, and from 160 to 98 MB after 1,000 todos arrived from another device.
    public static func applyForApp() {
        _ = mallopt(M_ARENA_MAX, 2)
        _ = mallopt(M_MMAP_THRESHOLD, 1 << 20)
        _ = mallopt(M_TRIM_THRESHOLD, 8 << 20)
        _ = mallopt(M_TOP_PAD, 0)
    }
}
