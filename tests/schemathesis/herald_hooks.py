"""What the suite's schemathesis run (tests/api/schemathesis.rs) is told about rules that no
JSON schema can state. The document states each of them in words; for a request the document
allows (a positive case), the hooks make it follow them, so that such a request is expected to
be accepted. Negative cases are sent as generated.

- A webhook URL is one this machine can reach. The server refuses, with 422 on the field, a URL
  whose host does not resolve; the run's Herald allows loopback destinations
  (HERALD_ALLOW_PRIVATE_WEBHOOKS) and nothing listens on the port.
- Component ids in a body are ids of the page's components, as they are when the call is made
  (the run deletes some): the hook asks the API (HERALD_ST_BASE, HERALD_ST_TOKEN).
- An incident's start and a maintenance's window lie within ten years before now and two
  years after.
- A maintenance's scheduled_until is after its scheduled_for; a promised next update
  (next_update_by) is in the next seven days, and not given with a resolved or completed status; an incident's started_at is not in the future.
- An update's status is in its incident's vocabulary (an incident's or a maintenance's), and
  one its incident may move to from where it is.
- notify and its alias deliver_notifications agree when both are given.
- A record named in a path is one of the page's (the run makes components, groups, templates
  and incidents itself; the test makes a subscriber, its deliveries and a support submission).
- A delete acts on a record made for it on the spot (a page, or a record of the demo page), so
  that deletes never use up the records the other routes act on; so does a change of a page's
  slug (the demo page keeps its own).
- An integration's settings name components and a template of the page, severities and label
  values that are not blank, and a template whenever incidents are opened (incident_mode).
- Alerts are posted to an integration of their kind with its token (made on the spot, the
  token in the URL), and start no later than now.
- A proposed incident that is published or dismissed is one proposed on the spot (an alert on
  a component made for it).
- A vendor a component follows is one that can be read: the run's own demo page (Herald
  mirroring itself), naming one of its components; a mirror read or stopped is one made for
  it.
- A Statuspage import reads a page that can be read (the run's own demo page) into one page
  kept for it (`imported`), so that repeated imports add nothing; a subscriber import brings a
  file of one new address for the demo page.
- An Idempotency-Key is not reused with another body (the server answers 422, as the IETF
  draft asks): each positive case that carries one gets a fresh key.
"""

import json
import os
import urllib.error
import urllib.parse
import urllib.request
import uuid
from datetime import datetime, timedelta, timezone

import schemathesis
from hypothesis import strategies as st

RECEIVER = "http://127.0.0.1:9/"

schemathesis.openapi.format(
    "uri",
    st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789-", max_size=20).map(
        lambda path: RECEIVER + path
    ),
)


INCIDENT_STATUSES = ["investigating", "identified", "monitoring", "resolved"]
MAINTENANCE_STATUSES = ["scheduled", "in_progress", "verifying", "completed"]


