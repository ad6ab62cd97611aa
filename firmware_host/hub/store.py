"""The hub's records: every message accepted from the club's boards, in SQLite, and what follows from
them (the tables' live state, the matches, the ladder).

A message is kept once, by its board, stream and number (a message delivered twice is the same row),
so the ladder is always a recomputation from the records: the games of seated matches, in the order
they were accepted, folded into the FIBS ratings (firmware_host/club/ratings.py). Who sat at a board
is the club's knowledge, not the board's: the director names the players of a board's match (a
"seating"), before, during or after it.
"""
from __future__ import annotations

import json
import sqlite3
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from firmware_host.club.ratings import GameResult, Ladder

SCHEMA = """
CREATE TABLE IF NOT EXISTS messages (board TEXT, stream TEXT, seq INTEGER, kind TEXT, match INTEGER,
                                     game INTEGER, body TEXT, PRIMARY KEY (board, stream, seq));
CREATE TABLE IF NOT EXISTS views (board TEXT PRIMARY KEY, view TEXT);
CREATE TABLE IF NOT EXISTS online (board TEXT PRIMARY KEY, up INTEGER);
CREATE TABLE IF NOT EXISTS seatings (board TEXT, stream TEXT, match INTEGER, white TEXT, black TEXT,
                                     PRIMARY KEY (board, stream, match));
CREATE TABLE IF NOT EXISTS tournaments (id INTEGER PRIMARY KEY, name TEXT, kind TEXT, players TEXT,
                                        rounds INTEGER, after INTEGER);
CREATE TABLE IF NOT EXISTS tournament_actions (id INTEGER PRIMARY KEY, tournament INTEGER, action TEXT,
                                               round INTEGER, winner TEXT, loser TEXT, after INTEGER);
"""


@dataclass(frozen=True)
class MatchKey:
    board: str
    stream: str
    match: int


