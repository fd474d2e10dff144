//! The components as a status grid: a row per component, a column per status (and "No
//! change" on the incident forms), a radio in each cell. One grid sets every component in one
//! place, with the public page's tones and icons; arrow keys move along a row, Tab to the next
//! one. Without CSS it is a plain table of labelled radios; on a phone each row wraps into its
//! own block with the statuses named.

use serde::Serialize;

use super::form::{COMPONENT_PREFIX, Errors, Submitted};
use crate::db::models::components::Component;
use crate::domain::ComponentStatus;
use crate::render::html::format::StatusLook;

/// The value of the "No change" column.
const NO_CHANGE: &str = "";

/// The grid: its columns and one row per component.
#[derive(Debug, Serialize)]
pub struct StatusGrid {
    columns: Vec<Column>,
    rows: Vec<GridRow>,
}

/// A status a component can be set to (or no change).
#[derive(Debug, Clone, Serialize)]
struct Column {
    value: &'static str,
    label: &'static str,
    /// The public page's tone of the status ("ok", "partial", ...; "none" for no change).
    tone: &'static str,
}

/// One component's row.
#[derive(Debug, Serialize)]
struct GridRow {
    /// The form field (`component.{id}`).
    field: String,
    /// A prefix for the cells' element ids.
    key: String,
    name: String,
    current: &'static str,
    current_tone: &'static str,
    cells: Vec<Cell>,
    error: Option<String>,
}

/// One radio.
#[derive(Debug, Serialize)]
struct Cell {
    value: &'static str,
    label: &'static str,
    tone: &'static str,
    checked: bool,
}

/// Which statuses a grid offers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Choosing {
    /// An incident, maintenance or template form: "No change" first and chosen by default.
    Changes,
    /// The components page: the current status chosen; every component is set.
    Statuses,
}

fn columns(choosing: Choosing) -> Vec<Column> {
    let statuses = ComponentStatus::ALL.iter().map(|s| Column {
        value: s.as_str(),
        label: s.label(),
        tone: StatusLook::component_tone(*s),
    });
    let keep = Column {
        value: NO_CHANGE,
        label: "No change",
        tone: StatusLook::NO_DATA_TONE,
    };
    match choosing {
        Choosing::Changes => std::iter::once(keep).chain(statuses).collect(),
        Choosing::Statuses => statuses.collect(),
    }
}

/// The grid of `components`: each row's choice is the form's value for it when the form
/// carries one, else no change (or the current status on the components page).
pub fn status_grid(
    components: &[Component],
    form: &Submitted,
    errors: &Errors,
    choosing: Choosing,
) -> StatusGrid {
    let columns = columns(choosing);
    let rows = components
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let field = format!("{COMPONENT_PREFIX}{}", c.id);
            let asked = form.0.iter().find(|(k, _)| *k == field).map(|(_, v)| v);
            let chosen = match (asked, choosing) {
                (Some(value), _) => value.as_str(),
                (None, Choosing::Changes) => NO_CHANGE,
                (None, Choosing::Statuses) => c.status.as_str(),
            };
            GridRow {
                key: format!("grid-{i}"),
                name: crate::domain::component_label(&c.name, c.region.as_deref()),
                current: c.status.label(),
                current_tone: StatusLook::component_tone(c.status),
                cells: columns
                    .iter()
                    .map(|col| Cell {
                        value: col.value,
                        label: col.label,
                        tone: col.tone,
                        checked: col.value == chosen,
                    })
                    .collect(),
                error: errors.components.get(c.id.as_str()).cloned(),
                field,
            }
        })
        .collect();
    StatusGrid { columns, rows }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn component(id: &str, status: ComponentStatus) -> Component {
        let now = chrono::Utc::now().naive_utc();
        Component {
            id: id.parse().unwrap(),
            page_id: "p".parse().unwrap(),
            group_id: None,
            name: format!("API {id}"),
            description: None,
            region: None,
            position: 0,
            status,
            showcase: true,
            created_at: now,
            updated_at: now,
            signin: false,
        }
    }

    fn checked(grid: &StatusGrid) -> Vec<&str> {
        grid.rows
            .iter()
            .map(|r| {
                r.cells
                    .iter()
                    .find(|c| c.checked)
                    .map_or("none", |c| c.value)
            })
            .collect()
    }

    #[test]
    fn an_incident_form_keeps_each_status_unless_asked() {
        let parts = [
            component("a", ComponentStatus::MajorOutage),
            component("b", ComponentStatus::Operational),
        ];
        let form = Submitted(vec![("component.b".into(), "partial_outage".into())]);
        let grid = status_grid(&parts, &form, &Errors::default(), Choosing::Changes);
        assert_eq!(grid.columns.len(), ComponentStatus::ALL.len() + 1);
        assert_eq!(grid.columns[0].label, "No change");
        assert_eq!(checked(&grid), ["", "partial_outage"]);
        assert_eq!(grid.rows[0].current_tone, "major");
    }

    #[test]
    fn the_components_page_starts_from_the_current_statuses() {
        let parts = [component("a", ComponentStatus::UnderMaintenance)];
        let blank = status_grid(
            &parts,
            &Submitted::default(),
            &Errors::default(),
            Choosing::Statuses,
        );
        assert_eq!(blank.columns.len(), ComponentStatus::ALL.len());
        assert_eq!(checked(&blank), ["under_maintenance"]);
        let form = Submitted(vec![("component.a".into(), "operational".into())]);
        let asked = status_grid(&parts, &form, &Errors::default(), Choosing::Statuses);
        assert_eq!(checked(&asked), ["operational"]);
    }

    #[test]
    fn a_value_no_column_has_checks_nothing_so_the_error_shows_beside_it() {
        let parts = [component("a", ComponentStatus::Operational)];
        let form = Submitted(vec![("component.a".into(), "on_fire".into())]);
        let grid = status_grid(&parts, &form, &Errors::default(), Choosing::Changes);
        assert_eq!(checked(&grid), ["none"]);
    }
}
