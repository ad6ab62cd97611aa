"""The club hub's pages in a real headless Chromium, as the café and its director use them: boards
publish through a real Mosquitto to `tavli-board club hub` in a process of its own, which serves the
café screen, the tournaments and the ladder.

- The café screen follows a board played by the demo's scripted players (the referee on the simulated
  board, its view and journal published as a board in a club does), on a TV-sized and a phone-sized
  window.
- The director creates a knock-out, seats a pairing at a board, the board's match result fills the
  pairing; a wrong PIN is refused and changes nothing; a correction with the PIN changes the standings
  and the ladder's ratings are recomputed with it.

Screenshots go to a temporary folder; with TAVLI_SCREENSHOTS=docs they are the ones in docs/.
"""
import json
import os
import subprocess
import sys
import tempfile
import urllib.request
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from club_kit import hub_key_text, wait_until
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

pytest.importorskip("starlette", reason="the hub's pages need the `web` extra (starlette, uvicorn)")
pytest.importorskip("selenium.webdriver", reason="selenium is not installed (the test extra)")

from selenium.common.exceptions import StaleElementReferenceException  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

from firmware_host.club.envelope import public_key_text  # noqa: E402
from firmware_host.config import ClubSettings, hash_pin  # noqa: E402
from firmware_host.controller.orientation import Orientation, laid_out  # noqa: E402
from firmware_host.demo import Demo, Players, Settings  # noqa: E402
from firmware_host.hub.store import HubStore, MatchKey  # noqa: E402
from firmware_host.journal import Journal  # noqa: E402
from firmware_host.rules import Color, Position, Rules  # noqa: E402
from firmware_host.rules.match import MatchRules  # noqa: E402
from firmware_host.rules.plays import GameResult  # noqa: E402
from firmware_host.service.club import ClubPublisher  # noqa: E402

DOCS = Path(__file__).resolve().parents[2] / "docs"
WAIT_S = 30
CLUB = "kefalonia"
PIN = "2468"
TV, PHONE = (1920, 1080), (390, 844)


@pytest.fixture
def shots(tmp_path):
    return DOCS if os.environ.get("TAVLI_SCREENSHOTS") == "docs" else tmp_path


