"""The event loop: events in, the controller's scenes out to the strip (down to the NeoPixel bytes),
the button polled, the buzzer and the journal fed, in virtual time and without threads."""
import queue
import threading
from types import SimpleNamespace

import pytest
from gpiozero.pins.mock import MockFactory

from firmware_host.app import QUIET_S, EventLoop, JudgeWorker
from firmware_host.config import load_config
from firmware_host.controller import Controller, Orientation
from firmware_host.controller.controller import STORAGE_RETRY_S
from firmware_host.controller.orientation import laid_out
from firmware_host.hw import Beep, DiceButton, DicePressed, ScriptedDice
from firmware_host.journal import Journal, JournalWriteError, Kind
from firmware_host.leds import CapturingStrip, DiceSignal, Mark, Renderer, load_led_config, open_strip
from firmware_host.rules import Position
from firmware_host.sensing.clock import ManualClock
from firmware_host.sensing.events import BoardChanging, BoardStable

from controller_kit import Board

CONFIG = load_config(None)
PORTES = Position.start("portes")


class Loop:
    """An event loop over a capturing strip, a manual clock and a real journal."""

    def __init__(self, tmp_path, dice=(6, 5, 6, 5), strip=None, button_pins=None, buzzer=None, on_idle=None):
        self.clock = ManualClock(100.0)
        self.journal = Journal.open(tmp_path / "journal.sqlite3")
        self.events = queue.Queue()
        self.strip = strip or CapturingStrip(CONFIG.leds.layout)
        button = None
        if button_pins is not None:
            button = DiceButton(CONFIG.pins.button, self.events.put, self.clock.monotonic, pin_factory=button_pins)
        hardware = SimpleNamespace(strip=self.strip, button=button)
        self.seen = []
        self.loop = EventLoop.from_config(CONFIG, self.journal, hardware, events=self.events, dice=ScriptedDice(dice),
                                          clock=self.clock, buzzer=buzzer, judge_in_background=False,
                                          observers=[lambda view, event: self.seen.append(event)], on_idle=on_idle)
        self.controller: Controller = self.loop.controller

    def post_board(self, board: Board, stable=True):
        reading = board.sensed()
        self.loop.post(BoardChanging(reading))
        if stable:
            self.loop.post(BoardStable(reading))

    def turn(self, seconds=0.05):
        self.clock.advance(seconds)
        self.loop.turn()


def test_a_stable_board_reaches_the_controller_and_its_scene_reaches_the_strip(tmp_path):
    rig = Loop(tmp_path)
    rig.post_board(Board.of(PORTES).move("6", "7", "white"))
    rig.turn()
    renderer = Renderer.from_config(CONFIG.leds)
    shown = renderer.decode(rig.strip.frames[-1], rig.clock.now)
    assert shown["6"] == Mark.PUT_ON.value and shown["7"] == Mark.TAKE_FROM.value
    assert shown == renderer.names(rig.controller.scene)


def test_a_reading_already_superseded_by_a_change_is_not_judged(tmp_path):
    rig = Loop(tmp_path)
    rig.post_board(Board.of(PORTES).move("6", "7", "white"))
    rig.post_board(Board.of(PORTES), stable=False)   # the board changed again before the loop came round
    rig.turn()
    assert [type(event).__name__ for event in rig.seen] == ["BoardChanging"]
    assert rig.controller.sensed == Board.of(PORTES).sensed() and rig.controller.state == "setup"


def test_an_unchanged_scene_is_not_sent_again(tmp_path):
    rig = Loop(tmp_path)
    rig.post_board(Board.of(PORTES))
    rig.turn()
    sent = len(rig.strip.frames)
    rig.turn(0.001)   # before the next frame is due: nothing rendered, nothing sent
    assert len(rig.strip.frames) == sent


def test_the_button_is_polled_and_its_press_rolls(tmp_path):
    pins = MockFactory()
    rig = Loop(tmp_path, button_pins=pins)
    rig.post_board(Board.of(PORTES))
    rig.turn()
    button = pins.pin(CONFIG.pins.button.pin)
    button.drive_low()
    rig.turn(0.1)
    button.drive_high()
    rig.turn(0.1)
    assert rig.controller.state == "awaiting_roll"
    assert rig.journal.tail(1)[0].kind is Kind.OPENING_ROLL


