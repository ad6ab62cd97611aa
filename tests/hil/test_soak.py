"""The fault campaign: a short one must come out clean, and its checks must catch a wrong controller."""
from __future__ import annotations

import random

import pytest

from firmware_host.cli import main
from firmware_host.controller import controller as controller_module
from firmware_host.hil.soak import FAULTS, Figures, SoakMatch, SoakPlayers, SoakSettings, run_campaign, soak_config
from firmware_host.journal import Journal
from firmware_host.referee import Referee, Verdict
from firmware_host.rules.match import MatchRules


def test_a_short_campaign_in_every_variant_with_faults_is_clean():
    figures = run_campaign(SoakSettings(games=12, fault_rate=0.08, seed=11))
    assert figures.problems == []
    assert (figures.false_verdicts, figures.crashes, figures.plays_lost) == (0, 0, 0)
    assert figures.games == 12
    # It did test something: boards judged, plays committed, every kind of fault, every stunt.
    assert figures.moves_judged > figures.turns > 100
    assert figures.commits_checked == figures.turns
    assert all(figures.faults[kind] for kind in FAULTS), figures.faults
    assert all(figures.stunts.values()), figures.stunts


def test_a_short_campaign_with_the_bot_seated_is_clean():
    """The players move the bot's checkers as the lights show, through the same stunts and faults; the
    one complete board of a bot's turn is its play's end."""
    figures = run_campaign(SoakSettings(games=4, fault_rate=0.08, seed=16, bots=True,
                                        variants=("portes", "plakoto", "fevga")))
    assert figures.problems == []
    assert (figures.false_verdicts, figures.crashes, figures.plays_lost) == (0, 0, 0)
    assert figures.turns > figures.bot_turns > 20
    assert figures.stunts["backwards"] and figures.stunts["look_between_moves"]


def test_the_command_prints_the_figures_and_exits_0_when_clean(capsys, tmp_path):
    assert main(["hil", "soak", "--games", "2", "--faults", "0.1", "--seed", "5", "--variants", "plakoto,fevga",
                 "--json", str(tmp_path / "soak.json")]) == 0
    out = capsys.readouterr().out
    for line in ("games played:        2", "false verdicts:      0", "crashes:             0",
                 "committed plays lost: 0"):
        assert line in out
    assert '"games": 2' in (tmp_path / "soak.json").read_text()


@pytest.mark.parametrize("argv, message", [
    (["--games", "0"], "games is 0"),
    (["--faults", "1.5"], "faults is 1.5"),
    (["--variants", "portes,chess"], "unknown variants ['chess']"),
])
def test_bad_arguments_are_refused_clearly(capsys, argv, message):
    assert main(["hil", "soak", *argv]) == 2
    assert message in capsys.readouterr().err


class CompleteTooSoon(Referee):
    """A broken referee: any board on the way to a play is called complete."""

    def judge(self, reading):
        verdict = super().judge(reading)
        if verdict.kind == "partial":
            return Verdict("complete", position=verdict.position)
        return verdict


def test_a_referee_calling_a_partial_board_complete_is_caught(monkeypatch):
    monkeypatch.setattr(controller_module, "Referee", CompleteTooSoon)
    figures = run_campaign(SoakSettings(games=3, fault_rate=0.0, seed=2, variants=("portes",)))
    assert figures.false_verdicts > 0
    assert any("called complete, expected partial" in problem for problem in figures.problems)


def test_plays_missing_from_the_journal_are_counted_lost(monkeypatch):
    recorded = Journal.record_play
    calls = []

    def record_some(journal, *args, **kwargs):
        calls.append(1)
        if len(calls) % 10:          # every tenth play is never written
            return recorded(journal, *args, **kwargs)
    monkeypatch.setattr(Journal, "record_play", record_some)
    figures = run_campaign(SoakSettings(games=2, fault_rate=0.0, seed=4, variants=("fevga",), power_cut_rate=0.0))
    assert figures.plays_lost == len(calls) // 10 > 0


