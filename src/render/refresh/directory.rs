//! What the refresher keeps between passes besides the pages: the maps a snapshot answers
//! from ([`Directory`]) and when each page falls due ([`Wakes`]).

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use chrono::{DateTime, Utc};

use crate::db::models::public::PageRevision;
use crate::domain::PageId;
use crate::render::site::PageSnapshot;

/// The maps a snapshot answers from, kept in step page by page, so that a pass publishes them
/// instead of building them again from every page (with 1,000 pages that rebuild was 12 % of
/// a write's CPU). They are persistent maps: the published copy shares every entry the pass
/// did not change.
pub(super) struct Directory<S = PageSnapshot> {
    pub(super) pages: imbl::HashMap<Arc<str>, Arc<S>>,
    pub(super) restricted: imbl::HashMap<Arc<str>, Arc<S>>,
    pub(super) domains: imbl::HashMap<Arc<str>, Arc<str>>,
    pub(super) default_slug: Option<Arc<str>>,
    /// Which page each custom domain, and the default, came from: a pass that moves a domain
    /// (or the default) from one page to another takes out only what the page it reads held.
    domain_owners: HashMap<Arc<str>, PageId>,
    default_owner: Option<PageId>,
}

impl<S> Default for Directory<S> {
    fn default() -> Self {
        Self {
            pages: imbl::HashMap::new(),
            restricted: imbl::HashMap::new(),
            domains: imbl::HashMap::new(),
            default_slug: None,
            domain_owners: HashMap::new(),
            default_owner: None,
        }
    }
}

impl<S> Directory<S> {
    /// Takes out what the page `id`, held as `rev` with `snapshot`, put in.
    pub(super) fn remove(&mut self, id: &PageId, rev: &PageRevision, snapshot: &Arc<S>) {
        for map in [&mut self.pages, &mut self.restricted] {
            // Only its own entry: another page of this pass may have taken the slug over.
            if map
                .get(rev.slug.as_str())
                .is_some_and(|s| Arc::ptr_eq(s, snapshot))
            {
                map.remove(rev.slug.as_str());
            }
        }
        if let Some(domain) = &rev.custom_domain {
            let domain = domain.to_ascii_lowercase();
            if self.domain_owners.get(domain.as_str()) == Some(id) {
                self.domain_owners.remove(domain.as_str());
                self.domains.remove(domain.as_str());
            }
        }
        if self.default_owner.as_ref() == Some(id) {
            self.default_owner = None;
            self.default_slug = None;
        }
    }

    /// The page `id`, held as `old` if it was, is now `rev` with `snapshot`, answered publicly
    /// or not.
    pub(super) fn replace(
        &mut self,
        id: &PageId,
        old: Option<(&PageRevision, &Arc<S>)>,
        rev: &PageRevision,
        public: bool,
        snapshot: &Arc<S>,
    ) {
        if let Some((old_rev, old)) = old {
            self.remove(id, old_rev, old);
        }
        self.insert(id, rev, public, snapshot);
    }

    /// Puts in the page `id`, now `rev` with `snapshot`, answered publicly or not.
    pub(super) fn insert(
        &mut self,
        id: &PageId,
        rev: &PageRevision,
        public: bool,
        snapshot: &Arc<S>,
    ) {
        let slug: Arc<str> = Arc::from(rev.slug.as_str());
        let map = match public {
            true => &mut self.pages,
            false => &mut self.restricted,
        };
        map.insert(slug.clone(), snapshot.clone());
        if let Some(domain) = &rev.custom_domain {
            let domain: Arc<str> = Arc::from(domain.to_ascii_lowercase());
            self.domain_owners.insert(domain.clone(), id.clone());
            self.domains.insert(domain, slug.clone());
        }
        if rev.is_default {
            self.default_owner = Some(id.clone());
            self.default_slug = Some(slug);
        }
    }
}

/// When each page held falls due (its next promised update, or the next midnight), ordered by
/// time, so a pass finds the pages that did without looking at the others.
#[derive(Default)]
pub(super) struct Wakes(BTreeSet<(DateTime<Utc>, PageId)>);

impl Wakes {
    /// The page `id`, which woke at `old` if it was held, now wakes at `new`.
    pub(super) fn set(&mut self, id: &PageId, old: Option<DateTime<Utc>>, new: DateTime<Utc>) {
        if let Some(old) = old {
            self.0.remove(&(old, id.clone()));
        }
        self.0.insert((new, id.clone()));
    }

    /// The page `id`, which woke at `at`, is no longer held.
    pub(super) fn remove(&mut self, id: &PageId, at: DateTime<Utc>) {
        self.0.remove(&(at, id.clone()));
    }

