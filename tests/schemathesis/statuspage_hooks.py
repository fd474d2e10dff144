"""What the suite's schemathesis run of Statuspage's own OpenAPI document against Herald's /v1
(tests/api/statuspage_v1/schemathesis.rs) is told.

- The document's errata, corrected as the document is loaded (each is Statuspage's real
  answer, which its clients read; the document says otherwise):
  - Incident.metadata has the type "Object", which JSON Schema does not have: "object".
  - GroupComponent.components is the group's component ids, a list (the document: a string
    holding a list); its position is a number (the document: a string).
  - Subscriber.components is the ids of the components it follows, a list (the document: a
    string holding a list).
- What Herald does not have yet (metrics and their providers, page access users and groups,
  organizations) is refused with 501 and a message in the document's ErrorEntity shape: an
  expected refusal, not a server error. Every other 5xx is a failure (check
  `herald_no_server_error`, in place of schemathesis' not_a_server_error).
- A page named in a path is the run's page; a record named in a path is one of its records
  when it has one (component, group, incident, update, subscriber), read through /v1 when the
  call is made (HERALD_ST_BASE, HERALD_ST_TOKEN, HERALD_ST_PAGE).
"""

import json
import os
import re
import urllib.error
import urllib.request

import schemathesis

UNSUPPORTED = re.compile(r"/(metrics|metrics_providers|page_access_users|page_access_groups)(/|$)|^/organizations/")


@schemathesis.hook
def before_load_schema(context, raw_schema):
    schemas = raw_schema["components"]["schemas"]
    schemas["Incident"]["properties"]["metadata"]["type"] = "object"
    group = schemas["GroupComponent"]["properties"]
    group["components"] = {"type": "array", "items": {"type": "string"}}
    group["position"] = {"type": "integer"}
    schemas["Subscriber"]["properties"]["components"] = {
        "type": "array",
        "items": {"type": "string"},
    }


@schemathesis.check
def herald_no_server_error(ctx, response, case):
    """No 5xx, but the 501 of what Herald does not have yet, in the ErrorEntity shape."""
    if response.status_code < 500:
        return
    path = case.formatted_path if hasattr(case, "formatted_path") else case.path
    if response.status_code == 501 and UNSUPPORTED.search(case.path):
        body = json.loads(response.content)
        if isinstance(body, dict) and isinstance(body.get("message"), str):
            return
        raise AssertionError(f"a 501 without an ErrorEntity: {response.content!r}")
    raise AssertionError(f"{response.status_code} at {case.method} {path}")


def _read(path):
    """GET /v1/pages/{page}{path} now; None when there is nothing."""
    request = urllib.request.Request(
        f"{os.environ['HERALD_ST_BASE']}/v1/pages/{os.environ['HERALD_ST_PAGE']}{path}",
        headers={"Authorization": f"OAuth {os.environ['HERALD_ST_TOKEN']}"},
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return json.load(answer)
    except urllib.error.HTTPError:
        return None


def _first_id(path, key="id"):
    found = _read(path)
    if isinstance(found, list) and found and isinstance(found[0], dict):
        return found[0].get(key)
    return None


@schemathesis.hook
def before_call(context, case, kwargs):
    meta = case.meta
    if meta is None or not meta.generation.mode.is_positive:
        return
    parameters = case.path_parameters
    if not parameters or "page_id" not in parameters:
        return
    parameters["page_id"] = os.environ["HERALD_ST_PAGE"]
    route = case.path
    if "component_id" in parameters and "/page_access" not in route:
        parameters["component_id"] = _first_id("/components") or parameters["component_id"]
    if route.startswith("/pages/{page_id}/component-groups/{id}"):
        parameters["id"] = _first_id("/component-groups") or parameters["id"]
    if "incident_id" in parameters:
        incidents = _read("/incidents?limit=100") or []
        if "postmortem" in route:
            incidents = [i for i in incidents if i.get("status") == "resolved"] or incidents
        if incidents:
            incident = incidents[0]
            parameters["incident_id"] = incident["id"]
            updates = incident.get("incident_updates") or []
            if "incident_update_id" in parameters and updates:
                parameters["incident_update_id"] = updates[-1]["id"]
    if "subscriber_id" in parameters and "/incidents/" not in route:
        parameters["subscriber_id"] = (
            _first_id("/subscribers?state=all") or parameters["subscriber_id"]
        )
