//! The frame every public page shares (`layouts/base`): title, asset URLs, the page's
//! navigation and feed links, the "data as of" footer and the stale-data notice.

use serde::Serialize;

use super::format::{Locale, TimeView};
use crate::domain::Theme;
use crate::domain::brand::HeaderLink;
use crate::domain::lang::Lang;
use crate::render::assets::Assets;
use crate::services::public::data::PageData;

/// Which entry of the page's navigation is the current page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Section {
    Overview,
    History,
    /// An incident page: no navigation entry is current.
    Other,
}

/// What `layouts/base` needs.
#[derive(Debug, Clone, Serialize)]
pub struct Frame {
    /// The `<title>`.
    pub title: String,
    pub description: Option<String>,
    pub css: String,
    /// The page's own stylesheet (its brand colour, its custom CSS), after Herald's.
    pub brand_css: Option<String>,
    pub js: String,
    pub favicon: String,
    /// The favicon's media type.
    pub favicon_type: &'static str,
    /// A theme the page is always drawn in (`light` or `dark`); `None` follows the reader's.
    pub theme: Option<&'static str>,
    /// The `color-scheme` the page is drawn in.
    pub color_scheme: &'static str,
    /// The status page the document belongs to; `None` on the home and error pages.
    pub page: Option<PageNav>,
    /// Set when live data is unavailable: when the shown data was read.
    pub stale: Option<TimeView>,
    /// When the shown data was read (the footer's "Data as of").
    pub as_of: Option<TimeView>,
}

/// The header and head links of one status page.
#[derive(Debug, Clone, Serialize)]
pub struct PageNav {
    pub name: String,
    /// The page's canonical public address.
    pub url: String,
    /// The page's IANA time zone, in which times are written.
    pub time_zone: String,
    pub links: Links,
    pub nav: Vec<NavItem>,
    /// The page's logo, shown in place of its name (which is its text alternative).
    pub logo: Option<String>,
    /// The owner's links beside the page's navigation.
    pub header_links: Vec<HeaderLink>,
    /// The owner's footer, as sanitised HTML.
    pub footer: Option<String>,
    /// The page's languages, each a link to this document in it; empty when the page has one.
    pub languages: Vec<LangLink>,
}

/// One entry of the language switcher.
#[derive(Debug, Clone, Serialize)]
pub struct LangLink {
    /// The language's code (`de`), for `lang` and `hreflang`.
    pub code: &'static str,
    /// The language's own name (`Deutsch`).
    pub label: &'static str,
    pub href: String,
    pub current: bool,
}

/// The addresses of a page's public routes.
#[derive(Debug, Clone, Serialize)]
pub struct Links {
    pub overview: String,
    pub history: String,
    pub subscribe: String,
    pub support: String,
    pub atom: String,
    pub rss: String,
    pub ics: String,
}

impl Links {
    /// The routes below `path` (e.g. `/status/demo`), in Herald's default language.
    pub fn new(path: &str) -> Self {
        Self::in_lang(path, None)
    }

    /// The routes below `path`, each asking for `lang` when given (a page read in one of
    /// several languages keeps its reader's choice from link to link, without a cookie).
    pub fn in_lang(path: &str, lang: Option<Lang>) -> Self {
        let at = |href: String| with_lang(&href, lang);
        Self {
            overview: at(path.to_owned()),
            history: at(format!("{path}/history?page=1")),
            subscribe: at(format!("{path}/subscribe")),
            support: at(format!("{path}/support")),
            atom: at(format!("{path}/history.atom")),
            rss: at(format!("{path}/history.rss")),
            ics: at(format!("{path}/maintenances.ics")),
        }
    }
}

