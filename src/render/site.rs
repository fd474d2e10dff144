//! The public site held in memory: every page's representations, rendered once per change,
//! swapped atomically so a request never waits for rendering or for the database.

use std::collections::HashMap;
use std::sync::Arc;

use arc_swap::ArcSwap;
use chrono::{DateTime, Days, Utc};

use crate::domain::lang::Lang;
use crate::passes::Passes;
use crate::services::access::PageAccess;

use super::assets::Assets;
use super::html::{self, Templates};
use anyhow::Context;

use super::{CachePolicy, PageData, Representation, api_v2, badge, embed, feeds};

/// Everything one page serves, keyed by the path below the page's prefix (`""` is the overview,
/// `"api/v2/summary.json"`, `"incidents/{id}"`, `"history?page=2"`, ...).
#[derive(Debug)]
pub struct PageSnapshot {
    pub data: Arc<PageData>,
    /// Who may read it: a restricted page's snapshot is only ever answered to a reader it
    /// admits.
    pub access: Arc<PageAccess>,
    pub reps: HashMap<String, Arc<Representation>>,
    /// The representations that differ by language (the HTML pages, the v2 JSON and the
    /// feeds), for each of the page's languages but its default (whose are in `reps`).
    pub translated: Vec<(Lang, HashMap<String, Arc<Representation>>)>,
    /// When the page must be re-rendered even without a data change (a promised update falls
    /// due, the day rolls over for the uptime bars).
    pub wake_at: DateTime<Utc>,
}

impl PageSnapshot {
    /// The representation at `key`, if any, in the page's default language.
    pub fn get(&self, key: &str) -> Option<&Arc<Representation>> {
        self.reps.get(key)
    }

    /// The representation at `key` in `lang` (the default language's, for one that does not
    /// differ by language or a language the page is not read in).
    pub fn get_in(&self, lang: Lang, key: &str) -> Option<&Arc<Representation>> {
        self.translated
            .iter()
            .find(|(l, _)| *l == lang)
            .and_then(|(_, reps)| reps.get(key))
            .or_else(|| self.reps.get(key))
    }

    /// The bytes its rendered representations hold, in every coding and language (a
    /// representation shared between languages counted once each).
    pub fn held_bytes(&self) -> usize {
        let all = self.translated.iter().map(|(_, reps)| reps);
        std::iter::once(&self.reps)
            .chain(all)
            .flat_map(|reps| reps.values())
            .map(|rep| rep.held_bytes())
            .sum()
    }

    /// Whether the page is read in more than one language.
    pub fn multilingual(&self) -> bool {
        !self.translated.is_empty()
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

/// All pages plus the home page, as one immutable value. Public and restricted pages are held
/// in two maps, so a route that answers public pages cannot reach a restricted one.
#[derive(Debug)]
pub struct SiteSnapshot {
    /// Public pages by slug.
    pub pages: HashMap<String, Arc<PageSnapshot>>,
    /// Private and internal pages by slug.
    pub restricted: HashMap<String, Arc<PageSnapshot>>,
    /// Custom domain (lowercase, no port) -> slug.
    pub domains: HashMap<String, String>,
    /// The page served at `/` when no custom domain matches.
    pub default_slug: Option<String>,
    pub home: Arc<Representation>,
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
        let host = host.rsplit_once(':').map_or(host, |(h, port)| {
            if port.chars().all(|c| c.is_ascii_digit()) {
                h
            } else {
                host
            }
        });
        let host = host.to_ascii_lowercase();
        self.domains
            .get(&host)
            .or(self.default_slug.as_ref())
            .and_then(|slug| self.find(slug))
    }
}

/// Templates and assets, and the functions that turn [`PageData`] into representations.
pub struct Renderer {
    pub templates: Templates,
    pub assets: Assets,
    /// `embed.js`, served below every page (the same bytes: it finds its page from its URL).
    pub embed_js: Arc<Representation>,
    /// The getting-started guide at `/welcome`.
    pub welcome: Arc<Representation>,
    pub not_found: Arc<Representation>,
    pub unavailable: Arc<Representation>,
}

impl Renderer {
    /// Loads the embedded templates and assets.
    pub fn load() -> anyhow::Result<Self> {
        let templates = Templates::load()?;
        let assets = Assets::load();
        let not_found = Arc::new(html::render_not_found(&templates, &assets)?);
        let unavailable = Arc::new(html::render_unavailable(&templates, &assets)?);
        let welcome = Arc::new(html::render_welcome(&templates, &assets)?);
        let embed_js = assets
            .source("embed.js")
            .context("the embed.js asset is missing")?;
        let embed_js = Arc::new(Representation::new(
            "text/javascript; charset=utf-8",
            embed_js,
            CachePolicy::PUBLIC,
        ));
        Ok(Self {
            embed_js,
            welcome,
            templates,
            assets,
            not_found,
            unavailable,
        })
    }

