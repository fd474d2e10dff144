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


@schemathesis.hook
def before_call(context, case, kwargs):
    meta = case.meta
    if meta is None or not meta.generation.mode.is_positive:
        return
    if isinstance(case.body, dict):
        if "components" in case.body:
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
