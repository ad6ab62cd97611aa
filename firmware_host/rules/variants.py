"""The games as data: geometry, what a landing on a lone checker does, and the house-rule options.

Every rule that differs between the games is a named option with a per-variant default
(`rules.md`, house-rule options; flag names as in the dossier's flag table). `Rules.for_variant`
resolves a game's options; nothing else in the engine asks which variant it is playing.
"""
from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from types import MappingProxyType
from typing import Any, Callable, Mapping


class Family(Enum):
    CONTRARY = "contrary"  # White 24 -> 1, Black 1 -> 24
    PARALLEL = "parallel"  # both counter-clockwise, Black 12 -> 1 -> 24 -> 13


class Capture(Enum):
    """What happens when a checker lands on a lone opposing checker."""

    HIT = "hit"        # the lone checker goes to the bar (portes, tavla)
    PIN = "pin"        # it is trapped underneath (plakoto, tapa)
    CHOICE = "choice"  # the mover chooses hit or trap (neverfinishing)
    NONE = "none"      # one checker closes a point: no landing at all (parallel games)


@dataclass(frozen=True)
class Variant:
    name: str
    family: Family
    capture: Capture
    # Starting checkers as {point: count}, White's and Black's.
    white_start: Mapping[int, int]
    black_start: Mapping[int, int]

    @property
    def has_bar(self) -> bool:
        return self.capture in (Capture.HIT, Capture.CHOICE)

    @property
    def has_pins(self) -> bool:
        return self.capture in (Capture.PIN, Capture.CHOICE)


_BACKGAMMON_WHITE = {24: 2, 13: 5, 8: 3, 6: 5}
_BACKGAMMON_BLACK = {1: 2, 12: 5, 17: 3, 19: 5}


def _variant(name: str, family: Family, capture: Capture, white: dict, black: dict) -> Variant:
    return Variant(name, family, capture, MappingProxyType(white), MappingProxyType(black))


VARIANTS: Mapping[str, Variant] = MappingProxyType({
    v.name: v for v in (
        _variant("portes", Family.CONTRARY, Capture.HIT, _BACKGAMMON_WHITE, _BACKGAMMON_BLACK),
        _variant("tavla", Family.CONTRARY, Capture.HIT, _BACKGAMMON_WHITE, _BACKGAMMON_BLACK),
        _variant("plakoto", Family.CONTRARY, Capture.PIN, {24: 15}, {1: 15}),
        _variant("tapa", Family.CONTRARY, Capture.PIN, {24: 15}, {1: 15}),
        _variant("neverfinishing", Family.CONTRARY, Capture.CHOICE, {24: 15}, {1: 15}),
        _variant("fevga", Family.PARALLEL, Capture.NONE, {24: 15}, {12: 15}),
        _variant("moultezim", Family.PARALLEL, Capture.NONE, {24: 15}, {12: 15}),
        _variant("gulbara", Family.PARALLEL, Capture.NONE, {24: 15}, {12: 15}),
        _variant("narde", Family.PARALLEL, Capture.NONE, {24: 15}, {12: 15}),
    )
})

# Short names people use for a variant in a prefixed option ("nf.entry_may_trap").
VARIANT_ALIASES = MappingProxyType({"nf": "neverfinishing", "longnardy": "narde", "tabla": "portes"})

HITTING = ("portes", "tavla", "neverfinishing")
PINNING = ("plakoto", "tapa", "neverfinishing")
PARALLEL = ("fevga", "moultezim", "gulbara", "narde")
ALL = tuple(VARIANTS)


class RulesError(ValueError):
    """A house-rule option that does not exist, does not apply, or has a value it cannot take."""


