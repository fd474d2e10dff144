"""Drives Herald's /v1 with atlassian-python-api's StatusPage client, unchanged, through every
method that maps onto an operation Herald supports (pages, components and groups, incidents and
their updates, postmortems, templates, subscribers, the embed's look). Prints one JSON object of what it made and read, for the Rust test to
check against Herald's own /api/v1 and public pages.

Usage: python client.py BASE_URL TOKEN PAGE_SLUG WEBHOOK_URL
"""

import json
import sys
from datetime import datetime, timedelta, timezone

from atlassian.statuspage import StatusPage
from requests import HTTPError



def explain(kind, value, trace):
    """A refused call names its request and Herald's answer."""
    if isinstance(value, HTTPError):
        request, response = value.request, value.response
        print(request.method, request.url, response.status_code, response.text, file=sys.stderr)
    sys.__excepthook__(kind, value, trace)


sys.excepthook = explain
base, token, slug, hook_url = sys.argv[1:5]
sp = StatusPage(url=base, token=token)
out = {}


def refused(call):
    """The status and message of a call Herald must refuse."""
    try:
        call()
    except HTTPError as e:
        return {"status": e.response.status_code, "body": e.response.json()}
    raise AssertionError("the call was not refused")


# Pages: list, get by slug and by id, change.
pages = sp.page_list_pages()
page = next(p for p in pages if p["subdomain"] == slug)
page_id = page["id"]
out["page_by_slug"] = sp.get_page(slug)["id"]
out["page"] = sp.page_update(page_id, {"name": "Acme Cloud", "time_zone": "Europe/Berlin"})

# Components and a group of them, statuses changed.
api = sp.page_create_component(page_id, {"name": "API", "description": "The REST API", "status": "operational", "showcase": True})
db = sp.page_create_component(page_id, {"name": "Database", "status": "operational"})
web = sp.page_create_component(page_id, {"name": "Website"})
group = sp.page_create_component_group(page_id, "Core services", {"name": "Core", "components": [api["id"], db["id"]]})
out["group"] = group
out["group_read"] = sp.page_get_component_group(page_id, group["id"])
out["group_renamed"] = sp.page_update_component_group(page_id, group["id"], "The core", {"name": "Core platform", "components": [api["id"], db["id"]]})
out["groups"] = sp.page_get_list_of_component_groups(page_id)
out["api_degraded"] = sp.page_update_component(page_id, api["id"], {"status": "degraded_performance"})
out["api_read"] = sp.page_get_component(page_id, api["id"])
out["components"] = sp.page_get_components(page_id)
out["uptime"] = sp.page_get_uptime_component(page_id, api["id"])
out["group_uptime"] = sp.page_get_uptime_for_component_group(page_id, group["id"])
spare = sp.page_create_component_group(page_id, "Unused", {"name": "Spare", "components": [web["id"]]})
out["spare_deleted"] = sp.page_delete_component_group(page_id, spare["id"])
sp.page_delete_component(page_id, web["id"])
out["deleted_component"] = web["id"]

# Subscribers before the incident: a mail one to confirm, one confirmed at once, a webhook.
out["pending"] = sp.page_create_subscriber(page_id, {"email": "ops@example.com", "component_ids": [db["id"]]})
out["direct"] = sp.page_create_subscriber(page_id, {"email": "direct@example.com", "skip_confirmation_notification": True})
out["hook"] = sp.page_create_subscriber(page_id, {"endpoint": hook_url, "email": "hooks@example.com", "component_ids": [db["id"]]})
# Two who follow the API only (the incident does not reach them), and leave.
out["leaving"] = sp.page_create_subscriber(page_id, {"email": "leaving@example.com", "component_ids": [api["id"]], "skip_confirmation_notification": True})
out["bulk"] = sp.page_create_subscriber(page_id, {"email": "bulk@example.com", "component_ids": [api["id"]], "skip_confirmation_notification": True})

# An incident with component statuses and notifications, updated, resolved.
incident = sp.page_create_incident(page_id, {
    "name": "Database errors",
    "status": "investigating",
    "body": "We are looking into errors from the database.",
    "impact_override": "major",
    "components": {db["id"]: "major_outage"},
    "component_ids": [db["id"]],
    "deliver_notifications": True,
    "metadata": {"jira": {"issue_id": "OPS-12"}},
})
out["incident"] = incident
out["identified"] = sp.page_update_incident(page_id, incident["id"], {
    "status": "identified",
    "body": "A full disk on the primary.",
    "components": {db["id"]: "partial_outage"},
})
first_update = incident["incident_updates"][0]["id"]
out["corrected"] = sp.page_update_incident_updates(page_id, incident["id"], first_update, {"body": "We are looking into errors from the primary database."})
out["resolved"] = sp.page_update_incident(page_id, incident["id"], {
    "status": "resolved",
    "body": "Space was freed; errors stopped.",
    "components": {db["id"]: "operational"},
})
out["postmortem_draft"] = sp.page_create_postmortem(page_id, incident["id"], "A full disk stopped the primary database.")
out["postmortem_published"] = sp.page_publish_postmortem(page_id, incident["id"], {"notify_subscribers": True})
out["postmortem_reverted"] = sp.page_revert_postmortem(page_id, incident["id"])
out["postmortem_republished"] = sp.page_publish_postmortem(page_id, incident["id"], {"notify_subscribers": False})
out["postmortem_read"] = sp.page_get_postmortem(page_id, incident["id"])
out["incident_read"] = sp.page_get_incident(page_id, incident["id"])
out["search"] = sp.page_list_incidents(page_id, "primary")
out["unresolved"] = sp.page_list_unresolved_incidents(page_id)

