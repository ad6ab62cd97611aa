"""The companion's HTTP side against the real service on the simulated board: pages, the live board as
SVG, settings through the config parser, history and exports, and every wrong request refused with a
4xx and one clear message, changing nothing."""
import json
import re
import time

import pytest
from web_kit import BASE_URL, PIN, csrf_headers, write_config

from firmware_host.config import load_config
from firmware_host.rules import Color, Position
from firmware_host.web.guard import PinGuard


def svg_counts(svg: str) -> dict[str, tuple[int, int]]:
    """(white, black) per location, as the SVG's groups carry them."""
    return {location: (int(white), int(black)) for location, white, black in re.findall(
        r'data-location="([^"]+)" data-white="(\d+)" data-black="(\d+)"', svg)}


def wait_for(condition, what: str, timeout_s: float = 10.0):
    deadline = time.monotonic() + timeout_s
    while not (value := condition()):
        assert time.monotonic() < deadline, f"no {what} within {timeout_s} s"
        time.sleep(0.05)
    return value


def test_every_page_is_served_with_a_strict_content_policy_and_a_csrf_cookie(referee):
    from starlette.testclient import TestClient

    from firmware_host.config import load_config
    from firmware_host.web.app import create_app

    with TestClient(create_app(load_config(referee.config_path)), base_url=BASE_URL) as fresh:
        for path in ("/", "/match", "/history", "/settings", "/status"):
            response = fresh.get(path)
            assert response.status_code == 200 and "<script src=\"/static/app.js\" defer>" in response.text
            assert "default-src 'self'" in response.headers["content-security-policy"]
        assert len(fresh.cookies.get("tavli_csrf")) >= 24
        assert fresh.get("/static/app.js").status_code == 200
        assert fresh.get("/static/app.css").headers["content-type"].startswith("text/css")


def test_the_live_board_svg_shows_the_checkers_the_sensors_see(web, referee):
    counts = svg_counts(web.get("/board.svg").text)
    reading = referee.board.reading()
    assert counts["13"] == (reading.white.points[12], reading.black.points[12])
    assert sum(white for white, _ in counts.values()) == 15 and sum(black for _, black in counts.values()) == 15
    referee.board.lift(13, "white")
    wait_for(lambda: svg_counts(web.get("/board.svg").text)["13"][0] == reading.white.points[12] - 1,
             "a lifted checker on the live board")
    referee.board.place(13, "white")
    wait_for(lambda: svg_counts(web.get("/board.svg").text)["13"][0] == reading.white.points[12], "the checker back")


def test_any_position_is_drawn_from_the_query_or_a_post_body(web):
    fevga = Position.start("fevga").to_json()
    drawn = web.get("/board.svg", params={"position": json.dumps(fevga)})
    assert drawn.status_code == 200 and drawn.headers["content-type"].startswith("image/svg+xml")
    assert svg_counts(drawn.text)["24"] == (15, 0) and svg_counts(drawn.text)["12"] == (0, 15)
    rotated = web.post("/board.svg", headers=csrf_headers(web),
                       json={"position": fevga, "orientation": "rotated", "marks": {"12": "illegal"}})
    assert svg_counts(rotated.text)["12"] == (15, 0)          # the board turned half round
    assert 'data-location="12" data-white="15" data-black="0" data-mark="illegal"' in rotated.text


@pytest.mark.parametrize("query, message", [
    ({"position": "{"}, "position: not JSON"),
    ({"position": json.dumps({"variant": "chess"})}, "position: "),
    ({"reading": json.dumps({"white": 3})}, "reading: "),
    ({"position": json.dumps(Position.start("portes").to_json()), "orientation": "upside"},
     "orientation 'upside' is not valid"),
    ({"position": json.dumps(Position.start("portes").to_json()), "palette": "neon"}, "palette 'neon' is not valid"),
    ({"position": json.dumps(Position.start("portes").to_json()), "marks": json.dumps({"99": "illegal"})}, "marks: "),
    ({"colour": "red"}, "unknown parameter 'colour'"),
    ({"position": "x" * 9000}, "the query is longer than"),
])
def test_a_bad_board_query_is_refused_with_what_is_wrong(web, query, message):
    response = web.get("/board.svg", params=query)
    assert 400 <= response.status_code < 500 and message in response.json()["error"], response.text


