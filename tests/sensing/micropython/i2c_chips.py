"""Register-level fakes of the sensor bus: TCA9548A multiplexers, NAU7802 ADCs and TMAG5273 Hall sensors
on one I2C bus, with the faults the firmware must survive. Runs under MicroPython (the fake `machine`
beside it) and CPython (tests/sensing/test_firmware_sensors.py, bench/bench_scan.py) alike.

`SensorBus` has machine.I2C's methods (writeto, readfrom_mem, writeto_mem) and fails as rp2's does
(ports/rp2/machine_i2c.c): OSError(EIO) for a NACK, OSError(ETIMEDOUT) after `timeout_us` when SDA is
held low. It counts every transaction and the bytes on the wire. Time comes from `clock()` (ms);
`wait_us` is spent on a timeout.

Faults: `dead` (the chip NACKs), `brown_out` (every register back to its reset value, conversions
stopped), `slow` (conversions further apart), `hold_sda(clocks)` (a device holds SDA low until SCL is
clocked that often; -1: for ever). Two devices answering at one address at once (two multiplexer
ports on) is counted in `collisions`: writes reach both and reads are the wired AND of both.
"""

EIO = 5
ETIMEDOUT = 110
NAU7802_ADDRESS = 0x2A
MUX_ADDRESSES = (0x70, 0x71, 0x72, 0x73)

# NAU7802 (datasheet rev 1.7)
PU_CTRL, CTRL2, ADCO_B2, REVISION = 0x00, 0x02, 0x12, 0x1F
RR, PUD, PUR, CS, CR = 0x01, 0x02, 0x08, 0x10, 0x20
CALS, CAL_ERR = 0x04, 0x08
# TMAG5273 (SLYS043)
DEVICE_CONFIG_2, X_MSB_RESULT, CONV_STATUS = 0x01, 0x12, 0x18
CONTINUOUS, RESULT_STATUS, POR = 0x02, 0x01, 0x10
MT_PER_COUNT = 40 / 32768


class Nau7802:
    CALIBRATION_MS = 40

    def __init__(self, clock, raw=0):
        self.clock = clock
        self.raw = raw               # the conversion of the load on it now
        self.dead = False
        self.conversion_ms = 12.5    # 80 samples/s
        self.calibration_fails = False
        self.brown_out()

    def brown_out(self):
        self.registers = [0] * 0x20
        self.registers[REVISION] = 0x0F
        self._started_ms = None      # conversions started (CS) at
        self._read_conversion = -1   # the last conversion read
        self._calibration_ms = None

    def slow(self, conversion_ms):
        """From now on a conversion every `conversion_ms` (the next one that long from now)."""
        self.conversion_ms = conversion_ms
        if self._started_ms is not None:
            self._started_ms = self.clock()
            self._read_conversion = 0

    def _conversions(self):
        if self._started_ms is None:
            return -1
        return int((self.clock() - self._started_ms) / self.conversion_ms)

    def write(self, register, value):
        if register == PU_CTRL:
            if value & RR:
                self.brown_out()
                self.registers[PU_CTRL] = RR
                return
            if value & PUD:
                value |= PUR
            if value & CS and self._started_ms is None:
                self._started_ms = self.clock()
            elif not value & CS:
                self._started_ms = None
        if register == CTRL2 and value & CALS:
            self._calibration_ms = self.clock()
        self.registers[register] = value

    def read(self, register, count):
        if self._calibration_ms is not None and self.clock() - self._calibration_ms >= self.CALIBRATION_MS:
            self.registers[CTRL2] &= ~CALS
            if self.calibration_fails:
                self.registers[CTRL2] |= CAL_ERR
            self._calibration_ms = None
        values = []
        for offset in range(count):
            values.append(self.registers[(register + offset) & 0x1F])
        if register == PU_CTRL and self._conversions() > self._read_conversion:
            values[0] |= CR
        if register == ADCO_B2:
            done = self._conversions()
            value = self.raw & 0xFFFFFF if done >= 0 else 0
            values = [value >> 16 & 0xFF, value >> 8 & 0xFF, value & 0xFF]
            self._read_conversion = done
        return values


