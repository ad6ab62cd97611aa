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
ADC = 0x15
PGA_PWR = 0x1C
REVISION = 0x1F
RR, PUD, PUA, PUR, CS, CR, AVDDS = 0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x80
GAIN_128_LDO_3V3 = 0x27  # gain bits 0-2 = 7 (x128), VLDO bits 3-5 = 4 (3.3 V)
RATE_80SPS = 0x30
CALS, CAL_ERR = 0x04, 0x08
ADC_CLK_CHP_OFF = 0x30   # the value the datasheet's power-on sequence (9.1) writes to register 0x15
PGA_CAP_EN = 0x80        # the 330 pF capacitor across channel 2's unused inputs (9.14)
LDO_RAMP_MS = 250        # the LDO and the bridge settle before the front end is calibrated
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

    def power_up(self, channel):
        """The datasheet's power-on sequence (9.1), as the common drivers (SparkFun's, Adafruit's) do it:
        reset, power up and wait for PUR, start conversions, 3.3 V internal LDO, gain 128, 80 samples/s,
        the chopper clock off (register 0x15 = 0x30), the channel 2 decoupling capacitor on."""
        self.select(channel)
        write = self._write
        write(PU_CTRL, RR)
        write(PU_CTRL, 0)
        write(PU_CTRL, PUD | PUA)
        self._wait_for(PU_CTRL, PUR, True)
        write(PU_CTRL, PUD | PUA | CS)
        write(CTRL1, GAIN_128_LDO_3V3)
        write(PU_CTRL, PUD | PUA | CS | AVDDS)
        write(CTRL2, RATE_80SPS)
        write(ADC, ADC_CLK_CHP_OFF)
        write(PGA_PWR, self._read(PGA_PWR, 1)[0] | PGA_CAP_EN)

    def calibrate_front_end(self, channel):
        """Start the internal offset calibration (once the LDO is up); `calibrated` checks its end."""
        self.select(channel)
        self._write(CTRL2, RATE_80SPS | CALS)

    def calibrated(self, channel):
        self.select(channel)
        self._wait_for(CTRL2, CALS, False)
        if self._read(CTRL2, 1)[0] & CAL_ERR:
            raise OSError("NAU7802 on channel %d: front-end calibration failed" % channel)

    def start_all(self):
        """Start every ADC that answers, all at once: power up each, let the LDOs ramp, calibrate each
        (the chips calibrate in parallel). Returns the channels that failed; the self-test names them."""
        failed = set()
        for step in (self.power_up, None, self.calibrate_front_end, self.calibrated):
            if step is None:
                self.sleep_ms(LDO_RAMP_MS)
                continue
            for channel in range(self.channels):
                if channel in failed:
                    continue
                try:
                    step(channel)
                except OSError:
                    failed.add(channel)
        return failed

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
        for _ in range(250):   # front-end calibration takes about 350 ms at 80 samples/s
            if bool(self._read(register, 1)[0] & bit) == wanted:
                return
            self.sleep_ms(2)
        raise OSError("NAU7802 register 0x%02x bit 0x%02x never became %s" % (register, bit, wanted))


class LoadCellSensors:
    """One scan: (white, black) per channel, or None where the sensors give no reading.

    Without `hall` the decoder is a weighing.MassDecoder (colour by mass); with it a
    counting.CountDecoder, given each channel's field too (colour by magnet)."""

    def __init__(self, bank, calibration, decoder, hall=None):
        self.bank = bank
        self.calibration = calibration
        self.decoder = decoder
        self.hall = hall
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
            grams = self.calibration.grams(channel, raw)
            if grams is None:
                counts.append(None)
                continue
            if self.hall is None:
                decoded = self.decoder.decode(grams)
            else:
                decoded = self.decoder.decode(channel, grams, self.hall.field_mt(channel))
            if decoded == (0, 0):
                self.calibration.track_zero(channel, raw)
            counts.append(decoded)
        return counts
