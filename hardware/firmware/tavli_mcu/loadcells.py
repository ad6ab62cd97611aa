"""The reference sensor design's scan: a NAU7802 24-bit load-cell ADC under every location, all at
I2C address 0x2A, each on its own multiplexer port (tavli_mcu/bus.py).

A reading is only ever a fresh conversion: a channel whose ADC gave none for FRESH_MS (it stopped
answering, stopped converting, or lost its setup) reads None, never its last value. Each ADC is
started by a few steps per scan (`_advance`), so starting one, or starting it again, never holds up
the scan: at boot, for a channel that failed (tried again every RETRY_MS), and for one whose
registers were lost (a brown-out resets them: PU_CTRL reads without its power-up bits).

Plain Python over an injected bus (tavli_mcu.bus.Bus: select, writeto_mem, readfrom_mem; OSError
when a device does not answer), `now_ms()` (a millisecond count that never wraps) and `sleep_ms`.
"""

NAU7802 = 0x2A

# NAU7802 registers and bits (datasheet rev 1.7).
PU_CTRL = 0x00
CTRL1 = 0x01
CTRL2 = 0x02
ADCO_B2 = 0x12
ADC = 0x15
PGA_PWR = 0x1C
REVISION = 0x1F
RR, PUD, PUA, PUR, CS, CR, AVDDS = 0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x80
RUNNING = PUD | PUA | PUR | CS | AVDDS   # PU_CTRL of a started ADC; a reset (brown-out) clears them all
# Gain bits 0-2 = 7 (x128); VLDO bits 3-5 = 5 (3.0 V). The datasheet wants the LDO at least 0.3 V
# below DVDD; on the Pico's 3.3 V the 3.3 V setting leaves the LDO out of regulation (AVDD sags with
# the supply: SparkFun measured it 40 mV low, sparkfun/SparkFun_Qwiic_Scale_NAU7802_Arduino_Library#4).
GAIN_128_LDO_3V0 = 0x2F
RATE_80SPS = 0x30
CALS, CAL_ERR = 0x04, 0x08
ADC_CLK_CHP_OFF = 0x30   # the value the datasheet's power-on sequence (9.1) writes to register 0x15
PGA_CAP_EN = 0x80        # the 330 pF capacitor across channel 2's unused inputs (9.14)
LDO_RAMP_MS = 250        # the LDO and the bridge settle before the front end is calibrated
RAIL = 0x7FFF00          # a reading this close to full scale means a broken or overloaded cell

CONVERSION_MS = 12.5     # 80 samples/s
FRESH_MS = 50            # four conversions: a reading older than this is no reading
POWER_UP_MS = 20         # PUR follows PUD within about 200 us: a chip still without it has failed
CALIBRATION_MS = 1000    # the offset calibration takes a few conversions
RETRY_MS = 1000          # a channel that failed to start is tried again this often
START_MS = 2000          # start_all gives up on the channels still starting after this long

# A channel's state; `_since` holds when it entered it.
OFF, POWERING, RAMPING, CALIBRATING, CONVERTING = 0, 1, 2, 3, 4

# Self-test failure codes (docs/protocol.md).
NO_RESPONSE = 1
NOT_READY = 2
OUT_OF_RANGE = 3