def _read(case, path):
    """GET /api/v1/pages/{slug}{path} now, or None when there is no such record (the call is
    then answered 404 whatever its body holds)."""
    slug = urllib.parse.quote(str((case.path_parameters or {}).get("slug")), safe="")
    request = urllib.request.Request(
        f"{os.environ['HERALD_ST_BASE']}/api/v1/pages/{slug}{path}",
        headers={"Authorization": f"Bearer {os.environ['HERALD_ST_TOKEN']}"},
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return json.load(answer)
    except urllib.error.HTTPError:
        return None


def _page_components(case):
    """The ids of the components of the page in the case's path, now."""
    return [component["id"] for component in _read(case, "/components") or []]


def _status_of_its_kind(case):
    """An update's status renamed into its incident's vocabulary."""
    status = case.body.get("status")
    incident_id = (case.path_parameters or {}).get("id")
    if not isinstance(status, str) or not case.path.endswith("/updates"):
        return
    incident = _read(case, f"/incidents/{urllib.parse.quote(str(incident_id), safe='')}")
    if incident is None:
        return
    ours, theirs = INCIDENT_STATUSES, MAINTENANCE_STATUSES
    if incident["kind"] == "maintenance":
        ours, theirs = theirs, ours
    if status in theirs:
        case.body["status"] = ours[theirs.index(status)]
    _a_move_it_may_make(case.body, incident)


def _a_move_it_may_make(body, incident):
    """An update's status changed to one its incident may move to now (domain::transitions):
    a maintenance starts (in_progress) before it is verified; a resolved incident is reopened
    explicitly. A completed maintenance, or an incident whose postmortem is published, takes
    no update at all; that case is left as generated."""
    current, target = incident.get("status"), body.get("status")
    if incident.get("kind") == "maintenance":
        if current == "scheduled" and target == "verifying":
            body["status"] = "in_progress"
        elif current in ("in_progress", "verifying") and target == "scheduled":
            body["status"] = current
    elif current == "resolved" and target in INCIDENT_STATUSES[:3]:
        body["reopen"] = True


def _components_of_page(body, ids):
    """The body's `components` (an id -> status object, or a list of ids) renamed onto `ids`."""
    components = body.get("components")
    if isinstance(components, dict):
        statuses = list(components.values())[: len(ids)]
        body["components"] = dict(zip(ids, statuses))
    elif isinstance(components, list):
        body["components"] = ids[: len(components)]


def _parsed(text):
    """The time `text` names, or None when it is not one Python reads."""
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00"))
    except (ValueError, AttributeError):
        return None


def _in_reach(body):
    """A start or window end further than ten years back or two years ahead is moved to a
    day from now (the server refuses it on its field)."""
    now = datetime.now(timezone.utc)
    earliest, latest = now - timedelta(days=3652), now + timedelta(days=731)
    for field in ("started_at", "scheduled_for", "scheduled_until"):
        at = _parsed(body.get(field)) if isinstance(body.get(field), str) else None
        if at is not None and at.tzinfo is not None and not earliest <= at <= latest:
            body[field] = (now + timedelta(days=1)).isoformat()


def _window_in_order(case):
    """scheduled_until after scheduled_for; a change of one end is checked against the other
    as stored."""
    body = case.body
    ends = ("scheduled_for", "scheduled_until")
    if case.method.upper() == "PATCH" and sum(isinstance(body.get(end), str) for end in ends) == 1:
        incident_id = urllib.parse.quote(str((case.path_parameters or {}).get("id")), safe="")
        stored = _read(case, f"/incidents/{incident_id}") or {}
        for end in ends:
            if body.get(end) is None and isinstance(stored.get(end), str):
                body[end] = stored[end]
    start, end = body.get("scheduled_for"), body.get("scheduled_until")
    if not (isinstance(start, str) and isinstance(end, str)):
        return
    try:
        parsed_start = datetime.fromisoformat(start.replace("Z", "+00:00"))
        parsed_end = datetime.fromisoformat(end.replace("Z", "+00:00"))
    except ValueError:
        return
    if parsed_end <= parsed_start:
        later = parsed_start + timedelta(hours=1)
        body["scheduled_until"] = later.isoformat()


def _times_in_reach(body):
    """next_update_by half an hour from now, started_at not after now, when given."""
    now = datetime.now(timezone.utc)
    if body.get("status") in ("resolved", "completed"):
        body.pop("next_update_by", None)
    elif isinstance(body.get("next_update_by"), str):
        body["next_update_by"] = (now + timedelta(minutes=30)).isoformat()
    started = body.get("started_at")
    if isinstance(started, str):
        try:
            in_future = datetime.fromisoformat(started.replace("Z", "+00:00")) > now
        except ValueError:
            in_future = False
        if in_future:
            body["started_at"] = (now - timedelta(hours=1)).isoformat()


# The routes that act on one record of a page: the listing its id is read from, and which
# records of it the route acts on. The record named in a positive case's path is one the page
# has at call time: the run makes components, groups, templates and incidents itself, the demo
# holds resolved incidents (for their postmortems), and the test makes a subscriber, its
# deliveries and a support submission.
def _any(record):
    return True


def _takes_updates(record):
    return record.get("status") not in ("completed", "postmortem")


def _resolved(record):
    return record.get("status") in ("resolved", "postmortem")


RECORDS = {
    "/components/{id}": ("/components", _any),
    "/component-groups/{id}": ("/component-groups", _any),
    "/templates/{id}": ("/templates", _any),
    "/incidents/{id}": ("/incidents?limit=100", _any),
    "/incidents/{id}/updates": ("/incidents?limit=100", _takes_updates),
    "/maintenances/{id}": ("/maintenances?limit=100", _any),
    "/subscribers/{id}": ("/subscribers", _any),
    "/deliveries/{id}/retry": ("/deliveries", _any),
    "/support/{id}": ("/support", _any),
    "/incidents/{id}/postmortem": ("/incidents?limit=100", _resolved),
    "/incidents/{id}/postmortem/publish": ("/incidents?limit=100", _resolved),
}

DEMO = "demo"


def _a_record_it_acts_on(case):
    """A path naming a page names one that exists (the demo page when the generated slug names
    none); a path naming a record names one of the demo page, when it has one."""
    parameters = case.path_parameters
    route = case.path
    if not parameters or "slug" not in parameters:
        return
    if _read(case, "") is None:
        parameters["slug"] = DEMO
    if "id" not in parameters:
        return
    for ending, (listing, wanted) in RECORDS.items():
        if route.endswith(ending):
            parameters["slug"] = DEMO
            found = _read(case, listing)
            records = found if isinstance(found, list) else (found or {}).get("items", [])
            chosen = [r for r in records if isinstance(r, dict) and wanted(r)]
            # One with a published postmortem first (the postmortem routes then find one).
            chosen.sort(key=lambda r: r.get("status") != "postmortem")
            ids = [r["id"] for r in chosen]
            if ids:
                parameters["id"] = ids[0]
            return


def _post(path, body):
    """POST `body` to the API at `path`; the answer."""
    request = urllib.request.Request(
        f"{os.environ['HERALD_ST_BASE']}/api/v1{path}",
        data=json.dumps(body).encode(),
        headers={
            "Authorization": f"Bearer {os.environ['HERALD_ST_TOKEN']}",
            "Content-Type": "application/json",
        },
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.load(answer)


# What a delete acts on: a record made for it on the spot (the listing it is made in, and its
# body), so that deletes never use up the records the other routes act on.
THROWAWAYS = {
    "/components/{id}": ("/components", lambda: {"name": "Throwaway"}),
    "/component-groups/{id}": ("/component-groups", lambda: {"name": "Throwaway"}),
    "/templates/{id}": (
        "/templates",
        lambda: {"name": "Throwaway", "title": "Throwaway", "body": "Throwaway."},
    ),
    "/subscribers/{id}": (
        "/subscribers",
        lambda: {"type": "email", "email": f"throwaway-{uuid.uuid4().hex[:12]}@example.com"},
    ),
    "/integrations/{id}": ("/integrations", lambda: {"kind": "generic", "name": "Throwaway"}),
}


def _a_throwaway_to_delete(case):
    """A delete acts on a record made for it: a page (never the demo page, whose records the
    other routes act on), or a record of the demo page. So does a change of a page's slug."""
    method, parameters = case.method.upper(), case.path_parameters or {}
    renames = isinstance(case.body, dict) and "slug" in case.body
    if case.path == "/api/v1/pages/{slug}" and method == "PATCH" and renames:
        method = "DELETE"
    if method != "DELETE":
        return
    if case.path == "/api/v1/pages/{slug}":
        slug = f"throwaway-{uuid.uuid4().hex[:12]}"
        _post("/pages", {"slug": slug, "name": "Throwaway"})
        parameters["slug"] = slug
        return
    for ending, (listing, body) in THROWAWAYS.items():
        if case.path.endswith(ending):
            parameters["slug"] = DEMO
            parameters["id"] = _post(f"/pages/{DEMO}{listing}", body())["id"]
            return


# Integrations: one of each kind on the demo page, made when first needed, with its token.
INTEGRATIONS = {}


def _integration(kind, **settings):
    """The demo page's integration of `kind` (and settings) made for the run: (id, token)."""
    key = (kind, tuple(sorted(settings.items())))
    if key not in INTEGRATIONS:
        made = _post(f"/pages/{DEMO}/integrations", dict(kind=kind, name=f"Run {kind}", **settings))
        INTEGRATIONS[key] = (made["id"], made["token"])
    return INTEGRATIONS[key]


def _a_template():
    """A template of the demo page made for the run."""
    if "template" not in INTEGRATIONS:
        body = {"name": f"Alert {uuid.uuid4().hex[:8]}", "title": "Alert", "body": "Looking."}
        INTEGRATIONS["template"] = _post(f"/pages/{DEMO}/templates", body)["id"]
    return INTEGRATIONS["template"]


def _a_draft():
    """An incident proposed on the spot: an alert on a component made for it."""
    iid, token = _integration(
        "generic", template_id=_a_template(), incident_mode="draft", hold_seconds=0
    )
    component = _post(f"/pages/{DEMO}/components", {"name": f"Throwaway {uuid.uuid4().hex[:8]}"})
    alert = {"component": component["id"], "status": "major_outage"}
    answer = _post(f"/pages/{DEMO}/integrations/{iid}/generic?token={token}", alert)
    return answer["drafts"][0]


def _clean_map(value, cut):
    """A map with its keys trimmed, not blank, without NUL, at most `cut` characters, unique
    when lowercased."""
    if not isinstance(value, dict):
        return value
    kept, seen = {}, set()
    for key, item in value.items():
        key = key.strip()
        if key and "\x00" not in key and len(key) <= cut and key.lower() not in seen:
            seen.add(key.lower())
            kept[key] = item
    return kept


def _integration_settings(case):
    """An integration's settings that the page can take."""
    body = case.body
    if not (isinstance(body, dict) and case.path.endswith(("/integrations", "/integrations/{id}"))):
        return
    if body.get("template_id") is not None or body.get("incident_mode") in ("draft", "publish"):
        case.path_parameters["slug"] = DEMO
    if isinstance(body.get("components"), dict):
        ids = _page_components(case)
        keys = list(_clean_map(body["components"], 100))[: len(ids)]
        body["components"] = dict(zip(keys, ids))
    if "severities" in body:
        body["severities"] = _clean_map(body["severities"], 64)
    if case.path_parameters.get("slug") == DEMO and (
        body.get("template_id") is not None or body.get("incident_mode") in ("draft", "publish")
    ):
        body["template_id"] = _a_template()


def _alerts_to_an_integration(case):
    """Alerts go to an integration of their kind, with its token, and start no later than now."""
    for kind in ("alertmanager", "grafana", "generic"):
        if case.path.endswith("/integrations/{id}/" + kind):
            iid, token = _integration(kind)
            case.path_parameters.update(slug=DEMO, id=iid)
            case.query = dict(case.query or {}, token=token)
    body = case.body
    if isinstance(body, dict) and isinstance(body.get("alerts"), list):
        now = datetime.now(timezone.utc)
        for alert in body["alerts"]:
            if not isinstance(alert, dict):
                continue
            started = _parsed(str(alert.get("startsAt")))
            if started is not None and started > now:
                alert["startsAt"] = now.isoformat()
            for field in ("labels", "annotations"):
                if isinstance(alert.get(field), dict):
                    alert[field] = {k: v for k, v in alert[field].items() if "\x00" not in k}


def _an_integration_it_changes(case):
    """A change of an integration (or of its token) acts on one kept for that, never on one
    whose token the run posts alerts with."""
    if case.method.upper() != "DELETE" and case.path.endswith(
        ("/integrations/{id}", "/integrations/{id}/token")
    ):
        case.path_parameters.update(slug=DEMO, id=_integration("generic", hold_seconds=299)[0])


def _a_draft_it_acts_on(case):
    """A proposal published or dismissed is one proposed on the spot."""
    if "/incident-drafts/{id}" in case.path:
        case.path_parameters.update(slug=DEMO, id=_a_draft())


def _get(url):
    """GET `url` (no credentials); the JSON answer."""
    with urllib.request.urlopen(url, timeout=10) as answer:
        return json.load(answer)


def _a_vendor():
    """The run's own demo page as a vendor: its page address and one of its components."""
    page = f"{os.environ['HERALD_ST_BASE']}/status/{DEMO}"
    summary = _get(f"{page}/api/v2/summary.json")
    return page, summary["components"][0]["id"]


def _a_mirror():
    """A component of the demo page made to follow the vendor on the spot: its id."""
    url, component = _a_vendor()
    return _post(f"/pages/{DEMO}/mirrors", {"url": url, "vendor_component": component})[
        "component_id"
    ]


def _a_vendor_it_follows(case):
    """A component follows a vendor that can be read; a mirror read or stopped is one made for
    it."""
    if case.path.endswith("/mirrors/{component_id}"):
        if case.method.upper() == "DELETE":
            mirror = _a_mirror()
        else:
            if "mirror" not in INTEGRATIONS:
                INTEGRATIONS["mirror"] = _a_mirror()
            mirror = INTEGRATIONS["mirror"]
        case.path_parameters.update(slug=DEMO, component_id=mirror)
        return
    if not (case.path.endswith("/mirrors") and isinstance(case.body, dict)):
        return
    case.path_parameters["slug"] = DEMO
    case.body["url"], case.body["vendor_component"] = _a_vendor()
    if case.body.get("component_id") is not None:
        ids = _page_components(case)
        case.body["component_id"] = ids[-1]


def _a_page_to_import(case):
    """An import reads the demo page into the page kept for imports; a subscriber file is a
    real one (a new address, the whole page) for the demo page."""
    if case.path.endswith("/imports/statuspage") and isinstance(case.body, dict):
        case.body["from"] = f"{os.environ['HERALD_ST_BASE']}/status/{DEMO}"
        case.body["page"] = "imported"
    if case.path.endswith("/imports/subscribers") and isinstance(case.body, dict):
        case.body["page"] = DEMO
        case.body["csv"] = f"email,st-{uuid.uuid4().hex}@example.com,no,\n"


@schemathesis.hook
def before_call(context, case, kwargs):
    meta = case.meta
    if meta is None or not meta.generation.mode.is_positive:
        return
    _a_record_it_acts_on(case)
    _a_throwaway_to_delete(case)
    _a_draft_it_acts_on(case)
    _an_integration_it_changes(case)
    _alerts_to_an_integration(case)
    _integration_settings(case)
    _a_vendor_it_follows(case)
    _a_page_to_import(case)
    if isinstance(case.body, dict):
        if "components" in case.body and "/integrations" not in case.path:
            _components_of_page(case.body, _page_components(case))
        _in_reach(case.body)
        _window_in_order(case)
        _status_of_its_kind(case)
        _times_in_reach(case.body)
        if "notify" in case.body and "deliver_notifications" in case.body:
            case.body["deliver_notifications"] = case.body["notify"]
    headers = case.headers
    if headers and "Idempotency-Key" in headers:
        headers["Idempotency-Key"] = str(uuid.uuid4())
