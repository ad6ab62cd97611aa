"""The journal: an append-only SQLite event log (WAL, synchronous FULL) and resume from it.

    journal = Journal.open(config.journal_path)     # never raises for a corrupt file: moves it aside
    state = journal.resume()                        # the unfinished match, or None
    journal.start_match(config.match_rules)
    journal.start_game("portes", config.rules_for("portes"), starter=None, position=Position.start("portes"))
    journal.record_roll(WHITE, (6, 5))
    journal.record_play(WHITE, (6, 5), play)        # on disk when this returns: now show the next roll

Each `record_*` call is one transaction, committed with synchronous=FULL before it returns, so a
committed play survives a power cut the moment the call is back; inside `with journal.transaction():`
they are all one (the controller makes each event one). A failed write raises `JournalWriteError`
and changes nothing, in the file or in memory.

The table refuses UPDATE and DELETE (triggers), so history is never rewritten: corrections are new
records (a referee action that sets a position).

Opening: a file that SQLite cannot read, that is not a tavli-board journal, or whose records cannot
be read back is renamed `<name>.corrupt-<UTC time>` (with its -wal, -shm and -mark files), logged as
an error, and a new journal is started: a bad file never stops the service from starting. A place
where no journal can be written or read now (a read-only, full or failing disk: SQLite's I/O errors)
raises `JournalError` and moves nothing: that is a storage fault, for the service to hold and retry,
never a corrupt file. So does a path that can hold no journal (a folder, a device).

Lost records: SQLite drops a damaged write-ahead log's frames, and rows of a damaged page, without a
word. The journal proves what it holds (`proof`: a hash chain over the records and an fsync'd mark
of the last commit beside the file). On opening, the latest match's records are checked from its
start against both; a journal that cannot prove every record it committed is renamed
`<name>.damaged-<UTC time>` untouched (SQLite never opens it for writing), logged as an error, and
a new journal holds the records of the unfinished match that can be proven: the match goes on from
the last proven position, and `damage` says what was lost, for the lights to show until a person
has seen it. A database with no records beside a mark that says it committed some (its write-ahead
log lost, or damaged from the first frame) is such a loss, never a new journal. The new journal is
born with the record of what happened, and `damage` is that record at every opening until a
person's acknowledgement (a journal_damaged fault cleared) follows it: a restart before anyone saw
the lights does not forget it.

Matches are numbered from 1 as they start (`Event.match_id`): the number `history`, `export`, the
web companion and the status line show.

One owner: the controller's event loop, on one thread. Readers in other processes (the export,
history and bug-report commands) use `JournalReader`, read-only, while the service writes.
"""
from __future__ import annotations

import copy
import json
import logging
import os
import shutil
import sqlite3
import stat
import time
from datetime import datetime, timezone
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Mapping

from firmware_host import __version__
from firmware_host.journal.events import (GAME_KINDS, Event, GameState, Kind, MatchProgress, ResumeState,
                                          match_rules_json)
from firmware_host.journal.proof import MARK_SUFFIX, Mark, MarkWriter, link, mark_path, read_mark, replace_mark
from firmware_host.rules import GameResult, Play, Position, Rules
from firmware_host.rules.match import MatchRules, OpeningRoll
from firmware_host.rules.position import Color

log = logging.getLogger(__name__)

APPLICATION_ID = 0x54564C42  # "TVLB": marks the file as a tavli-board journal
SCHEMA_VERSION = 2          # 2: the chain column (`proof`); a schema 1 journal gains it on opening
_READABLE_SCHEMAS = (1, SCHEMA_VERSION)
PAGE_CACHE_KIB = 128           # the writing connection's page cache (`Journal.open`)
_SCHEMA = """
CREATE TABLE events (
    seq INTEGER PRIMARY KEY,
    match_id INTEGER,
    game INTEGER,
    kind TEXT NOT NULL,
    at TEXT NOT NULL,
    data TEXT NOT NULL,
    chain TEXT
);
CREATE INDEX events_by_match ON events (match_id, seq);
CREATE INDEX events_by_kind ON events (kind, seq);
CREATE TRIGGER events_are_never_updated BEFORE UPDATE ON events
    BEGIN SELECT RAISE(ABORT, 'the journal is append-only'); END;
CREATE TRIGGER events_are_never_deleted BEFORE DELETE ON events
    BEGIN SELECT RAISE(ABORT, 'the journal is append-only'); END;
"""
# What a match summary needs: the kinds `matches()` reads, a few per game, not every play.
_SUMMARY_KINDS = (Kind.MATCH_STARTED, Kind.GAME_STARTED, Kind.GAME_ENDED, Kind.MATCH_ENDED)


class JournalError(RuntimeError):
    """No journal can be kept at this place (the folder cannot be created or written, the disk is full)."""


class JournalWriteError(JournalError):
    """A record could not be written; nothing of it was kept. The play it carried is not committed."""


