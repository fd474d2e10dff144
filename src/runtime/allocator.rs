//! How the process allocates: glibc's malloc with at most [`ARENAS`] arenas, set before any
//! thread starts.
//!
//! glibc gives each thread that meets a locked arena a new one, up to eight per core, and memory
//! freed in one arena is not reused by another; a server whose blocking threads render and drop
//! large documents then keeps most of what it ever held. Measured with `bench/scale.sh` (SQLite,
//! 1,000 components in 20 groups, and the same with 1,000 incidents in six languages; resident
//! memory after settling, then after 60 writes and, for the first, a storm of 200):
//!
//! | allocator              | 1,000 components | together      | CPU per write p95 |
//! |------------------------|------------------|---------------|-------------------|
//! | glibc, default arenas  | 70 -> 183 MB     | 83 -> 234 MB  | 130 / 200 ms      |
//! | glibc, 2 arenas        | 66 -> 129 MB     | 81 -> 141 MB  | 130 / 190 ms      |
//! | jemalloc (tikv 0.6)    | 74 -> 172 MB     | 83 -> 167 MB  | 120 / 210 ms      |
//! | mimalloc 0.1           | 118 -> 246 MB    | 134 -> 247 MB | 130 / 160 ms      |
//!
//! Two arenas keep the least and cost no CPU that the benchmark can tell, with no allocator
//! to build and link. An operator's own `MALLOC_ARENA_MAX` is left as it is.
//!
//! A pass that renders many pages at once (start-up, or every page after the database came
//! back) leaves glibc holding memory it freed in the middle of its heaps, which `free` never
//! gives back: on 1,000 pages of 10 components and 20 incidents (SQLite), resident memory
//! after start-up was 290 MB in some runs and 620-840 MB in others, with 270 MB in use in
//! every run (`malloc_stats`; heaptrack's peak of the heap was 257 MB). Such a pass ends with
//! [`release_free_memory`] (`malloc_trim(0)`), which returned all of it (842 -> 289 MB). A
//! fixed `M_MMAP_THRESHOLD` of 128 KiB instead kept every run at 275 MB, but start-up took
//! 15-17 s instead of 8-10 s (each large buffer mapped and zeroed anew).

/// Arenas glibc may make at most, unless `MALLOC_ARENA_MAX` says otherwise.
pub const ARENAS: i32 = 2;

/// The arena bound to set: none when the operator set `MALLOC_ARENA_MAX` (glibc reads it).
pub fn arena_bound(operator_set: Option<&std::ffi::OsStr>) -> Option<i32> {
    match operator_set {
        Some(_) => None,
        None => Some(ARENAS),
    }
}

/// Bounds glibc's arenas. Call first thing in `main`, before any thread starts.
pub fn configure() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    if let Some(arenas) = arena_bound(std::env::var_os("MALLOC_ARENA_MAX").as_deref()) {
        // SAFETY: mallopt only sets a malloc parameter; called before any other thread runs.
        unsafe {
            libc::mallopt(libc::M_ARENA_MAX, arenas);
        }
    }
}

/// Gives the memory free inside the allocator's heaps back to the system. It walks every
/// arena under its lock, so it is called off the async threads and only after a pass that
/// rendered many pages.
pub fn release_free_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        let began = std::time::Instant::now();
        // SAFETY: malloc_trim takes the allocator's own locks and touches no memory of ours.
        unsafe {
            libc::malloc_trim(0);
        }
        tracing::debug!(
            took_ms = began.elapsed().as_millis() as u64,
            "gave freed memory back to the system"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_arenas_by_default_and_the_operators_own_setting_wins() {
        assert_eq!(arena_bound(None), Some(2));
        assert_eq!(arena_bound(Some(std::ffi::OsStr::new("8"))), None);
    }
}
