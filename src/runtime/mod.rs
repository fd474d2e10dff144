//! What the process runs on, below every feature: how memory is given back (`allocator`), the
//! small pools of threads for CPU work (`cpu_pool`), a background worker's wake-ups and passes
//! (`passes`), and the drain at shutdown (`drain`). Nothing here knows a page or a subscriber.

pub mod allocator;
pub mod cpu_pool;
pub mod drain;
pub mod passes;

/// A name for this process's claims on shared work (jobs, deliveries): the host name and a
/// random part, so that two processes on one host never take each other's leases for their own.
pub fn worker_id() -> String {
    let host = std::fs::read_to_string("/etc/hostname")
        .map(|h| h.trim().to_owned())
        .unwrap_or_else(|_| "herald".into());
    format!("{host}-{}", uuid::Uuid::new_v4().simple())
}
