"""The companion's real pages in a real headless Chromium (Debian's chromium and chromium-driver, through
Selenium) while the demo rig plays on the simulated board, with `tavli-board web` in a process of its
own: the SVG's checker counts follow the board, an illegal board is explained in words, a bad setting
shows the parser's message and changes nothing, a good one is applied.

Screenshots go to a temporary folder; with TAVLI_SCREENSHOTS=docs they are the ones in docs/.
"""
import json
import os
import shutil
import socket
import tempfile
import time
import urllib.request
from pathlib import Path

import pytest

CHROMIUM, CHROMEDRIVER = Path("/usr/bin/chromium"), shutil.which("chromedriver") or "/usr/bin/chromedriver"
if not CHROMIUM.exists() or not Path(CHROMEDRIVER).exists():
    pytest.skip("chromium and chromium-driver are not installed (scripts/system-packages.sh installs them)",
                allow_module_level=True)
webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed (the test extra)")

from selenium.common.exceptions import StaleElementReferenceException  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

from firmware_host.controller.orientation import Orientation, laid_out  # noqa: E402
from firmware_host.controller import machine as m  # noqa: E402
from firmware_host.demo import Demo, Players, Settings  # noqa: E402
from firmware_host.demo.rig import DEMO_PIN  # noqa: E402
from firmware_host.journal import JournalReader, Kind  # noqa: E402
from firmware_host.rules import Position  # noqa: E402
from firmware_host.rules.plays import dice_text  # noqa: E402
from firmware_host.rules.match import MatchRules  # noqa: E402
from firmware_host.service.verdict_words import verdict_words  # noqa: E402

DOCS = Path(__file__).resolve().parents[2] / "docs"
WAIT_S = 20


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="module")
def demo():
    yield from demo_with_web(seed=3, orientation=Orientation.AS_WIRED)


@pytest.fixture
def mirrored_demo():
    """The demo of issue 28's report: seed 1, the board laid out mirrored."""
    yield from demo_with_web(seed=1, orientation=Orientation.MIRRORED)


def demo_with_web(seed: int, orientation: Orientation):
    folder = Path(tempfile.mkdtemp(prefix="tb-browser-"))
    settings = Settings(MatchRules(sequence="portes", target=3), seed=seed, speed=8.0, boards="none",
                        out=open(os.devnull, "w"), web_port=free_port())
    with Demo(settings, folder, laid_out(Position.start("portes"), orientation)) as demo:
        deadline = time.monotonic() + WAIT_S
        while True:
            try:
                urllib.request.urlopen(demo.web_url + "api/snapshot", timeout=2).read()
                break
            except OSError:
                assert time.monotonic() < deadline, "tavli-board web never answered"
                assert demo.web.poll() is None, "tavli-board web ended"
                time.sleep(0.2)
        yield demo
    settings.out.close()
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="module")
def browser(chromium):
    return chromium


@pytest.fixture(scope="module")
def shots(tmp_path_factory):
    return DOCS if os.environ.get("TAVLI_SCREENSHOTS") == "docs" else tmp_path_factory.mktemp("screenshots")


def svg_groups(browser) -> dict[str, tuple[int, int, str]]:
    """(white, black, mark) per location of the board on the page, read in one go (the SVG is
    replaced whole at every snapshot)."""
    groups = browser.execute_script(
        "return [...document.querySelectorAll('#board g.location')].map("
        "g => [g.dataset.location, +g.dataset.white, +g.dataset.black, g.dataset.mark])")
    return {location: (white, black, mark) for location, white, black, mark in groups}


def svg_count(browser, location: str) -> tuple[int, int]:
    return svg_groups(browser)[location][:2]


def wait(browser, condition, what: str):
    return WebDriverWait(browser, WAIT_S, poll_frequency=0.05, ignored_exceptions=(StaleElementReferenceException,)
                         ).until(lambda _: condition(), message=what)


def test_the_live_board_follows_the_sensors(demo, browser):
    browser.get(demo.web_url)
    wait(browser, lambda: browser.find_elements(By.CSS_SELECTOR, "#board svg"), "the board drawn")
    reading = demo.board.reading()
    for point in (1, 6, 13, 24):
        assert svg_count(browser, str(point)) == (reading.white.point(point), reading.black.point(point))
    demo.board.slide(13, 9, "white")
    wait(browser, lambda: svg_count(browser, "13")[0] == reading.white.point(13) - 1 and svg_count(browser, "9") == (1, 0),
         "the slide 13 to 9 on the page")
    demo.board.slide(9, 13, "white")
    wait(browser, lambda: svg_count(browser, "13")[0] == reading.white.point(13), "the checker back on 13")


