"""The reference sensor design's scan: a NAU7802 24-bit load-cell ADC under every location, all at
I2C address 0x2A, reached through TCA9548A multiplexers (channel i: multiplexer i // 8, port i % 8).

Plain Python over an injected I2C object with MicroPython's `machine.I2C` methods (writeto,
readfrom_mem, writeto_mem; OSError when a device does not answer) and an injected sleep_ms.
"""

NAU7802 = 0x2A
PORTS_PER_MUX = 8

# NAU7802 registers and bits (datasheet rev 1.7).
PU_CTRL = 0x00
CTRL1 = 0x01
CTRL2 = 0x02
ADCO_B2 = 0x12
REVISION = 0x1F
RR, PUD, PUA, PUR, CS, CR, AVDDS = 0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x80
GAIN_128_LDO_3V3 = 0x27
RATE_80SPS = 0x30
CALS = 0x04
RAIL = 0x7FFF00          # a reading this close to full scale means a broken or overloaded cell

# Self-test failure codes (docs/protocol.md).
NO_RESPONSE = 1
NOT_READY = 2
OUT_OF_RANGE = 3


class Nau7802Bank:
    def __init__(self, i2c, mux_addresses, channels, sleep_ms):
        self.i2c = i2c
        self.mux_addresses = mux_addresses
        self.channels = channels
        self.sleep_ms = sleep_ms
        self._selected_mux = None

    def select(self, channel):
        """Connect only this channel's ADC to the bus: every NAU7802 has the same address."""
        mux = channel // PORTS_PER_MUX
        if mux != self._selected_mux:
            if self._selected_mux is not None:
                self.i2c.writeto(self.mux_addresses[self._selected_mux], b"\x00")
            self._selected_mux = mux
        self.i2c.writeto(self.mux_addresses[mux], bytes((1 << (channel % PORTS_PER_MUX),)))

    def start(self, channel):
        """Reset, power up, 3.3 V LDO, gain 128, 80 samples/s, calibrate the front end, run."""
        self.select(channel)
        write = self._write
        write(PU_CTRL, RR)
        write(PU_CTRL, 0)
        write(PU_CTRL, PUD | PUA)
        self._wait_for(PU_CTRL, PUR, True)
        write(CTRL1, GAIN_128_LDO_3V3)
        write(CTRL2, RATE_80SPS | CALS)
        self._wait_for(CTRL2, CALS, False)
        write(PU_CTRL, PUD | PUA | AVDDS | CS)

    def start_all(self):
        """Start every ADC that answers; the self-test reports those that do not."""
        for channel in range(self.channels):
            try:
                self.start(channel)
            except OSError:
                pass

    def read_raw(self, channel):
        """The latest conversion, or None if none is ready (or the ADC does not answer)."""
        try:
            self.select(channel)
            if not self._read(PU_CTRL, 1)[0] & CR:
                return None
            high, middle, low = self._read(ADCO_B2, 3)
        except OSError:
            return None
        value = high << 16 | middle << 8 | low
        return value - (1 << 24) if value & 0x800000 else value

    def self_test(self):
        failures = []
        for channel in range(self.channels):
            code = self._test(channel)
            if code:
                failures.append((channel, code))
        return failures

    def _test(self, channel):
        try:
            self.select(channel)
            self._read(REVISION, 1)
        except OSError:
            return NO_RESPONSE
        for _ in range(5):   # 80 samples/s: a conversion is due every 12.5 ms
            raw = self.read_raw(channel)
            if raw is not None:
                return OUT_OF_RANGE if abs(raw) >= RAIL else 0
            self.sleep_ms(10)
        return NOT_READY

    def _write(self, register, value):
        self.i2c.writeto_mem(NAU7802, register, bytes((value,)))

    def _read(self, register, count):
        return self.i2c.readfrom_mem(NAU7802, register, count)

    def _wait_for(self, register, bit, wanted):
        for _ in range(50):
            if bool(self._read(register, 1)[0] & bit) == wanted:
                return
            self.sleep_ms(2)
        raise OSError("NAU7802 register 0x%02x bit 0x%02x never became %s" % (register, bit, wanted))


class LoadCellSensors:
    """One scan: (white, black) per channel, or None where the mass is no known combination."""

    def __init__(self, bank, calibration, decoder):
        self.bank = bank
        self.calibration = calibration
        self.decoder = decoder
        self._last_raw = [None] * bank.channels

    def read_counts(self):
        counts = []
        for channel in range(self.bank.channels):
            raw = self.bank.read_raw(channel)
            if raw is None:
                raw = self._last_raw[channel]   # no new conversion yet: the last one still holds
            else:
                self._last_raw[channel] = raw
            if raw is None:
                counts.append(None)
                continue
            decoded = self.decoder.decode(self.calibration.grams(channel, raw))
            if decoded == (0, 0):
                self.calibration.track_zero(channel, raw)
            counts.append(decoded)
        return counts
