"""The bottom checker's magnet: a TMAG5273 3D Hall sensor beside each location's NAU7802, on the same
multiplexer port (it has its own I2C address), under the location's first checker.

Register map and values from the TMAG5273 datasheet (TI SLYS043): continuous conversion of the Z axis
only, averaging 16 conversions, ±40 mT range (A1 variant, address 0x35); the Z result is a signed
16-bit value, 32768 counts per 40 mT.
"""

DEVICE_CONFIG_1 = 0x00
DEVICE_CONFIG_2 = 0x01
SENSOR_CONFIG_1 = 0x02
SENSOR_CONFIG_2 = 0x03
Z_MSB_RESULT = 0x16
CONV_AVG_16X = 0x4 << 2
CONTINUOUS = 0x2
Z_ONLY = 0x4 << 4
Z_RANGE_40_MT = 0x0
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
        for register, value in ((DEVICE_CONFIG_1, CONV_AVG_16X), (SENSOR_CONFIG_1, Z_ONLY),
                                (SENSOR_CONFIG_2, Z_RANGE_40_MT), (DEVICE_CONFIG_2, CONTINUOUS)):
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
        """The Z field in mT (positive: a north pole above), or None if the sensor does not answer."""
        try:
            self.select(channel)
            high, low = self.i2c.readfrom_mem(self.address, Z_MSB_RESULT, 2)
        except OSError:
            return None
        value = high << 8 | low
        return (value - 0x10000 if value & 0x8000 else value) * MT_PER_COUNT