def test_with_physics_the_soak_plays_on_the_weighed_sensors(monkeypatch):
    from firmware_host.sim import weighed

    reads = []
    original = weighed.WeighedBoard.read
    monkeypatch.setattr(weighed.WeighedBoard, "read", lambda self, *args: reads.append(1) or original(self, *args))
    figures = run_campaign(SoakSettings(games=1, fault_rate=0.0, seed=3, variants=("portes",), physics=True))
    assert figures.games == 1 and figures.turns > 0
    assert len(reads) > 100


def test_power_cuts_resume_from_the_journal_and_lose_nothing():
    figures = run_campaign(SoakSettings(games=3, fault_rate=0.02, seed=6, variants=("portes", "narde"),
                                        power_cut_rate=0.05))
    assert figures.problems == []
    assert figures.power_cuts > 5
    assert (figures.false_verdicts, figures.crashes, figures.plays_lost) == (0, 0, 0)


def test_plays_missing_counts_what_the_players_saw_accepted_and_the_journal_lacks_in_order():
    from firmware_host.hil.soak import plays_missing
    from firmware_host.rules import Position
    a, b, c = (Position.start(variant) for variant in ("portes", "plakoto", "fevga"))
    assert plays_missing([a, b, c], [a, b, c]) == 0
    assert plays_missing([a, b, c], [a, c]) == 1
    assert plays_missing([a, b], [b, a]) == 1            # out of order: one of them is not where it belongs
    assert plays_missing([a, b], [a, a, b, c]) == 0      # the journal may hold more (a commit the players missed)


@pytest.mark.parametrize("double", [1, 2])
def test_legal_finals_looked_for_board_by_board_are_the_listed_ones(double, monkeypatch):
    """A cascade too big to list is asked board by board; on one small enough to list, both agree."""
    from firmware_host.hil import legal_finals
    from firmware_host.referee import Reading
    from firmware_host.rules import Position, Turn
    position = Position.from_json({"variant": "gulbara", "turn": "white", "rolls": {"white": 5, "black": 5},
                                   "white": {"points": {"6": 2, "5": 2, "9": 1, "12": 1}, "off": 9},
                                   "black": {"points": {"14": 3, "18": 2}, "off": 10}})
    listed = legal_finals.LegalFinals(position, (double, double), None)
    assert listed.listed
    monkeypatch.setattr(legal_finals, "FINALS_LIMIT", 1)
    searched = legal_finals.LegalFinals(position, (double, double), None)
    assert not searched.listed
    turn = Turn(position, (double, double))
    finals = {Reading.of(play.position) for play in turn.plays()}
    assert all(final in searched for final in finals)
    # The boards of the first stage's search, on the way or not: finals only where listed ones are.
    boards = {Reading.of(turn.frame.to_position(visit.node, played_turn=True))
              for visit in turn.search(turn.start, turn.stages[0])}
    assert len(boards) > 10
    assert {board for board in boards if board in searched} == boards & finals


class DrawsFirst(random.Random):
    """A generator whose every choice is the first: the sleeve always knocks white first."""

    def choice(self, seq):
        return seq[0]


def test_a_sleeve_with_no_checker_of_its_colour_on_top_knocks_the_other(tmp_path):
    """White's last checkers pinned under black and the rest off (a plakoto end game): a bump drawn for
    white knocks black's top checker and puts it back, where the soak crashed on an empty choice."""
    match = SoakMatch(soak_config(), MatchRules(sequence=("plakoto",), target=1), 3, 0.0, Figures(), tmp_path)
    try:
        players = SoakPlayers(match, 3)
        players.random = DrawsFirst()
        stacks = {"point:6": ("white", "black"), "point:7": ("white", "black", "black"),
                  "point:19": ("black",) * 12, "off:white": ("white",) * 13}
        match.board.set_stacks(stacks)
        slides = []
        slide = match.board.slide
        match.board.slide = lambda origin, destination, colour: (slides.append((origin, destination, colour)),
                                                                 slide(origin, destination, colour))
        players.bump()
        assert slides == [(6, 7, "black"), (7, 6, "black")]
        assert match.board.stacks() == stacks
    finally:
        match.close()