class JournalStateError(RuntimeError):
    """A record that does not fit the journal's state (a play with no game under way): a caller's bug."""


class CorruptJournal(Exception):
    """Raised inside opening and reading: the file is not a readable tavli-board journal."""


class LostRecords(Exception):
    """Raised inside opening: the journal cannot prove that it holds every record it committed."""

    def __init__(self, reason: str, proven_match: list[Event]):
        super().__init__(reason)
        self.reason = reason
        self.proven_match = proven_match   # the unfinished match's records that are proven, or []


def utc_timestamp(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _row_event(row: tuple) -> Event:
    seq, match_id, game, kind, at, data = row
    try:
        event = Event(seq, match_id, game, Kind(kind), at, json.loads(data))
    except (ValueError, TypeError) as error:
        raise CorruptJournal(f"record {seq} cannot be read: {error}") from None
    if not isinstance(event.data, dict):
        raise CorruptJournal(f"record {seq} cannot be read: its data is not a JSON object")
    return event


def path_problem(path: Path) -> str | None:
    """What makes `path` no place for a journal file whatever the disk's state (a folder, a device, a
    name too long), in words; None when it is a file, or nothing yet."""
    try:
        mode = path.stat().st_mode
    except (FileNotFoundError, NotADirectoryError):
        return None   # nothing there yet (opening creates it, or says why its folder cannot be made)
    except OSError as error:
        return f"cannot be reached: {error.strerror}"
    if stat.S_ISDIR(mode):
        return "is a folder, not a journal file"
    if not stat.S_ISREG(mode):
        return "is not a regular file (a device, a pipe or a socket?)"
    return None


class JournalReader:
    """Read-only access to a journal file, safe while the service writes to it."""

    def __init__(self, connection: sqlite3.Connection, path: Path):
        self._db = connection
        self.path = path

    @classmethod
    def open(cls, path: Path | str) -> JournalReader:
        """Open an existing journal read-only; `JournalError` with a clear reason if it cannot be read."""
        path = Path(path)
        problem = path_problem(path)
        if problem is not None:
            raise JournalError(f"the journal {path} {problem}")
        if not path.exists():
            raise JournalError(f"there is no journal at {path} (no match has been played with this configuration)")
        try:
            connection = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, check_same_thread=False)
            _check_identity(connection)
            if connection.execute("SELECT count(*) FROM sqlite_master").fetchone()[0] == 0:
                mark = read_mark(path)
                raise CorruptJournal("it is empty: nothing has been journaled in it" if mark is None else
                                     f"it has lost committed records: it holds none, but its mark says it "
                                     f"committed up to record {mark.seq}")
        except (sqlite3.Error, CorruptJournal) as error:
            raise JournalError(f"cannot read the journal {path}: {error}") from None
        return cls(connection, path)

    def close(self) -> None:
        self._db.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def _select(self, where: str = "", parameters: Iterable[Any] = (), order: str = "seq",
                limit: int | None = None) -> list[Event]:
        sql = f"SELECT seq, match_id, game, kind, at, data FROM events {where} ORDER BY {order}"
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        try:
            rows = self._db.execute(sql, tuple(parameters)).fetchall()
        except (sqlite3.OperationalError, sqlite3.ProgrammingError):
            raise  # locked, I/O, closed: trouble of the moment or of the caller, not of the file's content
        except sqlite3.DatabaseError as error:
            raise CorruptJournal(str(error)) from None
        return [_row_event(row) for row in rows]

    def lost_records(self) -> str | None:
        """What this journal lost of the records it committed (`proof`), in one line, checked as the
        service checks it when it opens, over every record; None if it can prove them all."""
        mark = read_mark(self.path)   # first: a commit after it only adds records, never a false alarm
        try:
            if self._db.execute("PRAGMA user_version").fetchone()[0] < 2:
                return None   # a journal older than the chain proves nothing
            rows = self._db.execute(f"SELECT {_COLUMNS} FROM events NOT INDEXED ORDER BY seq").fetchall()
        except (sqlite3.DatabaseError, ValueError) as error:   # ValueError: text that is not UTF-8
            return f"its records cannot all be read ({error})"
        try:
            _check_chain(rows, None, mark)
        except LostRecords as lost:
            return lost.reason
        except CorruptJournal as error:
            return str(error)
        return None

    def match_events(self, match_id: int) -> list[Event]:
        """Every record of the match numbered `match_id`, in order; `LookupError` if there is no such match."""
        events = self._select("WHERE match_id = ?", (match_id,))
        if not events or events[0].kind is not Kind.MATCH_STARTED:
            raise LookupError(f"the journal {self.path} has no match {match_id}")
        return events

    def last_board(self) -> tuple[Position, str | None] | None:
        """The board as the journal last knew it: the latest game's last position (its start, a play's
        or a referee's) and how the board lay (its orientation; None where not journaled); None before
        any game. A board stays as its last game left it until the players clear it."""
        started = self._select("WHERE kind = ?", (Kind.GAME_STARTED.value,), order="seq DESC", limit=1)
        if not started:
            return None
        game = started[0]
        position = Position.from_json(game.data["position"])
        for event in self._select("WHERE seq > ? AND match_id = ? AND kind IN (?, ?)",
                                  (game.seq, game.match_id, Kind.PLAY.value, Kind.REFEREE.value)):
            if event.data.get("position") is not None:
                position = Position.from_json(event.data["position"])
        return position, game.data.get("orientation")

    def match_ids(self) -> list[int]:
        """The matches' numbers, oldest first."""
        return [event.match_id for event in self._select("WHERE kind = ?", (Kind.MATCH_STARTED.value,))]

    def summaries(self) -> dict[int, list[Event]]:
        """Per match, its start, game starts and ends and its end: enough to list and score it."""
        placeholders = ", ".join("?" * len(_SUMMARY_KINDS))
        matches: dict[int, list[Event]] = {}
        for event in self._select(f"WHERE kind IN ({placeholders})", (kind.value for kind in _SUMMARY_KINDS)):
            matches.setdefault(event.match_id, []).append(event)
        return matches

    def records_after(self, seq: int, limit: int) -> list[Event]:
        """At most `limit` records numbered above `seq`, oldest first (a reader catching up)."""
        return self._select("WHERE seq > ?", (seq,), limit=limit)

    def tail(self, count: int) -> list[Event]:
        """The last `count` records, oldest first."""
        return list(reversed(self._select(order="seq DESC", limit=count)))

    def rolls(self, match_id: int | None = None) -> list[tuple[int, int]]:
        """The dice of every two-dice roll, oldest first; of one match, or of all."""
        where, parameters = "WHERE kind = ?", [Kind.ROLL.value]
        if match_id is not None:
            where += " AND match_id = ?"
            parameters.append(match_id)
        rolls = []
        for event in self._select(where, parameters):
            dice = event.data.get("dice")
            if not (isinstance(dice, list) and len(dice) == 2 and all(type(die) is int and 1 <= die <= 6 for die in dice)):
                raise CorruptJournal(f"record {event.seq} is not a roll of two dice: {json.dumps(dice)[:80]}")
            rolls.append(tuple(dice))
        return rolls