class HubStore:
    """The hub's database; safe to call from the broker's thread and the web server's."""

    def __init__(self, path: Path | str):
        self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode = WAL")
        self._db.executescript(SCHEMA)
        self._lock = threading.Lock()

    def close(self) -> None:
        self._db.close()

    def _run(self, sql: str, parameters: tuple = ()) -> list[tuple]:
        with self._lock:
            return self._db.execute(sql, parameters).fetchall()

    def last_accepted(self) -> dict[tuple[str, str], int]:
        """The highest number kept of each board's stream (the verifier goes on from there)."""
        return {(board, stream): seq for board, stream, seq in
                self._run("SELECT board, stream, max(seq) FROM messages GROUP BY board, stream")}

    def keep(self, board: str, stream: str, seq: int, record: dict[str, Any]) -> bool:
        """Keep one journal record; False if it was already kept."""
        match, game = record.get("match"), record.get("game")
        with self._lock:
            cursor = self._db.execute("INSERT OR IGNORE INTO messages VALUES (?, ?, ?, ?, ?, ?, ?)",
                                      (board, stream, seq, str(record.get("kind")), match if isinstance(match, int) else None,
                                       game if isinstance(game, int) else None, json.dumps(record)))
            return cursor.rowcount == 1

    def set_view(self, board: str, view: Any) -> None:
        self._run("INSERT OR REPLACE INTO views VALUES (?, ?)", (board, json.dumps(view)))

    def set_online(self, board: str, up: bool) -> None:
        self._run("INSERT OR REPLACE INTO online VALUES (?, ?)", (board, int(up)))

    def seat(self, key: MatchKey, white: str, black: str) -> None:
        if not white or not black or white == black:
            raise ValueError("a seating names two different players")
        self._run("INSERT OR REPLACE INTO seatings VALUES (?, ?, ?, ?, ?)", (key.board, key.stream, key.match, white, black))

    def tables(self, boards: list[str]) -> list[dict[str, Any]]:
        """The boards named: each one's latest view and whether it is connected, for the café screen."""
        among = f"WHERE board IN ({', '.join('?' * len(boards))})"
        views = {board: json.loads(view) for board, view in self._run(f"SELECT board, view FROM views {among}", tuple(boards))}
        online = {board: bool(up) for board, up in self._run(f"SELECT board, up FROM online {among}", tuple(boards))}
        return [{"board": board, "online": online.get(board, False), "view": views.get(board)} for board in boards]

    def seated(self, board: str, match: int) -> tuple[str, str] | None:
        """Who plays `board`'s match `match` (of its newest journal where several hold that number)."""
        rows = self._run("SELECT white, black FROM seatings WHERE board = ? AND match = ? ORDER BY rowid DESC LIMIT 1",
                         (board, match))
        return rows[0] if rows else None

    def matches(self) -> list[dict[str, Any]]:
        """Every match the boards journaled, newest first: its games' variants and results, how it
        ended and who was seated."""
        seatings = {MatchKey(board, stream, match): (white, black) for board, stream, match, white, black in
                    self._run("SELECT * FROM seatings")}
        found: dict[MatchKey, dict[str, Any]] = {}
        for row, board, stream, kind, match, game, body in self._run(
                "SELECT rowid, board, stream, kind, match, game, body FROM messages WHERE match IS NOT NULL "
                "AND kind IN ('match_started', 'game_started', 'game_ended', 'match_ended') ORDER BY rowid"):
            key = MatchKey(board, stream, match)
            record = json.loads(body)
            entry = found.setdefault(key, {"board": board, "stream": stream, "match": match, "started_at": record.get("at"),
                                           "games": {}, "ended": None})
            if kind == "game_started":
                entry["games"][game] = {"variant": record.get("variant"), "result": None}
            elif kind == "game_ended" and game in entry["games"]:
                entry["games"][game].update(result=record.get("result"), accepted=row)
            elif kind == "match_ended":
                entry["ended"] = {**{key: record.get(key) for key in ("reason", "winner", "score")}, "accepted": row}
        listing = []
        for key, entry in found.items():
            white, black = seatings.get(key, (None, None))
            listing.append({**entry, "games": [entry["games"][number] for number in sorted(entry["games"])],
                            "white": white, "black": black})
        return list(reversed(listing))

    def results(self) -> list[GameResult]:
        """The games of seated matches that ended with a winner, in the order the hub accepted their ends."""
        ended = []
        for match in self.matches():
            players = {"white": match["white"], "black": match["black"]}
            for game in match["games"]:
                winner = (game["result"] or {}).get("winner")
                if match["white"] is not None and winner in players:
                    loser = players["black" if winner == "white" else "white"]
                    ended.append((game["accepted"], GameResult(players[winner], loser, game["variant"])))
        return [result for _, result in sorted(ended, key=lambda item: item[0])]

    def ladder(self) -> Ladder:
        return Ladder.of(self.results())

    # -- tournaments (firmware_host/hub/tournaments.py replays them) --------------------------------------
    # Each row notes `after`: the last message kept when it was written, so that a replay puts the
    # director's actions and the boards' results in the order they happened.

    def add_tournament(self, name: str, kind: str, players: list[str], rounds: int | None) -> int:
        with self._lock:
            return self._db.execute("INSERT INTO tournaments (name, kind, players, rounds, after) VALUES "
                                    "(?, ?, ?, ?, (SELECT coalesce(max(rowid), 0) FROM messages))",
                                    (name, kind, json.dumps(players), rounds)).lastrowid

    def add_tournament_action(self, tournament: int, action: str, round_number: int,
                              winner: str | None = None, loser: str | None = None) -> None:
        self._run("INSERT INTO tournament_actions (tournament, action, round, winner, loser, after) VALUES "
                  "(?, ?, ?, ?, ?, (SELECT coalesce(max(rowid), 0) FROM messages))",
                  (tournament, action, round_number, winner, loser))

    def tournaments(self) -> list[dict[str, Any]]:
        """Every tournament with the director's actions on it, in order, newest tournament first."""
        actions: dict[int, list[dict[str, Any]]] = {}
        for tournament, action, round_number, winner, loser, after in self._run(
                "SELECT tournament, action, round, winner, loser, after FROM tournament_actions ORDER BY id"):
            actions.setdefault(tournament, []).append({"action": action, "round": round_number, "winner": winner,
                                                       "loser": loser, "after": after})
        return [{"id": number, "name": name, "kind": kind, "players": json.loads(players), "rounds": rounds,
                 "after": after, "actions": actions.get(number, [])}
                for number, name, kind, players, rounds, after in
                self._run("SELECT id, name, kind, players, rounds, after FROM tournaments ORDER BY id DESC")]