# Subscribers: counted, listed, searched, read, changed, reminded, unsubscribed.
out["incident_subscribers"] = sp.page_list_incident_subscribers(page_id, incident["id"])
out["incident_subscriber"] = sp.page_get_incident_subscriber(page_id, incident["id"], out["direct"]["id"])
out["incident_subscriber_refused"] = refused(lambda: sp.page_create_incident_subscriber(page_id, incident["id"], {"email": "one@example.com"}))
out["incident_unsubscribe_refused"] = refused(lambda: sp.page_unsubscribe_incident_subscriber(page_id, incident["id"], out["direct"]["id"]))
out["incident_resend_refused"] = refused(lambda: sp.page_resend_confirmation_incident_subscriber(page_id, incident["id"], out["pending"]["id"]))
out["count_active"] = sp.page_count_subscribers_by_type(page_id, "email", "active")
out["count_all"] = sp.page_count_subscribers_by_type(page_id, "email", "all")
out["count_webhooks"] = sp.page_count_subscribers_by_type(page_id, "webhook", "all")
out["histogram"] = sp.page_get_histogram_of_subscribers_with_state(page_id)
out["listed"] = sp.page_get_subscribers(page_id, {"subscriber_state": "all", "sort_field": "created_at"})
out["searched"] = sp.page_get_subscribers(page_id, {"q": "DIRECT@", "subscriber_type": "email"})
out["read"] = sp.page_get_subscriber(page_id, out["pending"]["id"])
out["updated"] = sp.page_update_subscriber(page_id, out["pending"]["id"], [db["id"], api["id"]])
sp.page_resend_confirmation_subscribers(page_id, out["pending"]["id"])
sp.page_resend_confirmations_to_subscribers(page_id, [out["pending"]["id"]])
sp.page_reactivate_subscribers(page_id, [out["hook"]["id"]], "webhook")
out["unsubscribed"] = sp.page_unsubscribe_subscriber(page_id, out["leaving"]["id"])
sp.page_unsubscribe_subscribers(page_id, [out["bulk"]["id"]], "email")
out["unsubscribed_list"] = sp.page_get_list_unsubscribed(page_id)
out["count_after"] = sp.page_count_subscribers_by_type(page_id, "email", "active")

# The embed's look.
out["embed_before"] = sp.page_get_embed_config_settings(page_id)
out["embed"] = sp.page_update_embed_config_settings(page_id, {"position": "bottom-right", "incident_background_color": "#FFAA00", "maintenance_text_color": "#123"})

# A maintenance that starts and completes by itself.
now = datetime.now(timezone.utc)
maintenance = sp.page_create_incident(page_id, {
    "name": "Database upgrade",
    "status": "scheduled",
    "body": "We will upgrade the database.",
    "scheduled_for": (now + timedelta(hours=2)).isoformat(),
    "scheduled_until": (now + timedelta(hours=3)).isoformat(),
    "scheduled_auto_in_progress": True,
    "scheduled_auto_completed": True,
    "component_ids": [db["id"]],
})
out["maintenance"] = maintenance
out["scheduled"] = sp.page_list_scheduled_incidents(page_id)
out["upcoming"] = sp.page_list_upcoming_incidents(page_id)
out["active_maintenance"] = sp.page_list_active_maintenances(page_id)

# A historical incident: a backfill with its own date, which notifies nobody.
out["backfill"] = sp.page_create_incident(page_id, {
    "name": "Outage last spring",
    "body": "Backfilled from our records.",
    "backfilled": True,
    "backfill_date": "2026-04-02",
    "deliver_notifications": True,
})

sp.page_create_postmortem(page_id, out["backfill"]["id"], "Written and then withdrawn.")
sp.page_delete_postmortem(page_id, out["backfill"]["id"])
out["postmortem_deleted"] = refused(lambda: sp.page_get_postmortem(page_id, out["backfill"]["id"]))

# An incident deleted.
doomed = sp.page_create_incident(page_id, {"name": "Opened by mistake", "deliver_notifications": False})
out["deleted"] = sp.page_delete_incident(page_id, doomed["id"])

# Templates.
out["template"] = sp.page_create_template(page_id, {"name": "DB down", "title": "Database unavailable", "body": "The database does not answer.", "component_ids": [db["id"]]})
out["templates"] = sp.page_get_templates(page_id)

# What Herald does not have: a refusal in the document's shape, never a success.
out["metrics_refused"] = refused(lambda: sp.page_get_list_of_metrics(page_id))

print(json.dumps(out))