def _check_identity(connection: sqlite3.Connection) -> None:
    """The file is a tavli-board journal of a schema this code reads (an empty file is a new one)."""
    application_id = connection.execute("PRAGMA application_id").fetchone()[0]
    version = connection.execute("PRAGMA user_version").fetchone()[0]
    if application_id == 0 and version == 0:
        tables = connection.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
        if tables == 0:
            return
    if application_id != APPLICATION_ID:
        raise CorruptJournal(f"it is an SQLite database of another program (application_id {application_id:#x})")
    if version not in _READABLE_SCHEMAS:
        raise CorruptJournal(f"it has journal schema {version}; this tavli-board {__version__} reads schemas "
                             f"{' and '.join(map(str, _READABLE_SCHEMAS))}")


class Journal(JournalReader):
    """The service's journal: records events as they happen and restores the unfinished match."""

    def __init__(self, connection: sqlite3.Connection, path: Path, wall_clock: Callable[[], float],
                 progress: MatchProgress | None, chain: str | None):
        super().__init__(connection, path)
        self._wall_clock = wall_clock
        self._progress = progress
        self._chain = chain                  # the chain value of the last record (`proof`)
        self._batch: list[Event] | None = None   # the records of the transaction under way
        self._marks = MarkWriter(path)
        self.moved_aside: Path | None = None   # where an unusable or damaged journal went at opening
        self.damage: str | None = None         # what opening found lost, in one line; None if nothing
        self.listeners: list[Callable[[list[Event]], None]] = []   # told of every write's events, once written

    def close(self) -> None:
        self._marks.close()
        super().close()

    # -- opening --------------------------------------------------------------------------------

    @classmethod
    def open(cls, path: Path | str, *, wall_clock: Callable[[], float] = time.time) -> Journal:
        """Open (or create) the journal at `path` and fold its unfinished match.

        A corrupt or foreign file is moved aside and a new journal started; one that has lost
        committed records is moved aside and a new one holds what can be proven of its unfinished
        match (see the module doc); `moved_aside` then says where it went and `damage` what was
        lost. `JournalError` when the place is the problem (a full, read-only or failing disk, a
        folder or a device at `path`): nothing is moved then, and opening again later may work.
        """
        path = Path(path)
        problem = path_problem(path)
        if problem is not None:
            raise JournalError(f"the journal {path} {problem}")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise JournalError(f"cannot create the journal's folder {path.parent}: {error.strerror}") from None
        try:
            return cls._open_file(path, wall_clock)
        except CorruptJournal as error:
            return cls._start_again(path, wall_clock, "corrupt", [], "journal_moved_aside",
                                    f"the journal could not be read ({error}): a new one was started",
                                    reason=str(error))
        except LostRecords as lost:
            proven = lost.proven_match[-1].seq if lost.proven_match else None
            return cls._start_again(path, wall_clock, "damaged", lost.proven_match, "journal_damaged",
                                    f"the journal lost committed records ({lost.reason})",
                                    reason=lost.reason, resumed_from=proven)

    @classmethod
    def _start_again(cls, path: Path, wall_clock: Callable[[], float], why: str, events: list[Event], what: str,
                     damage: str, **details: Any) -> Journal:
        """Move the journal at `path` aside as `why` and start a new one holding `events` and a record
        of what happened, which stays `damage` at every opening until a person acknowledges it (the
        controller journals that). The old mark stays in place until the new journal's replaces it:
        a kill at any moment leaves files that say something was lost, never a silent fresh start."""
        moved_aside = _move_aside(path, wall_clock(), why)
        if what == "journal_damaged":
            proven = events[-1].seq if events else None
            log.error("journal %s has lost committed records: %s; kept the damaged files as %s; %s", path,
                      details["reason"], moved_aside,
                      f"the unfinished match goes on from record {proven}, the last that can be proven"
                      if proven is not None else "no unfinished match can be proven: a new journal was started")
        else:
            log.error("journal %s cannot be used (%s); moved it aside to %s and started a new journal: its "
                      "unfinished match cannot be resumed, its finished ones are still in the moved file",
                      path, details["reason"], moved_aside)
        record = Event(events[-1].seq + 1 if events else 1, None, None, Kind.SERVICE, utc_timestamp(wall_clock()),
                       {"what": what, "damage": damage, "moved_to": str(moved_aside), **details})
        try:
            _write_new(path, [*events, record])
            return cls._open_file(path, wall_clock)
        except (CorruptJournal, LostRecords) as again:  # a brand-new file that cannot be used: the place is the problem
            raise JournalError(f"cannot start a new journal at {path}: {again}") from None
        except (sqlite3.Error, OSError) as error:
            raise JournalError(f"cannot start a new journal at {path}: {error}") from None

    @classmethod
    def _open_file(cls, path: Path, wall_clock: Callable[[], float]) -> Journal:
        # Checked read-only first: a read-only connection never checkpoints, so a damaged write-ahead
        # log is moved aside as it was found.
        latest_match, chain = _proven_records(path) if path.exists() else ([], None)
        if not path.exists() and read_mark(path) is not None:
            raise LostRecords("the database is missing but its mark records commits", [])
        try:
            # isolation_level=None: every statement commits at once unless a BEGIN groups several.
            connection = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        except sqlite3.OperationalError as error:
            raise JournalError(f"cannot open the journal {path}: {error}") from None
        try:
            connection.execute("PRAGMA journal_mode = WAL")
            connection.execute("PRAGMA synchronous = FULL")
            # SQLite's page cache is up to 2 MB a connection by default, which the journal's appends
            # fill in half an hour of play, for reads that are few (a match resumed, a history view)
            # and that the kernel's cache of the file serves as well; an append needs the few pages
            # on the way to the table's end. Two megabytes of a service's 40 MB on a Pi Zero 2 W
            # (issue 33). In KiB:
            connection.execute(f"PRAGMA cache_size = -{PAGE_CACHE_KIB}")
            if connection.execute("SELECT count(*) FROM sqlite_master").fetchone()[0] == 0:
                _create_schema(connection)
            elif connection.execute("PRAGMA user_version").fetchone()[0] == 1:
                connection.executescript(f"BEGIN; ALTER TABLE events ADD COLUMN chain TEXT; "
                                         f"PRAGMA user_version = {SCHEMA_VERSION}; COMMIT;")
            journal = cls(connection, path, wall_clock, _fold_unfinished(latest_match), chain)
            unacknowledged = _unacknowledged_damage(connection)
            if unacknowledged is not None:
                journal.damage = unacknowledged.get("damage") or f"the journal lost records ({unacknowledged.get('reason')})"
                journal.moved_aside = Path(unacknowledged["moved_to"]) if unacknowledged.get("moved_to") else None
            # Writing proves the file takes records now, not at the first play.
            journal.record_service("journal_opened", version=__version__, pid=os.getpid())
        except (sqlite3.DatabaseError, JournalWriteError, CorruptJournal, KeyError, ValueError, TypeError) as error:
            connection.close()
            cause = error.__cause__ if isinstance(error, JournalWriteError) else error
            if isinstance(cause, sqlite3.Error) and _is_place_problem(cause):
                raise JournalError(f"cannot write the journal {path}: {cause}") from None
            raise CorruptJournal(str(cause) or type(cause).__name__) from None
        return journal

    @classmethod
    def seeded(cls, path: Path | str, events: Iterable[Event]) -> Journal:
        """A new journal at `path` holding `events` (one unfinished match's, as `unfinished_match_events`
        gave them, with their seqs): a replay resumes from it (docs/hil.md, "Traces")."""
        _write_new(Path(path), list(events))
        return cls.open(path)

    # -- resume ---------------------------------------------------------------------------------

    def resume(self) -> ResumeState | None:
        """The unfinished match (rules, score, finished games, the game under way), or None."""
        return None if self._progress is None else self._progress.resume_state()

    def unfinished_match_events(self) -> list[Event]:
        """The unfinished match's events, from its start (what `resume()` folds); [] if none."""
        return [] if self._progress is None else self.match_events(self._progress.match_id)

    # -- recording ------------------------------------------------------------------------------

    def start_match(self, rules: MatchRules, bots: Iterable[Color] = ()) -> int:
        """Begin a match; an unfinished one is first recorded as abandoned. Returns its number.
        `bots`: the seats the bot plays (recorded when there are any)."""
        if self._progress is not None:
            self.end_match("abandoned: a new match was started")
        data: dict[str, Any] = {"rules": match_rules_json(rules)}
        bots = sorted(color.value for color in bots)
        if bots:
            data["bots"] = bots
        started = self._append([(Kind.MATCH_STARTED, data)], new_match=True)[0]
        self._progress = MatchProgress(started)
        return started.match_id

    def start_game(self, variant: str, rules: Rules, *, starter: Color | None = None,
                   position: Position | None = None, orientation: str | None = None) -> int:
        """Begin the match's next game with its resolved house rules. `starter`: who begins, when the
        previous game decided it (None: an opening roll will); `position`: the start position
        (default: the variant's, with `starter`, or White, to move); `orientation`: how the board
        lies, for resuming the lights the same way round. Returns the game's number."""
        progress = self._need_match("start a game")
        if progress.game is not None:
            raise JournalStateError(f"game {progress.game.number} is still under way: end it first")
        if rules.variant.name != variant:
            raise JournalStateError(f"rules of {rules.variant.name} given for a game of {variant}")
        if position is None:
            position = Position.start(variant, starter or Color.WHITE)
        number = progress.next_game_number
        data = {"variant": variant, "rules": rules.to_json(), "starter": None if starter is None else starter.value,
                "position": position.to_json()}
        if orientation is not None:
            data["orientation"] = orientation
        self._append([(Kind.GAME_STARTED, data)], game=number)
        return number

    def record_opening_roll(self, white_die: int, black_die: int, outcome: OpeningRoll) -> int:
        """Each player's one die and what it decided (`rules.match.opening_roll`); a tie decides nothing.
        With the use_opening_dice rule the starter's first roll is these dice: it becomes the pending roll."""
        game = self._need_game("record an opening roll")
        return self._append([(Kind.OPENING_ROLL, {
            "white": white_die, "black": black_die,
            "starter": None if outcome.starter is None else outcome.starter.value,
            "first_dice": None if outcome.first_dice is None else list(outcome.first_dice),
            "kept_die": outcome.kept_die})], game=game.number)[0].seq

    def record_roll(self, side: Color, dice: tuple[int, int]) -> int:
        """A roll of two dice, before they are shown: a restart cannot roll them again."""
        game = self._need_game("record a roll")
        return self._append([(Kind.ROLL, {"side": Color(side).value, "dice": list(dice)})], game=game.number)[0].seq

    def record_play(self, side: Color, dice: tuple[int, int], play: Play) -> int:
        """A committed play and the position after it, durable when this returns.

        A play that ends the game (`play.result`) also ends it in the same transaction, and the match
        too if that game won it. Returns the play's seq.
        """
        game = self._need_game("record a play")
        side = Color(side)
        records = [(Kind.PLAY, {"side": side.value, "dice": list(dice), **play.to_json()})]
        if play.result is not None:
            records += self._game_end_records(play.result, side, "played")
        return self._append(records, game=game.number)[0].seq

    def end_game(self, result: GameResult, last_mover: Color, reason: str) -> int:
        """A game ended other than by a play (a resignation, a referee's decision): its result and who
        played its last turn. Ends the match too if that game won it."""
        game = self._need_game("end a game")
        return self._append(self._game_end_records(result, Color(last_mover), reason), game=game.number)[0].seq

    def end_match(self, reason: str) -> int:
        """End the match without a winner (abandoned, reset by the referee)."""
        self._need_match("end a match")
        return self._append([(Kind.MATCH_ENDED, {"reason": reason})])[0].seq

    def record_refusal(self, reason: str, **details: Any) -> int:
        """A refused request (a roll while a checker is in hand, "rolling too early", ...)."""
        return self._append([(Kind.REFUSAL, {"reason": reason, **details})])[0].seq

    def record_referee(self, action: str, *, position: Position | None = None, **details: Any) -> int:
        """A referee action. With `position`, the referee set the board: play continues from it
        (`position.turn` to move) and any pending roll is void."""
        if position is not None:
            self._need_game("set a position")
        data = {"action": action, **details}
        if position is not None:
            data["position"] = position.to_json()
        return self._append([(Kind.REFEREE, data)])[0].seq

    def record_fault(self, fault: str, message: str, **details: Any) -> int:
        """A fault entered (link-lost, sensor-fault, button-stuck, ...)."""
        return self._append([(Kind.FAULT, {"fault": fault, "message": message, **details})])[0].seq

    def record_fault_cleared(self, fault: str, message: str, **details: Any) -> int:
        """A fault left: a reconnect clears link-lost."""
        return self._append([(Kind.FAULT_CLEARED, {"fault": fault, "message": message, **details})])[0].seq

    def record_service(self, what: str, **details: Any) -> int:
        """The service's own events (started, stopping); outside any match's score."""
        return self._append([(Kind.SERVICE, {"what": what, **details})], in_match=False)[0].seq

    # -- internals ------------------------------------------------------------------------------

    def _need_match(self, doing: str) -> MatchProgress:
        if self._progress is None:
            raise JournalStateError(f"cannot {doing}: no match is under way")
        return self._progress

    def _need_game(self, doing: str) -> GameState:
        game = self._need_match(doing).game
        if game is None:
            raise JournalStateError(f"cannot {doing}: no game is under way")
        return game

    def _game_end_records(self, result: GameResult, last_mover: Color, reason: str) -> list:
        records = [(Kind.GAME_ENDED, {"result": result.to_json(), "last_mover": last_mover.value, "reason": reason})]
        # Whether this game wins the match: fold it into a copy of the match.
        match = self._progress.match.record(result, self._progress.game.starter or last_mover, last_mover)
        if match.is_over:
            records.append((Kind.MATCH_ENDED, {"reason": "won", "winner": match.winner.value,
                                               "score": {color.value: points for color, points in match.score.items()}}))
        return records

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """Every record written inside is one transaction, committed (durably) at the end: all of them
        are kept, or, if any write or the commit fails (`JournalWriteError`) or the block raises,
        none, and the journal's view of the match is as it was before. Listeners hear of the records
        once committed. A transaction inside another is part of it."""
        if self._batch is not None:
            yield
            return
        self._batch = []
        saved = (copy.copy(self._progress), self._chain)   # a MatchProgress is changed only by reassigning
        try:
            yield
            if self._batch:
                try:
                    self._db.execute("COMMIT")
                except sqlite3.Error as error:
                    raise JournalWriteError(f"cannot write to the journal {self.path}: {error}") from error
        except BaseException:
            if self._db.in_transaction:
                self._db.execute("ROLLBACK")
            self._progress, self._chain = saved
            self._batch = None
            raise
        events, self._batch = self._batch, None
        if events:
            self._mark(events[-1].seq)
            for listener in self.listeners:
                listener(events)

    def _mark(self, seq: int) -> None:
        try:
            self._marks.write(Mark(seq, self._chain))
        except OSError as error:
            # The records are committed: a mark left behind only proves less, it never raises an alarm.
            log.warning("journal %s: cannot write its mark (%s); records after %s are not proven yet",
                        self.path, error.strerror, seq)

    def _append(self, records: list[tuple[Kind, Mapping[str, Any]]], *, game: int | None = None,
                new_match: bool = False, in_match: bool = True) -> list[Event]:
        """Write `records` and fold them, in the transaction under way or in one of their own."""
        at = utc_timestamp(self._wall_clock())
        match_id = self._progress.match_id if in_match and self._progress is not None else None
        events = []
        with self.transaction():
            try:
                if not self._db.in_transaction:
                    self._db.execute("BEGIN IMMEDIATE")
                for kind, data in records:
                    seq = self._db.execute("SELECT coalesce(max(seq), 0) + 1 FROM events").fetchone()[0]
                    if new_match:   # the match's number, the one every surface shows (`events.Event`)
                        match_id = self._db.execute("SELECT coalesce(max(match_id), 0) + 1 FROM events").fetchone()[0]
                    event = Event(seq, match_id, game if kind in GAME_KINDS else None, kind, at, dict(data))
                    self._chain = _insert(self._db, event, self._chain)
                    events.append(event)
            except sqlite3.Error as error:
                raise JournalWriteError(f"cannot write to the journal {self.path}: {error}") from error
            self._batch.extend(events)
            if self._progress is not None and match_id == self._progress.match_id:
                for event in events:
                    if event.kind is not Kind.MATCH_STARTED:
                        self._progress.apply(event)
                if self._progress.finished:
                    self._progress = None
        return events


