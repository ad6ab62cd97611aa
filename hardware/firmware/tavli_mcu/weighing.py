"""Counting checkers by weight: the reference design's one load cell per location.

White checkers weigh 16 units and black ones 17 (1 unit = 1 g in the reference design). Because
16 and 17 share no factor and no count exceeds 15, every (white, black) pair on a location has its
own total mass, and any two totals differ by at least one unit: the nearest total within the
tolerance names the counts; a mass between totals is no reading at all (None), never a guess.
"""
import json

MAX_PER_COLOUR = 15


class MassDecoder:
    def __init__(self, white_g, black_g, tolerance_g):
        table = sorted((white * white_g + black * black_g, white, black)
                       for white in range(MAX_PER_COLOUR + 1) for black in range(MAX_PER_COLOUR + 1))
        self.tolerance_g = tolerance_g
        self._masses = [row[0] for row in table]
        self._counts = [(row[1], row[2]) for row in table]

    def decode(self, grams):
        """(white, black) whose total mass is within the tolerance of `grams`, else None."""
        masses = self._masses
        low, high = 0, len(masses) - 1
        while low < high:   # the first total >= grams (MicroPython has no bisect)
            middle = (low + high) // 2
            if masses[middle] < grams:
                low = middle + 1
            else:
                high = middle
        best = low
        if low > 0 and grams - masses[low - 1] < masses[low] - grams:
            best = low - 1
        if abs(masses[best] - grams) > self.tolerance_g:
            return None
        return self._counts[best]


class Calibration:
    """Per channel: the raw ADC value of the empty location and the raw counts per gram (None until the
    location is spanned: an uncalibrated location gives no reading, never a guessed one)."""

    ZERO_TRACKING = 1 / 64   # how fast an empty location's zero follows slow drift

    def __init__(self, zero, counts_per_gram):
        self.zero = list(zero)
        self.counts_per_gram = list(counts_per_gram)

    @classmethod
    def uncalibrated(cls, channels):
        return cls([0] * channels, [None] * channels)

    def grams(self, channel, raw):
        """The mass on the location, or None if it is not calibrated."""
        counts_per_gram = self.counts_per_gram[channel]
        return None if counts_per_gram is None else (raw - self.zero[channel]) / counts_per_gram

    def tare(self, channel, raw):
        """The location is empty now."""
        self.zero[channel] = raw

    def span(self, channel, raw, grams):
        """A known mass lies on the (tared) location now."""
        self.counts_per_gram[channel] = (raw - self.zero[channel]) / grams

    def track_zero(self, channel, raw):
        """Follow creep and temperature drift while the location reads empty."""
        self.zero[channel] += (raw - self.zero[channel]) * self.ZERO_TRACKING

    def dumps(self):
        return json.dumps({"zero": self.zero, "counts_per_gram": self.counts_per_gram})

    @classmethod
    def loads(cls, text, channels):
        data = json.loads(text)
        if len(data["zero"]) != channels or len(data["counts_per_gram"]) != channels:
            raise ValueError("calibration is for %d channels, the board has %d" % (len(data["zero"]), channels))
        return cls(data["zero"], data["counts_per_gram"])
