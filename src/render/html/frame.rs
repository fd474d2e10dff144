//! The frame every public page shares (`layouts/base`): title, asset URLs, the page's
//! navigation and feed links, the "data as of" footer and the stale-data notice.

use serde::Serialize;

use super::format::TimeView;
use crate::domain::Theme;
use crate::domain::brand::HeaderLink;
use crate::render::PageData;
use crate::render::assets::Assets;

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
    /// The routes below `path` (e.g. `/status/demo`).
    pub fn new(path: &str) -> Self {
        Self {
            overview: path.to_owned(),
            history: format!("{path}/history?page=1"),
            subscribe: format!("{path}/subscribe"),
            support: format!("{path}/support"),
            atom: format!("{path}/history.atom"),
            rss: format!("{path}/history.rss"),
            ics: format!("{path}/maintenances.ics"),
        }
    }
}

/// One entry of the page's navigation.
#[derive(Debug, Clone, Serialize)]
pub struct NavItem {
    pub label: &'static str,
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

    /// The frame of a document of `data`'s page; `title` comes before the page's name.
    pub fn page(title: Option<&str>, section: Section, data: &PageData, assets: &Assets) -> Self {
        let page = &data.page;
        let tz = page.time_zone;
        let links = Links::new(&page.path);
        let nav = vec![
            NavItem {
                label: "Status",
                href: links.overview.clone(),
                current: section == Section::Overview,
            },
            NavItem {
                label: "History",
                href: links.history.clone(),
                current: section == Section::History,
            },
            NavItem {
                label: "Subscribe",
                href: links.subscribe.clone(),
                current: false,
            },
            NavItem {
                label: "Support",
                href: links.support.clone(),
                current: false,
            },
        ];
        let full_title = match title {
            Some(title) => format!("{title} · {} status", page.name),
            None => format!("{} status", page.name),
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
                time_zone: tz.name().to_owned(),
                links,
                nav,
                logo: brand.logo.as_ref().map(|l| below(l.file_name("logo"))),
                header_links: brand.header_links.clone(),
                footer: brand.footer.clone(),
            }),
            stale: data.stale_since.map(|_| TimeView::new(data.as_of, tz)),
            // Only a stale page names a time: otherwise the bytes would change with the minute of
            // rendering, and two Herald processes would serve different ETags for the same data.
            as_of: data.stale_since.map(|_| TimeView::new(data.as_of, tz)),
            ..site
        }
    }
}