def _insert(connection: sqlite3.Connection, event: Event, previous: str | None) -> str:
    """Insert `event` chained to `previous`; returns its chain value."""
    data = json.dumps(dict(event.data), sort_keys=True)
    chain = link(previous, event.seq, event.match_id, event.game, event.kind.value, event.at, data)
    connection.execute("INSERT INTO events (seq, match_id, game, kind, at, data, chain) VALUES (?, ?, ?, ?, ?, ?, ?)",
                       (event.seq, event.match_id, event.game, event.kind.value, event.at, data, chain))
    return chain


def _write_new(path: Path, events: list[Event]) -> None:
    """Create a journal file at `path` holding `events` (chained anew), and their mark in place of any
    mark there (replaced whole, so that no slot of an older journal's mark is left behind)."""
    connection = sqlite3.connect(path, isolation_level=None)
    try:
        connection.execute("PRAGMA journal_mode = WAL")
        connection.execute("PRAGMA synchronous = FULL")
        _create_schema(connection)
        chain = None
        connection.execute("BEGIN")
        for event in events:
            chain = _insert(connection, event, chain)
        connection.execute("COMMIT")
    finally:
        connection.close()
    if events:
        replace_mark(path, Mark(events[-1].seq, chain))
    else:
        mark_path(path).unlink(missing_ok=True)


