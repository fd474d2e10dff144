//! Keeps the in-memory site in step with the database: polls every page's revision (cheap
//! aggregate queries), re-renders only what changed or fell due, and when the database cannot be
//! read keeps serving the last snapshot, re-rendered with a "data as of" notice.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::Utc;
use tokio_util::sync::CancellationToken;

use super::html::HomeLine;
use super::site::{Home, HomeLines, PageSnapshot, PublicSite, SiteSnapshot, Wanted};
use crate::db::Db;
use crate::db::models::public::{self as queries, PageRevision};
use crate::domain::{PageId, Visibility};
use crate::services::public::reload_page_data;

mod directory;

use directory::{Directory, Wakes};

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
