//! The status embed, for any site: `widget.json` (readable from any origin, no credentials),
//! what `embed.js` (one `<script>` tag) reads to show its banner, and `embed`, a compact page
//! that only the sites the page lists may frame. All three are rendered once per change, like
//! the rest of the page.

use std::collections::HashMap;
use std::sync::Arc;

use chrono::{DateTime, Utc};
use serde::Serialize;

use super::api_v2::model::Time;
use super::assets::Assets;
use super::html::Templates;
use super::html::format::{StatusLook, TimeView};
use super::{CachePolicy, Representation};
use crate::services::public::data::IncidentInfo;
use crate::services::public::data::PageData;

/// What `widget.json` says: the page, its status, what is going on, and where to turn.
#[derive(Debug, Serialize)]
pub struct Widget<'a> {
    pub page: WidgetPage<'a>,
    pub status: WidgetStatus<'a>,
    /// Open incidents, newest first.
    pub incidents: Vec<WidgetEvent<'a>>,
    /// Maintenances under way.
    pub maintenances: Vec<WidgetEvent<'a>>,
    /// A component that means "signing in" is affected: people who cannot sign in are pointed
    /// to the support form, which needs no account.
    pub signin_affected: bool,
    pub support_url: String,
    /// How the embed looks, when its owner set anything (the script tag's options and the
    /// host page's CSS win over it).
    #[serde(skip_serializing_if = "crate::domain::embed::Look::is_default")]
    pub look: &'a crate::domain::embed::Look,
}

#[derive(Debug, Serialize)]
pub struct WidgetPage<'a> {
    pub name: &'a str,
    pub url: &'a str,
    pub updated_at: Time,
}

#[derive(Debug, Serialize)]
pub struct WidgetStatus<'a> {
    pub indicator: crate::domain::Indicator,
    pub description: &'a str,
}

#[derive(Debug, Serialize)]
pub struct WidgetEvent<'a> {
    pub id: &'a str,
    pub name: &'a str,
    pub status: crate::domain::LifecycleStatus,
    pub impact: crate::domain::Impact,
    pub url: &'a str,
    pub updated_at: Time,
}

impl<'a> WidgetEvent<'a> {
    fn of(event: &'a IncidentInfo) -> Self {
        Self {
            id: &event.id,
            name: &event.name,
            status: event.status,
            impact: event.impact,
            url: &event.url,
            updated_at: Time(event.updated_at),
        }
    }
}

impl<'a> Widget<'a> {
    pub fn new(data: &'a PageData) -> Self {
        Self {
            page: WidgetPage {
                name: &data.page.name,
                url: &data.page.url,
                updated_at: Time(latest(data)),
            },
            status: WidgetStatus {
                indicator: data.status.indicator,
                description: data.status.description,
            },
            incidents: data.open_incidents().map(WidgetEvent::of).collect(),
            maintenances: data
                .active_maintenances()
                .into_iter()
                .map(WidgetEvent::of)
                .collect(),
            signin_affected: data.signin_affected(),
            support_url: format!("{}/support", data.page.url),
            look: &data.page.embed_look,
        }
    }
}

/// The latest change the page shows.
fn latest(data: &PageData) -> DateTime<Utc> {
    data.components
        .iter()
        .map(|c| c.updated_at)
        .chain(data.incidents.iter().map(|i| i.updated_at))
        .chain(data.maintenances.iter().map(|m| m.updated_at))
        .fold(data.page.updated_at, DateTime::max)
}

/// What `pages/embed` renders.
#[derive(Debug, Serialize)]
struct EmbedView {
    name: String,
    url: String,
    css: String,
    banner: StatusLook,
    events: Vec<EmbedEvent>,
    support: Option<String>,
}

#[derive(Debug, Serialize)]
struct EmbedEvent {
    name: String,
    url: String,
    status: String,
    updated: TimeView,
}

