"""A match out of the journal: as JSON (everything), and its portes games as a GNU Backgammon match file.

The match file is the Jellyfish `.mat` text format that gnubg reads with `import mat FILE`: White
is player 1 (the left column), Black player 2. Each player's moves are written from his own side,
as the format wants: White's point numbers are already his; Black's point p is his 25 - p. The bar
is 25 and borne off is 0. A portes game is backgammon without the cube, so the file carries no
cube actions; a game's score line counts every game of the match, whatever its variant. A game in
which the referee set a position cannot be replayed move by move, so it is left out (and named).
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, Callable, Iterable, TypeVar

from firmware_host.journal.events import Event, Kind, MatchProgress, move_from_json
from firmware_host.rules import Move
from firmware_host.rules.position import BLACK, WHITE, Color

FORMAT = "tavli-board match"
FORMAT_VERSION = 1
GNUBG_VARIANT = "portes"
_COLUMN = 30   # width of a move column; gnubg splits the columns at the second "DD:", not at this width


class UnreadableMatch(ValueError):
    """A match whose records do not read as tavli-board writes them (a damaged or foreign record)."""


class NothingToWrite(ValueError):
    """A match with no game the asked format can hold."""


_Result = TypeVar("_Result")
# What reading a record that is not as written raises: a field missing, of another type, a value
# out of its range, a record out of place (a play with no game under way).
_RECORD_ERRORS = (KeyError, IndexError, TypeError, ValueError, AttributeError)


def one_match(function: Callable[..., _Result]) -> Callable[..., _Result]:
    """`function(events, ...)` of one match's records; a record it cannot read is an `UnreadableMatch`
    that names the match, never a stray exception."""
    @functools.wraps(function)
    def reading(events: list[Event], *args: Any) -> _Result:
        try:
            return function(events, *args)
        except (NothingToWrite, UnreadableMatch):
            raise
        except _RECORD_ERRORS as error:
            what = f"{type(error).__name__}: {error}"[:120]
            raise UnreadableMatch(f"match {events[0].match_id} holds a record that cannot be read ({what}); "
                                  "the journal was damaged or written by another program") from None
    return reading


def match_status(progress: MatchProgress) -> str:
    if progress.match.is_over:
        return "won"
    return "abandoned" if progress.ended else "unfinished"


@one_match
def fold(events: list[Event]) -> MatchProgress:
    progress = MatchProgress(events[0])
    for event in events[1:]:
        progress.apply(event)
    return progress


@one_match
def match_json(events: list[Event]) -> dict[str, Any]:
    """Every game of a match with all its rolls, plays, refusals, referee actions and faults in order,
    its house rules and result; records outside any game (between games, faults) under "events"."""
    progress = MatchProgress(events[0])
    games: list[dict[str, Any]] = []
    outside: list[dict[str, Any]] = []
    game: dict[str, Any] | None = None
    for event in events[1:]:
        progress.apply(event)
        record = {key: value for key, value in event.to_json().items() if key not in ("match", "game")}
        if event.kind is Kind.GAME_STARTED:
            game = {"number": event.game, "variant": event.data["variant"], "house_rules": event.data["rules"],
                    "starter": event.data["starter"], "started_at": event.at,
                    "start_position": event.data["position"], "result": None, "events": []}
            games.append(game)
        elif game is not None:
            game["events"].append(record)
            if event.kind is Kind.OPENING_ROLL and event.data["starter"] is not None:
                game["starter"] = event.data["starter"]
            if event.kind is Kind.GAME_ENDED:
                game["result"] = {**event.data["result"], "reason": event.data["reason"], "ended_at": event.at}
                game = None
        else:
            outside.append(record)
    match = progress.match
    return {
        "format": FORMAT, "version": FORMAT_VERSION, "match": progress.match_id, "started_at": progress.started_at,
        "status": match_status(progress), "rules": events[0].data["rules"],
        "score": {color.value: points for color, points in match.score.items()},
        "winner": None if match.winner is None else match.winner.value,
        "games": games, "events": outside,
    }


@dataclass
class _Turn:
    side: Color
    dice: tuple[int, int]
    moves: tuple[Move, ...]


@dataclass
class _Game:
    number: int
    score: dict[Color, int]          # before the game, all variants counted
    turns: list[_Turn]
    winner: Color | None = None
    points: int = 0
    refereed: bool = False


def _point(location: str, side: Color) -> int:
    if location == "bar":
        return 25
    if location == "off":
        return 0
    point = int(location)
    return point if side is WHITE else 25 - point


def move_text(moves: Iterable[Move], side: Color) -> str:
    return " ".join(f"{_point(move.origin, side)}/{_point(move.destination, side)}{'*' if move.hit else ''}"
                    for move in moves)


def _turn_text(turn: _Turn) -> str:
    return f"{turn.dice[0]}{turn.dice[1]}: {move_text(turn.moves, turn.side)}".rstrip()


def _portes_games(events: list[Event]) -> list[_Game]:
    progress = MatchProgress(events[0])
    games: list[_Game] = []
    current: _Game | None = None
    for event in events[1:]:
        if event.kind is Kind.GAME_STARTED and event.data["variant"] == GNUBG_VARIANT:
            current = _Game(event.game, dict(progress.match.score), [])
            games.append(current)
        elif current is not None and event.kind is Kind.PLAY:
            current.turns.append(_Turn(Color(event.data["side"]), tuple(event.data["dice"]),
                                       tuple(move_from_json(move) for move in event.data["moves"])))
        elif current is not None and event.kind is Kind.REFEREE and event.data.get("position") is not None:
            current.refereed = True
        elif current is not None and event.kind is Kind.GAME_ENDED:
            result = event.data["result"]
            current.winner = None if result["winner"] is None else Color(result["winner"])
            current.points = result["points"]
            current = None
        progress.apply(event)
    return games


def _game_lines(game: _Game) -> list[str]:
    lines = [f" Game {game.number}",
             f" {'White : ' + str(game.score[WHITE]):<{_COLUMN}} Black : {game.score[BLACK]}"]
    rows: list[list[str]] = []
    for turn in game.turns:
        column = 0 if turn.side is WHITE else 1
        if not rows or column == 0 or rows[-1][1]:
            rows.append(["", ""])
        rows[-1][column] = _turn_text(turn)
    for number, (left, right) in enumerate(rows, 1):
        lines.append(f"{number:>3}) {left:<{_COLUMN}} {right}".rstrip())
    if game.winner is not None:
        points = f"Wins {game.points} point{'s' if game.points != 1 else ''}"
        # The column says who won: it matters to gnubg when the game did not end on the board.
        lines.append(f"      {points}" if game.winner is WHITE else f"{'':>5}{'':<{_COLUMN}}  {points}")
    return lines


@one_match
def gnubg_match(events: list[Event]) -> tuple[str, list[str]]:
    """(the .mat text, notes on what was left out); `NothingToWrite` when no portes game can be written."""
    rules = events[0].data["rules"]
    games = _portes_games(events)
    notes = [f"game {game.number} is left out: the referee set a position in it, which a match file cannot show"
             for game in games if game.refereed]
    games = [game for game in games if not game.refereed]
    if not games:
        why = "; ".join(notes) or (f"GNU Backgammon plays only backgammon, which is portes (the match's games: "
                                   f"{', '.join(rules['sequence'])})")
        raise NothingToWrite(f"match {events[0].match_id} has no portes game to write: {why}")
    date = events[0].at[:10].replace("-", ".")
    lines = ['; [Site "tavli-board"]', f'; [Match ID "{events[0].match_id}"]', f'; [EventDate "{date}"]',
             '; [Variation "Backgammon"]', '; [CubeLimit "1"]', "", f" {rules['target']} point match", ""]
    for game in games:
        lines += _game_lines(game) + [""]
    return "\n".join(lines), notes
