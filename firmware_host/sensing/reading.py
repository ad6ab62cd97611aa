"""The sensors' readings are board readings (`BoardReading`, `SideReading`): the type and its JSON, the
reading object of docs/position-format.md, are the position format's, owned by `rules/reading.py`; the
sensing package and the drivers above it name them from here. What the sensors count is as wired (the
board's own labels), of no game in particular.
"""
from firmware_host.rules.reading import COLOURS, POINTS, BoardReading, ReadingError, SideReading

__all__ = ["COLOURS", "POINTS", "BoardReading", "ReadingError", "SideReading"]