def test_an_illegal_board_is_explained_in_words(demo, browser, shots):
    browser.get(demo.web_url)
    seen = Players(demo, seed=3).play_until(lambda seen: seen.state == "moving" and seen.verdict_kind == "unchanged")
    mover = seen.position.turn
    other = mover.opponent
    # The opponent's checker moves in the mover's turn: no roll explains that.
    start = next(point for point in range(1, 25) if seen.sensed.side(other.value).point(point) >= 2)
    empty = next(point for point in range(1, 25) if not any(seen.sensed.point(point)))
    demo.board.slide(start, empty, other.value)
    wait(browser, lambda: "Illegal board" in browser.find_element(By.ID, "headline").text, "the illegal verdict")
    why = browser.find_element(By.ID, "why").text
    assert f"Only {mover.value}'s checkers move in {mover.value}'s turn: {other.value}'s checkers changed" in why
    steps = browser.find_element(By.ID, "steps").text
    assert f"take one {other.value} checker from" in steps
    marks = {location: mark for location, (_, _, mark) in svg_groups(browser).items() if mark}
    assert set(marks.values()) & {"take-from", "put-on"}, "the LED marks of the correction are drawn"
    browser.save_screenshot(str(shots / "companion-live.png"))
    browser.set_window_size(390, 844)     # a phone held at the table: the verdict and its steps without scrolling
    steps_bottom = browser.execute_script("return document.getElementById('steps').getBoundingClientRect().bottom")
    assert 0 < steps_bottom <= browser.execute_script("return window.innerHeight"), "the steps are below the fold"
    browser.save_screenshot(str(shots / "companion-live-phone.png"))
    browser.set_window_size(1100, 900)
    demo.board.slide(empty, start, other.value)
    wait(browser, lambda: "Illegal board" not in browser.find_element(By.ID, "headline").text, "the board legal again")


def settings_submit(browser, target: str) -> str:
    field = browser.find_element(By.CSS_SELECTOR, '#general [name="match.target"]')
    field.clear()
    field.send_keys(target)
    pin = browser.find_element(By.ID, "settings-pin")
    pin.clear()
    pin.send_keys(DEMO_PIN)
    message = browser.find_element(By.ID, "settings-message")
    browser.execute_script("arguments[0].textContent = ''", message)
    browser.find_element(By.ID, "settings-save").click()
    wait(browser, lambda: message.text, "the answer to the save")
    return message.text


def test_a_bad_setting_shows_the_parsers_message_and_a_good_one_is_applied(demo, browser, shots):
    browser.get(demo.web_url + "settings")
    wait(browser, lambda: browser.find_elements(By.CSS_SELECTOR, '#general [name="match.target"]'), "the form")
    before = demo.config_file.read_bytes()
    refused = settings_submit(browser, "500")
    assert f"{demo.config_file}: match.target: 500 is not valid; allowed: an integer from 1 to 99" in refused
    assert demo.config_file.read_bytes() == before and demo.loop.controller.match_rules.target == 3
    applied = settings_submit(browser, "7")
    assert applied.startswith("Saved and applied: match.target"), applied
    assert demo.loop.controller.match_rules.target == 7 and "target = 7" in demo.config_file.read_text()


def test_the_other_pages_show_the_match_history_and_status(demo, browser, shots):
    players = Players(demo, seed=5)
    players.play_until(lambda seen: players.turns >= 4 and seen.state == "moving")
    for page, ready in (("match", "#games h3"), ("history", "#history tbody tr"), ("status", "#status-facts dd")):
        browser.get(demo.web_url + page)
        wait(browser, lambda: browser.find_elements(By.CSS_SELECTOR, ready), f"the {page} page filled")
        if page == "match":
            wait(browser, lambda: len(browser.find_elements(By.CSS_SELECTOR, "ol.plays li")) >= 4, "the plays listed")
            assert browser.find_element(By.CSS_SELECTOR, "ol.plays li").text.startswith(("white ", "black "))
        browser.save_screenshot(str(shots / f"companion-{page}.png"))
    facts = browser.find_element(By.ID, "status-facts").text
    assert not browser.find_element(By.ID, "phone").is_displayed()   # this machine only: no address for a phone
    assert "Sensor link\nup" in facts and "Referee service\nrunning" in facts
    assert "Browsers watching\n1" in facts       # each page left closed its event stream
    browser.find_element(By.ID, "self-test-pin").send_keys(DEMO_PIN)
    browser.find_element(By.CSS_SELECTOR, "#self-test-form button").click()
    wait(browser, lambda: "MCU self-test\npassed" in browser.find_element(By.ID, "status-facts").text,
         "the MCU's self-test result")
    assert browser.find_element(By.ID, "link-state").text == "live"
    for pin, answer in (("0000", "wrong PIN"), (DEMO_PIN, "Downloaded.")):     # the bug report needs the PIN
        browser.find_element(By.ID, "bug-report-pin").clear()
        browser.find_element(By.ID, "bug-report-pin").send_keys(pin)
        browser.find_element(By.CSS_SELECTOR, "#bug-report-form button").click()
        wait(browser, lambda: browser.find_element(By.ID, "bug-report-message").text == answer, answer)


