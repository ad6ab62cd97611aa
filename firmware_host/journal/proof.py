"""What proves that the journal holds every record it committed: a hash chain and a high-water mark.

SQLite skips a write-ahead log from its first damaged frame on, and a damaged page can drop rows,
without a word: the file opens and simply holds less. So the journal keeps two proofs of its own.

- The chain: every record stores `link(previous record's chain, the record)`, a hash over its
  content and its predecessor's chain. A record changed, or one missing between two others, breaks
  the chain from there on.
- The mark: a small file beside the database (`<journal>-mark`) holding the seq and chain of the
  last committed record, written and fsync'd after every commit. A journal whose last record is
  older than the mark, or whose record at the mark's seq has another chain, has lost records.

The mark has two fixed-size slots, written alternately (by the seq's parity), each with a CRC: a
power cut tearing one write leaves the other slot, one record behind, which is only "not proven
yet", never a false alarm. The mark may lag the database (the cut fell between the commit and the
mark's write); it may never lead it.
"""
from __future__ import annotations

import hashlib
import os
import zlib
from dataclasses import dataclass
from pathlib import Path

MARK_SUFFIX = "-mark"
_SLOT_BYTES = 64
_SLOTS = 2


def link(previous: str | None, seq: int, match_id: int | None, game: int | None, kind: str, at: str,
         data: str) -> str:
    """The chain value of a record: its fields (as stored) hashed with its predecessor's chain
    (None or "" for the first record, or the first after a journal older than the chain)."""
    # str() of every field: a damaged row can read back as any type, and must then simply not match.
    text = "\x1f".join(str(field) for field in (previous or "", seq, match_id, game, kind, at, data))
    return hashlib.sha256(text.encode()).hexdigest()[:32]


@dataclass(frozen=True)
class Mark:
    seq: int
    chain: str


def mark_path(journal: Path) -> Path:
    return Path(f"{journal}{MARK_SUFFIX}")


def _slot_text(mark: Mark) -> bytes:
    body = f"{mark.seq} {mark.chain}"
    return f"{body} {zlib.crc32(body.encode()):08x}".ljust(_SLOT_BYTES - 1).encode() + b"\n"


def _parse_slot(raw: bytes) -> Mark | None:
    try:
        seq, chain, crc = raw.decode("ascii").split()
        body = f"{seq} {chain}"
        if int(crc, 16) != zlib.crc32(body.encode()):
            return None
        return Mark(int(seq), chain)
    except ValueError:   # torn, zeroed or foreign bytes: this slot proves nothing
        return None


def read_mark(journal: Path) -> Mark | None:
    """The newest valid slot of the journal's mark; None if there is no mark or no slot is valid."""
    try:
        raw = mark_path(journal).read_bytes()[:_SLOT_BYTES * _SLOTS]
    except FileNotFoundError:
        return None
    slots = [_parse_slot(raw[index:index + _SLOT_BYTES]) for index in range(0, len(raw), _SLOT_BYTES)]
    return max((slot for slot in slots if slot is not None), key=lambda slot: slot.seq, default=None)


# The slots overwrite bytes already there: only the data needs syncing, not the file's size or times.
_sync_data = getattr(os, "fdatasync", os.fsync)


def replace_mark(journal: Path, mark: Mark) -> None:
    """The journal's mark made `mark` alone, atomically: written beside it, synced, renamed over it."""
    path = mark_path(journal)
    fresh = path.with_name(f"{path.name}.new")
    with fresh.open("wb") as file:
        file.write(_slot_text(mark) * _SLOTS)   # both slots: no older mark's slot survives
        file.flush()
        os.fsync(file.fileno())
    os.replace(fresh, path)
    _sync_folder(path.parent)


def _sync_folder(folder: Path) -> None:
    """A new or renamed name in `folder` survives a power cut once this returns."""
    descriptor = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


class MarkWriter:
    """Keeps the mark file open and writes each commit's mark into its slot, fsync'd."""

    def __init__(self, journal: Path):
        path = mark_path(journal)
        created = not path.exists()
        self._fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        if created:   # the new name must survive a power cut too
            _sync_folder(path.parent)

    def write(self, mark: Mark) -> None:
        os.pwrite(self._fd, _slot_text(mark), (mark.seq % _SLOTS) * _SLOT_BYTES)
        _sync_data(self._fd)

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1
