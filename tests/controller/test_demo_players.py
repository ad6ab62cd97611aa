"""The demo's scripted players: their stunts never derail a match, and they know every state a match
passes through. Played in virtual time: the whole application on the simulated MCU (`SoakMatch`, with
no faults), or the controller alone (`controller_kit`)."""
from types import SimpleNamespace

from firmware_host.controller import machine as m
from firmware_host.demo import DemoStuck, Players, Table
from firmware_host.hil.soak import Figures, SoakMatch, soak_config
from firmware_host.hw import DicePressed
from firmware_host.journal import Kind
from firmware_host.rules.match import MatchRules

from controller_kit import BEFORE_THE_BLOCKADE, NEVERFINISHING, Rig, journal_game_at


class WatchedPlayers(Players):
    """Notes the verdict on the board the illegal move's guidance led back to."""

    def __init__(self, demo, seed):
        super().__init__(demo, seed)
        self.led_back_to = []

    def replan(self, seen, plays):
        self.led_back_to.append(self.demo.table.seen.verdict_kind)
        return super().replan(seen, plays)


def play_one_game(tmp_path, variant: str, seed: int) -> tuple[WatchedPlayers, list]:
    match = SoakMatch(soak_config(), MatchRules(sequence=(variant,), target=1), seed, fault_rate=0,
                      figures=Figures(), folder=tmp_path)
    try:
        players = WatchedPlayers(match, seed)
        final = players.play_match()
        records = [(event.kind, dict(event.data)) for event in match.rig.journal.tail(1_000_000)]
    finally:
        match.close()
    assert final.state == m.MATCH_OVER and max(final.score) >= 1
    return players, records


def test_after_an_illegal_move_the_players_go_on_from_wherever_the_lights_led_the_board(tmp_path):
    """The nearest legal board to an illegal one may be the turn's start, a stage of some play or a
    complete play: from each, the players finish a legal play and the match goes on."""
    led_back_to = set()
    for seed in range(4, 10):
        players, records = play_one_game(tmp_path / str(seed), "portes", seed)
        assert "illegal_board" in [data["reason"] for kind, data in records if kind is Kind.REFUSAL]
        assert players.stunts == set()
        led_back_to.update(players.led_back_to)
    assert {"partial", "complete"} <= led_back_to


class ControllerHands:
    """The `Demo` interface the players use, over the controller alone in virtual time: what the
    players wait for comes as the clock moves on (a second at a time)."""

    settings = SimpleNamespace(boards="none")

    def __init__(self, rig: Rig):
        self.rig = rig
        self.table = ControllerTable(rig)
        self.shown = []

    def press(self) -> None:
        self.rig.press()
        self.table.observe(self.rig.controller.view(), DicePressed(self.rig.now))

    def show(self, caption: str, seen=None) -> None:
        self.shown.append(caption)

    def say(self, text: str) -> None:
        pass


class ControllerTable(Table):
    def __init__(self, rig: Rig):
        super().__init__()
        self.rig = rig

    def wait(self, ready, what):
        for _ in range(60):
            self.observe(self.rig.controller.view(), None)
            if ready(self.seen):
                return self.seen
            self.rig.wait(1.0)
        raise DemoStuck(f"waited a virtual minute for {what}")


def test_in_a_permanent_blockade_the_players_press_to_end_the_game_drawn(tmp_path):
    rig = Rig(tmp_path, match=NEVERFINISHING)
    journal_game_at(rig, BEFORE_THE_BLOCKADE, (1, 2))
    rig.restart()
    rig.show()
    rig.show(rig.board.move("23", "24", "black"))   # the play that leaves both sides blocked for good
    rig.press()
    assert rig.state == m.BLOCKADE
    hands = ControllerHands(rig)
    seen = Players(hands, seed=1).play_until(lambda seen: seen.state == m.SETUP)
    assert seen.state == m.SETUP and seen.game_number == 2 and seen.score == (0, 0)
    (ended,) = rig.records(Kind.GAME_ENDED)
    assert ended["reason"] == "blocked_for_good"
    assert any("blockade" in caption for caption in hands.shown)
