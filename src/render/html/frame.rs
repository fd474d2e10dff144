//! The frame every public page shares (`layouts/base`): title, asset URLs, the page's
//! navigation and feed links, the "data as of" footer and the stale-data notice.

use serde::Serialize;

use super::format::TimeView;
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
    pub js: String,
    pub favicon: String,
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
            js: assets.url("app.js"),
            favicon: assets.url("favicon.svg"),
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
        Self {
            title: full_title,
            description: page.description.clone(),
            page: Some(PageNav {
                name: page.name.clone(),
                url: page.url.clone(),
                time_zone: tz.name().to_owned(),
                links,
                nav,
            }),
            stale: data.stale_since.map(|_| TimeView::new(data.as_of, tz)),
            // Only a stale page names a time: otherwise the bytes would change with the minute of
            // rendering, and two Herald processes would serve different ETags for the same data.
            as_of: data.stale_since.map(|_| TimeView::new(data.as_of, tz)),
            ..Self::site("", assets)
        }
    }
}
