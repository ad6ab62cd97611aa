"""On-board debounce: a channel's count changes only after N consecutive scans agree on the new value."""


class Debouncer:
    def __init__(self, channels, scans):
        self.channels = channels
        self.scans = scans
        self.stable = None            # the debounced (white, black) per channel; None before the first scan
        self._candidate = [None] * channels
        self._agreeing = [0] * channels

    def update(self, raw):
        """One scan: (white, black) per channel, None where the sensor gave no usable value.
        Returns True if any debounced count changed."""
        if self.stable is None:
            if None in raw:
                return False
            self.stable = list(raw)
            return True
        changed = False
        stable = self.stable
        for channel in range(self.channels):
            value = raw[channel]
            if value is None or value == stable[channel]:
                self._agreeing[channel] = 0
                continue
            if value == self._candidate[channel]:
                self._agreeing[channel] += 1
            else:
                self._candidate[channel] = value
                self._agreeing[channel] = 1
            if self._agreeing[channel] >= self.scans:
                stable[channel] = value
                self._agreeing[channel] = 0
                changed = True
        return changed
