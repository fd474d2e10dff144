//! The public HTML: overview, incident and history pages of a status page, the home page, the
//! 404 and 503 bodies, and the error page of the other HTML routes.
//!
//! Each page is a serializable view built in Rust from [`PageData`] (labels, CSS classes and
//! formatted times are computed here, not in template logic) and rendered by a strict handlebars
//! registry whose templates are embedded in the binary. Output depends only on the data, never
//! on the clock, so the same data renders to the same bytes.

pub mod choice;
pub mod events;
pub mod format;
pub mod fragments;
pub mod frame;
pub mod history;
mod incident;
mod overview;
mod templates;

#[cfg(test)]
mod tests;

use std::collections::HashMap;
use std::sync::Arc;

use anyhow::Context as _;
use serde::Serialize;

pub use templates::{Templates, escape_markup};

use super::assets::Assets;
use super::{CachePolicy, Representation};
use crate::domain::lang::Lang;
use crate::render::change::Doc;
use crate::services::public::data::PageData;
use format::{Locale, StatusLook};
use frame::Frame;

/// The content type of every page.
pub const HTML: &str = "text/html; charset=utf-8";

/// The 503 body must not outlive the moment the page is rendered.
const NO_STORE: CachePolicy = CachePolicy {
    max_age: 0,
    stale_while_revalidate: 0,
};

fn representation(body: String, cache: CachePolicy) -> Representation {
    Representation::new(HTML, body, cache)
}

/// Renders every HTML document of `data`'s page into `out`, keyed relative to the page's path:
/// `""` (overview), `"incidents/{id}"` for each incident and maintenance, and
/// `"history?page={n}"` for each history page (at least page 1).
pub fn render_page(
    data: &PageData,
    templates: &Templates,
    assets: &Assets,
    lang: Lang,
    out: &mut HashMap<String, Arc<Representation>>,
) -> anyhow::Result<()> {
    let docs = std::iter::once(Doc::Overview)
        .chain(
            data.incidents
                .iter()
                .chain(&data.maintenances)
                .map(|e| Doc::Incident(e.id.clone())),
        )
        .chain((1..=history::page_count(data)).map(Doc::History));
    let fragments = fragments::Fragments::default();
    for doc in docs {
        if let Some(rep) = render_doc(data, templates, assets, &fragments, lang, &doc)? {
            out.insert(doc.key(), Arc::new(rep));
        }
    }
    Ok(())
}

/// One HTML document of `data`'s page in `lang`: `None` when `doc` is not one of its pages
/// (an unknown incident, a history page past the last).
pub fn render_doc(
    data: &PageData,
    templates: &Templates,
    assets: &Assets,
    fragments: &fragments::Fragments,
    lang: Lang,
    doc: &Doc,
) -> anyhow::Result<Option<Representation>> {
    let loc = Locale::of_page(&data.page, lang);
    let body = match doc {
        Doc::Overview => {
            let view = overview::OverviewView::new(data, assets, loc, templates, fragments)?;
            templates.render_in(lang, "pages/overview", &view)
        }
        Doc::Incident(id) => {
            let Some(event) = data
                .incidents
                .iter()
                .chain(&data.maintenances)
                .find(|e| e.id == *id)
            else {
                return Ok(None);
            };
            let view = incident::IncidentView::new(event, data, assets, loc);
            templates.render_in(lang, "pages/incident", &view)
        }
        Doc::History(page) if *page <= history::page_count(data) => {
            let view = history::HistoryView::new(data, *page, assets, loc);
            templates.render_in(lang, "pages/history", &view)
        }
        _ => return Ok(None),
    };
    let body = body.with_context(|| format!("rendering {:?} of {}", doc.key(), data.page.path))?;
    Ok(Some(representation(body, CachePolicy::PUBLIC)))
}

/// What `pages/home` renders.
#[derive(Debug, Serialize)]
struct HomeView {
    frame: Frame,
    pages: Vec<HomeEntry>,
}

#[derive(Debug, Serialize)]
struct HomeEntry {
    name: String,
    description: Option<String>,
    href: String,
    status: StatusLook,
}

/// What the home page shows of one public page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HomeLine {
    pub name: String,
    pub href: String,
    pub description: Option<String>,
    pub indicator: crate::domain::Indicator,
}

impl HomeLine {
    /// The line of the page `data` shows.
    pub fn of(data: &PageData) -> Self {
        Self {
            name: data.page.name.clone(),
            href: data.page.path.clone(),
            description: data.page.description.clone(),
            indicator: data.status.indicator,
        }
    }

