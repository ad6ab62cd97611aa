"""Which sensor channel is which board location: the `channels` list of hardware/board.toml.

Channel `i` of the MCU's snapshot is `locations[i]`, one of `point:1`..`point:24`, `bar:white`,
`bar:black`, `off:white`, `off:black`, optionally `reserve:white` and `reserve:black`, or `unused`.
The colour in `bar:white` names the half of the bar (or the tray) where White's checkers are put by
convention; every sensor reports both colours, and a colour's bar, off and reserve counts are the
sums over all channels of that kind, so a checker laid in the other half still counts.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from firmware_host.sensing.reading import COLOURS, POINTS, BoardReading, SideReading

UNUSED = "unused"
POINT_LOCATIONS = tuple(f"point:{n}" for n in range(1, POINTS + 1))
TRAY_KINDS = ("bar", "off", "reserve")
REQUIRED_LOCATIONS = POINT_LOCATIONS + tuple(f"{kind}:{colour}" for kind in ("bar", "off") for colour in COLOURS)
RESERVE_LOCATIONS = tuple(f"reserve:{colour}" for colour in COLOURS)
KNOWN_LOCATIONS = frozenset(REQUIRED_LOCATIONS + RESERVE_LOCATIONS)


class ChannelMapError(ValueError):
    pass


@dataclass(frozen=True)
class ChannelMap:
    locations: tuple[str, ...]
    _point_channels: tuple[int, ...] = field(init=False, repr=False, compare=False)
    _tray_channels: dict[str, tuple[int, ...]] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        unknown = [name for name in self.locations if name not in KNOWN_LOCATIONS and name != UNUSED]
        if unknown:
            raise ChannelMapError(f"unknown location(s) {unknown}; allowed: point:1..point:24, "
                                  f"bar:white, bar:black, off:white, off:black, reserve:white, reserve:black, {UNUSED}")
        used = [name for name in self.locations if name != UNUSED]
        repeated = sorted({name for name in used if used.count(name) > 1})
        if repeated:
            raise ChannelMapError(f"location(s) {repeated} given to more than one channel")
        missing = [name for name in REQUIRED_LOCATIONS if name not in used]
        if missing:
            raise ChannelMapError(f"no channel for {missing}")
        reserves = [name for name in RESERVE_LOCATIONS if name in used]
        if len(reserves) == 1:
            raise ChannelMapError(f"{reserves[0]} needs its partner: reserve trays come in pairs")
        index = {name: channel for channel, name in enumerate(self.locations)}
        object.__setattr__(self, "_point_channels", tuple(index[name] for name in POINT_LOCATIONS))
        object.__setattr__(self, "_tray_channels", {
            kind: tuple(channel for channel, name in enumerate(self.locations) if name.startswith(kind + ":"))
            for kind in TRAY_KINDS})

    @property
    def channel_count(self) -> int:
        return len(self.locations)

    @property
    def has_reserve(self) -> bool:
        return bool(self._tray_channels["reserve"])

    def channel_of(self, location: str) -> int:
        try:
            return self.locations.index(location)
        except ValueError:
            raise ChannelMapError(f"no channel is mapped to {location!r}") from None

    def reading(self, counts: tuple[tuple[int, int], ...]) -> BoardReading:
        """Channel counts (white, black) in channel order -> the board reading."""
        if len(counts) != len(self.locations):
            raise ChannelMapError(f"{len(counts)} channel counts for a map of {len(self.locations)} channels")
        sides = []
        for colour_index in (0, 1):
            points = tuple(counts[channel][colour_index] for channel in self._point_channels)
            trays = {kind: sum(counts[channel][colour_index] for channel in channels)
                     for kind, channels in self._tray_channels.items()}
            sides.append(SideReading(points, trays["bar"], trays["off"],
                                     trays["reserve"] if self.has_reserve else None))
        return BoardReading(*sides)