class Nau7802Bank:
    def __init__(self, bus, channels, now_ms, sleep_ms):
        self.bus = bus
        self.channels = channels
        self.now_ms = now_ms
        self.sleep_ms = sleep_ms
        self.restarts = 0                   # ADCs found without their setup and started again
        self._state = [OFF] * channels
        self._since = [None] * channels     # None: never tried
        self._raw = [None] * channels       # the last fresh conversion
        self._fresh_ms = [None] * channels  # when it was read

    def start_all(self):
        """Start every ADC, all at once (the LDOs ramp and the chips calibrate in parallel), until each
        converts or failed, at most START_MS. Returns the channels not converting."""
        deadline = self.now_ms() + START_MS
        while True:
            for channel in range(self.channels):
                self._advance(channel)
            starting = [channel for channel in range(self.channels) if self._state[channel] not in (OFF, CONVERTING)]
            if not starting or self.now_ms() >= deadline:
                return set(channel for channel in range(self.channels) if self._state[channel] != CONVERTING)
            self.sleep_ms(5)

    def read_raw(self, channel):
        """The latest conversion if it is fresh (read within FRESH_MS), else None."""
        self._advance(channel)
        fresh_ms = self._fresh_ms[channel]
        if fresh_ms is None or self.now_ms() - fresh_ms > FRESH_MS:
            return None
        return self._raw[channel]

    def _advance(self, channel):
        """One step for this channel: read a conversion, or move its start on."""
        state = self._state[channel]
        now = self.now_ms()
        since = self._since[channel]
        try:
            if state == OFF:
                if since is None or now - since >= RETRY_MS:
                    self._power_up(channel, now)
                return
            self.bus.select(channel)
            if state == CONVERTING:
                self._convert(channel, now)
            elif state == POWERING:
                if self._read(PU_CTRL) & PUR:
                    self._configure(channel, now)
                elif now - since > POWER_UP_MS:
                    self._fail(channel, now)
            elif state == RAMPING:
                if now - since >= LDO_RAMP_MS:
                    self._write(CTRL2, RATE_80SPS | CALS)
                    self._enter(channel, CALIBRATING, now)
            else:   # CALIBRATING
                ctrl2 = self._read(CTRL2)
                if not ctrl2 & CALS:
                    if ctrl2 & CAL_ERR:
                        self._fail(channel, now)
                    else:
                        self._enter(channel, CONVERTING, now)
                        self._fresh_ms[channel] = None
                elif now - since > CALIBRATION_MS:
                    self._fail(channel, now)
        except OSError:
            if state != CONVERTING:   # a converting channel just gives no fresh reading this time
                self._fail(channel, now)

    def _convert(self, channel, now):
        status = self._read(PU_CTRL)
        if status & RUNNING != RUNNING:   # reset since it was started (a brown-out): start it again
            self.restarts += 1
            self._fresh_ms[channel] = None
            self._power_up(channel, now)
            return
        if not status & CR:
            return
        high, middle, low = self.bus.readfrom_mem(NAU7802, ADCO_B2, 3)
        value = high << 16 | middle << 8 | low
        self._raw[channel] = value - (1 << 24) if value & 0x800000 else value
        self._fresh_ms[channel] = now

    def _power_up(self, channel, now):
        """The datasheet's power-on sequence (9.1), as the common drivers (SparkFun's, Adafruit's) do
        it: reset, power up; the rest once PUR says it is up (`_configure`)."""
        self._enter(channel, POWERING, now)
        self.bus.select(channel)
        self._write(PU_CTRL, RR)
        self._write(PU_CTRL, 0)
        self._write(PU_CTRL, PUD | PUA)

    def _configure(self, channel, now):
        """Start conversions, 3.0 V internal LDO, gain 128, 80 samples/s, the chopper clock off
        (register 0x15 = 0x30), the channel 2 decoupling capacitor on; then the LDO ramps."""
        self._write(PU_CTRL, PUD | PUA | CS)
        self._write(CTRL1, GAIN_128_LDO_3V0)
        self._write(PU_CTRL, RUNNING & ~PUR)
        self._write(CTRL2, RATE_80SPS)
        self._write(ADC, ADC_CLK_CHP_OFF)
        self._write(PGA_PWR, self._read(PGA_PWR) | PGA_CAP_EN)
        self._enter(channel, RAMPING, now)

    def _enter(self, channel, state, now):
        self._state[channel] = state
        self._since[channel] = now

    def _fail(self, channel, now):
        self._enter(channel, OFF, now)

    def self_test(self):
        failures = []
        for channel in range(self.channels):
            code = self._test(channel)
            if code:
                failures.append((channel, code))
        return failures

    def _test(self, channel):
        raw = self.read_raw(channel)
        if raw is not None:
            return OUT_OF_RANGE if abs(raw) >= RAIL else 0
        try:
            self.bus.select(channel)
            self._read(REVISION)
        except OSError:
            return NO_RESPONSE
        return NOT_READY

    def _write(self, register, value):
        self.bus.writeto_mem(NAU7802, register, bytes((value,)))

    def _read(self, register):
        return self.bus.readfrom_mem(NAU7802, register, 1)[0]


class LoadCellSensors:
    """One scan: (white, black) per channel, or None where the sensors give no reading.

    Without `hall` the decoder is a weighing.MassDecoder (colour by mass); with it a
    counting.CountDecoder, given each channel's field too (colour by magnet)."""

    def __init__(self, bank, calibration, decoder, hall=None):
        self.bank = bank
        self.calibration = calibration
        self.decoder = decoder
        self.hall = hall

    def read_counts(self):
        counts = []
        for channel in range(self.bank.channels):
            raw = self.bank.read_raw(channel)
            grams = None if raw is None else self.calibration.grams(channel, raw)
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
