"""Counting checkers by weight and telling the bottom one's colour by its magnet (the reference design).

Every checker weighs about `checker_g` whatever its colour: a location's count is the nearest whole
number of checkers within `window_g`, and is read only while its last `steady_scans` masses agree
within `steady_g` (checkers lie still; a finger resting on them wavers). Each checker carries a
magnet, north up in white ones and south up in black ones; a Hall sensor under the location's first
checker sees the bottom checker's pole: the sign of the field is its colour. A count without a magnet
or a magnet without a count is no reading (None), never a guess. A reading is reported as `count`
checkers of the bottom colour, (count, 0) or (0, count): the host works out mixed (pinned) points
from the play (firmware_host/referee/observe.py).
"""

MAX_COUNT = 16   # 15 of one colour, and one pinned under them


class CountDecoder:
    def __init__(self, channels, checker_g, window_g, steady_g, steady_scans, threshold_mt):
        self.checker_g = checker_g
        self.window_g = window_g
        self.steady_g = steady_g
        self.steady_scans = steady_scans
        self.threshold_mt = threshold_mt
        self._recent = [[] for _ in range(channels)]

    def decode(self, channel, grams, field_mt):
        """(count, 0) with a white checker at the bottom, (0, count) with a black one, (0, 0) for an
        empty location, None for no reading. `field_mt` is None when the Hall sensor gave nothing."""
        recent = self._recent[channel]
        recent.append(grams)
        if len(recent) > self.steady_scans:
            recent.pop(0)
        if len(recent) < self.steady_scans or max(recent) - min(recent) > self.steady_g:
            return None
        count = int(grams / self.checker_g + 0.5) if grams > 0 else 0
        if count > MAX_COUNT or abs(grams - count * self.checker_g) > self.window_g or field_mt is None:
            return None
        if field_mt > self.threshold_mt:
            return None if count == 0 else (count, 0)
        if field_mt < -self.threshold_mt:
            return None if count == 0 else (0, count)
        return (0, 0) if count == 0 else None
