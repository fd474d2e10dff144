//! "Next update by" as a discipline: which updates came late, and how often a page keeps its
//! promises.

use chrono::{DateTime, Utc};
use serde::Serialize;

/// One update of an incident, in time order: when it was posted and what it promised.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Promise {
    pub posted_at: DateTime<Utc>,
    pub next_update_by: Option<DateTime<Utc>>,
}

/// Whether an update posted at `posted_at` broke the promise of the update before it.
pub fn is_late(previous_deadline: Option<DateTime<Utc>>, posted_at: DateTime<Utc>) -> bool {
    previous_deadline.is_some_and(|deadline| posted_at > deadline)
}

/// For each update (in time order), whether it came after the previous update's deadline.
pub fn lateness(updates: &[Promise]) -> Vec<bool> {
    let mut previous = None;
    updates
        .iter()
        .map(|u| {
            let late = is_late(previous, u.posted_at);
            previous = u.next_update_by;
            late
        })
        .collect()
}

/// Deadlines met and missed among those that fell due in a window.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Punctuality {
    pub met: u32,
    pub missed: u32,
}

impl Punctuality {
    /// Share of deadlines met, `None` when none fell due.
    pub fn share(&self) -> Option<f64> {
        let total = self.met + self.missed;
        (total > 0).then(|| f64::from(self.met) / f64::from(total))
    }

    /// Adds another tally.
    pub fn add(&mut self, other: Punctuality) {
        self.met += other.met;
        self.missed += other.missed;
    }
}

/// Scores one incident's promises whose deadline fell due in `[from, now]`: met when the next
/// update came by the deadline, missed when it came later or (`open` incident) not yet at all.
/// Deadlines still in the future are not counted.
pub fn score(updates: &[Promise], from: DateTime<Utc>, now: DateTime<Utc>) -> Punctuality {
    let mut tally = Punctuality::default();
    for (i, update) in updates.iter().enumerate() {
        let Some(deadline) = update.next_update_by else {
            continue;
        };
        if deadline < from || deadline > now {
            continue;
        }
        match updates.get(i + 1) {
            Some(next) if next.posted_at <= deadline => tally.met += 1,
            _ => tally.missed += 1,
        }
    }
    tally
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::{Duration, TimeZone};

    fn t(minutes: i64) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 11, 30, 0, 0, 0).unwrap() + Duration::minutes(minutes)
    }

    fn p(posted: i64, due: Option<i64>) -> Promise {
        Promise {
            posted_at: t(posted),
            next_update_by: due.map(t),
        }
    }

    #[test]
    fn an_update_after_the_previous_deadline_is_late() {
        let updates = [
            p(0, Some(30)),
            p(25, Some(60)),
            p(75, Some(90)),
            p(90, None),
        ];
        assert_eq!(lateness(&updates), [false, false, true, false]);
    }

    #[test]
    fn promises_kept_and_broken_are_counted_once_due() {
        let updates = [p(0, Some(30)), p(25, Some(60)), p(75, Some(200))];
        let tally = score(&updates, t(0), t(100));
        assert_eq!(
            tally,
            Punctuality { met: 1, missed: 1 },
            "30 met, 60 missed, 200 not yet due"
        );
        assert_eq!(tally.share(), Some(0.5));
    }

    #[test]
    fn a_deadline_passed_without_any_update_is_missed() {
        let tally = score(&[p(0, Some(30))], t(0), t(31));
        assert_eq!(tally, Punctuality { met: 0, missed: 1 });
    }

    #[test]
    fn deadlines_outside_the_window_do_not_count() {
        let updates = [p(0, Some(30)), p(20, Some(300))];
        assert_eq!(score(&updates, t(40), t(100)), Punctuality::default());
        assert_eq!(Punctuality::default().share(), None);
    }
}
