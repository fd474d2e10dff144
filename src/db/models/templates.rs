//! Incident templates: a page's prepared name, impact, message and component statuses.

use chrono::NaiveDateTime;
use diesel::prelude::*;

use crate::db::DbConn;
use crate::db::schema::incident_templates;
use crate::domain::PageId;

/// A prepared incident.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Insertable, Identifiable)]
#[diesel(table_name = incident_templates)]
pub struct IncidentTemplate {
    pub id: String,
    pub page_id: PageId,
    /// The template's own name, unique on its page.
    pub name: String,
    /// The incident name it pre-fills.
    pub title: String,
    pub impact: Option<String>,
    pub body: String,
    /// Component id → status, as a JSON object.
    pub components: String,
    pub created_at: NaiveDateTime,
    pub updated_at: NaiveDateTime,
}

/// Inserts a template.
pub fn insert(conn: &mut DbConn, template: &IncidentTemplate) -> QueryResult<usize> {
    diesel::insert_into(incident_templates::table)
        .values(template)
        .execute(conn)
}

/// The template with this id.
pub fn find(conn: &mut DbConn, id: &str) -> QueryResult<IncidentTemplate> {
    incident_templates::table
        .find(id)
        .select(IncidentTemplate::as_select())
        .first(conn)
}

/// A page's templates by name.
pub fn list(conn: &mut DbConn, page_id: &PageId) -> QueryResult<Vec<IncidentTemplate>> {
    incident_templates::table
        .filter(incident_templates::page_id.eq(page_id))
        .order(incident_templates::name.asc())
        .select(IncidentTemplate::as_select())
        .load(conn)
}

/// Replaces every field of a template but its id, page and creation time.
pub fn replace(conn: &mut DbConn, template: &IncidentTemplate) -> QueryResult<usize> {
    diesel::update(incident_templates::table.find(&template.id))
        .set((
            incident_templates::name.eq(&template.name),
            incident_templates::title.eq(&template.title),
            incident_templates::impact.eq(&template.impact),
            incident_templates::body.eq(&template.body),
            incident_templates::components.eq(&template.components),
            incident_templates::updated_at.eq(template.updated_at),
        ))
        .execute(conn)
}

/// Deletes a template; returns how many rows went (0 or 1).
pub fn delete(conn: &mut DbConn, id: &str) -> QueryResult<usize> {
    diesel::delete(incident_templates::table.find(id)).execute(conn)
}