class Tmag5273:
    CONVERSION_MS = 1

    def __init__(self, clock, field_mt=0.0):
        self.clock = clock
        self.field_mt = field_mt     # (x, y, z) in mT, or z alone
        self.dead = False
        self.brown_out()

    def brown_out(self):
        self.registers = [0] * 0x1D
        self.registers[CONV_STATUS] = POR
        self._continuous_ms = None

    def write(self, register, value):
        if register == CONV_STATUS:
            self.registers[CONV_STATUS] &= ~(value & POR)   # POR is cleared by writing 1
            return
        if register == DEVICE_CONFIG_2:
            self._continuous_ms = self.clock() if value & 0x3 == CONTINUOUS else None
        self.registers[register] = value

    def read(self, register, count):
        converted = self._continuous_ms is not None and self.clock() - self._continuous_ms >= self.CONVERSION_MS
        if converted:
            field = self.field_mt if isinstance(self.field_mt, (tuple, list)) else (0.0, 0.0, self.field_mt)
            for axis in range(3):   # X, Y, Z results from X_MSB_RESULT on, MSB first
                counts = int(field[axis] / MT_PER_COUNT) & 0xFFFF
                self.registers[X_MSB_RESULT + 2 * axis] = counts >> 8
                self.registers[X_MSB_RESULT + 2 * axis + 1] = counts & 0xFF
            self.registers[CONV_STATUS] |= RESULT_STATUS
        values = [self.registers[(register + offset) % len(self.registers)] for offset in range(count)]
        return values


class SensorBus:
    def __init__(self, channels, clock, wait_us, hall_address, raw=None, field_mt=None):
        """`hall_address`: the TMAG5273 variant's ([sensors.mcu] hall_address)."""
        self.clock = clock
        self.hall_address = hall_address
        self.wait_us = wait_us
        self.ports = [0] * len(MUX_ADDRESSES)    # each multiplexer's control register
        self.adcs = [Nau7802(clock, (raw or [0] * channels)[channel]) for channel in range(channels)]
        self.halls = [Tmag5273(clock, (field_mt or [0.0] * channels)[channel]) for channel in range(channels)]
        self.timeout_us = 50000                  # rp2's default
        self.sda_held = 0                        # clocks until the device holding SDA lets go; -1: never
        self.transactions = 0
        self.wire_bits = 0                       # clock periods on SCL, START, repeated START and STOP included
        self.timeouts = 0
        self.collisions = 0
        self.log = None                          # a list: every NAU7802 register write, (ms, channel, register, value)
        self.tally = {}                          # transactions by kind ("mux", "0x2a read 0x12 x3", ...)
        self.bit_us = 0                          # each clock period also waits this long (2.5: 400 kHz)
        self._scl = 1

    # The fault a test or the bench injects.
    def hold_sda(self, clocks):
        self.sda_held = clocks

    def set_scl(self, level):
        """SCL driven as a pin (a bus clear): a device holding SDA counts the rising edges."""
        if level and not self._scl and self.sda_held > 0:
            self.sda_held -= 1
        self._scl = level

    def sda_level(self):
        return 0 if self.sda_held else 1

    def _transaction(self, kind, wire_bytes, conditions):
        self.transactions += 1
        self.tally[kind] = self.tally.get(kind, 0) + 1
        if self.sda_held:
            self.timeouts += 1
            self.wait_us(self.timeout_us)
            raise OSError(ETIMEDOUT)
        bits = 9 * wire_bytes + conditions
        self.wire_bits += bits
        if self.bit_us:
            self.wait_us(bits * self.bit_us)

    def _selected(self):
        return [mux * 8 + port for mux in range(len(self.ports)) for port in range(8) if self.ports[mux] >> port & 1]

    def _devices(self, address):
        chips = self.adcs if address == NAU7802_ADDRESS else self.halls if address == self.hall_address else []
        answering = [chips[channel] for channel in self._selected()
                     if channel < len(chips) and not chips[channel].dead]
        if not answering:
            raise OSError(EIO)
        if len(answering) > 1:
            self.collisions += 1
        return answering

    def writeto(self, address, data):
        self._transaction("multiplexer write", 1 + len(data), 2)
        if address not in MUX_ADDRESSES:
            raise OSError(EIO)
        self.ports[MUX_ADDRESSES.index(address)] = data[0]

    def writeto_mem(self, address, register, data):
        self._transaction("0x%02x write 0x%02x" % (address, register), 2 + len(data), 2)
        for device in self._devices(address):
            device.write(register, data[0])
        if self.log is not None and address == NAU7802_ADDRESS:
            self.log.extend((self.clock(), channel, register, data[0]) for channel in self._selected())

    def readfrom_mem(self, address, register, count):
        self._transaction("0x%02x read 0x%02x x%d" % (address, register, count), 3 + count, 3)
        values = [0xFF] * count
        for device in self._devices(address):
            values = [mine & theirs for mine, theirs in zip(values, device.read(register, count))]
        return bytes(values)