    /// Renders every representation of one page, readable as `access` says (CPU work: call
    /// it off the async threads).
    pub fn render_page(
        &self,
        data: PageData,
        access: Arc<PageAccess>,
    ) -> anyhow::Result<PageSnapshot> {
        let mut reps = HashMap::new();
        let default = data.page.default_language;
        html::render_page(&data, &self.templates, &self.assets, default, &mut reps)?;
        let mut translated = Vec::new();
        for lang in data.page.languages.iter().filter(|l| **l != default) {
            let mut theirs = HashMap::new();
            html::render_page(&data, &self.templates, &self.assets, *lang, &mut theirs)?;
            let in_theirs = data.in_language(*lang);
            api_v2::render(&in_theirs, *lang, &mut theirs)?;
            feeds::render(&in_theirs, &mut theirs)?;
            translated.push((*lang, theirs));
        }
        // The default language's own texts, where responders gave some beside the originals
        // (a page whose default changed after they wrote).
        let in_default = data
            .translated_into(default)
            .then(|| data.in_language(default));
        let machine = in_default.as_ref().unwrap_or(&data);
        api_v2::render(machine, default, &mut reps)?;
        feeds::render(machine, &mut reps)?;
        reps.insert("badge.svg".to_owned(), Arc::new(badge::render(&data)));
        embed::render(&data, &self.templates, &self.assets, &mut reps)?;
        reps.insert("embed.js".to_owned(), self.embed_js.clone());
        brand_files(&data, &mut reps);
        let wake_at = wake_at(&data);
        Ok(PageSnapshot {
            data: Arc::new(data),
            access,
            reps,
            translated,
            wake_at,
        })
    }

    /// Renders the home page listing `pages`.
    pub fn render_home(&self, pages: &[&PageData]) -> anyhow::Result<Representation> {
        html::render_home(pages, &self.templates, &self.assets)
    }
}

/// The page's own files, below it under names that change with their content (so cached
/// for good): its stylesheet, logo and favicon.
fn brand_files(data: &PageData, reps: &mut HashMap<String, Arc<Representation>>) {
    let brand = &data.page.brand;
    let mut put = |name: String, content_type: &'static str, body: bytes::Bytes| {
        let rep = Representation::new(content_type, body, CachePolicy::IMMUTABLE);
        reps.insert(name, Arc::new(rep));
    };
    if let Some(css) = &brand.stylesheet {
        let body = bytes::Bytes::from(css.text.clone());
        put(css.file_name.clone(), "text/css; charset=utf-8", body);
    }
    for (stem, image) in [("logo", &brand.logo), ("favicon", &brand.favicon)] {
        if let Some(image) = image {
            let name = image.file_name(stem);
            put(name, image.kind.content_type(), image.bytes.clone());
        }
    }
}

/// The next moment the page's output changes by itself: the earliest promised update still in
/// the future, or the next UTC midnight (uptime bars move by a day).
fn wake_at(data: &PageData) -> DateTime<Utc> {
    let midnight = data
        .as_of
        .date_naive()
        .checked_add_days(Days::new(1))
        .and_then(|d| d.and_hms_opt(0, 0, 0))
        .map(|t| t.and_utc())
        .unwrap_or(data.as_of);
    data.open_incidents()
        .filter_map(|i| i.next_update_by)
        .filter(|deadline| *deadline > data.as_of)
        .fold(midnight, DateTime::min)
}

/// The live site: the current snapshot and the renderer that makes the next one.
pub struct PublicSite {
    current: ArcSwap<SiteSnapshot>,
    pub renderer: Renderer,
    /// The refresher's wake-up and its passes: which writes the published snapshot shows (a
    /// pass covers its tickets once it has published, or failed and kept the last snapshot).
    pub passes: Passes,
}

impl PublicSite {
    /// A site with `renderer` and an empty first snapshot.
    pub fn new(renderer: Renderer) -> anyhow::Result<Self> {
        let home = Arc::new(renderer.render_home(&[])?);
        let empty = SiteSnapshot {
            pages: HashMap::new(),
            restricted: HashMap::new(),
            domains: HashMap::new(),
            default_slug: None,
            home,
        };
        Ok(Self {
            current: ArcSwap::from_pointee(empty),
            renderer,
            passes: Passes::default(),
        })
    }

    /// The snapshot to answer from (cheap: an atomic load).
    pub fn snapshot(&self) -> arc_swap::Guard<Arc<SiteSnapshot>> {
        self.current.load()
    }

    /// Replaces the snapshot.
    pub fn publish(&self, snapshot: SiteSnapshot) {
        self.current.store(Arc::new(snapshot));
    }
}

#[cfg(test)]
mod tests {
    use super::wake_at;
    use crate::render::html::fixture;
    use chrono::{Duration, TimeZone, Utc};

    #[test]
    fn a_page_wakes_at_the_next_promised_update_or_at_midnight() {
        let mut data = fixture::page();
        let midnight = Utc.with_ymd_and_hms(2026, 12, 1, 0, 0, 0).unwrap();
        assert_eq!(wake_at(&data), midnight, "nothing promised: the day's end");
        let due = data.as_of + Duration::hours(2);
        data.incidents
            .push(fixture::open_incident("i-open", "API errors", due));
        assert_eq!(wake_at(&data), due);
        for incident in &mut data.incidents {
            incident.next_update_by = Some(data.as_of + Duration::minutes(10));
        }
        assert!(
            data.open_incidents().next().is_some(),
            "the fixture has an open incident"
        );
        assert_eq!(wake_at(&data), data.as_of + Duration::minutes(10));
        for incident in &mut data.incidents {
            incident.next_update_by = Some(data.as_of - Duration::minutes(10));
        }
        assert_eq!(
            wake_at(&data),
            midnight,
            "a deadline already passed does not wake the page again"
        );
    }
}