def test_posts_need_json_the_csrf_token_the_own_origin_and_a_bounded_body(web):
    good = csrf_headers(web)
    cases = [
        (dict(good, **{"X-CSRF-Token": ""}), b'{"action": "next"}', 403, "CSRF token is missing or wrong"),
        (dict(good, **{"X-CSRF-Token": "forged"}), b'{"action": "next"}', 403, "CSRF token is missing or wrong"),
        (dict(good, Origin="http://evil.example"), b'{"action": "next"}', 403, "came from another site"),
        (dict(good, **{"Content-Type": "application/x-www-form-urlencoded"}), b"action=next", 415, "send JSON"),
        (good, b"{not json", 400, "the body is not JSON"),
        (good, b"[1]", 400, "the body must be a JSON object"),
        (good, b'{"action": "' + b"x" * 70_000 + b'"}', 413, "larger than 65536 bytes"),
        (good, b'{"action": "dance"}', 400, "action 'dance' is not valid"),
        (good, b'{"action": "next"}', 409, "not in referee mode"),
    ]
    for headers, body, status, message in cases:
        response = web.post("/api/referee", headers=headers, content=body)
        assert response.status_code == status and message in response.json()["error"], (body[:40], response.text)


def test_changes_need_the_pin_and_wrong_pins_are_limited(web, referee):
    target_before = referee.controller.match_rules.target
    file_before = referee.config_path.read_bytes()
    answers = [web.post("/api/settings", headers=csrf_headers(web), json=body)
               for body in ({"settings": {"match": {"target": 3}}},
                            {"pin": 1234, "settings": {"match": {"target": 3}}},
                            *[{"pin": "0000", "settings": {"match": {"target": 3}}}] * 5)]
    assert [answer.status_code for answer in answers] == [401, 401, 403, 403, 403, 403, 403]
    assert answers[0].json()["error"] == "the PIN is needed for this change"
    assert answers[2].json()["error"] == "wrong PIN"
    locked = web.post("/api/settings", headers=csrf_headers(web), json={"pin": PIN, "settings": {}})
    assert locked.status_code == 429 and locked.json()["error"] == "too many wrong PINs: wait a minute"
    assert referee.config_path.read_bytes() == file_before and referee.controller.match_rules.target == target_before
    web.app.state.companion.pin_guard = PinGuard()    # the minute, passed


def test_a_bad_setting_is_refused_with_the_parsers_message_and_a_good_one_written_and_applied(web, referee):
    file_before = referee.config_path.read_bytes()
    bad = web.post("/api/settings", headers=csrf_headers(web),
                   json={"pin": PIN, "settings": {"leds": {"brightness": 7}, "house_rules": {"plakoto": {"mother_rule": "maybe"}}}})
    assert bad.status_code == 422
    error = bad.json()["error"]
    assert "leds.brightness: 7 is not valid; allowed: a number from 0.01 to 1.0" in error
    assert "house_rules.plakoto.mother_rule: rule 'mother_rule': 'maybe' is not allowed: expected true or false" in error
    refused = web.post("/api/settings", headers=csrf_headers(web), json={"pin": PIN, "settings": {"journal": {"path": "/x"}}})
    assert refused.status_code == 400 and refused.json()["error"].startswith("settings.journal: not settable from the web page")
    assert referee.config_path.read_bytes() == file_before

    good = web.post("/api/settings", headers=csrf_headers(web),
                    json={"pin": PIN, "settings": {"match": {"target": 7}, "house_rules": {"plakoto": {"mother_rule": False}}}})
    assert good.status_code == 200, good.text
    assert good.json() == {"saved": True, "applied": True, "changed": ["house_rules.plakoto.mother_rule", "match.target"],
                           "restart": [], "restarting": False}
    assert 'target = 7' in referee.config_path.read_text()
    assert referee.controller.match_rules.target == 7
    assert referee.controller.rules_for("plakoto").options["mother_rule"] is False
    form = web.get("/api/settings").json()
    [plakoto] = [game for game in form["house_rules"] if game["game"] == "plakoto"]
    [mother] = [rule for rule in plakoto["rules"] if rule["name"] == "mother_rule"]
    assert mother == {"name": "mother_rule", "label": "Mother rule", "value": False, "default": True, "kind": "bool",
                      "explanation": "Pinning the last checker on the opponent's start point ends the game."}


