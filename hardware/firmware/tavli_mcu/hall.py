"""The bottom checker's magnet: a TMAG5273 3D Hall sensor beside each location's NAU7802, on the same
multiplexer port (it has its own I2C address), under the location's first checker.

Register map and values from the TMAG5273 datasheet (TI SLYS043): continuous conversion of the X, Y
and Z axes, averaging 16 conversions, ±40 mT range (the A1 and B1 variants; the address is the
variant's, [sensors.mcu] hall_address); each result is a signed 16-bit value, 32768 counts per 40 mT.
The colour is the field's axis (tavli_mcu/counting.py), so all three axes are read. CONV_STATUS
follows the results, so one read from the first result to it gives the field, whether a conversion
completed (RESULT_STATUS) and whether the sensor was reset since it was set up (POR, set by a
power-on reset and cleared by writing it): a sensor found reset is set up again.
"""

DEVICE_CONFIG_1 = 0x00
DEVICE_CONFIG_2 = 0x01
SENSOR_CONFIG_1 = 0x02
SENSOR_CONFIG_2 = 0x03
X_MSB_RESULT = 0x12   # X, Y, Z results follow each other, MSB first
CONV_STATUS = 0x18
FIRST_RESULT = X_MSB_RESULT   # the results read, up to CONV_STATUS
RESULT_STATUS, POR = 0x01, 0x10
CONV_AVG_16X = 0x4 << 2
CONTINUOUS = 0x2
XYZ = 0x7 << 4
XYZ_RANGE_40_MT = 0x0
MT_PER_COUNT = 40 / 32768
RETRY_MS = 1000   # a sensor that did not answer is set up again this often


class HallBank:
    """The Hall sensors of every channel, on the load cells' bus (tavli_mcu.bus.Bus)."""

    def __init__(self, bus, channels, address, now_ms):
        self.bus = bus
        self.channels = channels
        self.address = address
        self.now_ms = now_ms
        self.restarts = 0                 # sensors found reset and set up again
        self._ready = [False] * channels
        self._tried = [None] * channels   # when it was last set up

    def start(self, channel):
        self._tried[channel] = self.now_ms()
        self._ready[channel] = False
        self.bus.select(channel)
        for register, value in ((DEVICE_CONFIG_1, CONV_AVG_16X), (SENSOR_CONFIG_1, XYZ),
                                (SENSOR_CONFIG_2, XYZ_RANGE_40_MT), (DEVICE_CONFIG_2, CONTINUOUS), (CONV_STATUS, POR)):
            self.bus.writeto_mem(self.address, register, bytes((value,)))
        self._ready[channel] = True

    def start_all(self):
        """Start every sensor that answers; returns the channels that did not (field_mt tries them again)."""
        failed = set()
        for channel in range(self.channels):
            try:
                self.start(channel)
            except OSError:
                failed.add(channel)
        return failed

    def field_mt(self, channel):
        """The field (x, y, z) in mT (z positive: a north pole above), or None: the sensor does not
        answer, has no conversion yet, or was reset (it is set up again)."""
        try:
            if not self._ready[channel]:
                tried = self._tried[channel]
                if tried is None or self.now_ms() - tried >= RETRY_MS:
                    self.start(channel)
                return None
            self.bus.select(channel)
            data = self.bus.readfrom_mem(self.address, FIRST_RESULT, CONV_STATUS + 1 - FIRST_RESULT)
        except OSError:
            return None
        status = data[-1]
        if status & POR:
            self.restarts += 1
            self._ready[channel] = False
            self._tried[channel] = None
            return None
        if not status & RESULT_STATUS:
            return None
        return _field(data)


def _field(data):
    """The X, Y and Z results in mT."""
    return tuple(_signed(data[index] << 8 | data[index + 1]) * MT_PER_COUNT for index in (0, 2, 4))


def _signed(value):
    return value - 0x10000 if value & 0x8000 else value