_COLUMNS = "seq, match_id, game, kind, at, data, chain"


def _proven_records(path: Path) -> tuple[list[Event], str | None]:
    """Check the journal at `path`, read-only: the records of its latest match and the last record's
    chain value. `LostRecords` if it cannot prove every record it committed (`proof`), `CorruptJournal`
    if it is not a readable tavli-board journal.

    Only rowid order is trusted here, never an index: a damaged index could name an older match as
    the latest one."""
    try:
        connection = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    except sqlite3.Error as error:
        raise JournalError(f"cannot read the journal {path}: {error}") from None
    # Damaged text must read back as something that fails the chain, not stop the reading.
    connection.text_factory = lambda raw: raw.decode("utf-8", "replace")
    try:
        _check_identity(connection)
        if connection.execute("SELECT count(*) FROM sqlite_master").fetchone()[0] == 0:
            # No tables: a new file, or one whose records were all in a write-ahead log now lost or
            # damaged from its first frame. The mark tells the two apart.
            mark = read_mark(path)
            if mark is not None:
                raise LostRecords(f"it holds no records, but its mark ({MARK_SUFFIX}) says it committed "
                                  f"up to record {mark.seq}", [])
            rows, previous = [], None
        else:
            chained = connection.execute("PRAGMA user_version").fetchone()[0] >= 2
            last = connection.execute("SELECT seq, match_id FROM events NOT INDEXED ORDER BY seq DESC LIMIT 1").fetchone()
            latest_match = connection.execute("SELECT seq FROM events NOT INDEXED WHERE kind = ? ORDER BY seq DESC "
                                              "LIMIT 1", (Kind.MATCH_STARTED.value,)).fetchone()
            mark = read_mark(path)
            candidates = [row[0] for row in (last, latest_match) if row is not None and row[0] is not None]
            if mark is not None:
                candidates.append(mark.seq)
            start = min(candidates, default=0)
            rows = connection.execute(f"SELECT {_COLUMNS} FROM events NOT INDEXED WHERE seq >= ? ORDER BY seq",
                                      (start,)).fetchall()
            before = connection.execute("SELECT chain FROM events NOT INDEXED WHERE seq < ? ORDER BY seq DESC LIMIT 1",
                                        (start,)).fetchone()
            previous = before[0] if before is not None else None
            if chained:
                rows, previous = _check_chain(rows, previous, mark)
    except sqlite3.DatabaseError as error:
        if _is_place_problem(error):   # the disk, not the file: nothing is moved aside
            raise JournalError(f"cannot read the journal {path}: {error}") from None
        raise CorruptJournal(str(error)) from None
    finally:
        connection.close()
    events = [_row_event(row[:6]) for row in rows]
    latest = max((event.match_id for event in events if event.match_id is not None), default=None)
    return [event for event in events if event.match_id == latest and latest is not None], previous


