"""What the suite's schemathesis run (tests/api/schemathesis.rs) is told about its environment:
a webhook URL is one this machine can reach. The server refuses, with 422 on the field, a URL
whose host does not resolve, which no schema can say; the run's Herald allows loopback
destinations (HERALD_ALLOW_PRIVATE_WEBHOOKS) and nothing listens on the port.
"""

import schemathesis
from hypothesis import strategies as st

RECEIVER = "http://127.0.0.1:9/"

schemathesis.openapi.format(
    "uri",
    st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789-", max_size=20).map(
        lambda path: RECEIVER + path
    ),
)
