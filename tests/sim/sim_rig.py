"""A real link over a real pseudo-terminal (or TCP) between a BoardSensor and the simulated MCU."""
import dataclasses
import threading

from firmware_host.sensing.config import load_sensing_config
from firmware_host.sensing.reading import BoardReading
from firmware_host.sensing.sensor import BoardSensor
from firmware_host.sim.board import SimBoard
from firmware_host.sim.mcu import SimulatedMcu

OPENING = BoardReading.from_json({"white": {"points": {"24": 2, "13": 5, "8": 3, "6": 5}},
                                  "black": {"points": {"1": 2, "12": 5, "17": 3, "19": 5}}})
CONFIG = load_sensing_config()
# Real waits are bounded by this; on an idle machine every expectation is met in well under a second.
TIMEOUT_S = 10.0


class EventLog:
    """Events posted from the link thread; `next` waits for the next matching one after the last found."""

    def __init__(self):
        self.items = []
        self._condition = threading.Condition()
        self._cursor = 0

    def post(self, event):
        with self._condition:
            self.items.append(event)
            self._condition.notify_all()

    def next(self, kind, where=lambda event: True, timeout=TIMEOUT_S):
        with self._condition:
            found = self._condition.wait_for(lambda: self._find(kind, where) is not None, timeout)
            if not found:
                raise AssertionError(f"no {kind.__name__} within {timeout} s after event {self._cursor}; "
                                     f"since then: {self.items[self._cursor:]}")
            index = self._find(kind, where)
            self._cursor = index + 1
            return self.items[index]

    def since_cursor(self):
        with self._condition:
            return list(self.items[self._cursor:])

    def _find(self, kind, where):
        for index in range(self._cursor, len(self.items)):
            if isinstance(self.items[index], kind) and where(self.items[index]):
                return index
        return None


class Rig:
    def __init__(self, transport):
        self.board = SimBoard(OPENING)
        self.mcu = SimulatedMcu(self.board, CONFIG.sensors.channels, transport).start()
        serial_settings = dataclasses.replace(CONFIG.serial, port=self.mcu.port, reconnect_min_s=0.05,
                                              reconnect_max_s=0.2)
        sensors = dataclasses.replace(CONFIG.sensors, quiet_ms=150, grace_ms=600)
        self.config = dataclasses.replace(CONFIG, serial=serial_settings, sensors=sensors)
        self.events = EventLog()
        self.sensor = BoardSensor(self.config, self.events.post)
        self.sensor.start()

    def close(self):
        self.sensor.stop()
        self.mcu.stop()