def _check_chain(rows: list[tuple], previous: str | None, mark: Mark | None) -> tuple[list[tuple], str | None]:
    """`rows` (from the oldest that matters on) checked against the chain and the mark: the rows and
    the last chain value if all are proven; else `LostRecords` with the proven ones' latest match."""
    proven, previous, problem = _proven_rows(rows, previous)
    if problem is None:
        problem = _mark_problem(proven, previous, mark)
    if problem is None:
        return rows, previous
    raise LostRecords(problem, _unfinished_latest_match(proven))


def _proven_rows(rows: list[tuple], previous: str | None) -> tuple[list[tuple], str | None, str | None]:
    """The rows that follow from the chain before them, up to the first that does not: those rows,
    the last chain value, and what is wrong with the first unproven row (None if all are proven)."""
    proven = []
    for row in rows:
        seq, match_id, game, kind, at, data, chain = row
        if chain is None and previous is None:
            proven.append(row)   # written before the chain existed: a schema 1 journal's records
            continue
        if chain != link(previous, seq, match_id, game, kind, at, data):
            return proven, previous, f"record {seq} does not follow from the records before it"
        proven.append(row)
        previous = chain
    return proven, previous, None


def _mark_problem(proven: list[tuple], previous: str | None, mark: Mark | None) -> str | None:
    """What the mark (the last record committed, kept beside the journal) says is missing; None if nothing."""
    last_proven = proven[-1][0] if proven else None
    if mark is None:
        if previous is None:
            return None
        return f"its mark ({MARK_SUFFIX}) is missing or unreadable, so nothing after record {last_proven} is proven"
    at_mark = next((row for row in proven if row[0] == mark.seq), None)
    if at_mark is None:
        holds = f"only up to record {last_proven}" if last_proven is not None else "none of those records"
        return f"it committed up to record {mark.seq} but holds {holds}"
    if at_mark[6] != mark.chain:
        return f"record {mark.seq} is not the record it committed"
    return None


