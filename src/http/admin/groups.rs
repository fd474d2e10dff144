//! Managing a page's component groups (owners): `GET/POST /admin/pages/{slug}/groups/new`,
//! `GET/POST /admin/pages/{slug}/groups/{id}` (name, description, position) and
//! `POST .../groups/{id}/delete` (its components stay, ungrouped). The handlers are
//! [`super::record`]'s.

use serde_json::{Value, json};

use super::fields::{filled, number, required, text};
use super::form::Submitted;
use super::record::{Record, audit};
use crate::db::DbConn;
use crate::db::models::components::ComponentGroup;
use crate::db::models::pages::StatusPage;
use crate::domain::{GroupId, PageId};
use crate::error::{AppResult, FieldErrors};
use crate::http::auth::Permission;
use crate::services::components::{self, GroupInput};
use crate::services::page_admin::{self, GroupPatch};
use crate::services::pages;

/// A page's component groups.
pub struct Groups;

impl Record for Groups {
    type Lists = ();
    type Row = ComponentGroup;
    type New = GroupInput;
    type Patch = GroupPatch;
    type Id = GroupId;

    const PERMISSION: Permission = Permission::Admin;
    const PATHS: (&'static str, &'static str) = ("groups", "components");
    const FIELDS: &'static [&'static str] = &["name", "description", "position"];
    const NOUNS: (&'static str, &'static str) = ("Group", "a component group");
    const AUDIT: [&'static str; 4] = audit!("component_group");
    const TEMPLATE: &'static str = "admin/group_form";

    fn context(c: &mut DbConn, slug: &str) -> AppResult<(StatusPage, ())> {
        Ok((pages::get_page_by_slug(c, slug)?, ()))
    }

    fn row(c: &mut DbConn, page: &StatusPage, id: &GroupId) -> AppResult<ComponentGroup> {
        page_admin::get_group(c, &page.id, id)
    }

    fn names(group: &ComponentGroup) -> (&str, &str) {
        (&group.id, &group.name)
    }

    fn stored(group: &ComponentGroup) -> Submitted {
        filled([
            ("name", group.name.clone()),
            ("description", group.description.clone().unwrap_or_default()),
            ("position", group.position.to_string()),
        ])
    }

    fn extra(_: &(), _: &Submitted, _: Option<&FieldErrors>) -> Value {
        json!({})
    }

    fn new_input(form: &Submitted) -> Result<GroupInput, FieldErrors> {
        let (name, description, position) = group_input(form)?;
        Ok(GroupInput {
            name,
            description,
            position,
        })
    }

    fn patch_input(form: &Submitted) -> Result<GroupPatch, FieldErrors> {
        let (name, description, position) = group_input(form)?;
        Ok(GroupPatch {
            name: Some(name),
            description: Some(description),
            position,
        })
    }

    fn create(c: &mut DbConn, page_id: &PageId, input: &GroupInput) -> AppResult<String> {
        Ok(components::create_group(c, page_id, input)?.id.into())
    }

    fn update(c: &mut DbConn, page_id: &PageId, id: &GroupId, patch: &GroupPatch) -> AppResult<()> {
        page_admin::update_group(c, page_id, id, patch).map(drop)
    }

    fn delete(c: &mut DbConn, page_id: &PageId, id: &GroupId) -> AppResult<()> {
        page_admin::delete_group(c, page_id, id)
    }
}

/// The group fields typed: name, description (blank clears) and position (blank: last, or
/// unchanged).
fn group_input(form: &Submitted) -> Result<(String, Option<String>, Option<i32>), FieldErrors> {
    let mut errors = FieldErrors::new();
    let position = number(form, "position", &mut errors);
    let input = (
        form.get("name").to_owned(),
        text(form, "description"),
        position,
    );
    if !errors.is_empty() {
        // Refused before the service sees it: report a blank name too.
        required(form, "name", &mut errors);
    }
    errors.is_empty().then_some(input).ok_or(errors)
}
