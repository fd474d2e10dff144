//! Keeps the in-memory site in step with the database: polls every page's revision (cheap
//! aggregate queries), re-renders only what changed or fell due, and when the database cannot be
//! read keeps serving the last snapshot, re-rendered with a "data as of" notice.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::Utc;
use tokio_util::sync::CancellationToken;

use super::site::{PageSnapshot, PublicSite, SiteSnapshot, Wanted};
use crate::db::Db;
use crate::db::models::public::{self as queries, PageRevision};
use crate::domain::{PageId, Visibility};
use crate::services::public::reload_page_data;

/// How often revisions are polled: a change made through another Herald process sharing the
/// database shows within this interval plus the render time.
pub const POLL_INTERVAL: Duration = Duration::from_secs(1);

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
    /// The home page and what it lists, so a change no listed line shows leaves it as it is.
    home: Option<(Vec<Listed>, Arc<super::Representation>)>,
}

/// What the home page shows of a public page.
type Listed = (String, Option<String>, String, &'static str);

impl Refresher {
    pub fn new(site: Arc<PublicSite>, db: Db, base_url: String) -> Self {
        Self {
            site,
            db,
            base_url,
            pages: HashMap::new(),
            stale: false,
            stamp: 0,
            home: None,
        }
    }

    /// One pass: read revisions, re-render what changed or fell due, publish if anything moved.
    /// A long pass (start-up, or every page after the database came back) publishes what it
    /// has every [`PUBLISH_EVERY`], and renders first the pages readers are waiting for.
    pub async fn refresh(&mut self) -> anyhow::Result<()> {
        let revisions = match self.db.run(|c| Ok(queries::page_revisions(c)?)).await {
            Ok(revisions) => revisions,
            Err(e) => {
                self.mark_stale().await;
                return Err(e.into());
            }
        };
        let was_stale = std::mem::take(&mut self.stale);
        let now = Utc::now();
        let before = self.pages.len();
        let ids: std::collections::HashSet<&PageId> =
            revisions.iter().map(|r| &r.page_id).collect();
        self.pages.retain(|id, _| ids.contains(id));
        let mut changed = was_stale || self.pages.len() != before;
        let mut todo: Vec<PageRevision> = revisions
            .into_iter()
            .filter(|rev| {
                !self
                    .pages
                    .get(&rev.page_id)
                    .is_some_and(|(r, s)| !was_stale && r == rev && s.wake_at > now)
            })
            .collect();
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
                        None => continue,
                    }
                }
            };
            self.pages.insert(rev.page_id.clone(), (rev, snapshot));
            if !todo.is_empty() && (asked || published.elapsed() >= PUBLISH_EVERY) {
                self.publish(true).await?;
                published = Instant::now();
            }
        }
        if changed || self.site.snapshot().warming {
            self.publish(false).await?;
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
            if let Err(e) = self.publish(warming).await {
                tracing::error!(error = %e, "publishing the stale site failed");
            }
        }
    }

    /// Publishes the pages rendered so far; `warming` while start-up has more to render.
    async fn publish(&mut self, warming: bool) -> anyhow::Result<()> {
        let mut pages = HashMap::new();
        let mut restricted = HashMap::new();
        let mut domains = HashMap::new();
        let mut default_slug = None;
        for (rev, snapshot) in self.pages.values() {
            // Public only when both the page's row and the access its snapshot was rendered
            // with say so: a page made private a moment ago is never answered publicly.
            let public = rev.visibility == Visibility::Public
                && snapshot.access.visibility == Visibility::Public;
            let map = if public { &mut pages } else { &mut restricted };
            map.insert(rev.slug.clone(), snapshot.clone());
            if let Some(domain) = &rev.custom_domain {
                domains.insert(domain.to_ascii_lowercase(), rev.slug.clone());
            }
            if rev.is_default {
                default_slug = Some(rev.slug.clone());
            }
        }
        let mut listed: Vec<Listed> = pages
            .values()
            .map(|p| {
                let page = &p.data.page;
                let line = (
                    page.name.clone(),
                    page.description.clone(),
                    page.path.clone(),
                );
                (line.0, line.1, line.2, p.data.status.indicator.as_str())
            })
            .collect();
        listed.sort();
        let home = match self.home.as_ref().filter(|(was, _)| *was == listed) {
            Some((_, home)) => home.clone(),
            None => {
                let site = self.site.clone();
                let shown: Vec<Arc<PageSnapshot>> = pages.values().cloned().collect();
                let home = tokio::task::spawn_blocking(move || {
                    let mut datas: Vec<&super::PageData> =
                        shown.iter().map(|s| s.data.as_ref()).collect();
                    datas.sort_by(|a, b| {
                        a.page
                            .name
                            .cmp(&b.page.name)
                            .then(a.page.slug.cmp(&b.page.slug))
                    });
                    site.renderer.render_home(&datas)
                })
                .await??;
                let home = Arc::new(home);
                self.home = Some((listed, home.clone()));
                home
            }
        };
        self.site.publish(SiteSnapshot {
            pages,
            restricted,
            domains,
            default_slug,
            home,
            warming,
        });
        Ok(())
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