def test_a_held_button_enters_referee_mode_through_the_loop(tmp_path):
    pins = MockFactory()
    rig = Loop(tmp_path, dice=(6, 5, 6, 5, 3, 1), button_pins=pins)
    board = Board.of(PORTES)
    rig.post_board(board)
    rig.loop.post(DicePressed(0))
    rig.turn()
    rig.loop.post(DicePressed(0))
    rig.turn()
    assert rig.controller.state == "moving"
    button = pins.pin(CONFIG.pins.button.pin)
    button.drive_low()
    rig.turn(2 * CONFIG.pins.button.debounce_s)   # the loop polls at the button's deadlines
    rig.turn(CONFIG.pins.button.hold_s)
    assert rig.controller.state == "referee"
    button.drive_high()
    rig.turn(0.1)
    assert rig.controller.state == "referee"   # releasing a hold is no press


def test_a_refused_press_beeps_the_buzzer(tmp_path):
    beeps = []
    rig = Loop(tmp_path, buzzer=SimpleNamespace(beep=beeps.append))
    rig.post_board(Board.of(PORTES).move("6", "7", "white"))
    rig.loop.post(DicePressed(0))
    rig.turn()
    assert beeps == [Beep.ROLL_REFUSED]


def test_a_journal_that_cannot_be_written_holds_the_event_and_the_loop_goes_on(tmp_path, monkeypatch, caplog):
    rig = Loop(tmp_path, dice=(6, 5) * 3)          # each try rolls the opening dice afresh
    rig.post_board(Board.of(PORTES))
    rig.turn()

    def full_disk(*args, **kwargs):
        raise JournalWriteError("cannot write to the journal: database or disk is full")
    monkeypatch.setattr(rig.journal, "record_opening_roll", full_disk)
    rig.loop.post(DicePressed(0))
    rig.turn()
    assert rig.controller.state == "opening_roll" and rig.controller.opening_dice is None
    assert rig.controller.scene.dice_signal is DiceSignal.STORAGE_FAULT and "disk is full" in caplog.text
    rig.turn(STORAGE_RETRY_S)                      # tried again: still full, still held
    assert rig.controller.storage_fault is not None
    monkeypatch.undo()
    rig.turn(STORAGE_RETRY_S)                      # the held press goes through once the journal writes
    assert rig.controller.state == "awaiting_roll" and rig.controller.storage_fault is None


def test_run_ends_when_stopped_from_another_thread(tmp_path):
    journal = Journal.open(tmp_path / "journal.sqlite3")
    hardware = SimpleNamespace(strip=CapturingStrip(CONFIG.leds.layout), button=None)
    loop = EventLoop.from_config(CONFIG, journal, hardware, events=queue.Queue(), dice=ScriptedDice(()))
    runner = threading.Thread(target=loop.run)
    runner.start()
    loop.stop()
    runner.join(5.0)
    assert not runner.is_alive() and loop.stopped
    assert hardware.strip.frames   # the first scene was shown before any event


@pytest.fixture
def neopixel_wire(monkeypatch):
    """Every buffer the real `neopixel.NeoPixel` class sends, as bytes."""
    import neopixel

    writes = []
    monkeypatch.setattr(neopixel, "neopixel_write", lambda pin, buffer: writes.append(bytes(buffer)))
    return writes


def test_the_led_bytes_of_a_lift_go_out_through_the_real_neopixel_class(tmp_path, board, write_board, neopixel_wire):
    board["leds"].update(driver="neopixel", pin="NEOPIXEL")   # the pin Blinka's OS-agnostic board has
    leds = load_led_config(write_board(board))
    rig = Loop(tmp_path, strip=open_strip(leds))
    rig.post_board(Board.of(PORTES, Orientation.ROTATED))
    rig.turn()
    rig.loop.post(DicePressed(0))
    rig.loop.post(DicePressed(0))
    rig.turn()
    rig.post_board(Board.of(PORTES, Orientation.ROTATED).lift("13", "white"), stable=False)
    rig.turn()
    frame = Renderer.from_config(leds).render(rig.controller.scene, rig.clock.now)
    sent = neopixel_wire[-1]
    origin = leds.layout.locations[str(Orientation.ROTATED.point(13))]   # unified 13 lies on physical 1
    for index in origin:
        red, green, blue = frame[index]
        assert sent[3 * index: 3 * index + 3] == bytes([green, red, blue])
    assert any(sent[3 * index: 3 * index + 3] != bytes(3) for index in origin)
    assert rig.controller.scene.marks[str(Orientation.ROTATED.point(13))] is Mark.LIFTED_ORIGIN
    assert laid_out(PORTES, Orientation.ROTATED) == Board.of(PORTES, Orientation.ROTATED).sensed()