/// `href` asking for `lang` (`?lang=de`, or `&lang=de` after a query, before any fragment).
pub fn with_lang(href: &str, lang: Option<Lang>) -> String {
    let Some(lang) = lang else {
        return href.to_owned();
    };
    let (base, fragment) = match href.split_once('#') {
        Some((base, fragment)) => (base, Some(fragment)),
        None => (href, None),
    };
    let joint = if base.contains('?') { '&' } else { '?' };
    let mut out = format!("{base}{joint}lang={lang}");
    if let Some(fragment) = fragment {
        out.push('#');
        out.push_str(fragment);
    }
    out
}

/// One entry of the page's navigation.
#[derive(Debug, Clone, Serialize)]
pub struct NavItem {
    pub label: String,
    pub href: String,
    /// Marks the entry with `aria-current="page"`.
    pub current: bool,
}

impl Frame {
    /// The frame of a document outside any status page (home, errors).
    pub fn site(title: &str, assets: &Assets) -> Self {
        Self {
            title: title.to_owned(),
            description: None,
            css: assets.url("app.css"),
            brand_css: None,
            js: assets.url("app.js"),
            favicon: assets.url("favicon.svg"),
            favicon_type: "image/svg+xml",
            theme: None,
            color_scheme: "light dark",
            page: None,
            stale: None,
            as_of: None,
        }
    }

    /// The frame of a document of `data`'s page read in `loc`, at `here` (its address without
    /// a language, for the switcher); `title` comes before the page's name.
    pub fn page(
        title: Option<&str>,
        section: Section,
        data: &PageData,
        assets: &Assets,
        loc: Locale,
        here: &str,
    ) -> Self {
        let page = &data.page;
        let links = Links::in_lang(&page.path, loc.in_links());
        let item = |key: &str, href: &String, current: bool| NavItem {
            label: loc.text(key),
            href: href.clone(),
            current,
        };
        let nav = vec![
            item("nav-status", &links.overview, section == Section::Overview),
            item("nav-history", &links.history, section == Section::History),
            item("nav-subscribe", &links.subscribe, false),
            item("nav-support", &links.support, false),
        ];
        let name = page.name.clone();
        let full_title = match title {
            Some(title) => loc.text_with(
                "page-title-with",
                &[("title", title.to_owned().into()), ("name", name.into())],
            ),
            None => loc.text_with("page-status-title", &[("name", name.into())]),
        };
        let languages = if page.languages.len() > 1 {
            page.languages
                .iter()
                .map(|lang| LangLink {
                    code: lang.as_str(),
                    label: lang.label(),
                    href: with_lang(here, Some(*lang)),
                    current: *lang == loc.lang,
                })
                .collect()
        } else {
            Vec::new()
        };
        let brand = &page.brand;
        let below = |file: String| format!("{}/{file}", page.path);
        let site = Self::site("", assets);
        let (theme, color_scheme) = match brand.theme {
            Theme::Auto => (None, site.color_scheme),
            Theme::Light => (Some("light"), "light"),
            Theme::Dark => (Some("dark"), "dark"),
        };
        Self {
            title: full_title,
            description: page.description.clone(),
            brand_css: brand
                .stylesheet
                .as_ref()
                .map(|s| below(s.file_name.clone())),
            favicon: brand
                .favicon
                .as_ref()
                .map_or(site.favicon.clone(), |f| below(f.file_name("favicon"))),
            favicon_type: brand
                .favicon
                .as_ref()
                .map_or(site.favicon_type, |f| f.kind.content_type()),
            theme,
            color_scheme,
            page: Some(PageNav {
                name: page.name.clone(),
                url: page.url.clone(),
                time_zone: loc.tz.name().to_owned(),
                links,
                nav,
                logo: brand.logo.as_ref().map(|l| below(l.file_name("logo"))),
                header_links: brand.header_links.clone(),
                footer: brand.footer.clone(),
                languages,
            }),
            stale: data.stale_since.map(|_| TimeView::local(data.as_of, loc)),
            // Only a stale page names a time: otherwise the bytes would change with the minute of
            // rendering, and two Herald processes would serve different ETags for the same data.
            as_of: data.stale_since.map(|_| TimeView::local(data.as_of, loc)),
            ..site
        }
    }
}
