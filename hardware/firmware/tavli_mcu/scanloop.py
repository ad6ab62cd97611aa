"""The MCU's loop (main.py on the Pico; bench/bench_scan.py runs it on a PC against fake chips): every
scan period it takes the host's bytes, scans every sensor, lets the protocol node answer and report,
and feeds the watchdog. Plain Python over injected pieces, like the rest of the package.
"""


class Clock:
    """Milliseconds since it was made, a count that never wraps (MicroPython's ticks_ms does), from
    `ticks_ms` and `ticks_diff` (time.ticks_ms and time.ticks_diff on the Pico)."""

    def __init__(self, ticks_ms, ticks_diff):
        self._ticks_ms = ticks_ms
        self._ticks_diff = ticks_diff
        self._last = ticks_ms()
        self._ms = 0

    def __call__(self):
        now = self._ticks_ms()
        self._ms += self._ticks_diff(now, self._last)
        self._last = now
        return self._ms


class ScanLoop:
    def __init__(self, node, scan, read, feed_watchdog, clock, sleep_ms):
        """`scan()`: one scan's counts (LoadCellSensors.read_counts); `read()`: the host's bytes so far."""
        self.node = node
        self.scan = scan
        self.read = read
        self.feed_watchdog = feed_watchdog
        self.clock = clock
        self.sleep_ms = sleep_ms

    def step(self):
        """One scan period's work; returns the milliseconds left of the period."""
        started = self.clock()
        data = self.read()
        if data:
            self.node.receive(data, started)
        self.node.scan(self.scan(), started)
        self.feed_watchdog()
        return self.node.scan_period_ms - (self.clock() - started)

    def run(self):
        self.node.boot(self.clock())
        while True:
            spare = self.step()
            if spare > 0:
                self.sleep_ms(spare)
