"""Every POST and query of the companion, fuzzed: wrong types, unknown keys, huge and broken bodies,
no CSRF token, no PIN. Each gets a 4xx with a message, nothing changes, and the service goes on."""
import json
import time

from web_kit import csrf_headers
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from firmware_host.web.guard import PinGuard

KEYS = ["pin", "settings", "match", "house_rules", "action", "position", "reading", "marks", "orientation",
        "palette", "leds", "target", "sequence", "brightness", "command"]
values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=8),
                                                                        children, max_size=4),
    max_leaves=12)
bodies = st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=8), values, max_size=5)
POSTS = ["/api/referee", "/api/new-match", "/api/self-test", "/api/settings", "/board.svg"]
FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def unchanged(referee):
    """What a refused request must leave as it was: the config file and the match's rules."""
    controller = referee.controller
    return (referee.config_path.read_bytes(), controller.match_rules, controller.match_id, controller.variant)


@FUZZ
@given(path=st.sampled_from(POSTS), body=bodies)
def test_any_json_body_without_the_pin_is_refused_and_changes_nothing(web, referee, path, body):
    body.pop("pin", None)
    before = unchanged(referee)
    response = web.post(path, headers=csrf_headers(web), content=json.dumps(body))
    if path == "/board.svg" and response.status_code == 200:
        assert response.text.startswith("<svg")      # a position happened to be given: drawn, nothing else
    else:
        assert 400 <= response.status_code < 500, (path, body, response.text)
        assert isinstance(response.json()["error"], str) and response.json()["error"]
    assert unchanged(referee) == before


@FUZZ
@given(path=st.sampled_from(POSTS), raw=st.binary(max_size=300), content_type=st.sampled_from(
    ["application/json", "text/plain", "application/x-www-form-urlencoded", "multipart/form-data", ""]))
def test_any_bytes_with_or_without_the_csrf_token_are_refused(web, referee, path, raw, content_type):
    before = unchanged(referee)
    for headers in ({"Content-Type": content_type}, dict(csrf_headers(web), **{"Content-Type": content_type})):
        response = web.post(path, headers=headers, content=raw)
        assert 400 <= response.status_code < 500 or response.text.startswith("<svg"), (path, raw, response.text)
    assert unchanged(referee) == before


@FUZZ
@given(path=st.sampled_from(["/board.svg", "/api/snapshot", "/api/match", "/api/history", "/api/status",
                             "/api/settings", "/history/1.json", "/history/x.mat", "/", "/settings"]),
       query=st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=6), st.text(max_size=40), max_size=4))
def test_any_query_is_answered_without_a_server_error(web, referee, path, query):
    before = unchanged(referee)
    response = web.get(path, params=query)
    assert response.status_code < 500, (path, query, response.text[:200])
    if response.status_code >= 400:
        assert response.json()["error"]
    assert unchanged(referee) == before


def test_the_service_is_unaffected_by_the_fuzzing(web, referee):
    web.app.state.companion.pin_guard = PinGuard()
    referee.board.lift(8, "white")
    try:
        deadline = time.monotonic() + 10
        while web.get("/api/snapshot").json()["reading"]["white"]["points"].get("8") != 2:
            assert time.monotonic() < deadline, "the service no longer reports the board"
            time.sleep(0.05)
    finally:
        referee.board.place(8, "white")
