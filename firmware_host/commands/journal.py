"""`tavli-board export`, `history` and `dice-stats`: the journal, read-only, while the service runs."""
from __future__ import annotations

import json
import sqlite3
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from firmware_host.commands import UsageError, add_config_argument, config_from_args
from firmware_host.journal import dicestats
from firmware_host.journal.export import (NothingToWrite, UnreadableMatch, fold, gnubg_match, match_json,
                                          match_status, one_match)
from firmware_host.journal.store import CorruptJournal, JournalError, JournalReader
from firmware_host.rules.position import BLACK, WHITE


def register(subparsers) -> None:
    export = subparsers.add_parser(
        "export", help="write one match from the journal as JSON, or its portes games as a GNU Backgammon match file",
        description="JSON holds every game, roll, play, refusal, referee action, result and the house rules. "
                    "--format mat writes the portes games in the Jellyfish .mat format (gnubg: import mat FILE).")
    export.add_argument("match", metavar="MATCH", help="a match number from `tavli-board history`, or `last`")
    export.add_argument("--format", choices=("json", "mat"), default="json")
    export.add_argument("--output", "-o", type=Path, metavar="FILE", help="write here instead of stdout")
    _journal_arguments(export)
    export.set_defaults(handler=run_export)

    history = subparsers.add_parser("history", help="list the matches in the journal, newest first")
    history.add_argument("--limit", type=int, default=20, help="show this many (default %(default)s; 0: all)")
    _journal_arguments(history)
    history.set_defaults(handler=run_history)

    stats = subparsers.add_parser("dice-stats", help="count the journal's dice rolls and test them for fairness "
                                                     "(chi-square)")
    stats.add_argument("--match", metavar="MATCH", help="only this match (a number, or `last`); default: every roll")
    _journal_arguments(stats)
    stats.set_defaults(handler=run_dice_stats)


def _journal_arguments(parser) -> None:
    add_config_argument(parser)
    parser.add_argument("--journal", type=Path, metavar="FILE", help="the journal file (default: the configuration's)")


def _open(args) -> JournalReader:
    path = args.journal or config_from_args(args).journal_path
    try:
        return JournalReader.open(path)
    except JournalError as error:
        raise UsageError(str(error)) from None


@contextmanager
def _reading(reader: JournalReader) -> Iterator[None]:
    """Records that cannot be read are one line naming the journal, never a traceback."""
    try:
        yield
    except (CorruptJournal, UnreadableMatch, LookupError) as error:   # LookupError: a match without its start
        raise UsageError(f"the journal {reader.path}: {error}") from None
    except sqlite3.Error as error:
        raise UsageError(f"cannot read the journal {reader.path}: {error}") from None


def _said_lost(reader: JournalReader, command: str, unreadable: list[str] = ()) -> int:
    """Say in one line (on stderr) what the journal has lost, as the service would find it, and the
    matches shown as unreadable; the exit code: 1 if there was anything to say (what was shown is
    only what the journal still holds), else 0."""
    lost = reader.lost_records()
    problems = list(unreadable)
    if lost is not None:
        problems.append(f"it has lost committed records ({lost}); what is shown is what it still holds")
    if not problems:
        return 0
    print(f"tavli-board {command}: the journal {reader.path}: {'; '.join(problems)}", file=sys.stderr)
    return 1


def _match_id(reader: JournalReader, text: str) -> int:
    """The match a person names: its number as `history` lists it, or `last`."""
    ids = reader.match_ids()
    if text == "last":
        if not ids:
            raise UsageError(f"the journal {reader.path} holds no match yet")
        return ids[-1]
    if not (text.isascii() and text.isdigit()) or int(text) not in ids:
        raise UsageError(f"no match {text!r} in {reader.path}; `tavli-board history` lists them, or say `last`")
    return int(text)


def run_export(args) -> int:
    with _open(args) as reader, _reading(reader):
        events = reader.match_events(_match_id(reader, args.match))
        if args.format == "json":
            text = json.dumps(match_json(events), indent=2, sort_keys=True)
        else:
            try:
                text, notes = gnubg_match(events)
            except NothingToWrite as error:
                raise UsageError(str(error)) from None
            for note in notes:
                print(f"tavli-board export: {note}", file=sys.stderr)
        if args.output is None:
            sys.stdout.write(text + "\n")
        else:
            try:
                args.output.write_text(text + "\n")
            except OSError as error:
                raise UsageError(f"cannot write {args.output}: {error.strerror}") from None
        return _said_lost(reader, "export")


def run_history(args) -> int:
    if args.limit < 0:
        raise UsageError(f"--limit must be 0 (all) or more, got {args.limit}")
    with _open(args) as reader, _reading(reader):
        summaries = reader.summaries()
        if not summaries:
            print("no matches yet")
            return _said_lost(reader, "history")
        print(f"{'match':>6}  {'started (UTC)':<24} {'games':<30} {'target':>6}  {'white-black':<11} {'played':>6}  status")
        shown = sorted(summaries, reverse=True)
        unreadable = []
        for match_id in shown[:args.limit or None]:
            try:
                print(_history_line(summaries[match_id]))
            except UnreadableMatch as error:
                unreadable.append(str(error))
                print(f"{match_id:>6}  {summaries[match_id][0].at!s:<24} (cannot be read)")
        if args.limit and len(shown) > args.limit:
            print(f"({len(shown) - args.limit} older matches not shown; --limit 0 shows all)")
        return _said_lost(reader, "history", unreadable)


@one_match
def _history_line(events: list) -> str:
    match_id, progress = events[0].match_id, fold(events)
    rules = events[0].data["rules"]
    score = progress.match.score
    status = match_status(progress)
    if progress.match.winner is not None:
        status += f" by {progress.match.winner.value}"
    return (f"{match_id:>6}  {events[0].at:<24} {', '.join(rules['sequence']):<30} {rules['target']:>6}  "
            f"{score[WHITE]:>4} - {score[BLACK]:<4} {len(progress.match.games):>6}  {status}")


def run_dice_stats(args) -> int:
    with _open(args) as reader, _reading(reader):
        match_id = None if args.match is None else _match_id(reader, args.match)
        rolls = reader.rolls(match_id)
        if not rolls:   # tables of zeros would say nothing
            print(f"no rolls of two dice yet in {reader.path}{'' if args.match is None else f' (match {args.match})'}: "
                  "nothing to count")
        else:
            print(dicestats.report(rolls))
        return _said_lost(reader, "dice-stats")
