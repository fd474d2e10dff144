//! The [`Renderer`]: templates and assets, and the functions that turn a page's data into its
//! snapshot (the documents held ahead, its own files, when it next changes by itself).

use std::collections::HashMap;
use std::sync::Arc;

use chrono::{DateTime, Days, Utc};

use crate::domain::image::ImageKind;
use crate::domain::lang::Lang;
use crate::services::access::PageAccess;

use crate::render::assets::Assets;
use crate::render::html::{self, Templates};
use anyhow::Context;

use crate::render::change::{self, Doc};
use crate::render::on_demand::{self};
use crate::render::{CachePolicy, Representation, api_v2, badge, embed, feeds};
use crate::services::public::data::PageData;

use super::PageSnapshot;

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
    /// Each component's part of the overviews, kept while it shows the same.
    pub fragments: html::fragments::Fragments,
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
            fragments: Default::default(),
            embed_js,
            welcome,
            templates,
            assets,
            not_found,
            unavailable,
        })
    }

    /// Renders one page's documents held ahead, readable as `access` says, and stamps the
    /// others with `stamp`: all of them, or with the page as it was `before`, only what the
    /// changes since touch ([`change::touched`]); the rest is kept as it was. Answers the
    /// snapshot and the on-demand documents whose data changed (to drop from the cache).
    /// CPU work: call it off the async threads.
    pub fn render_page(
        &self,
        data: PageData,
        access: Arc<PageAccess>,
        before: Option<&PageSnapshot>,
        stamp: u64,
    ) -> anyhow::Result<(PageSnapshot, Vec<on_demand::Key>)> {
        let before = before.filter(|b| b.access == access);
        let touched = before.map(|b| {
            let changes = change::changes(&b.data, &data);
            change::touched_by_all(&changes, &b.data, &data)
        });
        let fresh = |doc: &Doc| touched.as_ref().is_none_or(|t| t.contains(doc));
        let docs = change::all(&data);
        let lang = data.page.default_language;
        let mut rendered = Vec::new();
        let mut reps = HashMap::new();
        let mut machine = None;
        for doc in docs.iter().filter(|d| d.ahead()) {
            let key = doc.key();
            let kept = before
                .filter(|_| !fresh(doc))
                .and_then(|b| b.reps.get(&key));
            let rep = match kept {
                Some(rep) => rep.clone(),
                None => {
                    let Some(rep) = self.render_doc(&data, lang, doc, &mut machine)? else {
                        continue;
                    };
                    rendered.push((lang, doc.clone()));
                    Arc::new(rep)
                }
            };
            reps.insert(key, rep);
        }
        metrics::counter!("herald_renders_total", "when" => "ahead")
            .increment(rendered.len() as u64);
        self.page_files(&data, before, &mut reps);
        let mut stamps = HashMap::new();
        // The page's other languages read even the documents held ahead on demand: a write
        // renders them in the default language only.
        let multilingual = data.page.languages.len() > 1;
        for doc in docs
            .into_iter()
            .filter(|d| !d.ahead() || (multilingual && d.by_language()))
        {
            let kept = before
                .filter(|_| !fresh(&doc))
                .and_then(|b| b.stamps.get(&doc).copied());
            stamps.insert(doc, kept.unwrap_or(stamp));
        }
        let dropped = before.map_or_else(Vec::new, |b| dropped(b, &stamps));
        let wake_at = wake_at(&data);
        let snapshot = PageSnapshot {
            data: Arc::new(data),
            access,
            reps,
            stamps,
            rendered,
            wake_at,
        };
        Ok((snapshot, dropped))
    }

    /// One document of `data`'s page in `lang` (`None` if the page has no such document).
    /// `machine` keeps the page in `lang`'s own texts for the documents that carry no mark of
    /// an original (the v2 JSON, the feeds), made on first need.
    pub fn render_doc(
        &self,
        data: &PageData,
        lang: Lang,
        doc: &Doc,
        machine: &mut Option<Option<PageData>>,
    ) -> anyhow::Result<Option<Representation>> {
        let (templates, assets) = (&self.templates, &self.assets);
        match doc {
            Doc::Overview | Doc::Incident(_) | Doc::History(_) => {
                html::render_doc(data, templates, assets, &self.fragments, lang, doc)
            }
            Doc::Badge => Ok(Some(badge::render(data))),
            Doc::Embed => embed::embed(data, templates, assets).map(Some),
            Doc::Widget => embed::widget(data).map(Some),
            _ => {
                // The default language's own texts too, where responders gave some beside
                // the originals (a page whose default changed after they wrote).
                let own = machine.get_or_insert_with(|| {
                    data.translated_into(lang).then(|| data.in_language(lang))
                });
                let data = own.as_ref().unwrap_or(data);
                match api_v2::document(data, lang, doc)? {
                    Some(bytes) => Ok(Some(api_v2::representation(bytes))),
                    None => feeds::feed(data, doc),
                }
            }
        }
    }

    /// The page's own files: its stylesheet, logo and favicon, each kept from `before` when
    /// it had it (their names change with their content, so a file of the same name is the
    /// same file and is never compressed again), and `embed.js`.
    fn page_files(
        &self,
        data: &PageData,
        before: Option<&PageSnapshot>,
        reps: &mut HashMap<String, Arc<Representation>>,
    ) {
        reps.insert("embed.js".to_owned(), self.embed_js.clone());
        brand_files(data, before, reps);
    }
}

