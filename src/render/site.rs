//! The public site held in memory: every page's representations, rendered once per change,
//! swapped atomically so a request never waits for rendering or for the database.

use std::collections::HashMap;
use std::sync::Arc;

use arc_swap::ArcSwap;
use chrono::{DateTime, Utc};

use crate::domain::lang::Lang;
use crate::runtime::passes::Passes;
use crate::services::access::PageAccess;

use super::html::{self, HomeLine};

use super::Representation;
use super::change::Doc;
use super::on_demand::{self, OnDemand};
use crate::services::public::data::PageData;

mod renderer;

pub use renderer::Renderer;

/// Everything one page serves. The documents held ahead (and the page's own files) are keyed
/// by the path below the page's prefix (`""` is the overview, `"api/v2/summary.json"`, ...);
/// the others ([`Doc::ahead`] says which), and the page's other languages of every document,
/// are rendered on their first read from `data`, and `stamps` names the data each of them
/// shows.
#[derive(Debug)]
pub struct PageSnapshot {
    pub data: Arc<PageData>,
    /// Who may read it: a restricted page's snapshot is only ever answered to a reader it
    /// admits.
    pub access: Arc<PageAccess>,
    /// The documents held ahead, in the page's default language.
    pub reps: HashMap<String, Arc<Representation>>,
    /// Each document rendered on demand (on a page read in several languages, also those held
    /// ahead in the default), with the stamp of the change of its data it shows.
    pub stamps: HashMap<Doc, u64>,
    /// What the refresh that made this snapshot rendered ahead (the rest it kept as it was).
    pub rendered: Vec<(Lang, Doc)>,
    /// When the page must be re-rendered even without a data change (a promised update falls
    /// due, the day rolls over for the uptime bars).
    pub wake_at: DateTime<Utc>,
}

impl PageSnapshot {
    /// The representation at `key`, if any, in the page's default language.
    pub fn get(&self, key: &str) -> Option<&Arc<Representation>> {
        self.reps.get(key)
    }

    /// The bytes its representations held ahead hold, in every coding.
    pub fn held_bytes(&self) -> usize {
        self.reps.values().map(|rep| rep.held_bytes()).sum()
    }

    /// The document at `key` rendered on demand, if the page has it: what names it in the
    /// cache of such documents.
    pub fn on_demand_key(&self, lang: Lang, key: &str) -> Option<on_demand::Key> {
        let doc = Doc::parse(key)?;
        let stamp = *self.stamps.get(&doc)?;
        let lang = if doc.by_language() && self.data.page.languages.contains(&lang) {
            lang
        } else {
            self.data.page.default_language
        };
        Some(on_demand::Key {
            page: self.data.page.id.clone(),
            lang,
            doc,
            stamp,
        })
    }

    /// Whether the page is read in more than one language.
    pub fn multilingual(&self) -> bool {
        self.data.page.languages.len() > 1
    }
}

/// A page found by slug or host, by who may read it.
#[derive(Debug, Clone, Copy)]
pub enum Found<'a> {
    /// Anyone may.
    Public(&'a Arc<PageSnapshot>),
    /// Only readers its access admits (private or internal).
    Restricted(&'a Arc<PageSnapshot>),
}

impl<'a> Found<'a> {
    /// The page, whoever may read it (for the checks that admit a reader).
    pub fn page(self) -> &'a Arc<PageSnapshot> {
        match self {
            Self::Public(page) | Self::Restricted(page) => page,
        }
    }
}

/// Pages by slug. A persistent map: the next snapshot shares every entry a pass did not
/// change, so publishing copies and drops only those (with 1,000 pages, copying a whole map
/// and dropping the last snapshot's was about a tenth of a write's CPU).
pub type PageMap = imbl::HashMap<Arc<str>, Arc<PageSnapshot>>;

/// All pages plus the home page, as one immutable value. Public and restricted pages are held
/// in two maps, so a route that answers public pages cannot reach a restricted one.
#[derive(Debug)]
pub struct SiteSnapshot {
    /// Public pages by slug.
    pub pages: PageMap,
    /// Private and internal pages by slug.
    pub restricted: PageMap,
    /// Custom domain (lowercase, no port) -> slug.
    pub domains: imbl::HashMap<Arc<str>, Arc<str>>,
    /// The page served at `/` when no custom domain matches.
    pub default_slug: Option<Arc<str>>,
    pub home: Arc<Home>,
    /// Start-up: the refresher has not yet rendered every page. A read of a page missing here
    /// asks for it ([`PublicSite::want`]) instead of being told it does not exist.
    pub warming: bool,
}

impl SiteSnapshot {
    /// The page of `slug`, public or restricted.
    pub fn find(&self, slug: &str) -> Option<Found<'_>> {
        match self.pages.get(slug) {
            Some(page) => Some(Found::Public(page)),
            None => self.restricted.get(slug).map(Found::Restricted),
        }
    }

    /// The page a request for `host` maps to at the site root, if any.
    pub fn page_for_host(&self, host: &str) -> Option<Found<'_>> {
        let host = host_name(host);
        self.domains
            .get(host.as_str())
            .or(self.default_slug.as_ref())
            .and_then(|slug| self.find(slug))
    }
}

/// The public pages' lines in the home's order: by name, then path (as [`HomeLine::sort`]),
/// then page, so two pages' equal lines are both listed. Persistent, as [`PageMap`] is: a
/// page's new line is a new home without sorting every page's again.
pub type HomeLines = imbl::OrdMap<(String, String, crate::domain::PageId), HomeLine>;

