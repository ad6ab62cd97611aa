"""The demo's scripted players: their stunts never derail a match. Played in virtual time: the whole
application on the simulated MCU (`SoakMatch`, with no faults)."""
from firmware_host.controller import machine as m
from firmware_host.controller.demo import Players
from firmware_host.hil.soak import Figures, SoakMatch, soak_config
from firmware_host.journal import Kind
from firmware_host.rules.match import MatchRules


class WatchedPlayers(Players):
    """Notes the verdict on the board the illegal move's guidance led back to."""

    def __init__(self, demo, seed):
        super().__init__(demo, seed)
        self.led_back_to = []

    def replan(self, seen, plays):
        self.led_back_to.append(self.demo.table.seen.verdict)
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
