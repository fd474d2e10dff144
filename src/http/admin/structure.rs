//! Managing a page's components (owners): `GET/POST /admin/pages/{slug}/components/new`,
//! `GET/POST /admin/pages/{slug}/components/{id}` (name, description, group, region,
//! position) and `POST .../components/{id}/delete`. Groups are in [`super::groups`]. Every
//! write records its audit row and refreshes the public page; the handlers are
//! [`super::record`]'s.

use actix_web::web;
use serde_json::{Value, json};

use super::fields::{filled, number, options, required, text};
use super::form::Submitted;
use super::groups::Groups;
use super::record::{self, Record, audit};
use crate::db::DbConn;
use crate::db::models::components::{Component, ComponentGroup};
use crate::db::models::pages::StatusPage;
use crate::domain::{ComponentId, PageId};
use crate::error::{AppResult, FieldErrors};
use crate::http::auth::Permission;
use crate::services::components::{self, NewComponentInput, UpdateComponentInput};
use crate::services::{page_admin, pages};

/// Registers the component and group management routes ("new" before "{id}").
pub fn routes(cfg: &mut web::ServiceConfig) {
    record::routes::<Components>(cfg);
    record::routes::<Groups>(cfg);
}

/// A page's components; the form lists the page's groups.
pub struct Components;

impl Record for Components {
    type Lists = Vec<ComponentGroup>;
    type Row = Component;
    type New = NewComponentInput;
    type Patch = UpdateComponentInput;
    type Id = ComponentId;

    const PERMISSION: Permission = Permission::Admin;
    const PATHS: (&'static str, &'static str) = ("components", "components");
    const FIELDS: &'static [&'static str] =
        &["name", "description", "group_id", "region", "position"];
    const NOUNS: (&'static str, &'static str) = ("Component", "a component");
    const AUDIT: [&'static str; 4] = audit!("component");
    const TEMPLATE: &'static str = "admin/component_form";

    /// The page of `slug` and its groups.
    fn context(c: &mut DbConn, slug: &str) -> AppResult<(StatusPage, Vec<ComponentGroup>)> {
        let page = pages::get_page_by_slug(c, slug)?;
        let groups = components::list_groups(c, &page.id)?;
        Ok((page, groups))
    }

    fn row(c: &mut DbConn, page: &StatusPage, id: &ComponentId) -> AppResult<Component> {
        components::get_page_component(c, &page.id, id)
    }

    fn names(component: &Component) -> (&str, &str) {
        (&component.id, &component.name)
    }

    fn stored(component: &Component) -> Submitted {
        let opt = |v: &Option<String>| v.clone().unwrap_or_default();
        filled([
            ("name", component.name.clone()),
            ("description", opt(&component.description)),
            (
                "group_id",
                component.group_id.as_deref().unwrap_or_default().to_owned(),
            ),
            ("region", opt(&component.region)),
            ("position", component.position.to_string()),
        ])
    }

    /// The group choices.
    fn extra(groups: &Vec<ComponentGroup>, form: &Submitted, _: Option<&FieldErrors>) -> Value {
        let choices = std::iter::once((String::new(), "No group".to_owned()))
            .chain(groups.iter().map(|g| (g.id.to_string(), g.name.clone())));
        json!({ "groups": options(choices, form.get("group_id")) })
    }

    fn new_input(form: &Submitted) -> Result<NewComponentInput, FieldErrors> {
        new_input(form)
    }

    fn patch_input(form: &Submitted) -> Result<UpdateComponentInput, FieldErrors> {
        update_input(form)
    }

    fn create(c: &mut DbConn, page_id: &PageId, input: &NewComponentInput) -> AppResult<String> {
        Ok(components::create_component(c, page_id, input)?.id.into())
    }

    fn update(
        c: &mut DbConn,
        _: &PageId,
        id: &ComponentId,
        input: &UpdateComponentInput,
    ) -> AppResult<()> {
        components::update_component(c, id, input).map(drop)
    }

    fn delete(c: &mut DbConn, page_id: &PageId, id: &ComponentId) -> AppResult<()> {
        page_admin::delete_component(c, page_id, id)
    }
}

/// The input of `create_component`, or the fields that could not be read.
fn new_input(form: &Submitted) -> Result<NewComponentInput, FieldErrors> {
    let mut errors = FieldErrors::new();
    let input = NewComponentInput {
        name: form.get("name").to_owned(),
        description: text(form, "description"),
        group_id: text(form, "group_id"),
        region: text(form, "region"),
        position: number(form, "position", &mut errors),
        ..NewComponentInput::default()
    };
    if !errors.is_empty() {
        // Refused before the service sees it: report a blank name too.
        required(form, "name", &mut errors);
    }
    errors.is_empty().then_some(input).ok_or(errors)
}

/// The input of `update_component`: every field replaced (blank clears), a blank position
/// keeps the current one.
fn update_input(form: &Submitted) -> Result<UpdateComponentInput, FieldErrors> {
    let mut errors = FieldErrors::new();
    let input = UpdateComponentInput {
        name: Some(form.get("name").to_owned()),
        description: Some(text(form, "description")),
        group_id: Some(text(form, "group_id")),
        region: Some(text(form, "region")),
        position: number(form, "position", &mut errors),
        showcase: None,
    };
    if !errors.is_empty() {
        // Refused before the service sees it: report a blank name too.
        required(form, "name", &mut errors);
    }
    errors.is_empty().then_some(input).ok_or(errors)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_blank_field_clears_it_and_a_bad_position_is_reported() {
        let form = filled([
            ("name", "API".to_owned()),
            ("region", " ".to_owned()),
            ("position", "x".to_owned()),
        ]);
        let errors = update_input(&form).unwrap_err();
        assert!(errors.contains_key("position"));
        let form = filled([("name", "API".to_owned()), ("region", String::new())]);
        let input = update_input(&form).unwrap();
        assert_eq!(input.region, Some(None));
        assert_eq!(input.position, None);
        assert!(crate::http::admin::fields::ticked(
            &filled([("x", "yes".to_owned())]),
            "x"
        ));
    }
}
