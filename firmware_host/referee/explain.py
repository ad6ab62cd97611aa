"""Why a board is not a legal play, in the words of the rule it breaks.

    explain(verdict.refusals)   # ["Only white's checkers move in white's turn: ...", ...]

The referee's verdict says *that* a reading is illegal and how to put it right; a player who
disputes it wants to know *why*. The referee records why as it decides (`referee.refusal`: the
rule, the points, the dice); this module only puts those values in words, one line each, naming
every point as the person reading it finds it on the board (`label`). Pure.
"""
from __future__ import annotations

from typing import Callable, Iterable

from firmware_host.referee.refusal import Refusal, Rule
from firmware_host.rules.plays import dice_text

# The whole roll must be played: what the last lines add when the checkers moved, but not by the dice.
_USED_UP = "; the whole roll must be played where it can be (the larger die when only one can)"


def explain(refusals: Iterable[Refusal], label: Callable[[int], str] = str) -> list[str]:
    """The refusals in words. `label(point)` names a point as the person reading it finds it on the
    board (default: the position format's number)."""
    return [_words(refusal, label) for refusal in refusals]


def _words(refusal: Refusal, label: Callable[[int], str]) -> str:
    def where(locations: Iterable[str]) -> str:
        """Points as a person finds them (`label`), "bar" as it is, listed in words."""
        names = [label(int(place)) if place.isdigit() else place for place in locations]
        return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]

    return _WORDS[refusal.rule](refusal, where, refusal.mover, refusal.mover.opponent, dice_text(refusal.dice))


def _plural(count: int) -> str:
    return "s" if count > 1 else ""


# Each rule's words: (refusal, where, mover, other, roll) -> one line.
_WORDS: dict[Rule, Callable[..., str]] = {
    Rule.ONLY_THE_MOVER_MOVES: lambda r, where, mover, other, roll: (
        f"Only {mover}'s checkers move in {mover}'s turn: {other}'s checkers changed"
        + (f" on {where(r.points)}." if r.points else " in the tray.")),
    Rule.BAR_FIRST: lambda r, where, mover, other, roll: (
        f"{mover} has a checker on the bar: it must enter the opponent's home table before any other checker moves."),
    Rule.BEARING_OFF: lambda r, where, mover, other, roll: (
        f"Bearing off starts only once all {r.limit} of {mover}'s checkers are in the home table "
        f"({where(r.table[:1])}-{where(r.table[-1:])}); at the turn's start "
        + (f"{mover} still had checkers on {where(r.points)}." if r.points else "one was on the bar.")),
    Rule.PINNED: lambda r, where, mover, other, roll: (
        f"The {mover} checker on {where(r.points)} is pinned by {other}: a pinned checker cannot move "
        "until every pinning checker has left the point."),
    Rule.POINT_HELD: lambda r, where, mover, other, roll: (
        f"Point {where(r.points)} is held by {other} ({r.count} checker{_plural(r.count)}): {mover} may not land there"
        + (f" (in {r.variant} a single checker holds a point)." if r.limit == 1 else ".")),
    Rule.PINNER_HOLDS: lambda r, where, mover, other, roll: (
        f"On {where(r.points)} {other} pins a {mover} checker: a pinning checker cannot itself be pinned, so "
        f"{mover} may not land there."),
    Rule.FIRST_CHECKER: lambda r, where, mover, other, roll: (
        f"The first checker has not passed the opponent's start ({where(r.points[:1])}) yet: until one "
        f"has, no second {mover} checker may leave the start point ({where(r.points[1:])})."),
    Rule.HEAD_RULE: lambda r, where, mover, other, roll: (
        f"Head rule: only {r.limit} checker{_plural(r.limit)} may leave the head ({where(r.points)}) in a turn; "
        f"{r.count} left it."),
    Rule.STARTING_TABLE: lambda r, where, mover, other, roll: (
        f"{mover} may not end a play holding all six points of {r.owner}'s starting table ({where(r.table)})."),
    Rule.OPPONENTS_TABLE: lambda r, where, mover, other, roll: (
        f"{mover} may not end a play holding more than four of the six points of {r.owner}'s starting "
        f"table ({where(r.table)}); it holds {where(r.points)}."),
    Rule.PRIME: lambda r, where, mover, other, roll: (
        f"{mover} may not end a play holding six points in a row ({where(r.points)}) with no {other} "
        f"checker ahead of them on {other}'s path."),
    Rule.TOO_FAR: lambda r, where, mover, other, roll: (
        f"The checkers moved {r.count} pips; {roll} allows at most {r.limit}."),
    Rule.NO_PLAY_AT_ALL: lambda r, where, mover, other, roll: (
        f"{roll} cannot be played at all: the board must stay as it was."),
    Rule.NO_PLAY_FROM: lambda r, where, mover, other, roll: (
        f"No legal play of {roll} moves a checker from {where(r.points)}: the legal plays start from "
        f"{where(r.table)}{_USED_UP}."),
    Rule.NOT_BY_THE_DICE: lambda r, where, mover, other, roll: (
        f"No legal play of {roll} leads to this board: the checkers moved, but not by the dice{_USED_UP}."),
    Rule.NO_PLAY_LEADS_HERE: lambda r, where, mover, other, roll: f"No legal play of {roll} leads to this board.",
    Rule.OFF_THE_CHOSEN_PLAY: lambda r, where, mover, other, roll: (
        f"The bot has chosen its play of {roll}: only its moves, made in the order the lights show, lead to a "
        "legal board."),
}