/// The on-demand documents of `before` whose stamp `stamps` no longer holds, in every
/// language the page was read in.
fn dropped(before: &PageSnapshot, stamps: &HashMap<Doc, u64>) -> Vec<on_demand::Key> {
    let page = &before.data.page;
    before
        .stamps
        .iter()
        .filter(|(doc, stamp)| stamps.get(doc) != Some(stamp))
        .flat_map(|(doc, stamp)| {
            let langs: &[Lang] = if doc.by_language() {
                &page.languages
            } else {
                std::slice::from_ref(&page.default_language)
            };
            langs.iter().map(|lang| on_demand::Key {
                page: page.id.clone(),
                lang: *lang,
                doc: doc.clone(),
                stamp: *stamp,
            })
        })
        .collect()
}

/// The page's own files, below it under names that change with their content (so cached
/// for good): its stylesheet, logo and favicon. A file `before` held under the same name is
/// kept as it was; a new one is made, compressed only when its kind gains from it (an SVG or
/// the stylesheet, not a PNG or WebP).
fn brand_files(
    data: &PageData,
    before: Option<&PageSnapshot>,
    reps: &mut HashMap<String, Arc<Representation>>,
) {
    let brand = &data.page.brand;
    let mut put = |name: String, make: &dyn Fn() -> Representation| {
        let rep = match before.and_then(|b| b.reps.get(&name)) {
            Some(kept) => kept.clone(),
            None => Arc::new(make()),
        };
        reps.insert(name, rep);
    };
    if let Some(css) = &brand.stylesheet {
        put(css.file_name.clone(), &|| {
            let body = bytes::Bytes::from(css.text.clone());
            Representation::new("text/css; charset=utf-8", body, CachePolicy::IMMUTABLE)
        });
    }
    for (stem, image) in [("logo", &brand.logo), ("favicon", &brand.favicon)] {
        if let Some(image) = image {
            put(image.file_name(stem), &|| {
                let (kind, body) = (image.kind, image.bytes.clone());
                match kind {
                    ImageKind::Svg => {
                        Representation::new(kind.content_type(), body, CachePolicy::IMMUTABLE)
                    }
                    ImageKind::Png | ImageKind::Webp => Representation::uncompressed(
                        kind.content_type(),
                        body,
                        CachePolicy::IMMUTABLE,
                    ),
                }
            });
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

#[cfg(test)]
mod tests {
    use super::wake_at;
    use crate::services::public::fixtures::page as fixture;
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