/// The home page (the site's root when no page is served there): the lines it lists, and
/// their rendering, made on the first read after they change. A write to one page among many
/// pays nothing for it, and a change no line shows keeps the rendering.
#[derive(Debug)]
pub struct Home {
    /// The public pages' lines, in the order the home lists them ([`HomeLine::sort`]).
    pub lines: HomeLines,
    rendered: tokio::sync::OnceCell<Arc<Representation>>,
}

impl Home {
    /// A home listing `lines`, not yet rendered.
    pub fn new(lines: HomeLines) -> Self {
        Self {
            lines,
            rendered: tokio::sync::OnceCell::new(),
        }
    }

    /// Its rendering, if a reader already asked for it.
    pub fn rendered(&self) -> Option<&Arc<Representation>> {
        self.rendered.get()
    }

    /// Its rendering: held, or rendered now off the async threads in one of the on-demand
    /// render slots (one render for the readers asking at once; a reader waits at most twice
    /// [`on_demand::RENDER_WAIT`], for a slot and for the render).
    pub async fn render(
        self: &Arc<Self>,
        site: &Arc<PublicSite>,
    ) -> Result<Arc<Representation>, on_demand::Unrendered> {
        let init = || {
            let (home, site) = (self.clone(), site.clone());
            async move {
                let r = site.clone();
                let render = move || {
                    html::render_home_lines(
                        home.lines.values(),
                        &r.renderer.templates,
                        &r.renderer.assets,
                    )
                };
                site.on_demand.render_off_thread(render).await
            }
        };
        let bound = on_demand::RENDER_WAIT * 2;
        match tokio::time::timeout(bound, self.rendered.get_or_try_init(init)).await {
            Ok(rendered) => rendered.cloned(),
            Err(_) => Err(on_demand::Unrendered::Busy),
        }
    }
}

/// The host a request names, as custom domains are kept: without its port, lowercase.
pub fn host_name(host: &str) -> String {
    let host = host.rsplit_once(':').map_or(host, |(h, port)| {
        if port.chars().all(|c| c.is_ascii_digit()) {
            h
        } else {
            host
        }
    });
    host.to_ascii_lowercase()
}

/// A page a reader asked for while the site warms up: by its slug, or by the host it is
/// served at (a custom domain, or the default page's).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Wanted {
    Slug(String),
    Host(String),
}

/// The live site: the current snapshot and the renderer that makes the next one.
pub struct PublicSite {
    current: ArcSwap<SiteSnapshot>,
    pub renderer: Renderer,
    /// The refresher's wake-up and its passes: which writes the published snapshot shows (a
    /// pass covers its tickets once it has published, or failed and kept the last snapshot).
    pub passes: Passes,
    /// The documents rendered on their first read.
    pub on_demand: OnDemand,
    /// Pages readers asked for during start-up, which the refresher renders first.
    wanted: std::sync::Mutex<Vec<Wanted>>,
    /// How many snapshots were published (a reader waiting for a page watches it).
    published: tokio::sync::watch::Sender<u64>,
}

impl PublicSite {
    /// A site with `renderer` and an empty first snapshot.
    pub fn new(renderer: Renderer) -> anyhow::Result<Self> {
        let home = Arc::new(Home::new(HomeLines::new()));
        let empty = SiteSnapshot {
            pages: PageMap::new(),
            restricted: PageMap::new(),
            domains: imbl::HashMap::new(),
            default_slug: None,
            home,
            warming: true,
        };
        Ok(Self {
            current: ArcSwap::from_pointee(empty),
            renderer,
            passes: Passes::default(),
            on_demand: OnDemand::default(),
            wanted: std::sync::Mutex::default(),
            published: tokio::sync::watch::Sender::new(0),
        })
    }

    /// The snapshot to answer from (cheap: an atomic load).
    pub fn snapshot(&self) -> arc_swap::Guard<Arc<SiteSnapshot>> {
        self.current.load()
    }

    /// Replaces the snapshot.
    pub fn publish(&self, snapshot: SiteSnapshot) {
        self.current.store(Arc::new(snapshot));
        self.published.send_modify(|n| *n += 1);
    }

    /// While the site warms up, asks the refresher to render `page` next, and waits at most
    /// `bound` for a snapshot in which `shown` holds (or the site is warm). True when it does.
    pub async fn want(
        &self,
        page: Wanted,
        bound: std::time::Duration,
        shown: impl Fn(&SiteSnapshot) -> bool,
    ) -> bool {
        let mut published = self.published.subscribe();
        let done = |s: &SiteSnapshot| !s.warming || shown(s);
        if done(&self.snapshot()) {
            return true;
        }
        {
            let mut wanted = self.wanted.lock().unwrap_or_else(|e| e.into_inner());
            if !wanted.contains(&page) {
                wanted.push(page);
            }
        }
        self.passes.wake();
        let reached = async {
            loop {
                if done(&self.snapshot()) {
                    return;
                }
                if published.changed().await.is_err() {
                    return;
                }
            }
        };
        let _ = tokio::time::timeout(bound, reached).await;
        done(&self.snapshot())
    }

    /// While the site warms up, wakes the refresher and waits at most `bound` for every page
    /// to be rendered. True when the site is warm.
    pub async fn warmed(&self, bound: std::time::Duration) -> bool {
        let mut published = self.published.subscribe();
        if !self.snapshot().warming {
            return true;
        }
        self.passes.wake();
        let reached = async {
            while self.snapshot().warming {
                if published.changed().await.is_err() {
                    return;
                }
            }
        };
        let _ = tokio::time::timeout(bound, reached).await;
        !self.snapshot().warming
    }

    /// The pages asked for since the last call (the refresher's side).
    pub fn take_wanted(&self) -> Vec<Wanted> {
        std::mem::take(&mut *self.wanted.lock().unwrap_or_else(|e| e.into_inner()))
    }
}
