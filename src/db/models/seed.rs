//! Writes only the demo seeder needs: giving freshly created components a past.

use chrono::NaiveDateTime;
use diesel::prelude::*;

use crate::db::DbConn;
use crate::db::schema::{component_status_changes, components};
use crate::domain::ComponentId;

/// Moves a component's creation (and its first status row) back to `at`, so its uptime bar has
/// history before the incidents the seeder back-dates.
pub fn backdate_component(
    conn: &mut DbConn,
    component_id: &ComponentId,
    at: NaiveDateTime,
) -> QueryResult<()> {
    diesel::update(components::table.find(component_id))
        .set((components::created_at.eq(at), components::updated_at.eq(at)))
        .execute(conn)?;
    diesel::update(
        component_status_changes::table
            .filter(component_status_changes::component_id.eq(component_id))
            .filter(component_status_changes::old_status.is_null()),
    )
    .set(component_status_changes::changed_at.eq(at))
    .execute(conn)?;
    Ok(())
}
