//! The form page and the "received" page, rendered from the in-memory page data (never from
//! the database). The blank form is rendered once per page snapshot and kept with a
//! placeholder where the form token goes; each request only splices in a fresh token.

use std::collections::HashMap;
use std::sync::{Arc, RwLock};

use bytes::{Bytes, BytesMut};
use serde::Serialize;

use super::Topic;
use super::form::{MAX_ACCOUNT, MAX_MESSAGE, MAX_NAME, SupportForm};
use crate::domain::lang::Lang;
use crate::error::FieldErrors;
use crate::render::html::choice::Choice;
use crate::render::html::events::EventCard;
use crate::render::html::format::Locale;
use crate::render::html::frame::{Frame, Section};
use crate::render::site::Renderer;
use crate::services::public::data::PageData;

/// Stands for the form token in a cached render.
const PLACEHOLDER: &str = "__herald_support_form_token__";

/// Where a page's form is reached: `/status/{slug}` or `` (the page of the request's host),
/// and the language it is read in.
#[derive(Debug, Clone)]
pub struct Place {
    pub prefix: String,
    pub lang: Lang,
}

impl Place {
    pub fn action(&self) -> String {
        format!("{}/support", self.prefix)
    }
}

/// Blank forms rendered once per page snapshot, by prefix and language.
#[derive(Default)]
pub struct FormCache {
    forms: RwLock<HashMap<(String, Lang), Arc<CachedForm>>>,
}

struct CachedForm {
    data: Arc<PageData>,
    head: Bytes,
    tail: Bytes,
}

impl FormCache {
    /// The blank form of `data` reached at `place`, with `token` in it.
    pub fn blank(
        &self,
        renderer: &Renderer,
        data: &Arc<PageData>,
        place: &Place,
        token: &str,
    ) -> anyhow::Result<Bytes> {
        let lang = place.lang;
        let key = (place.prefix.clone(), lang);
        let cached = self
            .forms
            .read()
            .ok()
            .and_then(|m| m.get(&key).cloned())
            .filter(|c| Arc::ptr_eq(&c.data, data));
        let cached = match cached {
            Some(c) => c,
            None => {
                let blank = SupportForm::default();
                let view = FormView::new(renderer, data, place, &blank, None, None, PLACEHOLDER);
                let html = renderer.templates.render_in(lang, "pages/support", &view)?;
                let mut parts = html.split(PLACEHOLDER);
                let (Some(head), Some(tail), None) = (parts.next(), parts.next(), parts.next())
                else {
                    // The page's own text contains the placeholder: render each time instead.
                    return render_form(
                        renderer,
                        data,
                        place,
                        &SupportForm::default(),
                        None,
                        None,
                        token,
                    );
                };
                let fresh = Arc::new(CachedForm {
                    data: data.clone(),
                    head: Bytes::copy_from_slice(head.as_bytes()),
                    tail: Bytes::copy_from_slice(tail.as_bytes()),
                });
                if let Ok(mut forms) = self.forms.write() {
                    forms.insert(key, fresh.clone());
                }
                fresh
            }
        };
        let mut out = BytesMut::with_capacity(cached.head.len() + token.len() + cached.tail.len());
        out.extend_from_slice(&cached.head);
        out.extend_from_slice(token.as_bytes());
        out.extend_from_slice(&cached.tail);
        Ok(out.freeze())
    }
}

/// The form with what was typed, a message per field and a notice at the top.
pub fn render_form(
    renderer: &Renderer,
    data: &PageData,
    place: &Place,
    typed: &SupportForm,
    errors: Option<&FieldErrors>,
    notice: Option<&str>,
    token: &str,
) -> anyhow::Result<Bytes> {
    let view = FormView::new(renderer, data, place, typed, errors, notice, token);
    let html = renderer
        .templates
        .render_in(place.lang, "pages/support", &view)?;
    Ok(Bytes::from(html))
}

/// The "message received" page.
pub fn render_sent(
    renderer: &Renderer,
    data: &PageData,
    place: &Place,
    reference: &str,
) -> anyhow::Result<Bytes> {
    let lang = place.lang;
    let loc = Locale::of_page(&data.page, lang);
    let overview = match place.prefix.is_empty() {
        true => "/".to_owned(),
        false => place.prefix.clone(),
    };
    let view = SentView {
        frame: Frame::page(
            Some(&loc.text("support-sent-title")),
            Section::Other,
            data,
            &renderer.assets,
            loc,
            &format!("{}/sent?reference={reference}", place.action()),
        ),
        support_css: renderer.assets.url("support.css"),
        reference: reference.to_owned(),
        known: known(data, loc),
        overview: loc.href(&overview),
        form: loc.href(&place.action()),
    };
    Ok(Bytes::from(renderer.templates.render_in(
        lang,
        "pages/support_sent",
        &view,
    )?))
}