class HubProcess:
    """`tavli-board club hub` on its own configuration, its pages on a free port."""

    def __init__(self, folder: Path, broker_port: int, web_port: int, boards: dict):
        self.config = folder / "hub.toml"
        keys = "".join(f'{name} = "{public_key_text(key.public_key())}"\n' for name, key in boards.items())
        self.config.write_text(f'club = "{CLUB}"\ndatabase = "hub.sqlite3"\n[broker]\nhost = "127.0.0.1"\n'
                               f'port = {broker_port}\n[boards]\n{keys}[web]\nport = {web_port}\n'
                               f'pin = "{hash_pin(PIN)}"\n')
        self.database = folder / "hub.sqlite3"
        self.key = hub_key_text(folder)   # made before the hub starts: the boards take it
        self.url = f"http://127.0.0.1:{web_port}/"
        self.process = subprocess.Popen([sys.executable, "-m", "firmware_host", "club", "hub", "--config", str(self.config)],
                                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        assert self.process.stdout.readline().startswith("tavli-board club hub: club kefalonia")
        assert self.process.stdout.readline().strip() == f"the café screen: http://127.0.0.1:{web_port}/"
        wait_for(lambda: self.answers(), "the hub's pages")

    def answers(self) -> bool:
        assert self.process.poll() is None, "the hub ended"
        try:
            return urllib.request.urlopen(self.url + "api/tables", timeout=2).status == 200
        except OSError:
            return False

    def get(self, path: str):
        return json.loads(urllib.request.urlopen(self.url + path, timeout=5).read())

    def close(self) -> None:
        self.process.terminate()
        assert self.process.wait(WAIT_S) == 0


def wait_for(condition, what: str):
    return wait_until(condition, what, WAIT_S)


def wait(browser, condition, what: str):
    return WebDriverWait(browser, WAIT_S, poll_frequency=0.1, ignored_exceptions=(StaleElementReferenceException,)
                         ).until(lambda _: condition(), message=what)


def publisher(broker, name: str, key, journal_path: Path, hub: HubProcess) -> ClubPublisher:
    return ClubPublisher(ClubSettings(broker="127.0.0.1", port=broker.port, club=CLUB, board=name, hub_key=hub.key),
                         journal_path, key=key)


def fits_the_width(browser) -> bool:
    return browser.execute_script("return document.documentElement.scrollWidth <= window.innerWidth")


# == the café screen ===================================================================================

def card_text(browser, board: str, part: str) -> str:
    found = browser.find_elements(By.CSS_SELECTOR, f'article[data-board="{board}"] .{part}')
    return found[0].text if found else ""


def drawn_counts(hub: HubProcess, browser, board: str) -> dict[str, tuple[int, int]]:
    """(white, black) per point of the drawing the café screen shows now for `board`."""
    source = browser.find_element(By.CSS_SELECTOR, f'article[data-board="{board}"] img.drawing').get_attribute("src")
    svg = ET.fromstring(urllib.request.urlopen(source, timeout=5).read())
    return {group.get("data-location"): (int(group.get("data-white")), int(group.get("data-black")))
            for group in svg.iter("{http://www.w3.org/2000/svg}g") if group.get("data-location")}


def shows_turn(browser, seen) -> bool:
    """Whether table-1's card shows the turn of `seen`: its mover, by name, to move its dice."""
    mover = {"white": "anna (white)", "black": "babis (black)"}[seen.turn.value]
    dice = browser.find_elements(By.CSS_SELECTOR, 'article[data-board="table-1"] .dice')
    return (card_text(browser, "table-1", "doing").startswith(f"{mover} to move") and bool(dice)
            and dice[0].get_attribute("title") == "-".join(str(die) for die in seen.dice))


def test_the_cafe_screen_follows_a_board_in_play(tmp_path, broker, web_port, chromium, shots):
    keys = {"table-1": Ed25519PrivateKey.generate(), "table-2": Ed25519PrivateKey.generate()}
    hub = HubProcess(tmp_path, broker.port, web_port, keys)
    settings = Settings(MatchRules(sequence="portes", target=3), seed=3, speed=8.0, boards="none",
                        out=open(os.devnull, "w"))
    demo_folder = Path(tempfile.mkdtemp(prefix="tb-club-demo-", dir=tmp_path))
    publishers = []
    try:
        with Demo(settings, demo_folder, laid_out(Position.start("portes"), Orientation.AS_WIRED)) as demo:
            table_1 = publisher(broker, "table-1", keys["table-1"], demo.config.journal_path, hub)
            publishers.append(table_1)
            demo.loop.observers.append(table_1.observe)
            table_1.start()
            players = Players(demo, seed=5)
            players.stunts.clear()
            seen = players.play_until(lambda seen: players.turns >= 1 and seen.state == "moving")
            # A second table shows the first's opening, as a board of its own would (its view only).
            table_2 = publisher(broker, "table-2", keys["table-2"], tmp_path / "table-2.sqlite3", hub)
            Journal.open(tmp_path / "table-2.sqlite3").close()
            publishers.append(table_2)
            table_2.show(seen.to_json())
            table_2.start()
            seen = players.play_until(lambda seen: players.turns >= 4 and seen.state == "moving")
            # The director names who sits at table-1 (the café screen shows the names).
            match = wait_for(lambda: [m for m in hub.get("api/matches")["matches"] if m["board"] == "table-1"],
                             "table-1's match at the hub")[0]
            store = HubStore(hub.database)
            store.seat(MatchKey("table-1", match["stream"], match["match"]), "anna", "babis")
            store.close()

            chromium.set_window_size(*TV)
            chromium.get(hub.url)
            wait(chromium, lambda: shows_turn(chromium, seen), "table-1's turn on the café screen")
            assert card_text(chromium, "table-1", "game") == f"portes \u00b7 match {seen.match_id} \u00b7 game 1"
            score = card_text(chromium, "table-1", "score")
            assert "anna (white)\n0" in score and "babis (black)\n0" in score and "to 3" in score
            reading = demo.mcu.sensed_reading()
            counts = drawn_counts(hub, chromium, "table-1")
            for point in range(1, 25):
                assert counts[str(point)] == (reading.white.point(point), reading.black.point(point)), point
            wait(chromium, lambda: "to move" in card_text(chromium, "table-2", "doing") or
                 "to roll" in card_text(chromium, "table-2", "doing"), "table-2 on the café screen")
            chromium.save_screenshot(str(shots / "club-cafe-screen.png"))

            # The next play reaches the screen by itself, within the bounded wait.
            seen = players.play_turn(seen)
            wait(chromium, lambda: shows_turn(chromium, seen), "the next turn on the café screen")

            chromium.set_window_size(*PHONE)
            chromium.get(hub.url)
            wait(chromium, lambda: card_text(chromium, "table-1", "doing"), "the café screen on a phone")
            assert fits_the_width(chromium), "the café screen is wider than a phone"
            chromium.save_screenshot(str(shots / "club-cafe-screen-phone.png"))
            chromium.set_window_size(1100, 900)
    finally:
        for each in publishers:
            each.close()
        settings.out.close()
        hub.close()


# == tournaments ===========================================================================================

def director(browser, pin: str) -> None:
    field = browser.find_element(By.ID, "director-pin")
    field.clear()
    field.send_keys(pin)


def press(browser, selector: str) -> str:
    """Click the director's button; the page's answer to it."""
    browser.execute_script("document.getElementById('director-message').textContent = ''")
    browser.find_element(By.CSS_SELECTOR, selector).click()
    return wait(browser, lambda: browser.find_element(By.ID, "director-message").text, "the director's answer")


def pairing_row(browser, round_number: int, players: str) -> list[str]:
    for row in browser.find_elements(By.CSS_SELECTOR, f'table.pairings[data-round="{round_number}"] tbody tr'):
        cells = [cell.text for cell in row.find_elements(By.TAG_NAME, "td")]
        if cells[0] == players:
            return cells
    return []


def standings(browser) -> list[tuple[str, str]]:
    return [tuple(cell.text for cell in row.find_elements(By.TAG_NAME, "td")[1:])
            for row in browser.find_elements(By.CSS_SELECTOR, "table.standings tbody tr")]


def hitting(hub: HubProcess) -> dict[str, float]:
    return {entry["player"]: entry["rating"] for entry in hub.get("api/ladder")["ladder"]["hitting"]}


def test_a_director_runs_a_knockout_and_corrects_a_result_with_the_pin(tmp_path, broker, web_port, chromium, shots):
    key = Ed25519PrivateKey.generate()
    hub = HubProcess(tmp_path, broker.port, web_port, {"table-2": key})
    journal = Journal.open(tmp_path / "table-2.sqlite3")
    table_2 = publisher(broker, "table-2", key, journal.path, hub)
    table_2.start()
    try:
        chromium.set_window_size(1100, 1400)
        chromium.get(hub.url + "tournaments")
        wait(chromium, lambda: chromium.find_element(By.ID, "link-state").text == "live", "the page live")
        chromium.find_element(By.ID, "create-name").send_keys("Friday cup")
        chromium.find_element(By.ID, "create-players").send_keys("anna\nbabis\nchryssa\ndimitra")
        director(chromium, "1111")
        assert press(chromium, "#create-form button") == "wrong PIN"
        assert hub.get("api/tournaments")["tournaments"] == []
        director(chromium, PIN)
        assert press(chromium, "#create-form button") == "Tournament 1 created: round 1 is paired."
        # Seeded so that 1 and 2 meet in the final: anna (1) plays dimitra (4), babis (2) chryssa (3).
        wait(chromium, lambda: pairing_row(chromium, 1, "anna \u2013 dimitra") == ["anna \u2013 dimitra", "to play", ""],
             "round 1's pairings")
        assert pairing_row(chromium, 1, "babis \u2013 chryssa")[1] == "to play"

        # A match starts at table-2; the director seats anna and dimitra there.
        match = journal.start_match(MatchRules(sequence="portes", target=1))
        table_2.journal_changed()
        wait_for(lambda: any(m["board"] == "table-2" for m in hub.get("api/matches")["matches"]), "the match at the hub")
        Select(chromium.find_element(By.ID, "act-pairing")).select_by_visible_text("round 1: anna \u2013 dimitra")
        Select(chromium.find_element(By.ID, "act-board")).select_by_value("table-2")
        assert press(chromium, "#act-seat") == f"anna (white) and dimitra (black) seated at table-2, match {match}."

        # The board plays it: black (dimitra) wins; the result fills the pairing by itself.
        journal.start_game("portes", Rules.for_variant("portes"), starter=Color.WHITE)
        journal.end_game(GameResult(Color.BLACK, 1, "bear-off"), Color.BLACK, "referee")
        table_2.journal_changed()
        wait(chromium, lambda: pairing_row(chromium, 1, "anna \u2013 dimitra")[1:] == ["dimitra", f"table-2, match {match}"],
             "the board's result in its pairing")
        assert ("anna", "out in round 1") in standings(chromium)
        assert hitting(hub) == {"dimitra": 1510.0, "anna": 1490.0}

        # The players sat the other way round: the director corrects it; a wrong PIN changes nothing.
        Select(chromium.find_element(By.ID, "act-pairing")).select_by_visible_text("round 1: anna \u2013 dimitra")
        Select(chromium.find_element(By.ID, "act-winner")).select_by_value("anna")
        director(chromium, "9999")
        assert press(chromium, "#act-correct") == "wrong PIN"
        assert pairing_row(chromium, 1, "anna \u2013 dimitra")[1] == "dimitra" and hitting(hub)["dimitra"] == 1510.0
        director(chromium, PIN)
        assert press(chromium, "#act-correct") == "Corrected: anna won against dimitra."
        wait(chromium, lambda: pairing_row(chromium, 1, "anna \u2013 dimitra")[1:] ==
             ["anna", f"table-2, match {match}; corrected by the director"], "the corrected result")
        assert ("dimitra", "out in round 1") in standings(chromium) and ("anna", "through to round 2") in standings(chromium)
        assert hitting(hub) == {"anna": 1510.0, "dimitra": 1490.0}      # the ratings recomputed with it
        matches = hub.get("api/matches")["matches"]
        assert [(m["white"], m["black"]) for m in matches if m["match"] == match] == [("dimitra", "anna")]

        # The other pairing played off the boards: the director gives its result, then pairs the final.
        assert press(chromium, "#act-next") == "the round is not finished"
        Select(chromium.find_element(By.ID, "act-pairing")).select_by_visible_text("round 1: babis – chryssa")
        Select(chromium.find_element(By.ID, "act-winner")).select_by_value("chryssa")
        assert press(chromium, "#act-correct") == "Corrected: chryssa won against babis."
        assert press(chromium, "#act-next") == "The next round is paired."
        wait(chromium, lambda: pairing_row(chromium, 2, "anna – chryssa") == ["anna – chryssa", "to play", ""],
             "the final paired")
        assert hitting(hub) == {"anna": 1510.0, "dimitra": 1490.0}     # a result off the boards rates no game
        chromium.execute_script("window.scrollTo(0, 0)")
        chromium.save_screenshot(str(shots / "club-tournament.png"))
        chromium.set_window_size(*PHONE)
        chromium.get(hub.url + "tournaments")
        wait(chromium, lambda: pairing_row(chromium, 1, "anna \u2013 dimitra"), "the tournament on a phone")
        assert fits_the_width(chromium), "the tournament page is wider than a phone"
        chromium.save_screenshot(str(shots / "club-tournament-phone.png"))

        chromium.set_window_size(1100, 900)
        chromium.get(hub.url + "ladder")
        wait(chromium, lambda: chromium.find_elements(By.CSS_SELECTOR, 'table[data-family="hitting"] tbody tr'), "the ladder")
        rows = chromium.find_elements(By.CSS_SELECTOR, 'table[data-family="hitting"] tbody tr')
        assert [[cell.text for cell in row.find_elements(By.TAG_NAME, "td")] for row in rows] == \
            [["1", "anna", "1510.00", "1"], ["2", "dimitra", "1490.00", "1"]]
        chromium.save_screenshot(str(shots / "club-ladder.png"))
        chromium.get(hub.url + "history")
        wait(chromium, lambda: chromium.find_elements(By.CSS_SELECTOR, "#history tbody tr"), "the history")
        cells = [cell.text for cell in chromium.find_elements(By.CSS_SELECTOR, "#history tbody tr td")]
        assert cells[:2] == ["table-2", str(match)] and cells[3:] == ["dimitra", "anna", "portes", "anna (black) won 0\u20131"]
        chromium.save_screenshot(str(shots / "club-history.png"))
    finally:
        table_2.close()
        journal.close()
        hub.close()