    /// Where the line of page `id` stands among the others (by name, then path, then page).
    pub fn key(&self, id: &crate::domain::PageId) -> (String, String, crate::domain::PageId) {
        (self.name.clone(), self.href.clone(), id.clone())
    }

    /// Sorts `lines` in the order the home lists them: by name, then path.
    pub fn sort(lines: &mut [HomeLine]) {
        lines.sort_by(|a, b| a.name.cmp(&b.name).then_with(|| a.href.cmp(&b.href)));
    }
}

/// The home page: the list of public pages, or a welcome on a fresh install without any.
pub fn render_home(
    pages: &[&PageData],
    templates: &Templates,
    assets: &Assets,
) -> anyhow::Result<Representation> {
    let mut lines: Vec<HomeLine> = pages.iter().map(|data| HomeLine::of(data)).collect();
    HomeLine::sort(&mut lines);
    render_home_lines(&lines, templates, assets)
}

/// The home page listing `lines`, in their order ([`HomeLine::sort`]).
pub fn render_home_lines<'a>(
    lines: impl IntoIterator<Item = &'a HomeLine>,
    templates: &Templates,
    assets: &Assets,
) -> anyhow::Result<Representation> {
    let entries: Vec<HomeEntry> = lines
        .into_iter()
        .map(|line| HomeEntry {
            name: line.name.clone(),
            description: line.description.clone(),
            href: line.href.clone(),
            status: StatusLook::indicator(line.indicator),
        })
        .collect();
    let title = if entries.is_empty() {
        "Welcome to Herald"
    } else {
        "Status pages"
    };
    let view = HomeView {
        frame: Frame::site(title, assets),
        pages: entries,
    };
    Ok(representation(
        templates.render("pages/home", &view)?,
        CachePolicy::PUBLIC,
    ))
}

/// The getting-started guide (`/welcome`): the same at every moment, rendered once.
pub fn render_welcome(templates: &Templates, assets: &Assets) -> anyhow::Result<Representation> {
    #[derive(Serialize)]
    struct WelcomeView {
        frame: Frame,
    }
    let view = WelcomeView {
        frame: Frame::site("Welcome to Herald", assets),
    };
    Ok(representation(
        templates.render("pages/welcome", &view)?,
        CachePolicy::PUBLIC,
    ))
}

/// What the error pages render.
#[derive(Debug, Serialize)]
struct ErrorView {
    frame: Frame,
}

/// An error answered to a browser on an HTML route: a title, one plain sentence, the messages
/// of the fields concerned, a link back, and the request's id to quote when asking for help.
#[derive(Debug, Serialize)]
pub struct ErrorPage {
    pub title: String,
    pub explanation: String,
    pub fields: Vec<FieldMessage>,
    pub retry_after: Option<u32>,
    pub back: Link,
    pub request_id: Option<String>,
}

/// One field's message on an error page.
#[derive(Debug, Serialize)]
pub struct FieldMessage {
    pub name: String,
    pub message: String,
}

/// A link with its text.
#[derive(Debug, Serialize)]
pub struct Link {
    pub href: String,
    pub label: String,
}

#[derive(Serialize)]
struct ErrorPageView<'a> {
    frame: Frame,
    #[serde(flatten)]
    page: &'a ErrorPage,
}

/// The HTML of an error page (rendered per answer: errors are rare and carry a request id).
pub fn render_error(
    page: &ErrorPage,
    templates: &Templates,
    assets: &Assets,
) -> anyhow::Result<String> {
    let view = ErrorPageView {
        frame: Frame::site(&page.title, assets),
        page,
    };
    templates.render("pages/error", &view)
}

/// The body of a 404 (the caller sets the status code).
pub fn render_not_found(templates: &Templates, assets: &Assets) -> anyhow::Result<Representation> {
    let view = ErrorView {
        frame: Frame::site("Page not found", assets),
    };
    Ok(representation(
        templates.render("pages/not_found", &view)?,
        CachePolicy::PUBLIC,
    ))
}

/// The body of a 503 for a page that has not been rendered yet (the caller sets the status
/// code); it is not to be cached.
pub fn render_unavailable(
    templates: &Templates,
    assets: &Assets,
) -> anyhow::Result<Representation> {
    let view = ErrorView {
        frame: Frame::site("Status page not available yet", assets),
    };
    Ok(representation(
        templates.render("pages/unavailable", &view)?,
        NO_STORE,
    ))
}
