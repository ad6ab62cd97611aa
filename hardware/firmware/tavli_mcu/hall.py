"""The bottom checker's magnet: a TMAG5273 3D Hall sensor beside each location's NAU7802, on the same
multiplexer port (it has its own I2C address), under the location's first checker.

Register map and values from the TMAG5273 datasheet (TI SLYS043): continuous conversion of the X, Y
and Z axes, averaging 16 conversions, ±40 mT range (the A1 and B1 variants; the address is the
variant's, [sensors.mcu] hall_address); each result is a signed 16-bit value, 32768 counts per 40 mT.
The colour is the field's axis (tavli_mcu/counting.py), so all three axes are read.
"""

DEVICE_CONFIG_1 = 0x00
DEVICE_CONFIG_2 = 0x01
SENSOR_CONFIG_1 = 0x02
SENSOR_CONFIG_2 = 0x03
X_MSB_RESULT = 0x12   # X, Y, Z results follow each other, MSB first
CONV_AVG_16X = 0x4 << 2
CONTINUOUS = 0x2
XYZ = 0x7 << 4
XYZ_RANGE_40_MT = 0x0
MT_PER_COUNT = 40 / 32768


class HallBank:
    """The Hall sensors of every channel, reached through `select(channel)` of the load cells' bank."""

    def __init__(self, i2c, select, channels, address):
        self.i2c = i2c
        self.select = select
        self.channels = channels
        self.address = address

    def start(self, channel):
        self.select(channel)
        for register, value in ((DEVICE_CONFIG_1, CONV_AVG_16X), (SENSOR_CONFIG_1, XYZ),
                                (SENSOR_CONFIG_2, XYZ_RANGE_40_MT), (DEVICE_CONFIG_2, CONTINUOUS)):
            self.i2c.writeto_mem(self.address, register, bytes((value,)))

    def start_all(self):
        """Start every sensor that answers; returns the channels that did not."""
        failed = set()
        for channel in range(self.channels):
            try:
                self.start(channel)
            except OSError:
                failed.add(channel)
        return failed

    def field_mt(self, channel):
        """The field (x, y, z) in mT (z positive: a north pole above), or None if the sensor does not answer."""
        try:
            self.select(channel)
            data = self.i2c.readfrom_mem(self.address, X_MSB_RESULT, 6)
        except OSError:
            return None
        return tuple(_signed(data[index] << 8 | data[index + 1]) * MT_PER_COUNT for index in (0, 2, 4))


def _signed(value):
    return value - 0x10000 if value & 0x8000 else value