def _unfinished_latest_match(proven: list[tuple]) -> list[Event]:
    """The proven rows' latest match, from its start, if it is unfinished (what can be taken up); else []."""
    events = [_row_event(row[:6]) for row in proven]
    latest = max((event.match_id for event in events if event.match_id is not None), default=None)
    match = [event for event in events if latest is not None and event.match_id == latest]
    if not match or match[0].kind is not Kind.MATCH_STARTED or _fold_unfinished(match) is None:
        return []
    return match


def _fold_unfinished(events: list[Event]) -> MatchProgress | None:
    """One match's records, from its start, folded; None if there are none or the match is finished."""
    if not events or events[0].kind is not Kind.MATCH_STARTED:
        return None
    progress = MatchProgress(events[0])
    for event in events[1:]:
        progress.apply(event)
    return None if progress.finished else progress


def _create_schema(connection: sqlite3.Connection) -> None:
    connection.executescript(f"BEGIN; {_SCHEMA} PRAGMA application_id = {APPLICATION_ID}; "
                             f"PRAGMA user_version = {SCHEMA_VERSION}; COMMIT;")


# SQLite's primary result codes that come from the place (permissions, a full, read-only or failing
# disk, another process's lock) rather than from the file's content.
_PLACE_PROBLEMS = frozenset({sqlite3.SQLITE_IOERR, sqlite3.SQLITE_FULL, sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_READONLY,
                             sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED, sqlite3.SQLITE_PERM, sqlite3.SQLITE_NOMEM})


