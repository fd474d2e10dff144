//! Keeps the in-memory site in step with the database: polls every page's revision (cheap
//! aggregate queries), re-renders only what changed or fell due, and when the database cannot be
//! read keeps serving the last snapshot, re-rendered with a "data as of" notice.

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use tokio_util::sync::CancellationToken;

use super::html::HomeLine;
use super::site::{Home, HomeLines, PageSnapshot, PublicSite, SiteSnapshot, Wanted};
use crate::db::Db;
use crate::db::models::public::{self as queries, PageRevision};
use crate::domain::{PageId, Visibility};
use crate::services::public::reload_page_data;

/// How often revisions are polled: a change made through another Herald process sharing the
/// database shows within this interval plus the render time.
pub const POLL_INTERVAL: Duration = Duration::from_secs(1);

/// Past this many pages to read again, a pass reads every page's row in one query instead of
/// naming each.
const NAMED_AT_MOST: usize = 64;

/// How often a long pass publishes the pages it has rendered so far.
pub const PUBLISH_EVERY: Duration = Duration::from_millis(250);

/// Whether `rev` is a page a reader asked for: by slug, or by host (its custom domain; or,
/// for a host no page of `todo` claims, the default page).
fn is_wanted(rev: &PageRevision, todo: &[PageRevision], wanted: &[Wanted]) -> bool {
    wanted.iter().any(|w| match w {
        Wanted::Slug(slug) => *slug == rev.slug,
        Wanted::Host(host) => match &rev.custom_domain {
            Some(domain) => domain.eq_ignore_ascii_case(host),
            None => {
                rev.is_default
                    && !todo.iter().any(|r| {
                        r.custom_domain
                            .as_ref()
                            .is_some_and(|d| d.eq_ignore_ascii_case(host))
                    })
            }
        },
    })
}

