"""A remote match's trouble with the other board has a light of its own, through the one scene the
controller builds and the event loop sends to the strip: a refused message or a late dice secret
shows REMOTE_FAULT on the dice for `remote_fault_s`, then the dice again; a match won by a forfeit
shows it until the next match (docs/leds.md). Read back from the frames on a capturing strip."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "controller"))

from controller_kit import Rig   # noqa: E402
from firmware_host.app import EventLoop   # noqa: E402
from firmware_host.config import load_config   # noqa: E402
from firmware_host.controller import Controller, Timings   # noqa: E402
from firmware_host.controller.remote import RemoteFault, RemoteForfeit, RemotePlay   # noqa: E402
from firmware_host.hw import ScriptedDice   # noqa: E402
from firmware_host.leds import CapturingStrip, DiceSignal, Renderer   # noqa: E402
from firmware_host.rules import BLACK, WHITE   # noqa: E402
from firmware_host.rules.match import MatchRules   # noqa: E402
from firmware_host.sensing.clock import ManualClock   # noqa: E402

CONFIG = load_config(None)
PORTES = MatchRules(sequence=("portes",), target=3)
REMOTE_FAULT = DiceSignal.REMOTE_FAULT.value


class Lit:
    """table-1's controller (black is the opponent board's; black starts, its turn awaits its play)
    behind an event loop that shows each scene on a capturing strip, in virtual time."""

    def __init__(self, tmp_path):
        rig = Rig(tmp_path, match=PORTES)
        rig.controller = Controller(rig.journal, ScriptedDice([3, 5, 6, 5, 2, 1]), PORTES, remote_seats={BLACK},
                                    timings=Timings(remote_fault_s=5.0))
        rig.to_moving()
        self.clock = ManualClock(rig.now + 1.0)
        self.strip = CapturingStrip(CONFIG.leds.layout)
        self.renderer = Renderer.from_config(CONFIG.leds)
        self.loop = EventLoop(rig.controller, self.renderer, strip=self.strip, clock=self.clock)
        self.controller = rig.controller

    def send(self, event=None, after_s: float = 0.1) -> dict[str, str]:
        """`event` taken by the loop (or only time passing): what the strip shows then."""
        if event is not None:
            self.loop.post(event)
        self.clock.advance(after_s)
        self.loop.turn()
        return self.renderer.decode(self.strip.frames[-1], self.clock.now)


def test_a_refused_remote_play_lights_the_dice_for_a_while_then_the_roll_again(tmp_path):
    lit = Lit(tmp_path)
    dice = lit.controller.dice
    shown = lit.send()
    assert shown["dice:1"] == f"die:{dice[0]}"   # the remote turn's roll, waiting for its play
    wrong = RemotePlay("table-2", "black", (1, 1), (), lit.controller.position.to_json())   # not this roll
    shown = lit.send(wrong)
    assert lit.controller.remote_fault is not None
    assert shown["dice:1"] == shown["dice:2"] == REMOTE_FAULT
    assert lit.send(after_s=4.0)["dice:1"] == REMOTE_FAULT
    assert lit.send(after_s=1.5)["dice:1"] == f"die:{dice[0]}"


def test_a_late_secret_lights_the_dice(tmp_path):
    lit = Lit(tmp_path)
    shown = lit.send(RemoteFault("remote_late", "table-2 has not revealed its dice secret for roll 3"))
    assert shown["dice:1"] == shown["dice:2"] == REMOTE_FAULT


def test_a_forfeit_lights_the_dice_until_the_next_match(tmp_path):
    lit = Lit(tmp_path)
    shown = lit.send(RemoteForfeit(BLACK, "table-2 did not reveal its dice secret for roll 3 within 120 s"))
    assert lit.controller.state == "match_over" and lit.controller.match.winner is WHITE
    assert shown["dice:1"] == shown["dice:2"] == REMOTE_FAULT and shown["turn:white"] == "turn"
    assert lit.send(after_s=600.0)["dice:1"] == REMOTE_FAULT