def _is_place_problem(error: sqlite3.Error) -> bool:
    """An error of the place (a full, read-only or failing disk) rather than of the file's content."""
    code = getattr(error, "sqlite_errorcode", None)
    return code is not None and code & 0xFF in _PLACE_PROBLEMS


def _unacknowledged_damage(connection: sqlite3.Connection) -> dict[str, Any] | None:
    """The newest record of a journal moved aside or damaged (`_start_again`), unless a person has
    acknowledged it since (a journal_damaged fault cleared): its data; else None."""
    rows = connection.execute("SELECT kind, data FROM events WHERE kind IN (?, ?) AND (data LIKE '%journal_damaged%' "
                              "OR data LIKE '%journal_moved_aside%') ORDER BY seq DESC",
                              (Kind.SERVICE.value, Kind.FAULT_CLEARED.value))
    for kind, data in rows:
        record = json.loads(data)
        if not isinstance(record, dict):
            continue
        if kind == Kind.FAULT_CLEARED.value and record.get("fault") == "journal_damaged":
            return None
        if kind == Kind.SERVICE.value and record.get("what") in ("journal_damaged", "journal_moved_aside"):
            return record
    return None


def _move_aside(path: Path, now: float, why: str) -> Path:
    """Rename the journal and its -wal, -shm and -mark files out of the way, as `<name>.<why>-<UTC time>`;
    returns the journal's new name."""
    stamp = datetime.fromtimestamp(now, timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    target = path.with_name(f"{path.name}.{why}-{stamp}")
    number = 1
    while target.exists() or Path(f"{target}{MARK_SUFFIX}").exists():
        number += 1
        target = path.with_name(f"{path.name}.{why}-{stamp}-{number}")
    try:
        # The mark is copied, and stays until the new journal's replaces it: whenever this is cut
        # short, what is left beside it cannot pass for a new journal.
        mark = mark_path(path)
        if mark.exists():
            shutil.copyfile(mark, mark_path(target))
        for suffix in ("-wal", "-shm", ""):
            companion = Path(f"{path}{suffix}")
            if companion.exists():
                companion.rename(Path(f"{target}{suffix}"))
    except OSError as error:
        raise JournalError(f"the journal {path} cannot be used and cannot be moved aside: {error.strerror}") from None
    return target