/// Adds `widget.json` and `embed` of `data`'s page to `out`.
pub fn render(
    data: &PageData,
    templates: &Templates,
    assets: &Assets,
    out: &mut HashMap<String, Arc<Representation>>,
) -> anyhow::Result<()> {
    out.insert("widget.json".to_owned(), Arc::new(widget(data)?));
    out.insert(
        "embed".to_owned(),
        Arc::new(embed(data, templates, assets)?),
    );
    Ok(())
}

/// `widget.json`: what `embed.js` draws, readable from any origin.
pub fn widget(data: &PageData) -> anyhow::Result<Representation> {
    let widget = serde_json::to_vec(&Widget::new(data))?;
    Ok(Representation::new("application/json", widget, CachePolicy::PUBLIC).with_cors())
}

/// `embed`: the status as a small page other sites may frame (those the page lists).
pub fn embed(
    data: &PageData,
    templates: &Templates,
    assets: &Assets,
) -> anyhow::Result<Representation> {
    let tz = data.page.time_zone;
    let events = data
        .open_incidents()
        .chain(data.active_maintenances())
        .map(|e| EmbedEvent {
            name: e.name.clone(),
            url: e.url.clone(),
            status: e.status.label().to_owned(),
            updated: TimeView::new(e.updated_at, tz),
        })
        .collect();
    let view = EmbedView {
        name: data.page.name.clone(),
        url: data.page.url.clone(),
        css: assets.url("app.css"),
        banner: StatusLook::indicator(data.status.indicator),
        events,
        support: data
            .signin_affected()
            .then(|| format!("{}/support", data.page.url)),
    };
    let html = templates.render("pages/embed", &view)?;
    Ok(
        Representation::new("text/html; charset=utf-8", html, CachePolicy::PUBLIC)
            .framable_by(&data.page.embed_origins),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::services::public::fixtures::records as fixture;

    #[test]
    fn the_widget_names_what_is_going_on_and_where_to_turn() {
        let data = fixture::page();
        let widget = serde_json::to_value(Widget::new(&data)).unwrap();
        assert_eq!(widget["page"]["name"], "Acme Cloud");
        assert_eq!(
            widget["status"]["indicator"],
            data.status.indicator.as_str()
        );
        let open: Vec<&str> = data.open_incidents().map(|i| i.name.as_str()).collect();
        let listed: Vec<&str> = widget["incidents"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["name"].as_str().unwrap())
            .collect();
        assert_eq!(listed, open);
        assert!(!listed.is_empty(), "the fixture has an open incident");
        assert_eq!(
            widget["maintenances"].as_array().unwrap().len(),
            data.active_maintenances().len()
        );
        assert_eq!(widget["support_url"], "https://status.acme.test/support");
        assert_eq!(widget["signin_affected"], false);
    }

    #[test]
    fn the_script_is_small() {
        let js = Assets::load().source("embed.js").unwrap();
        let rep = Representation::new("text/javascript", js, CachePolicy::PUBLIC);
        let gzipped = rep.gzip.as_ref().unwrap().len();
        assert!(gzipped < 5 * 1024, "embed.js is {gzipped} bytes gzipped");
    }

    #[test]
    fn the_embed_is_framable_only_by_the_listed_sites() {
        let templates = Templates::load().unwrap();
        let assets = Assets::load();
        let mut data = fixture::page();
        let mut out = HashMap::new();
        render(&data, &templates, &assets, &mut out).unwrap();
        assert!(out["embed"].framed_by.is_none());
        assert!(out["widget.json"].cors);
        data.page.embed_origins = vec!["https://app.example.com".into()];
        render(&data, &templates, &assets, &mut out).unwrap();
        let policy = out["embed"].framed_by.as_ref().unwrap().to_str().unwrap();
        assert!(
            policy.ends_with("frame-ancestors https://app.example.com"),
            "{policy}"
        );
        assert!(policy.contains("script-src 'self'"), "{policy}");
    }
}
