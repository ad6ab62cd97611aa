"""Reading the board's TOML file (`hardware/board.toml`), the one source of hardware facts.

Several modules read their own tables of the same file. Each reads its table through a `Table`,
which is strict about the keys of that table (a misspelt key is an error, not a silent default)
and never looks at tables it was not handed, so sections owned by other modules are left alone.
Every error names the file, the full key and what is allowed.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Iterable

from firmware_host.files import InputError, MalformedInput, load_toml

_REQUIRED = object()


class BoardFileError(ValueError):
    """A missing, unreadable or invalid board file, or a wrong key or value in it."""

    def __init__(self, path: Path | str, key: str, problem: str, allowed: str | None = None):
        message = f"{path}: {key}: {problem}"
        if allowed is not None:
            message += f"; allowed: {allowed}"
        super().__init__(message)
        self.path = str(path)
        self.key = key


def read_board_file(path: Path | str) -> dict[str, Any]:
    """Parse the TOML file at `path`; a missing file or a syntax error is a `BoardFileError`."""
    path = Path(path)
    try:
        exists = path.exists()
    except OSError as error:   # a name too long, a folder that cannot be searched
        raise BoardFileError(path, "(file)", f"cannot be read: {error.strerror}") from None
    if not exists:
        raise BoardFileError(path, "(file)", "no such file")
    try:
        return load_toml(path)
    except InputError as error:
        raise BoardFileError(path, "(syntax)" if isinstance(error, MalformedInput) else "(file)", error.problem) from None


def _key_part(name: str) -> str:
    # Location keys such as "bar:white" are not bare TOML keys; quote them as TOML would.
    return name if re.fullmatch(r"[A-Za-z0-9_-]+", name) else f'"{name}"'


class Table:
    """One TOML table, read key by key with type and range checks.

    Every getter records its key as known, present or not; `finish()` then rejects any other key,
    listing the known ones. Call `finish()` after reading everything.
    """

    def __init__(self, path: Path | str, name: str, data: Any):
        if not isinstance(data, dict):
            raise BoardFileError(path, name, f"must be a table, not {type(data).__name__}")
        self.path = path
        self.name = name
        self.data = data
        self._known: list[str] = []

    @classmethod
    def of(cls, path: Path | str, document: dict[str, Any], name: str, *, required: bool = True) -> Table:
        """The top-level table `name` of a parsed file (an empty one when absent and optional)."""
        if name not in document:
            if required:
                raise BoardFileError(path, f"[{name}]", "missing table")
            return cls(path, name, {})
        return cls(path, name, document[name])

    def key_path(self, key: str) -> str:
        return f"{self.name}.{_key_part(key)}"

    def error(self, key: str, problem: str, allowed: str | None = None) -> BoardFileError:
        return BoardFileError(self.path, self.key_path(key), problem, allowed)

    def _lookup(self, key: str, default: Any, allowed: str) -> tuple[bool, Any]:
        """(present, value): the value in the file, or the default when absent and optional."""
        self._known.append(key)
        if key in self.data:
            return True, self.data[key]
        if default is _REQUIRED:
            raise self.error(key, "missing", allowed)
        return False, default

    def table(self, key: str) -> Table:
        """A required sub-table, e.g. `[leds.locations]`."""
        self._known.append(key)
        if key not in self.data:
            raise BoardFileError(self.path, f"[{self.key_path(key)}]", "missing table")
        return Table(self.path, self.key_path(key), self.data[key])

    def integer(self, key: str, *, default: Any = _REQUIRED, minimum: int, maximum: int) -> Any:
        allowed = f"an integer from {minimum} to {maximum}"
        present, value = self._lookup(key, default, allowed)
        if not present:
            return value
        if isinstance(value, bool) or not isinstance(value, int) or not minimum <= value <= maximum:
            raise self.error(key, f"{value!r} is not valid", allowed)
        return value

    def number(self, key: str, *, default: Any = _REQUIRED, minimum: float, maximum: float) -> float:
        allowed = f"a number from {minimum} to {maximum}"
        present, value = self._lookup(key, default, allowed)
        if not present:
            return value
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not minimum <= value <= maximum:
            raise self.error(key, f"{value!r} is not valid", allowed)
        return float(value)

    def boolean(self, key: str, *, default: Any = _REQUIRED) -> bool:
        present, value = self._lookup(key, default, "true or false")
        if present and not isinstance(value, bool):
            raise self.error(key, f"{value!r} is not valid", "true or false")
        return value

    def choice(self, key: str, options: Iterable[str], *, default: Any = _REQUIRED) -> str:
        options = tuple(options)
        allowed = ", ".join(f'"{option}"' for option in options)
        present, value = self._lookup(key, default, allowed)
        if present and value not in options:
            raise self.error(key, f"{value!r} is not valid", allowed)
        return value

    def string(self, key: str, *, default: Any = _REQUIRED) -> Any:
        present, value = self._lookup(key, default, "a non-empty string")
        if present and (not isinstance(value, str) or not value):
            raise self.error(key, f"{value!r} is not valid", "a non-empty string")
        return value

    def index_list(self, key: str, *, length: int | None = None) -> tuple[int, ...]:
        """A required, non-empty list of distinct non-negative integers (LED indices)."""
        allowed = "a list of LED indices (integers from 0)"
        if length is not None:
            allowed = f"a list of exactly {length} LED indices (integers from 0)"
        _, value = self._lookup(key, _REQUIRED, allowed)
        if (
            not isinstance(value, list)
            or not value
            or any(isinstance(item, bool) or not isinstance(item, int) or item < 0 for item in value)
            or (length is not None and len(value) != length)
        ):
            raise self.error(key, f"{value!r} is not valid", allowed)
        if len(set(value)) != len(value):
            raise self.error(key, f"{value!r} lists an index twice", allowed)
        return tuple(value)

    def finish(self) -> None:
        """Reject keys that no getter asked for (most often a misspelling)."""
        for key in self.data:
            if key not in self._known:
                known = ", ".join(_key_part(name) for name in self._known)
                raise self.error(key, "unknown key", known)