def choose_seat(browser, demo, side: str, seat: str, target: str | None = None) -> str:
    """A person sets "White"/"Black" to "bot" or "person" on the settings page and saves with the PIN
    (with `target`, the match's target typed in too); returns the page's answer."""
    browser.get(demo.web_url + "settings")
    wait(browser, lambda: browser.find_elements(By.CSS_SELECTOR, f'#general [name="match.{side}"]'), "the form")
    Select(browser.find_element(By.CSS_SELECTOR, f'#general [name="match.{side}"]')).select_by_value(seat)
    original = browser.find_element(By.CSS_SELECTOR, '#general [name="match.target"]').get_attribute("data-original")
    return settings_submit(browser, target or original)


def test_a_person_gives_a_seat_to_the_bot_in_the_settings_and_the_bot_plays_its_turn(demo, browser, shots):
    players = Players(demo, seed=11)
    players.stunts.clear()
    seen = players.play_until(lambda seen: seen.state == "moving" and seen.bot_play is None)
    person, bot_side = seen.position.turn, seen.position.turn.opponent
    # A bad value saved with the seat: the parser's message, and nothing changes (the seat neither).
    before = demo.config_file.read_bytes()
    browser.set_window_size(1100, 2000)     # the whole form in the picture
    refused = choose_seat(browser, demo, bot_side.value, "bot", target="500")
    assert "match.target: 500 is not valid; allowed: an integer from 1 to 99" in refused
    assert demo.config_file.read_bytes() == before and demo.loop.controller.bots == frozenset()
    browser.execute_script("window.scrollTo(0, 0)")
    browser.save_screenshot(str(shots / "companion-settings.png"))
    browser.set_window_size(1100, 900)
    answer = choose_seat(browser, demo, bot_side.value, "bot")
    assert answer == f"Saved and applied: match.{bot_side.value}.", answer
    assert demo.loop.controller.bots == {bot_side}
    assert f'{bot_side.value} = "bot"' in demo.config_file.read_text()
    # The person's turn under way stays theirs; the bot's seat plays from its next roll.
    browser.get(demo.web_url)
    seat_text = f"{bot_side.value.capitalize()}: the bot"
    wait(browser, lambda: seat_text in browser.find_element(By.ID, "seats").text, "the bot's seat on the live page")
    assert f"{person.value.capitalize()}: a person" in browser.find_element(By.ID, "seats").text
    seen = players.play_turn(demo.table.seen)
    assert seen.state == "moving" and seen.position.turn is bot_side and seen.bot_play is not None
    play = seen.bot_play
    if play.moves:   # (a roll the bot cannot play at all is passed with a press)
        moves = " ".join(str(move) for move in play.moves)
        wait(browser, lambda: browser.find_element(By.ID, "headline").text.startswith(
            f"The bot plays {bot_side.value}'s {dice_text(seen.dice)}: {moves}"), "the bot's play in words")
        # The lights, drawn on the page: take from the first move's origin, put on its destination.
        first = play.moves[0]
        marks = {location: mark for location, (_, _, mark) in svg_groups(browser).items() if mark}
        origin, destination = (seen.labels.led(place, bot_side) for place in (first.origin, first.destination))
        assert marks.get(origin) == "take-from" and marks.get(destination) == "put-on", marks
    after = players.play_turn(seen)            # the players move the bot's checkers as the lights show, then press
    assert after.position.turn is person
    with JournalReader.open(demo.config.journal_path) as journal:
        events = journal.match_events(journal.match_ids()[-1])
    last_bot_play = [event.data for event in events if event.kind is Kind.PLAY and event.data["side"] == bot_side.value][-1]
    assert [(move["from"], move["to"]) for move in last_bot_play["moves"]] == \
        [(move.origin, move.destination) for move in play.moves]
    assert [event.data["bots"] for event in events if event.kind is Kind.REFEREE and event.data["action"] == "seats"] \
        == [[bot_side.value]]
    assert choose_seat(browser, demo, bot_side.value, "person") == f"Saved and applied: match.{bot_side.value}."
    assert demo.loop.controller.bots == frozenset()


PHONES = [(360, 740), (390, 844)]