def _parse_bool(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in ("true", "yes", "on", "1"):
        return True
    if isinstance(value, str) and value.lower() in ("false", "no", "off", "0"):
        return False
    raise ValueError("expected true or false")


def _parse_int(low: int, high: int) -> Callable[[Any], int]:
    def parse(value: Any) -> int:
        if isinstance(value, bool):
            raise ValueError(f"expected a whole number from {low} to {high}")
        try:
            number = int(value)
        except (TypeError, ValueError):
            raise ValueError(f"expected a whole number from {low} to {high}") from None
        if isinstance(value, float) and value != number or not low <= number <= high:
            raise ValueError(f"expected a whole number from {low} to {high}")
        return number
    return parse


def _parse_choice(*choices: str) -> Callable[[Any], str]:
    def parse(value: Any) -> str:
        if isinstance(value, str) and value.lower() in choices:
            return value.lower()
        raise ValueError("expected one of " + ", ".join(choices))
    parse.choices = choices  # type: ignore[attr-defined]
    return parse


def _parse_die_set(value: Any) -> frozenset[int]:
    items = value.split(",") if isinstance(value, str) else value
    try:
        dice = frozenset(_parse_int(1, 6)(item.strip() if isinstance(item, str) else item)
                         for item in items if not (isinstance(item, str) and not item.strip()))
    except (TypeError, ValueError):
        raise ValueError('expected die values 1-6, as a list [3, 4, 6] or a string "3,4,6"') from None
    return dice


@dataclass(frozen=True)
class Option:
    name: str
    parse: Callable[[Any], Any]
    defaults: Mapping[str, Any]  # variant -> default; the variants it applies to are the keys
    doc: str

    def applies_to(self, variant: str) -> bool:
        return variant in self.defaults


def _option(name: str, parse: Callable[[Any], Any], defaults: Mapping[str, Any] | Any,
            applies: tuple[str, ...], doc: str) -> Option:
    table = dict(defaults) if isinstance(defaults, dict) else {v: defaults for v in applies}
    assert set(table) == set(applies), name
    return Option(name, parse, MappingProxyType(table), doc)


_PRIME_RULES = ("unblock_all_on_one_point", "no_prime_without_opponent_ahead",
                "opponent_must_be_able_to_move", "opp_start_table_max4", "none")

GAME_OPTIONS: Mapping[str, Option] = MappingProxyType({o.name: o for o in (
    _option("higher_die_rule", _parse_bool, True, ALL,
            "If only one of two different dice can be played, it must be the higher one."),
    _option("no_hit_and_run_in_home", _parse_bool,
            {"portes": False, "tavla": True, "neverfinishing": False}, HITTING,
            "A checker that hits on a point of its owner's home board moves no further that turn."),
    _option("pinned_blocks_bearoff", _parse_bool, True, PINNING,
            "No bearing off while any of the mover's checkers is pinned, even inside his home."),
    _option("mother_rule", _parse_bool,
            {"plakoto": True, "tapa": True, "neverfinishing": False}, PINNING,
            "Pinning the last checker on the opponent's start point ends the game."),
    _option("mother_exception", _parse_choice("any_checker_on_own_start", "none"),
            "any_checker_on_own_start", PINNING,
            "Play goes on while the pinner still has a checker on his own start point."),
    _option("mother_deferred_win", _parse_bool, True, PINNING,
            "A pinner who later clears his own start while the mother is still pinned wins then."),
    _option("mother_check", _parse_choice("end_of_turn", "every_move"), "end_of_turn", PINNING,
            "When the mother rule is judged: on the position at the end of the turn, or after every die."),
    _option("mother_loss_points", _parse_int(1, 3), 2, PINNING,
            "Points lost by the side whose mother is pinned."),
    _option("entry_may_trap", _parse_bool, True, ("neverfinishing",),
            "Entering from the bar onto a lone checker may trap it instead of hitting it."),
    _option("start_rule", _parse_choice("first_checker", "head_rule", "none"),
            {"fevga": "first_checker", "moultezim": "first_checker", "gulbara": "none",
             "narde": "head_rule"}, PARALLEL,
            "first_checker: no second checker leaves the start until one has passed the opponent's "
            "start; head_rule: one checker off the start per turn."),
    _option("first_checker_release_at", _parse_choice("past_start", "start_quarter"),
            "past_start", PARALLEL,
            "The runner frees the start once strictly past the opponent's start point, or once in "
            "the opponent's starting quarter."),
    _option("first_checker_release_timing", _parse_choice("immediate", "next_turn"),
            "immediate", PARALLEL,
            "A runner that passes mid-turn frees the remaining dice (immediate) or the next turn."),
    _option("head_rule_first_roll_doubles", _parse_die_set, frozenset({3, 4, 6}), PARALLEL,
            "Doubles that take two checkers off the head on a player's first roll."),
    _option("start_table_scope", _parse_choice("own", "both", "none"),
            {"fevga": "own", "moultezim": "none", "gulbara": "none", "narde": "none"}, PARALLEL,
            "A play may not end holding all six points of the own (or either) starting table."),
    _option("start_table_check", _parse_choice("end_of_turn", "every_move"), "end_of_turn",
            PARALLEL, "When the starting-table rule is judged."),
    _option("prime_rule", _parse_choice(*_PRIME_RULES),
            {"fevga": "unblock_all_on_one_point", "moultezim": "opp_start_table_max4",
             "gulbara": "none", "narde": "no_prime_without_opponent_ahead"}, PARALLEL,
            "Which limit on primes applies: unblock a prime the opponent's checkers are all "
            "behind; no prime without an opposing checker ahead of it; the opponent must be left "
            "a move when any play allows it; at most four points of the opponent's starting "
            "table; or none."),
    _option("prime_check", _parse_choice("end_of_turn", "every_move"), "end_of_turn", PARALLEL,
            "When prime_rule = no_prime_without_opponent_ahead is judged: on the board at the end of "
            "the play (a prime made and broken again within the turn is allowed), or after every "
            "checker move (no move may complete such a prime)."),
    _option("unblock_precedence", _parse_choice("max_dice_first", "unblock_first"),
            "max_dice_first", PARALLEL,
            "Whether the unblock obligation chooses among the maximal plays, or comes before them."),
    _option("cascading_doubles", _parse_bool,
            {"fevga": False, "moultezim": False, "gulbara": True, "narde": False}, PARALLEL,
            "After the protected turns, n-n is played four times, then four times each higher number."),
    _option("gulbara_protected_turns", _parse_int(0, 99), 3, PARALLEL,
            "How many turns play doubles normally before cascades start."),
    _option("gulbara_protected_scope", _parse_choice("game", "per_player"), "game", PARALLEL,
            "Whether the protected turns are the game's first turns or each player's."),
    _option("gulbara_remainder", _parse_choice("lost", "opponent_plays"), "lost", PARALLEL,
            "The dice of a cascade that cannot be played are lost, or the opponent plays them."),
    _option("gulbara_cascade_maximize", _parse_choice("per_stage", "whole_cascade"), "per_stage",
            PARALLEL, "Each cascade stage is maximised on its own, or the whole cascade at once."),
    _option("koks", _parse_bool, False, ("narde",),
            "Three points when the loser has borne off none and still has a checker in the "
            "winner's home board."),
    _option("mutual_no_move_draw", _parse_bool, False, ALL,
            "The game is a draw when neither side has a legal move with any roll."),
)})


@dataclass(frozen=True)
class Rules:
    """The resolved rule set for one game: the variant and a value for every option it has."""

    variant: Variant
    options: Mapping[str, Any]

    def __getattr__(self, name: str) -> Any:
        try:
            return self.options[name]
        except KeyError:
            raise AttributeError(f"{self.variant.name} has no option {name!r}") from None

    @classmethod
    def for_variant(cls, variant: str, options: Mapping[str, Any] | None = None) -> "Rules":
        """Defaults of `variant`, overridden by `options` ({"higher_die_rule": False, ...}).

        Names are case-insensitive and may carry the variant as a prefix ("tapa.MOTHER_RULE");
        an option of another variant, an unknown one, or a bad value raises RulesError.
        """
        if variant not in VARIANTS:
            raise RulesError(f"unknown variant {variant!r}; expected one of {', '.join(VARIANTS)}")
        if not options:  # one object per game's defaults: its rule facts are read once (plays.py)
            if variant not in _DEFAULT_RULES:
                _DEFAULT_RULES[variant] = cls._resolved(variant, {})
            return _DEFAULT_RULES[variant]
        return cls._resolved(variant, options)

    @classmethod
    def _resolved(cls, variant: str, options: Mapping[str, Any]) -> "Rules":
        values = {name: option.defaults[variant]
                  for name, option in GAME_OPTIONS.items() if option.applies_to(variant)}
        for key, raw in options.items():
            name = option_name(key, variant)
            try:
                values[name] = GAME_OPTIONS[name].parse(raw)
            except ValueError as error:
                raise RulesError(f"rule {key!r}: {raw!r} is not allowed: {error}") from None
        return cls(VARIANTS[variant], MappingProxyType(values))

    def changed(self) -> dict[str, Any]:
        """The options that differ from the variant's defaults."""
        name = self.variant.name
        return {k: v for k, v in self.options.items() if GAME_OPTIONS[k].defaults[name] != v}

    def to_json(self) -> dict[str, Any]:
        return {k: sorted(v) if isinstance(v, frozenset) else v for k, v in self.options.items()}


_DEFAULT_RULES: dict[str, Rules] = {}


def option_name(key: str, variant: str) -> str:
    """The option a (possibly prefixed) key names, checked against `variant`."""
    if not isinstance(key, str):
        raise RulesError(f"rule names are strings, not {key!r}")
    prefix, _, bare = key.lower().rpartition(".")
    if prefix:
        named = VARIANT_ALIASES.get(prefix, prefix)
        if named not in VARIANTS:
            raise RulesError(f"rule {key!r}: {prefix!r} is not a variant")
        if named != variant:
            raise RulesError(f"rule {key!r} is for {named}, but this game is {variant}")
    option = GAME_OPTIONS.get(bare)
    if option is None:
        raise RulesError(f"unknown rule {key!r}; known rules: {', '.join(GAME_OPTIONS)}")
    if not option.applies_to(variant):
        raise RulesError(f"rule {key!r} does not apply to {variant} "
                         f"(it applies to {', '.join(option.defaults)})")
    return bare
