//! `/pages`: list, get and update (PATCH or PUT) a page.

use actix_web::{HttpResponse, web};
use serde::Deserialize;

use super::error::V1Result;
use super::request::{Body, V1};
use super::views;
use crate::error::{AppError, AppResult};
use crate::http::api::run::Record;
use crate::http::auth::Permission;
use crate::services::idempotency::Answer;
use crate::services::pages::{self as service, UpdatePageInput};
use crate::services::public::page_url;

/// `GET /pages`: every page.
pub async fn list(v1: V1) -> V1Result<HttpResponse> {
    let base = base_url(&v1);
    Ok(v1
        .read(Permission::Read, move |c| {
            let pages = service::list_pages(c)?;
            Ok(pages
                .iter()
                .map(|p| views::page(p, &page_url(p, &base)))
                .collect())
        })
        .await?)
}

/// `GET /pages/{page_id}`.
pub async fn get(v1: V1, page_id: web::Path<String>) -> V1Result<HttpResponse> {
    let base = base_url(&v1);
    let page_id = page_id.into_inner();
    v1.in_page(Permission::Read, page_id, move |_, page| {
        Ok(views::page(page, &page_url(page, &base)))
    })
    .await
}

/// Herald's base URL, for the pages' public addresses.
pub fn base_url(v1: &V1) -> String {
    v1.state()
        .settings
        .public_url
        .trim_end_matches('/')
        .to_owned()
}

/// The fields of `{"page": {...}}` Herald keeps. Statuspage's other settings are Herald's
/// fixed behaviour; each is taken when it asks for that behaviour and refused otherwise.
#[derive(Debug, Default, Deserialize)]
struct PagePatch {
    name: Option<String>,
    domain: Option<String>,
    subdomain: Option<String>,
    url: Option<String>,
    time_zone: Option<String>,
    css_link_color: Option<String>,
    hidden_from_search: Option<super::flex::Flag>,
    viewers_must_be_team_members: Option<super::flex::Flag>,
    allow_page_subscribers: Option<super::flex::Flag>,
    allow_incident_subscribers: Option<super::flex::Flag>,
    allow_email_subscribers: Option<super::flex::Flag>,
    allow_sms_subscribers: Option<super::flex::Flag>,
    allow_rss_atom_feeds: Option<super::flex::Flag>,
    allow_webhook_subscribers: Option<super::flex::Flag>,
    branding: Option<String>,
    notifications_from_email: Option<String>,
    notifications_email_footer: Option<String>,
    css_body_background_color: Option<String>,
    css_font_color: Option<String>,
    css_light_font_color: Option<String>,
    css_greens: Option<String>,
    css_yellows: Option<String>,
    css_oranges: Option<String>,
    css_reds: Option<String>,
    css_blues: Option<String>,
    css_border_color: Option<String>,
    css_graph_color: Option<String>,
    css_no_data: Option<String>,
}

impl PagePatch {
    /// Herald's page input, or a 422 on the first setting Herald does not have.
    fn input(&self, page: &crate::db::models::pages::StatusPage) -> AppResult<UpdatePageInput> {
        let fixed: [(&str, Option<super::flex::Flag>, bool); 6] = [
            ("allow_page_subscribers", self.allow_page_subscribers, true),
            (
                "allow_incident_subscribers",
                self.allow_incident_subscribers,
                false,
            ),
            (
                "allow_email_subscribers",
                self.allow_email_subscribers,
                true,
            ),
            ("allow_sms_subscribers", self.allow_sms_subscribers, false),
            ("allow_rss_atom_feeds", self.allow_rss_atom_feeds, true),
            (
                "allow_webhook_subscribers",
                self.allow_webhook_subscribers,
                true,
            ),
        ];
        for (field, given, herald) in fixed {
            if given.is_some_and(|g| g.0 != herald) {
                return Err(AppError::field(
                    field,
                    format!("Herald's pages always have this {herald}"),
                ));
            }
        }
        let restricted = page.visibility != crate::domain::Visibility::Public;
        for (field, given) in [
            ("hidden_from_search", self.hidden_from_search),
            (
                "viewers_must_be_team_members",
                self.viewers_must_be_team_members,
            ),
        ] {
            if given.is_some_and(|g| g.0 != restricted) {
                return Err(AppError::field(
                    field,
                    "follows the page's visibility in Herald; set it in the console or with \
                     PATCH /api/v1/pages/{slug} (visibility)",
                ));
            }
        }
        let unkept = [
            ("branding", &self.branding),
            ("notifications_from_email", &self.notifications_from_email),
            (
                "notifications_email_footer",
                &self.notifications_email_footer,
            ),
            ("css_body_background_color", &self.css_body_background_color),
            ("css_font_color", &self.css_font_color),
            ("css_light_font_color", &self.css_light_font_color),
            ("css_greens", &self.css_greens),
            ("css_yellows", &self.css_yellows),
            ("css_oranges", &self.css_oranges),
            ("css_reds", &self.css_reds),
            ("css_blues", &self.css_blues),
            ("css_border_color", &self.css_border_color),
            ("css_graph_color", &self.css_graph_color),
            ("css_no_data", &self.css_no_data),
        ];
        if let Some((field, _)) = unkept.iter().find(|(_, v)| v.is_some()) {
            return Err(AppError::field(
                field,
                "is not a setting Herald has (its look is the page's brand colour, theme and \
                 CSS; its mail is set for the whole server)",
            ));
        }
        let blank_is_none = |v: &Option<String>| {
            v.as_ref()
                .map(|v| (!v.trim().is_empty()).then(|| v.trim().to_owned()))
        };
        Ok(UpdatePageInput {
            name: self.name.clone(),
            slug: self.subdomain.clone(),
            custom_domain: blank_is_none(&self.domain),
            public_url: blank_is_none(&self.url),
            time_zone: self.time_zone.clone(),
            brand_color: blank_is_none(&self.css_link_color),
            ..UpdatePageInput::default()
        })
    }
}

/// `PATCH` or `PUT /pages/{page_id}` with `{"page": {...}}` (owners).
#[tracing::instrument(skip_all)]
pub async fn update(v1: V1, page_id: web::Path<String>, body: Body) -> V1Result<HttpResponse> {
    let patch: PagePatch = body.inside("page", &[])?;
    let base = base_url(&v1);
    let page_id = page_id.into_inner();
    v1.write_in_page(Permission::Admin, page_id, body.0, move |c, page| {
        let input = patch
            .input(page)
            .map_err(|e| super::error::within("page", e))?;
        let page = service::update_page(c, &page.id, &input)
            .map_err(|e| super::error::within("page", e))?;
        let answer = Answer::new(200, views::page(&page, &page_url(&page, &base)));
        Ok((answer, Record::new("page.update", "page", page.id.as_str())))
    })
    .await
}