@pytest.mark.parametrize("page", ["", "match", "history", "settings", "status"])
def test_every_page_fits_a_phone(demo, browser, shots, page):
    browser.get(demo.web_url + page)
    wait(browser, lambda: browser.find_element(By.ID, "link-state").text == "live", "the page connected")
    for width, height in PHONES:
        browser.set_window_size(width, height)
        inner, scroll = browser.execute_script(
            "return [window.innerWidth, document.documentElement.scrollWidth]")
        assert scroll <= inner, f"/{page} is {scroll} px wide on a {width} px phone"
    if page in ("history", "settings"):
        browser.save_screenshot(str(shots / f"companion-{page}-phone.png"))
    browser.set_window_size(1100, 900)


def test_history_shows_times_as_the_phone_writes_them(demo, browser):
    browser.get(demo.web_url + "history")
    wait(browser, lambda: browser.find_elements(By.CSS_SELECTOR, "#history tbody tr"), "the history filled")
    started = browser.find_element(By.CSS_SELECTOR, '#history tbody td[data-label="Started"]').text
    iso = json.loads(urllib.request.urlopen(demo.web_url + "api/history", timeout=5).read())["matches"][0]["started_at"]
    expected = browser.execute_script(
        "return new Date(arguments[0]).toLocaleString(undefined, {dateStyle: 'medium', timeStyle: 'short'})", iso)
    assert started == expected and iso not in started and ":" in started


def test_settings_read_in_words_and_a_new_match_starts_as_the_one_played(demo, browser):
    browser.get(demo.web_url + "settings")
    wait(browser, lambda: browser.find_elements(By.CSS_SELECTOR, "#general .label"), "the form")
    labels = [label.text for label in browser.find_elements(By.CSS_SELECTOR, "#general .label")]
    assert "Points to win" in labels and "White is played by" in labels
    assert not any("." in label or "_" in label for label in labels), labels
    playing = json.loads(urllib.request.urlopen(demo.web_url + "api/snapshot", timeout=5).read())["match"]
    wait(browser, lambda: browser.find_element(By.ID, "new-match-target").get_attribute("value") ==
         str(playing["target"]), "the new match offered to the match's target")
    assert browser.find_element(By.ID, "new-match-sequence").get_attribute("value") == "portes"


def svg_labels(browser) -> dict[str, tuple[str, str]]:
    """(the label drawn, the mark) of each lit point of the board on the page."""
    groups = browser.execute_script(
        "return [...document.querySelectorAll('#board g.location')].filter(g => g.dataset.mark).map("
        "g => [g.dataset.location, g.querySelector('text') ? g.querySelector('text').textContent : '', g.dataset.mark])")
    return {location: (label, mark) for location, label, mark in groups}


ILLEGAL_MOVES = 5


class WatchedPlayers(Players):
    """The demo's players, who read the Live page at every step of a correction before they follow the
    lights: the words, the lights and the board drawn in the browser must send them to the same point."""

    def __init__(self, demo, seed, browser):
        super().__init__(demo, seed)
        self.browser = browser
        self.boards_checked = 0

    def correct(self, seen):
        while seen.state == m.CORRECTING:
            self.read_the_page(seen)
            step = seen.guidance[0]
            self.demo.board.slide(int(step.origin) if step.origin.isdigit() else step.origin,
                                  int(step.destination) if step.destination.isdigit() else step.destination,
                                  step.color.value)
            seen = self.demo.settled_view()
        return seen

    def read_the_page(self, seen) -> None:
        first = verdict_words(seen)["steps"][0]
        wait(self.browser, lambda: self.browser.find_element(By.CSS_SELECTOR, "#steps li").text == first,
             f"the Live page to say {first!r}")
        origin, destination = first.removeprefix(f"take one {seen.guidance[0].color.value} checker from ").split(" to ")
        lit = svg_labels(self.browser)
        for words, mark in ((origin, "take-from"), (destination, "put-on")):
            if words.isdigit():   # a point: lit, and labelled, as the words name it
                assert lit.get(words) == (words, mark), (first, lit)
            else:                 # the bar or the tray: lit on one of its halves
                assert mark in {lit_mark for location, (_, lit_mark) in lit.items() if location.startswith(
                    {"the bar": "bar:", "the tray": "off:"}[words])}, (first, lit)
        self.boards_checked += 1


def test_on_a_mirrored_board_the_live_pages_words_and_marks_name_the_same_point(mirrored_demo, browser):
    """Issue 28: seed 1 lays the board out mirrored; after the illegal move the Live page said "take
    one black checker from 12" while its "take from here" mark lit the point it labelled 1."""
    browser.get(mirrored_demo.web_url)
    players = WatchedPlayers(mirrored_demo, 1, browser)
    for _ in range(ILLEGAL_MOVES):   # the report's illegal move, then one more in each of the next turns
        players.stunts = {"illegal"}
        players.play_until(lambda seen: "illegal" not in players.stunts and seen.state == m.MOVING)
    print(f"{players.boards_checked} boards checked in the browser")
    assert players.boards_checked >= ILLEGAL_MOVES
