//! What a write leaves for after its commit, noted by the writes that need it on the thread
//! doing the work: a notification event or a delivery put back in the queue (the engine has
//! something to send), a queued job (the runner has something to run). `services::write`
//! clears the notes before a use case runs and takes them once it committed, so the wake-ups
//! follow from what the transaction did, not from what its caller guessed.

use std::cell::Cell;

/// The work a committed transaction left for the workers.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Noted {
    /// Notification events were written, or deliveries queued again.
    pub notifications: bool,
    /// Jobs were queued.
    pub jobs: bool,
}

thread_local! {
    static NOTED: Cell<Noted> = const {
        Cell::new(Noted {
            notifications: false,
            jobs: false,
        })
    };
}

/// The engine has something new to send.
pub fn notifications() {
    NOTED.with(|n| {
        n.set(Noted {
            notifications: true,
            ..n.get()
        })
    });
}

/// The job runner has something new to run.
pub fn jobs() {
    NOTED.with(|n| {
        n.set(Noted {
            jobs: true,
            ..n.get()
        })
    });
}

/// What was noted on this thread since the last take, cleared.
pub fn take() -> Noted {
    NOTED.with(|n| n.replace(Noted::default()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notes_are_taken_once_and_kept_per_thread() {
        take();
        jobs();
        notifications();
        std::thread::spawn(|| assert_eq!(take(), Noted::default()))
            .join()
            .unwrap();
        let noted = take();
        assert!(noted.jobs && noted.notifications, "{noted:?}");
        assert_eq!(take(), Noted::default());
    }
}
