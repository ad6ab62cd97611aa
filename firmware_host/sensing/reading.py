"""The sensors' readings are board readings (`BoardReading`, `SideReading`): the type and its JSON, the
reading object of docs/position-format.md, are the position format's, owned by `rules/reading.py`; the
sensing package names them from here. What the sensors count is as wired (the board's own labels).
"""
from firmware_host.rules.reading import (COLOURS, POINTS, POSITION_ONLY_KEYS, BoardReading, ReadingError,
                                         SideReading)

__all__ = ["COLOURS", "POINTS", "POSITION_ONLY_KEYS", "BoardReading", "ReadingError", "SideReading"]
