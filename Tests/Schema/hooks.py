"""Schemathesis hooks for schema_test.py (loaded through SCHEMATHESIS_HOOKS).

`before_call` runs right before every request of every phase, so what it changes is what is
sent (and schemathesis re-checks whether the case is still positive or negative). It keeps
the run short and on this machine, makes bodies obey the rules between fields that the
schema can only state in words. (It once also kept watermark sizes fixed: resizing a text
watermark while frames were drawn crashed Pango; that is fixed in the output stage and
covered by WatermarkTests.) Nothing else about the generated data is touched.
"""

import math
import re

import schemathesis

# `?wait=STATE` holds the reply until the player reaches STATE or `timeout` runs out (default
# 10 s, at most 600). A generated wait for a state that never comes would hold every such
# request that long, so any valid timeout above this is lowered to it, and a wait without a
# timeout gets it. Out-of-range timeouts are left alone: they must still be refused with 400.
WAIT_TIMEOUT = 0.1
# `timeout` alone is `400 invalid_argument` ("'timeout' needs 'wait'"), a rule between two
# query parameters that OpenAPI cannot state: a valid timeout generated without `wait` is
# given this one, so that the request is as valid as the schema says it is.
WAIT_STATE = "idle"

# URI fields whose value the daemon opens: a source, a subtitle file, a watermark image.
URI_FIELDS = ("uri", "subtitle", "image")
# Schemes that make the daemon reach the network (SourceResolver): a source with one is
# pointed at a closed loopback port, so no generated or example URI leaves this machine.
NETWORK_SCHEMES = {"http", "https", "udp", "rtsp", "rtsps"}
LOOPBACK_AUTHORITY = "127.0.0.1:9"
# A scheme as the daemon reads one (RFC 3986), after the blanks it trims (tab and Zs).
SCHEME = re.compile("^[\t \u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]*([A-Za-z][A-Za-z0-9+.-]*):")
DEMO = re.compile(r"^[\t ]*demo(:(//)?)?[\t ]*$")
# Request headers go only to network sources: with `demo://` (an example of open) they are
# `400 invalid_argument`, a rule between fields that the schema states in words only. They
# are dropped from an open of the demo.
HEADER_FIELDS = ("headers", "referer", "userAgent", "keyHeaders")


@schemathesis.hook
def before_call(context, case, kwargs):
    # schemathesis speaks plain HTTP: a WebSocket handshake it started with the documented
    # `Upgrade: websocket` could only end in 400 (it sends no Sec-WebSocket-Key) or in an
    # upgraded connection it cannot read. The WebSocket is tested in Tests/IntegrationTests;
    # here GET /v1/events is the SSE stream (other Upgrade values are left: they are ignored).
    if case.headers and str(case.headers.get("Upgrade", "")).lower() == "websocket":
        del case.headers["Upgrade"]
    if isinstance(case.query, dict):
        shorten_wait(case.query)
    if isinstance(case.body, dict):
        localize(case.body)
        items = case.body.get("items")
        if isinstance(items, list):
            for item in items:
                if isinstance(item, dict):
                    localize(item)
        if isinstance(case.body.get("rect"), dict):
            fit_rect(case.body["rect"])
        if isinstance(case.body.get("abLoop"), dict):
            fit_loop(case.body["abLoop"])


def shorten_wait(query):
    if "timeout" not in query:
        if "wait" in query:
            query["timeout"] = WAIT_TIMEOUT
        return
    if isinstance(query["timeout"], bool):
        return
    try:
        value = float(query["timeout"])
    except (TypeError, ValueError):
        return
    if not (math.isfinite(value) and 0 < value <= 600):
        return
    query.setdefault("wait", WAIT_STATE)
    if value > WAIT_TIMEOUT:
        query["timeout"] = WAIT_TIMEOUT


def localize(body):
    """Points a source's network URI at a closed loopback port, and makes any other URI with
    a scheme (`file:` included, any scheme in an image, and any but http(s) in a subtitle,
    which are local files) a relative path; an http(s) subtitle is fetched, so it gets the
    closed port too (`422 subtitle_error`): outside the media root, so `403 forbidden` before anything is read. A
    scheme the daemon does not play would be a `400 unsupported_uri` for a string the schema
    allows: a documented answer to what the schema cannot tell from a path, not a finding."""
    if isinstance(body.get("uri"), str) and DEMO.match(body["uri"]):
        for field in HEADER_FIELDS:
            body.pop(field, None)
    # `resolve` asks the URL resolver for a `contentId`'s URL: without one it is
    # `400 invalid_argument`, a rule between two fields the schema states in words.
    if body.get("resolve") is True and not isinstance(body.get("contentId"), str):
        body.pop("resolve")
    for field in URI_FIELDS:
        value = body.get(field)
        if not isinstance(value, str) or (field == "uri" and DEMO.match(value)):
            continue
        match = SCHEME.match(value)
        if not match:
            continue
        scheme = match.group(1).lower()
        if (field == "uri" and scheme in NETWORK_SCHEMES) or (field == "subtitle" and scheme in ("http", "https")):
            body[field] = f"{scheme}://{LOOPBACK_AUTHORITY}/fuzz"
        else:
            body[field] = "./" + value
    # A key service serves an HLS's keys: with anything but an http(s) source it is
    # `400 invalid_argument` (said in the schema's words), so it goes with the others.
    uri = body.get("uri")
    scheme = SCHEME.match(uri) if isinstance(uri, str) else None
    if "keyService" in body and not (scheme and scheme.group(1).lower() in ("http", "https")):
        body.pop("keyService")


# Rules between two fields, which JSON Schema cannot state; the schema's descriptions give
# them. A generated value that breaks one is moved to obey it where that keeps each field in
# its own range, so that a schema-valid body is valid; a field that is out of its range
# itself is left so (schemathesis re-checks the case after this hook).

def fit_rect(rect):
    """A `Rect` lies inside the frame: x + width <= 1 and y + height <= 1."""
    for origin, extent in (("x", "width"), ("y", "height")):
        start, size = rect.get(origin), rect.get(extent)
        if is_number(start) and is_number(size) and 0 < size <= 1 and start + size > 1:
            rect[origin] = 1 - size


def fit_loop(loop):
    """An `abLoop` is at least a tenth of a second long: a + 0.1 <= b."""
    a, b = loop.get("a"), loop.get("b")
    if is_number(a) and is_number(b) and a >= 0 and a + 0.1 > b:
        loop["b"] = a + 0.1


def is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
