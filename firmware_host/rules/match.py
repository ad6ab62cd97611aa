"""Matches: a sequence of games to a target score, the opening roll, and who starts each game.

Pure values: dice come in as arguments, every update returns a new `Match`.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Iterable, Mapping

from firmware_host.rules.plays import GameResult
from firmware_host.rules.position import BLACK, WHITE, Color
from firmware_host.rules.variants import VARIANT_ALIASES, VARIANTS, RulesError

PRESETS: Mapping[str, tuple[str, ...]] = {
    "tavli": ("portes", "plakoto", "fevga"),
    "tabla": ("portes", "gulbara", "tapa"),
}
OPENING_ROLLS = ("reroll", "use_opening_dice", "keep_own_die")
TIE_STARTERS = ("opening_roll", "same_as_tied_game", "last_pinner")
RESIGN_POINTS = ("current_status", "single", "double")


def sequence_of(name_or_games: str | Iterable[str]) -> tuple[str, ...]:
    """A preset ("tavli", "tabla"), one game repeated ("fevga"), or any list of games."""
    if isinstance(name_or_games, str):
        if name_or_games in PRESETS:
            return PRESETS[name_or_games]
        games: Iterable[str] = name_or_games.split(",")
    else:
        games = name_or_games
    sequence = []
    for game in games:
        name = VARIANT_ALIASES.get(game.strip().lower(), game.strip().lower())
        if name not in VARIANTS:
            raise RulesError(f"unknown game {game!r} in the match sequence; expected a preset "
                             f"({', '.join(PRESETS)}) or games from {', '.join(VARIANTS)}")
        sequence.append(name)
    if not sequence:
        raise RulesError("a match sequence needs at least one game")
    return tuple(sequence)


@dataclass(frozen=True)
class MatchRules:
    sequence: tuple[str, ...] = PRESETS["tavli"]
    target: int = 5
    opening_roll: str = "reroll"
    tie_advances_rotation: bool = True
    tie_next_starter: str = "opening_roll"
    resign_points: str = "current_status"

    def __post_init__(self) -> None:
        object.__setattr__(self, "sequence", sequence_of(self.sequence))
        if isinstance(self.target, bool) or not isinstance(self.target, int) or self.target < 1:
            raise RulesError(f"match target: {self.target!r} is not allowed: expected a whole "
                             "number of points, 1 or more (usually 3, 5 or 7)")
        for name, value, allowed in (("opening_roll", self.opening_roll, OPENING_ROLLS),
                                     ("tie_next_starter", self.tie_next_starter, TIE_STARTERS),
                                     ("resign_points", self.resign_points, RESIGN_POINTS)):
            if value not in allowed:
                raise RulesError(f"match rule {name}: {value!r} is not allowed: expected one of "
                                 + ", ".join(allowed))

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> "MatchRules":
        known = {f: f for f in cls.__dataclass_fields__}
        known.update({"match_sequence": "sequence", "match_target": "target"})
        values = {}
        for key, value in options.items():
            name = known.get(key.lower())
            if name is None:
                raise RulesError(f"unknown match rule {key!r}; known: {', '.join(cls.__dataclass_fields__)}")
            values[name] = value
        return cls(**values)


@dataclass(frozen=True)
class OpeningRoll:
    """The outcome of both players rolling one die to decide who starts."""

    starter: Color | None            # None: the dice tied, roll again
    first_dice: tuple[int, ...] | None = None  # use_opening_dice: the starter plays these
    kept_die: int | None = None      # keep_own_die: the starter rolls only the second die


def opening_roll(white_die: int, black_die: int, rule: str = "reroll") -> OpeningRoll:
    for die in (white_die, black_die):
        if isinstance(die, bool) or not isinstance(die, int) or not 1 <= die <= 6:
            raise RulesError(f"a die shows 1 to 6, got {die!r}")
    if rule not in OPENING_ROLLS:
        raise RulesError(f"opening roll rule {rule!r}: expected one of {', '.join(OPENING_ROLLS)}")
    if white_die == black_die:
        return OpeningRoll(None)
    starter = WHITE if white_die > black_die else BLACK
    if rule == "use_opening_dice":
        return OpeningRoll(starter, first_dice=(white_die, black_die))
    if rule == "keep_own_die":
        return OpeningRoll(starter, kept_die=max(white_die, black_die))
    return OpeningRoll(starter)


@dataclass(frozen=True)
class GameRecord:
    variant: str
    starter: Color
    result: GameResult
    last_mover: Color  # who played the game's last turn (the last pinner, in a mother tie)


@dataclass(frozen=True)
class Match:
    rules: MatchRules
    games: tuple[GameRecord, ...] = ()
    # Index into the sequence of the next game (a tie that does not advance keeps it).
    position_in_sequence: int = 0

    @classmethod
    def new(cls, rules: MatchRules | None = None) -> "Match":
        return cls(rules or MatchRules())

    @property
    def score(self) -> dict[Color, int]:
        totals = {WHITE: 0, BLACK: 0}
        for game in self.games:
            if game.result.winner is not None:
                totals[game.result.winner] += game.result.points
        return totals

    @property
    def winner(self) -> Color | None:
        for color, points in self.score.items():
            if points >= self.rules.target:
                return color
        return None

    @property
    def is_over(self) -> bool:
        return self.winner is not None

    @property
    def next_variant(self) -> str:
        sequence = self.rules.sequence
        return sequence[self.position_in_sequence % len(sequence)]

    @property
    def next_starter(self) -> Color | None:
        """Who starts the next game; None when an opening roll decides."""
        if not self.games:
            return None
        last = self.games[-1]
        if last.result.winner is not None:
            return last.result.winner
        return {"opening_roll": None, "same_as_tied_game": last.starter,
                "last_pinner": last.last_mover}[self.rules.tie_next_starter]

    def record(self, result: GameResult, starter: Color, last_mover: Color) -> "Match":
        """The match after a game that `starter` began ended with `result`."""
        if self.is_over:
            raise RulesError("the match is already over")
        advance = result.winner is not None or self.rules.tie_advances_rotation
        return replace(self, games=self.games + (GameRecord(self.next_variant, starter, result,
                                                            last_mover),),
                       position_in_sequence=self.position_in_sequence + (1 if advance else 0))

    def to_json(self) -> dict[str, Any]:
        return {
            "sequence": list(self.rules.sequence), "target": self.rules.target,
            "score": {c.value: p for c, p in self.score.items()},
            "games": [{"variant": g.variant, "starter": g.starter.value, "result": g.result.to_json()}
                      for g in self.games],
            "next_variant": None if self.is_over else self.next_variant,
            "winner": self.winner.value if self.winner else None,
        }


def resignation(loser_off: int, rule: str = "current_status") -> int:
    """Points a resigning player concedes (dossier A21)."""
    if rule not in RESIGN_POINTS:
        raise RulesError(f"resign rule {rule!r}: expected one of {', '.join(RESIGN_POINTS)}")
    if rule == "single":
        return 1
    if rule == "double":
        return 2
    return 1 if loser_off else 2
