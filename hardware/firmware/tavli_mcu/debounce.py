"""On-board debounce: a channel's count changes only after N consecutive scans agree on the new value.

A channel with no usable value for `unreadable_scans` scans in a row becomes unreadable (None) until it
reads again; its first reading (at boot, or after being unreadable) is taken as it is.
"""


class Debouncer:
    def __init__(self, channels, scans, unreadable_scans):
        self.channels = channels
        self.scans = scans
        self.unreadable_scans = unreadable_scans
        self.stable = [None] * channels   # the debounced (white, black) per channel; None: unreadable
        self.scanned = 0
        self._candidate = [None] * channels
        self._agreeing = [0] * channels
        self._missing = [0] * channels

    @property
    def ready(self):
        """Every channel has read, or long enough has passed to call the silent ones unreadable."""
        return self.scanned >= self.unreadable_scans or None not in self.stable

    def update(self, raw):
        """One scan: (white, black) per channel, None where the sensor gave no usable value.
        Returns True if any debounced value changed."""
        self.scanned += 1
        changed = False
        stable = self.stable
        for channel in range(self.channels):
            value = raw[channel]
            if value is None:
                self._agreeing[channel] = 0
                self._missing[channel] += 1
                if self._missing[channel] >= self.unreadable_scans and stable[channel] is not None:
                    stable[channel] = None
                    changed = True
                continue
            self._missing[channel] = 0
            if stable[channel] is None:
                stable[channel] = value
                changed = True
                continue
            if value == stable[channel]:
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
