//! Keeps the in-memory site in step with the database: polls every page's revision (cheap
//! aggregate queries), re-renders only what changed or fell due, and when the database cannot be
//! read keeps serving the last snapshot, re-rendered with a "data as of" notice.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::Utc;
use tokio_util::sync::CancellationToken;

use super::html::HomeLine;
use super::site::{Home, PageSnapshot, PublicSite, SiteSnapshot, Wanted};
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

/// The refresher's memory of what it rendered.
pub struct Refresher {
    site: Arc<PublicSite>,
    db: Db,
    base_url: String,
    pages: HashMap<PageId, (PageRevision, Arc<PageSnapshot>)>,
    stale: bool,
    /// The last stamp given to a change of a page's data (one sequence for every page, so a
    /// stamp names one change only).
    stamp: u64,
    /// The home page's lines: a new [`Home`] (rendered on its first read) only when a pass
    /// changed one, so a change no line shows keeps the rendering.
    home: Arc<Home>,
    /// Whether a pass since the last publish changed a line of the home page.
    home_changed: bool,
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
            stale: false,
            stamp: 0,
            home: Arc::new(Home::new(Vec::new())),
            home_changed: true,
        }
    }

    /// One pass: read revisions, re-render what changed or fell due, publish if anything moved.
    /// A long pass (start-up, or every page after the database came back) publishes what it
    /// has every [`PUBLISH_EVERY`], and renders first the pages readers are waiting for.
    pub async fn refresh(&mut self) -> anyhow::Result<()> {
        // Which pages moved or fell due: every page's revision number alone, then the rows of
        // those pages only, so a write to one page among many reads little of the others. One
        // connection for both: in a burst of writes each checkout waits behind the writers.
        let was_stale = self.stale;
        let began = Instant::now();
        let now = Utc::now();
        let held: HashMap<PageId, i64> = match was_stale {
            true => HashMap::new(),
            false => self
                .pages
                .iter()
                .filter(|(_, (_, s))| s.wake_at > now)
                .map(|(id, (r, _))| (id.clone(), r.revision))
                .collect(),
        };
        let read = self
            .db
            .run(move |c| {
                let numbers = queries::page_revision_numbers(c)?;
                let moved: Vec<PageId> = numbers
                    .iter()
                    .filter(|(id, revision)| held.get(id) != Some(revision))
                    .map(|(id, _)| id.clone())
                    .collect();
                let mut revisions = match moved.len() {
                    0 => Vec::new(),
                    n if n > NAMED_AT_MOST => queries::page_revisions(c)?,
                    _ => queries::page_revisions_of(c, &moved)?,
                };
                revisions.retain(|r| held.get(&r.page_id) != Some(&r.revision));
                Ok((numbers, revisions))
            })
            .await;
        let (numbers, revisions) = match read {
            Ok(read) => read,
            Err(e) => {
                self.mark_stale().await;
                return Err(e.into());
            }
        };
        self.stale = false;
        let read_ms = began.elapsed().as_millis() as u64;
        let rendered = revisions.len();
        let known = numbers
            .iter()
            .filter(|(id, _)| self.pages.contains_key(id))
            .count();
        let mut changed = was_stale;
        if known != self.pages.len() {
            // A page was removed.
            let ids: std::collections::HashSet<&PageId> =
                numbers.iter().map(|(id, _)| id).collect();
            self.pages.retain(|id, _| ids.contains(id));
            changed = true;
            self.home_changed = true;
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
            let (old, old_line) = match self.pages.get(&rev.page_id) {
                Some((r, s)) => (Some(s.clone()), home_line(r, s)),
                None => (None, None),
            };
            let snapshot = match self.render(&rev.page_id, old.clone()).await {
                Ok(snapshot) => snapshot,
                Err(e) => {
                    tracing::error!(page = %rev.slug, error = %e, "rendering the page failed; keeping its last version");
                    match old {
                        Some(snapshot) => snapshot,
                        None => continue,
                    }
                }
            };
            self.home_changed |= home_line(&rev, &snapshot) != old_line;
            self.pages.insert(rev.page_id.clone(), (rev, snapshot));
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
            tokio::task::spawn_blocking(crate::allocator::release_free_memory);
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
            self.pages.extend(rendered);
            let warming = self.site.snapshot().warming;
            self.publish(warming);
        }
    }

    /// Publishes the pages rendered so far; `warming` while start-up has more to render.
    fn publish(&mut self, warming: bool) {
        let mut pages = HashMap::new();
        let mut restricted = HashMap::new();
        let mut domains = HashMap::new();
        let mut default_slug = None;
        for (rev, snapshot) in self.pages.values() {
            let map = if is_public(rev, snapshot) {
                &mut pages
            } else {
                &mut restricted
            };
            map.insert(rev.slug.clone(), snapshot.clone());
            if let Some(domain) = &rev.custom_domain {
                domains.insert(domain.to_ascii_lowercase(), rev.slug.clone());
            }
            if rev.is_default {
                default_slug = Some(rev.slug.clone());
            }
        }
        if std::mem::take(&mut self.home_changed) {
            let mut lines: Vec<HomeLine> = pages.values().map(|p| HomeLine::of(&p.data)).collect();
            HomeLine::sort(&mut lines);
            if lines != self.home.lines {
                self.home = Arc::new(Home::new(lines));
            }
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
/// show ([`crate::passes::Passes::covered_past`]) is released by the first pass that read after it.
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