/// The maps a snapshot answers from, kept in step page by page, so that a pass publishes them
/// instead of building them again from every page (with 1,000 pages that rebuild was 12 % of
/// a write's CPU). They are persistent maps: the published copy shares every entry the pass
/// did not change.
struct Directory<S = PageSnapshot> {
    pages: imbl::HashMap<Arc<str>, Arc<S>>,
    restricted: imbl::HashMap<Arc<str>, Arc<S>>,
    domains: imbl::HashMap<Arc<str>, Arc<str>>,
    default_slug: Option<Arc<str>>,
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
    fn remove(&mut self, id: &PageId, rev: &PageRevision, snapshot: &Arc<S>) {
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
    fn replace(
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
    fn insert(&mut self, id: &PageId, rev: &PageRevision, public: bool, snapshot: &Arc<S>) {
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
struct Wakes(BTreeSet<(DateTime<Utc>, PageId)>);

impl Wakes {
    /// The page `id`, which woke at `old` if it was held, now wakes at `new`.
    fn set(&mut self, id: &PageId, old: Option<DateTime<Utc>>, new: DateTime<Utc>) {
        if let Some(old) = old {
            self.0.remove(&(old, id.clone()));
        }
        self.0.insert((new, id.clone()));
    }

    /// The page `id`, which woke at `at`, is no longer held.
    fn remove(&mut self, id: &PageId, at: DateTime<Utc>) {
        self.0.remove(&(at, id.clone()));
    }

    /// The pages due at `now`.
    fn due(&self, now: DateTime<Utc>) -> impl Iterator<Item = &PageId> {
        self.0
            .iter()
            .take_while(move |(at, _)| *at <= now)
            .map(|(_, id)| id)
    }
}

/// The refresher's memory of what it rendered.
pub struct Refresher {
    site: Arc<PublicSite>,
    db: Db,
    base_url: String,
    pages: HashMap<PageId, (PageRevision, Arc<PageSnapshot>)>,
    /// `pages`' revision numbers, shared with the pass's read (which runs on another thread)
    /// without copying them.
    revisions: Arc<HashMap<PageId, i64>>,
    /// What `pages` publishes.
    directory: Directory,
    stale: bool,
    /// The last stamp given to a change of a page's data (one sequence for every page, so a
    /// stamp names one change only).
    stamp: u64,
    /// The home page's lines: a new [`Home`] (rendered on its first read) only when a pass
    /// changed one, so a change no line shows keeps the rendering.
    home: Arc<Home>,
    /// The public pages' lines as `pages` holds them, kept in step page by page.
    home_lines: HomeLines,
    /// Whether a pass since the last publish changed a line of the home page.
    home_changed: bool,
    /// When each page held falls due.
    wakes: Wakes,
    /// The site's change counter as the last pass read it, when that pass left nothing to read
    /// again: the next pass reads only the pages that moved after it. `None`: read every
    /// page's number (the first pass, after the database was unreachable, or after a page
    /// failed to render for the first time).
    site_seq: Option<i64>,
}

/// A page's snapshot is answered publicly only when both the page's row and the access its
/// snapshot was rendered with say so: a page made private a moment ago is never answered
/// publicly, nor listed on the home page.
fn is_public(rev: &PageRevision, snapshot: &PageSnapshot) -> bool {
    rev.visibility == Visibility::Public && snapshot.access.visibility == Visibility::Public
}

/// The home page's line of a page, if it is public.
fn home_line(rev: &PageRevision, snapshot: &PageSnapshot) -> Option<HomeLine> {
    is_public(rev, snapshot).then(|| HomeLine::of(&snapshot.data))
}

impl Refresher {
    pub fn new(site: Arc<PublicSite>, db: Db, base_url: String) -> Self {
        Self {
            site,
            db,
            base_url,
            pages: HashMap::new(),
            revisions: Arc::default(),
            directory: Directory::default(),
            stale: false,
            stamp: 0,
            home: Arc::new(Home::new(HomeLines::new())),
            home_lines: HomeLines::new(),
            home_changed: true,
            wakes: Wakes::default(),
            site_seq: None,
        }
    }

    /// One pass: read revisions, re-render what changed or fell due, publish if anything moved.
    /// A long pass (start-up, or every page after the database came back) publishes what it
    /// has every [`PUBLISH_EVERY`], and renders first the pages readers are waiting for.
    pub async fn refresh(&mut self) -> anyhow::Result<()> {
        // Which pages moved or fell due: the site's change counter, the numbers of the pages that
        // moved since the last pass read it, then the rows of those pages only, so a write to
        // one page among many reads nothing of the others. One connection and one snapshot for
        // all: in a burst of writes each checkout waits behind the writers.
        let was_stale = self.stale;
        let began = Instant::now();
        let now = Utc::now();
        // What the pass holds: every page's revision, and the pages that fell due (read again
        // whatever their number says). Stale, it holds nothing.
        let held = match was_stale {
            true => Arc::default(),
            false => self.revisions.clone(),
        };
        let due: std::collections::HashSet<PageId> = match was_stale {
            true => Default::default(),
            false => self.wakes.due(now).cloned().collect(),
        };
        let held_seq = self.site_seq.filter(|_| !was_stale);
        let read = self
            .db
            .run(move |c| {
                crate::db::read_snapshot(c, |c| {
                    let unchanged = |id: &PageId, revision: &i64| {
                        held.get(id) == Some(revision) && !due.contains(id)
                    };
                    let seq = queries::site_seq(c)?;
                    // The numbers to compare: of the pages that moved since the counter the
                    // last pass read (none if it has not moved), or of every page when the
                    // pass holds no counter or a page was removed (`all`, to find which).
                    let (candidates, all) = match held_seq {
                        Some(held_seq) if held_seq == seq => (Vec::new(), None),
                        Some(held_seq) => {
                            let (moved, count) = queries::pages_moved_since(c, held_seq)?;
                            let new = moved.iter().filter(|(id, _)| !held.contains_key(id));
                            match (count as usize) < held.len() + new.count() {
                                true => (Vec::new(), Some(queries::page_revision_numbers(c)?)),
                                false => (moved, None),
                            }
                        }
                        None => (Vec::new(), Some(queries::page_revision_numbers(c)?)),
                    };
                    let mut moved: Vec<PageId> = candidates
                        .iter()
                        .chain(all.iter().flatten())
                        .filter(|(id, revision)| !unchanged(id, revision))
                        .map(|(id, _)| id.clone())
                        .collect();
                    // Pages that fell due are read again whatever their number says.
                    let named: std::collections::HashSet<&PageId> = moved.iter().collect();
                    let fell_due: Vec<PageId> = due
                        .iter()
                        .filter(|id| !named.contains(id))
                        .cloned()
                        .collect();
                    moved.extend(fell_due);
                    let mut revisions = match moved.len() {
                        0 => Vec::new(),
                        n if n > NAMED_AT_MOST => queries::page_revisions(c)?,
                        _ => queries::page_revisions_of(c, &moved)?,
                    };
                    revisions.retain(|r| !unchanged(&r.page_id, &r.revision));
                    Ok::<_, crate::error::AppError>((seq, all, revisions))
                })
            })
            .await;
        let (seq, all, revisions) = match read {
            Ok(read) => read,
            Err(e) => {
                self.mark_stale().await;
                return Err(e.into());
            }
        };
        self.stale = false;
        self.site_seq = Some(seq);
        let read_ms = began.elapsed().as_millis() as u64;
        let rendered = revisions.len();
        // A page removed: every page's number was read; a page it holds that the database no
        // longer lists is gone.
        let new = revisions
            .iter()
            .filter(|r| !self.pages.contains_key(&r.page_id))
            .count();
        let mut changed = was_stale;
        if let Some(numbers) = all.filter(|numbers| numbers.len() < self.pages.len() + new) {
            let ids: std::collections::HashSet<&PageId> =
                numbers.iter().map(|(id, _)| id).collect();
            let gone: Vec<PageId> = self
                .pages
                .keys()
                .filter(|id| !ids.contains(id))
                .cloned()
                .collect();
            for id in gone {
                self.forget(&id);
            }
            changed = true;
        }
        // The pages to render: those that moved or fell due (`held` leaves them out).
        let mut todo = revisions;
        let mut published = Instant::now();
        while !todo.is_empty() {
            let wanted = self.site.take_wanted();
            let (at, asked) = match todo.iter().position(|r| is_wanted(r, &todo, &wanted)) {
                Some(at) => (at, true),
                None => (0, false),
            };
            let rev = todo.remove(at);
            changed = true;
            let old = self.pages.get(&rev.page_id).map(|(_, s)| s.clone());
            let snapshot = match self.render(&rev.page_id, old.clone()).await {
                Ok(snapshot) => snapshot,
                Err(e) => {
                    tracing::error!(page = %rev.slug, error = %e, "rendering the page failed; keeping its last version");
                    match old {
                        Some(snapshot) => snapshot,
                        None => {
                            // Not held: the next pass reads every number, so tries it again.
                            self.site_seq = None;
                            continue;
                        }
                    }
                }
            };
            self.put(rev, snapshot);
            if !todo.is_empty() && (asked || published.elapsed() >= PUBLISH_EVERY) {
                self.publish(true);
                published = Instant::now();
            }
        }
        if changed || self.site.snapshot().warming {
            self.publish(false);
        }
        if rendered > NAMED_AT_MOST {
            // Rendering many pages at once leaves the allocator holding what it freed.
            tokio::task::spawn_blocking(crate::runtime::allocator::release_free_memory);
        }
        if rendered > 0 {
            tracing::debug!(
                read_ms,
                pages = rendered,
                pass_ms = began.elapsed().as_millis() as u64,
                "a refresh pass rendered"
            );
        }
        Ok(())
    }

    /// Reads the page and renders what changed since `before` (everything without it), and
    /// drops the on-demand documents its change made old.
    async fn render(
        &mut self,
        page_id: &PageId,
        before: Option<Arc<PageSnapshot>>,
    ) -> anyhow::Result<Arc<PageSnapshot>> {
        let (id, base) = (page_id.clone(), self.base_url.clone());
        let previous = before.as_ref().map(|b| b.data.clone());
        let began = Instant::now();
        let (data, access) = self
            .db
            .run(move |c| {
                let page = crate::services::pages::get_page(c, &id)?;
                let access = crate::services::access::load(c, &page)?;
                let previous = previous.as_deref();
                let data = reload_page_data(c, &id, Utc::now(), &base, previous)?;
                Ok((data, access))
            })
            .await?;
        let read_ms = began.elapsed().as_millis() as u64;
        self.stamp += 1;
        let (site, stamp) = (self.site.clone(), self.stamp);
        let access = Arc::new(access);
        let snapshot = tokio::task::spawn_blocking(move || {
            let (snapshot, dropped) =
                site.renderer
                    .render_page(data, access, before.as_deref(), stamp)?;
            for key in &dropped {
                site.on_demand.drop_entry(key);
            }
            anyhow::Ok(snapshot)
        })
        .await??;
        tracing::debug!(
            page = %page_id,
            read_ms,
            render_ms = began.elapsed().as_millis() as u64 - read_ms,
            "a page rendered"
        );
        Ok(Arc::new(snapshot))
    }

    /// The database is unreachable: re-render what we have with a "data as of" notice, once.
    async fn mark_stale(&mut self) {
        if self.stale || self.pages.is_empty() {
            self.stale = true;
            return;
        }
        self.stale = true;
        let since = Utc::now();
        tracing::warn!(
            "database unreachable: serving the last rendered pages with a 'data as of' notice"
        );
        let site = self.site.clone();
        let olds: Vec<(PageId, PageRevision, Arc<PageSnapshot>)> = self
            .pages
            .iter()
            .map(|(id, (r, s))| (id.clone(), r.clone(), s.clone()))
            .collect();
        self.stamp += 1;
        let stamp = self.stamp;
        let rendered = tokio::task::spawn_blocking(move || {
            olds.into_iter()
                .filter_map(|(id, rev, old)| {
                    let mut data = (*old.data).clone();
                    data.stale_since = Some(since);
                    let (snapshot, dropped) = site
                        .renderer
                        .render_page(data, old.access.clone(), Some(&old), stamp)
                        .ok()?;
                    for key in &dropped {
                        site.on_demand.drop_entry(key);
                    }
                    Some((id, (rev, Arc::new(snapshot))))
                })
                .collect::<HashMap<_, _>>()
        })
        .await;
        if let Ok(rendered) = rendered {
            for (_, (rev, snapshot)) in rendered {
                self.put(rev, snapshot);
            }
            let warming = self.site.snapshot().warming;
            self.publish(warming);
        }
    }

    /// Holds `snapshot` as the page `rev` names, in place of what it held of that page.
    fn put(&mut self, rev: PageRevision, snapshot: Arc<PageSnapshot>) {
        let id = rev.page_id.clone();
        let public = is_public(&rev, &snapshot);
        let old = self.pages.get(&id).map(|(r, s)| (r, s));
        self.directory.replace(&id, old, &rev, public, &snapshot);
        let old_line = old.and_then(|(r, s)| home_line(r, s));
        self.wakes
            .set(&id, old.map(|(_, s)| s.wake_at), snapshot.wake_at);
        let line = home_line(&rev, &snapshot);
        if line != old_line {
            self.home_changed = true;
            if let Some(old_line) = old_line {
                self.home_lines.remove(&old_line.key(&id));
            }
            if let Some(line) = line {
                self.home_lines.insert(line.key(&id), line);
            }
        }
        Arc::make_mut(&mut self.revisions).insert(id.clone(), rev.revision);
        self.pages.insert(id, (rev, snapshot));
    }

    /// Forgets the page `id` (it was removed).
    fn forget(&mut self, id: &PageId) {
        if let Some((rev, snapshot)) = self.pages.remove(id) {
            self.directory.remove(id, &rev, &snapshot);
            self.wakes.remove(id, snapshot.wake_at);
            if let Some(line) = home_line(&rev, &snapshot) {
                self.home_lines.remove(&line.key(id));
                self.home_changed = true;
            }
        }
        Arc::make_mut(&mut self.revisions).remove(id);
    }

    /// Publishes the pages rendered so far; `warming` while start-up has more to render.
    fn publish(&mut self, warming: bool) {
        let directory = &self.directory;
        let (pages, restricted) = (directory.pages.clone(), directory.restricted.clone());
        let (domains, default_slug) = (directory.domains.clone(), directory.default_slug.clone());
        if std::mem::take(&mut self.home_changed) {
            self.home = Arc::new(Home::new(self.home_lines.clone()));
        }
        let home = self.home.clone();
        self.site.publish(SiteSnapshot {
            pages,
            restricted,
            domains,
            default_slug,
            home,
            warming,
        });
    }
}

/// Refreshes at once (the first pass renders every page while Herald already serves; a reader
/// of a page not yet rendered waits for it, [`PublicSite::want`]), then every
/// [`POLL_INTERVAL`] (or at once when woken) until `stop` is cancelled. Each
/// pass tells the site which refresh tickets it covered, so a writer waiting for its change to
/// show ([`crate::runtime::passes::Passes::covered_past`]) is released by the first pass that read after it.
pub async fn run(mut refresher: Refresher, stop: CancellationToken) {
    let site = refresher.site.clone();
    loop {
        let covers = site.passes.pass_covers();
        if let Err(e) = refresher.refresh().await {
            tracing::warn!(error = %e, "refreshing the public pages failed");
        }
        site.passes.pass_done(covers);
        tokio::select! {
            _ = stop.cancelled() => break,
            _ = tokio::time::sleep(POLL_INTERVAL) => {}
            _ = site.passes.woken() => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