    /// The pages due at `now`.
    pub(super) fn due(&self, now: DateTime<Utc>) -> impl Iterator<Item = &PageId> {
        self.0
            .iter()
            .take_while(move |(at, _)| *at <= now)
            .map(|(_, id)| id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::Visibility;

    fn rev(id: &PageId, slug: &str, domain: Option<&str>, is_default: bool) -> PageRevision {
        PageRevision {
            page_id: id.clone(),
            slug: slug.to_owned(),
            custom_domain: domain.map(str::to_owned),
            is_default,
            visibility: Visibility::Public,
            revision: 1,
        }
    }

    /// A directory of pages named by their snapshots (here, their names), kept in step.
    #[derive(Default)]
    struct Held {
        dir: Directory<String>,
        pages: HashMap<PageId, (PageRevision, Arc<String>)>,
    }

    impl Held {
        fn put(&mut self, rev: PageRevision, public: bool, name: &str) {
            let id = rev.page_id.clone();
            let snapshot = Arc::new(name.to_owned());
            let old = self.pages.get(&id).map(|(r, s)| (r, s));
            self.dir.replace(&id, old, &rev, public, &snapshot);
            self.pages.insert(id, (rev, snapshot));
        }

        /// Puts both pages in one pass, `a` first or `b` first.
        fn put_both(&mut self, a: (PageRevision, &str), b: (PageRevision, &str), a_first: bool) {
            let (first, second) = if a_first { (a, b) } else { (b, a) };
            self.put(first.0, true, first.1);
            self.put(second.0, true, second.1);
        }

        fn public(&self, slug: &str) -> Option<&str> {
            self.dir.pages.get(slug).map(|s| s.as_str())
        }

        fn domain(&self, domain: &str) -> Option<&str> {
            self.dir.domains.get(domain).map(|s| &**s)
        }
    }

    fn ids() -> (PageId, PageId) {
        (PageId::new(), PageId::new())
    }

    #[test]
    fn a_page_is_due_once_at_the_time_it_wakes_and_not_after_it_moved_or_left() {
        use super::Wakes;
        use chrono::{TimeZone, Utc};
        let (a, b) = ids();
        let at = |h| Utc.with_ymd_and_hms(2026, 12, 1, h, 0, 0).unwrap();
        let due = |w: &Wakes, h| w.due(at(h)).cloned().collect::<Vec<_>>();
        let mut wakes = Wakes::default();
        wakes.set(&a, None, at(2));
        wakes.set(&b, None, at(5));
        assert!(due(&wakes, 1).is_empty());
        assert_eq!(due(&wakes, 2), vec![a.clone()], "due at its time");
        assert_eq!(due(&wakes, 6), vec![a.clone(), b.clone()], "earliest first");
        // Rendered again, `a` wakes later: its old time no longer names it.
        wakes.set(&a, Some(at(2)), at(8));
        assert_eq!(due(&wakes, 6), vec![b.clone()]);
        wakes.remove(&b, at(5));
        assert!(
            due(&wakes, 6).is_empty(),
            "a page no longer held is never due"
        );
        assert_eq!(due(&wakes, 8), vec![a]);
    }

    #[test]
    fn two_pages_that_swap_slugs_in_one_pass_keep_both_in_either_order() {
        for a_first in [true, false] {
            let (a, b) = ids();
            let mut held = Held::default();
            held.put(rev(&a, "x", None, false), true, "a");
            held.put(rev(&b, "y", None, false), true, "b");
            let (ra, rb) = (rev(&a, "y", None, false), rev(&b, "x", None, false));
            held.put_both((ra, "a2"), (rb, "b2"), a_first);
            assert_eq!(held.public("y"), Some("a2"));
            assert_eq!(held.public("x"), Some("b2"));
            assert_eq!(held.dir.pages.len(), 2);
        }
    }

    #[test]
    fn a_domain_and_the_default_that_move_to_another_page_stay_with_it_in_either_order() {
        for a_first in [true, false] {
            let (a, b) = ids();
            let mut held = Held::default();
            held.put(rev(&a, "a", Some("Status.Example.com"), true), true, "a");
            held.put(rev(&b, "b", None, false), true, "b");
            assert_eq!(held.domain("status.example.com"), Some("a"));
            let ra = rev(&a, "a", None, false);
            let rb = rev(&b, "b", Some("status.example.com"), true);
            held.put_both((ra, "a2"), (rb, "b2"), a_first);
            assert_eq!(held.domain("status.example.com"), Some("b"));
            assert_eq!(held.dir.default_slug.as_deref(), Some("b"));
            assert_eq!(held.dir.domains.len(), 1);
        }
    }

    #[test]
    fn a_page_made_restricted_leaves_the_public_map_and_a_removed_page_leaves_every_map() {
        let (a, b) = ids();
        let mut held = Held::default();
        held.put(rev(&a, "a", Some("a.example.com"), true), true, "a");
        held.put(rev(&b, "b", None, false), true, "b");
        held.put(rev(&b, "b", None, false), false, "b2");
        assert_eq!(held.public("b"), None);
        assert_eq!(held.dir.restricted.get("b").map(|s| s.as_str()), Some("b2"));

        let (old_rev, old) = held.pages.remove(&a).unwrap();
        held.dir.remove(&a, &old_rev, &old);
        assert_eq!(held.public("a"), None);
        assert_eq!(held.domain("a.example.com"), None);
        assert_eq!(held.dir.default_slug, None);
        assert_eq!(held.dir.pages.len() + held.dir.restricted.len(), 1);
    }
}
