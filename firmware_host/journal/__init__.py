"""The journal: an append-only SQLite log of everything that happens in a match, resume after a
power cut, and the exports (`tavli-board export`, `history`, `dice-stats`).

The controller owns one `Journal` (see `store` for the guarantees of each `record_*` call and
`events` for what `resume()` returns).
"""
from firmware_host.journal.events import Event, GameState, Kind, PlayRecord, ResumeState
from firmware_host.journal.store import (Journal, JournalError, JournalReader, JournalStateError,
                                         JournalWriteError)

__all__ = [
    "Event", "GameState", "Journal", "JournalError", "JournalReader", "JournalStateError", "JournalWriteError",
    "Kind", "PlayRecord", "ResumeState",
]
