"""Counting checkers by weight and telling the bottom one's colour by its magnet (the reference design).

Every checker weighs about `checker_g` whatever its colour: a location's count is the nearest whole
number of checkers within `window_g`, and is read only while its last `steady_scans` masses agree
within `steady_g` (checkers lie still; a finger resting on them wavers). Each checker carries a disc
magnet whose axis is its colour: magnetised through its faces (axial) in white ones, across its
diameter (diametric) in black ones. A 3D Hall sensor under the location's first checker sees the
bottom one's field: near vertical is white, near horizontal black. A checker lying the other face up,
or a magnet glued in backwards, reverses the field but not its axis, so it reads its own colour; a
field between the two, a count without a magnet or a magnet without a count is no reading (None),
never a guess (hardware/README.md, "Colour"). A reading is reported as `count`
checkers of the bottom colour, (count, 0) or (0, count): the host works out mixed (pinned) points
from the play (firmware_host/referee/observe.py). The one exception is a full stack (`reported`).
"""

MAX_COUNT = 16   # 15 of one colour, and one pinned under them
CHECKERS_PER_SIDE = MAX_COUNT - 1
# A bottom checker on its seat gives a field within 25 degrees of vertical (white) or beyond 44 degrees
# from it (black), stacks and magnet tolerance included (bench/bench_sensors.py); between, no colour.
WHITE_TILT = 0.53    # white: horizontal part at most this times the vertical one (28 degrees)
BLACK_TILT = 0.9     # black: horizontal part at least this times the vertical one (42 degrees)
WHITE, BLACK = 1, 2


def colour_of(field_mt, limits_mt):
    """WHITE or BLACK from the field (x, y, z) in mT, 0 for no magnet, None for a field of neither kind.
    `limits_mt`: (no magnet below, black at most, white at least). A checker off its seat tilts and weakens
    its field: a white one could look black, a black one white, but not with its own colour's strength."""
    threshold, black_max, white_min = limits_mt
    x, y, z = field_mt
    horizontal2 = x * x + y * y
    strength2 = horizontal2 + z * z
    if strength2 < threshold * threshold:
        return 0
    if horizontal2 <= WHITE_TILT * WHITE_TILT * z * z and strength2 >= white_min * white_min:
        return WHITE
    if horizontal2 >= BLACK_TILT * BLACK_TILT * z * z and strength2 <= black_max * black_max:
        return BLACK
    return None


def reported(count, bottom_is_white):
    """What a location reports: `count` checkers of the bottom one's colour, (count, 0) or (0, count).
    A stack of MAX_COUNT can only be all 15 of one colour on a pinned checker of the other, so it is
    reported as it lies, (1, 15) or (15, 1): a snapshot carries at most 15 of a colour (four bits,
    docs/protocol.md), and 16 of the bottom colour would reach the host as 15, the count of the stack
    before its last checker came."""
    if count == MAX_COUNT:
        return (1, CHECKERS_PER_SIDE) if bottom_is_white else (CHECKERS_PER_SIDE, 1)
    return (count, 0) if bottom_is_white else (0, count)


class CountDecoder:
    def __init__(self, channels, checker_g, window_g, steady_g, steady_scans, field_limits_mt):
        """`field_limits_mt`: `colour_of`'s (no magnet below, black at most, white at least)."""
        self.checker_g = checker_g
        self.window_g = window_g
        self.steady_g = steady_g
        self.steady_scans = steady_scans
        self.field_limits_mt = field_limits_mt
        self._recent = [[] for _ in range(channels)]
        self._fields = [[] for _ in range(channels)]

    def decode(self, channel, grams, field_mt):
        """The count as `reported` in the bottom checker's colour (`colour_of` the field), (0, 0) for an
        empty location, None for no reading. `field_mt` is (x, y, z), None when the Hall sensor gave nothing.
        The sensor sees the seat's checker only: the second one lies in the row beside it, where its magnet
        changes the field by a few hundredths of a mT, so a count above one is the weight's alone (a finger
        or dice adding a checker's weight to it are caught by the board's count, hardware/README.md)."""
        recent, fields = self._recent[channel], self._fields[channel]
        recent.append(grams)
        fields.append(field_mt)
        if len(recent) > self.steady_scans:
            recent.pop(0)
            fields.pop(0)
        if len(recent) < self.steady_scans or max(recent) - min(recent) > self.steady_g:
            return None
        count = int(grams / self.checker_g + 0.5) if grams > 0 else 0
        if count > MAX_COUNT or abs(grams - count * self.checker_g) > self.window_g or None in fields:
            return None
        colour = colour_of(field_mt, self.field_limits_mt)
        if colour is None or (count == 0) != (colour == 0):
            return None
        return (0, 0) if count == 0 else reported(count, colour == WHITE)