#[derive(Serialize)]
struct SentView {
    frame: Frame,
    support_css: String,
    reference: String,
    known: Vec<EventCard>,
    overview: String,
    form: String,
}

#[derive(Serialize)]
struct FormView<'a> {
    frame: Frame,
    support_css: String,
    page_name: &'a str,
    action: String,
    known: Vec<EventCard>,
    notice: Option<&'a str>,
    topics: Vec<Choice>,
    components: Vec<Choice>,
    values: Values,
    errors: Errors,
    token: &'a str,
    limits: Limits,
}

/// What was typed, shown again to be fixed.
#[derive(Serialize)]
struct Values {
    name: String,
    email: String,
    account: String,
    message: String,
    copy: bool,
}

/// `typed` as it can be shown again: a control character (which the form refuses, and which
/// HTML cannot carry: U+0000 in a page is a parse error) becomes U+FFFD, so the reader sees
/// where it was; line breaks and tabs stay.
fn shown(typed: &str) -> String {
    typed
        .chars()
        .map(|c| match c {
            '\n' | '\r' | '\t' => c,
            c if c.is_control() => '\u{FFFD}',
            c => c,
        })
        .collect()
}

/// The first message of each field (absent fields serialize as null, as strict mode needs).
#[derive(Serialize, Default)]
struct Errors {
    name: Option<String>,
    email: Option<String>,
    topic: Option<String>,
    component: Option<String>,
    account: Option<String>,
    message: Option<String>,
}

#[derive(Serialize)]
struct Limits {
    name: usize,
    account: usize,
    message: usize,
}

impl<'a> FormView<'a> {
    fn new(
        renderer: &Renderer,
        data: &'a PageData,
        place: &Place,
        typed: &'a SupportForm,
        errors: Option<&FieldErrors>,
        notice: Option<&'a str>,
        token: &'a str,
    ) -> Self {
        let loc = Locale::of_page(&data.page, place.lang);
        let first = |field: &str| {
            errors
                .and_then(|e| e.get(field))
                .and_then(|m| m.first())
                .cloned()
        };
        let topic = typed.topic.trim();
        let component = typed.component.trim();
        let mut components = vec![Choice {
            value: String::new(),
            label: loc.text("support-component-none"),
            selected: component.is_empty(),
        }];
        components.extend(data.components.iter().map(|c| Choice {
            selected: c.id == component,
            value: c.id.clone(),
            label: crate::domain::component_label(&c.name, c.region.as_deref()),
        }));
        Self {
            frame: Frame::page(
                Some(&loc.text("support-title")),
                Section::Other,
                data,
                &renderer.assets,
                loc,
                &place.action(),
            ),
            support_css: renderer.assets.url("support.css"),
            page_name: &data.page.name,
            action: loc.href(&place.action()),
            known: known(data, loc),
            notice,
            topics: Topic::ALL
                .iter()
                .map(|t| Choice {
                    value: t.as_str().to_owned(),
                    label: loc.text(&format!("support-topic-{}", t.as_str())),
                    selected: t.as_str() == topic,
                })
                .collect(),
            components,
            values: Values {
                name: shown(&typed.name),
                email: shown(&typed.email),
                account: shown(&typed.account),
                message: shown(&typed.message),
                copy: !typed.copy.is_empty(),
            },
            errors: Errors {
                name: first("name"),
                email: first("email"),
                topic: first("topic"),
                component: first("component"),
                account: first("account"),
                message: first("message"),
            },
            token,
            limits: Limits {
                name: MAX_NAME,
                account: MAX_ACCOUNT,
                message: MAX_MESSAGE,
            },
        }
    }
}

/// The open incidents, as cards: what the people writing in probably see.
fn known(data: &PageData, loc: Locale) -> Vec<EventCard> {
    let (path, as_of) = (&data.page.path, data.as_of);
    data.open_incidents()
        .map(|e| EventCard::new(e, path, loc, as_of))
        .collect()
}