def test_a_seat_goes_to_the_bot_and_back_from_the_settings_checked_persisted_and_shown_live(web, referee):
    file_before = referee.config_path.read_bytes()
    bad = web.post("/api/settings", headers=csrf_headers(web), json={"pin": PIN, "settings": {"match": {"white": "robot"}}})
    assert bad.status_code == 422
    assert bad.json()["error"] == f"{referee.config_path}: match.white: 'robot' is not valid; allowed: \"person\", \"bot\""
    assert referee.config_path.read_bytes() == file_before and referee.controller.bots == frozenset()

    for seat, bots in (("bot", {Color.BLACK}), ("person", set())):
        answer = web.post("/api/settings", headers=csrf_headers(web), json={"pin": PIN, "settings": {"match": {"black": seat}}})
        assert answer.status_code == 200, answer.text
        assert answer.json() == {"saved": True, "applied": True, "changed": ["match.black"], "restart": [],
                                 "restarting": False}
        assert referee.controller.bots == bots and load_config(referee.config_path).bots == bots
        assert f'black = "{seat}"' in referee.config_path.read_text()
        wait_for(lambda: web.get("/api/snapshot").json()["seats"] == {"white": "person", "black": seat}, "the seats shown")
        assert {s["key"]: s["value"] for s in web.get("/api/settings").json()["settings"]}["match.black"] == seat


def test_history_lists_the_journals_matches_with_their_exports(web, referee):
    wait_for(lambda: referee.controller.match_id is not None, "a match in the journal")
    history = web.get("/api/history").json()["matches"]
    assert history[0]["match"] == referee.controller.match_id and history[0]["status"] == "unfinished"
    exported = web.get(f"/history/{history[0]['match']}.json")
    assert exported.json()["format"] == "tavli-board match"
    assert 'filename="tavli-match-' in exported.headers["content-disposition"]
    assert web.get(f"/history/{history[0]['match']}.mat").status_code == 200
    assert web.get("/history/999999.json").json()["error"] == "no match '999999' in the journal"
    assert web.get(f"/history/{history[0]['match']}.exe").status_code == 404


def test_status_and_match_pages_data(web, referee):
    status = web.get("/api/status").json()
    assert status["service"] is True and status["link"]["up"] is True
    assert status["link"]["hello"]["channels"] > 0 and status["journal"]["bytes"] > 0
    match = web.get("/api/match").json()
    assert match["dice"]["rolls"] == len([g for g in match["games"] for _ in g["plays"]]) or match["dice"]["rolls"] >= 0
    report = web.post("/bug-report", headers=csrf_headers(web), json={"pin": PIN})
    assert report.status_code == 200 and report.headers["content-type"] == "application/gzip"


def test_without_the_service_the_pages_say_so_and_settings_are_saved_for_its_next_start(tmp_path):
    from starlette.testclient import TestClient

    from firmware_host.config import load_config
    from firmware_host.web.app import create_app

    config_path = write_config(tmp_path)       # no service behind its socket
    with TestClient(create_app(load_config(config_path)), base_url=BASE_URL) as lonely:
        lonely.get("/")
        assert lonely.get("/").status_code == 200
        assert lonely.get("/api/snapshot").json()["error"] == \
            "no snapshot from the referee service yet (is it running?)"
        assert lonely.get("/board.svg").status_code == 503
        refused = lonely.post("/api/referee", headers=csrf_headers(lonely), json={"action": "enter"})
        assert refused.status_code == 503 and "the referee service is not running" in refused.json()["error"]
        saved = lonely.post("/api/settings", headers=csrf_headers(lonely),
                            json={"pin": PIN, "settings": {"match": {"target": 11}}})
        assert saved.status_code == 200 and saved.json()["saved"] is True and saved.json()["applied"] is False
        message = saved.json()["message"]   # the page puts "Saved." before it
        assert "the service reads the settings when it starts" in message and "saved" not in message.lower()
        assert load_config(config_path).match_rules.target == 11
        assert lonely.get("/api/history").json() == {"matches": [], "message": f"no journal yet at {tmp_path / 'journal.sqlite3'}"}
