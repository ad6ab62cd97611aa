"""Reading the files and streams a person hands the program: bounded, and every problem one line.

Every file the program reads on someone's word (a position, a reading, the configuration, the board
file, a scenario, a trace) goes through here: at most `limit` bytes are read (so `/dev/zero` or a
log file given by mistake cannot fill the memory), the text must be UTF-8, and JSON or TOML that is
malformed, nested too deeply or holds a number too long to be one becomes an `InputError` whose
message names the file and what is wrong with it.
"""
from __future__ import annotations

import json
import sys
import tomllib
from pathlib import Path
from typing import Any, BinaryIO, Callable

# Far more than any position, configuration or scenario; a trace of hours stays far below it too.
DEFAULT_LIMIT = 16 * 1024 * 1024
STDIN = "-"


class InputError(ValueError):
    """A file or stream that cannot be read as asked: `source` names it, `problem` says what is wrong."""

    def __init__(self, source: str, problem: str):
        super().__init__(f"{source}: {problem}")
        self.source = source
        self.problem = problem


class MalformedInput(InputError):
    """Text that is not the JSON or TOML it should be (syntax, nesting, a number too long)."""


def _bounded(stream: BinaryIO, source: str, limit: int) -> bytes:
    data = stream.read(limit + 1)
    if len(data) > limit:
        raise InputError(source, f"is larger than {limit // 1024} KiB; is it the right file?")
    return data


def _text(data: bytes, source: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise InputError(source, f"is not UTF-8 text (byte {data[error.start]:#04x} at offset {error.start})") from None


def read_text(path: Path | str, *, limit: int = DEFAULT_LIMIT) -> str:
    """The text of the file at `path` ("-": standard input), at most `limit` bytes of UTF-8."""
    if str(path) == STDIN:
        if sys.stdin.isatty():   # a person at a terminal would otherwise wait on a silent command
            print("reading standard input: paste the text, then press Ctrl-D (or give a file instead of -)",
                  file=sys.stderr)
        stream = getattr(sys.stdin, "buffer", None)
        if stream is None:   # a text stream put in place of stdin (tests): already decoded
            text = sys.stdin.read(limit + 1)
            if len(text) > limit:
                raise InputError("standard input", f"is larger than {limit // 1024} KiB")
            return text
        return _text(_bounded(stream, "standard input", limit), "standard input")
    path = Path(path)
    try:
        with path.open("rb") as stream:
            return _text(_bounded(stream, str(path), limit), str(path))
    except IsADirectoryError:
        raise InputError(str(path), "is a folder, not a file") from None
    except OSError as error:
        raise InputError(str(path), f"cannot read: {error.strerror}") from None


def parse_json(text: str, source: str) -> Any:
    """JSON text -> its value; any way it cannot be one is a `MalformedInput`."""
    if not text.strip():
        raise MalformedInput(source, "is empty: JSON was expected")
    return _parse(json.loads, json.JSONDecodeError, "JSON", text, source)


def parse_toml(text: str, source: str) -> dict[str, Any]:
    """TOML text -> its tables; any way it cannot be read is a `MalformedInput`."""
    return _parse(tomllib.loads, tomllib.TOMLDecodeError, "TOML", text, source)


def _parse(loads: Callable[[str], Any], syntax_error: type[ValueError], language: str, text: str, source: str) -> Any:
    try:
        return loads(text)
    except syntax_error as error:
        raise MalformedInput(source, f"is not valid {language}: {error}") from None
    except RecursionError:
        raise MalformedInput(source, "is nested too deeply to be read") from None
    except ValueError as error:   # an integer of thousands of digits
        raise MalformedInput(source, f"holds a number too long to read ({error})") from None


def load_json(path: Path | str, *, limit: int = DEFAULT_LIMIT) -> Any:
    source = "standard input" if str(path) == STDIN else str(path)
    return parse_json(read_text(path, limit=limit), source)


def load_toml(path: Path | str, *, limit: int = DEFAULT_LIMIT) -> dict[str, Any]:
    return parse_toml(read_text(path, limit=limit), str(path))