class SlowReferee:
    """Stands in for a referee: each judgement waits until `go` is set, and names what it judged."""

    def __init__(self):
        self.go = threading.Event()
        self.started = threading.Event()

    def judge(self, reading):
        self.started.set()
        assert self.go.wait(5.0)
        if reading == "bad":
            raise ValueError("a reading the referee cannot judge")
        return f"verdict on {reading}"


def test_the_judging_thread_judges_only_the_newest_reading_waiting_and_survives_a_failure():
    events = queue.Queue()
    worker = JudgeWorker(events.put)
    referee = SlowReferee()
    worker.submit(referee, "first")
    assert referee.started.wait(5.0)      # the first is being judged: the next ones wait
    for reading in ("second", "bad", "third"):
        worker.submit(referee, reading)
    referee.go.set()
    judged = [events.get(timeout=5.0), events.get(timeout=5.0)]
    assert [(event.reading, event.verdict) for event in judged] == [("first", "verdict on first"),
                                                                     ("third", "verdict on third")]
    worker.submit(referee, "bad")
    worker.submit(referee, "fourth")
    assert events.get(timeout=5.0).reading == "fourth"
    worker.close()


def test_with_the_judging_thread_a_play_is_judged_off_the_loop_and_committed(tmp_path):
    journal = Journal.open(tmp_path / "journal.sqlite3")
    events = queue.Queue()
    hardware = SimpleNamespace(strip=CapturingStrip(CONFIG.leds.layout), button=None)
    loop = EventLoop.from_config(CONFIG, journal, hardware, events=events, dice=ScriptedDice((6, 5, 6, 5, 3, 1)),
                                 clock=ManualClock())
    controller = loop.controller

    def settle_within(seconds=5.0):
        loop.turn()
        while controller.awaiting_verdict is not None:
            loop.turn(timeout=seconds)   # the verdict comes back through the queue

    board = Board.of(PORTES)
    loop.post(BoardStable(board.sensed()))
    loop.post(DicePressed(0))
    loop.post(DicePressed(0))
    settle_within()
    assert controller.state == "moving" and controller.verdict.kind == "unchanged"
    loop.post(BoardStable(board.move("24", "18", "white").move("18", "13", "white").sensed()))
    settle_within()
    loop.post(DicePressed(0))
    settle_within()
    assert controller.scene.turn == "black" and journal.tail(1)[0].kind is Kind.ROLL
    loop.judge_worker.close()


def test_the_idle_call_comes_once_the_loop_has_been_quiet_and_once_a_quiet_stretch(tmp_path):
    # Not while events come (a game being played), not on every frame: once after QUIET_S without one.
    idle_at = []
    rig = Loop(tmp_path, on_idle=lambda: idle_at.append(rig.clock.now))
    started = rig.clock.now
    for _ in range(int(2 * QUIET_S / 0.05)):           # a board being set up: an event every turn
        rig.post_board(Board.of(PORTES).move("6", "7", "white"))
        rig.turn()
    assert idle_at == []
    last_event = rig.clock.now
    while rig.clock.now < last_event + 3 * QUIET_S:   # then quiet, frame after frame
        rig.turn()
    assert len(idle_at) == 1 and last_event + QUIET_S <= idle_at[0] < last_event + QUIET_S + 0.1
    rig.post_board(Board.of(PORTES))                   # another move, another quiet stretch: once more
    rig.turn()
    for _ in range(int(3 * QUIET_S / 0.05)):
        rig.turn()
    assert len(idle_at) == 2 and idle_at[0] > started


def test_a_failing_idle_call_does_not_end_the_loop(tmp_path):
    def fail():
        raise OSError("the allocator said no")
    rig = Loop(tmp_path, on_idle=fail)
    for _ in range(int(2 * QUIET_S / 0.05)):
        rig.turn()
    rig.post_board(Board.of(PORTES).move("6", "7", "white"))
    rig.turn()
    assert "BoardStable" in [type(event).__name__ for event in rig.seen]
