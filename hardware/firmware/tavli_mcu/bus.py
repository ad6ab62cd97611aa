"""The sensors' I2C bus: every transaction bounded in time, the multiplexers, and a stuck bus freed.

Every NAU7802 (and every TMAG5273) has the same address, so they sit behind TCA9548A multiplexers
(channel i: multiplexer i // 8, port i % 8) and exactly one port may be on at a time. A port switched
on stays on through an MCU reset (the multiplexers keep their power), so `start` switches every
multiplexer off first.

A device that was cut off in the middle of a byte (an MCU reset, a glitch) can hold SDA low for ever;
then every transaction times out. `clear` is the I2C specification's bus clear (NXP UM10204, 3.1.16):
up to nine clocks on SCL until the device lets SDA go, then a STOP. It runs at `start` and after any
transaction that timed out, so a stuck bus costs one transaction's timeout, not a whole scan of them.

Plain Python over injected pieces: `open_i2c()` returns a new `machine.I2C` (after a bus clear the pins
go back to the I2C block), `open_pins()` returns SCL and SDA as open-drain `machine.Pin`s, `sleep_us`.
"""

ETIMEDOUT = 110
PORTS_PER_MUX = 8
# The longest transaction (a 3-byte register read) takes 0.14 ms at 400 kHz: 1 ms is ample and keeps a
# scan of 116 transactions far inside the watchdog even if every one of them timed out.
TRANSACTION_TIMEOUT_US = 1000
CLEAR_CLOCKS = 9
HALF_CLOCK_US = 5   # 100 kHz while clearing: any device follows


def open_bus(machine, i2c_id, sda_pin, scl_pin, freq, mux_addresses, sleep_us):
    """The bus on the Pico's pins (main.py and calibrate.py)."""
    Pin = machine.Pin

    def open_i2c():
        return machine.I2C(i2c_id, sda=Pin(sda_pin), scl=Pin(scl_pin), freq=freq, timeout=TRANSACTION_TIMEOUT_US)

    def open_pins():
        return Pin(scl_pin, Pin.OPEN_DRAIN, value=1), Pin(sda_pin, Pin.OPEN_DRAIN, value=1)

    return Bus(open_i2c, open_pins, mux_addresses, sleep_us)


class Bus:
    def __init__(self, open_i2c, open_pins, mux_addresses, sleep_us):
        self._open_i2c = open_i2c
        self._open_pins = open_pins
        self.mux_addresses = mux_addresses
        self.sleep_us = sleep_us
        self.i2c = open_i2c()
        self.clears = 0            # bus clears since boot
        self._port = None          # (multiplexer, port) switched on; None: all off, or not known

    def start(self):
        """At boot: free the bus, then switch every multiplexer off."""
        self.clear()
        self.all_off()

    def all_off(self):
        self._port = None
        for address in self.mux_addresses:
            self.writeto(address, b"\x00")
        self._port = (None, None)

    def select(self, channel):
        """Connect only this channel's port; nothing is written when it is already the one connected."""
        mux, port = channel // PORTS_PER_MUX, channel % PORTS_PER_MUX
        if self._port == (mux, port):
            return
        current = self._port
        self._port = None          # unknown until the writes below have gone through
        if current is None:
            for address in self.mux_addresses:
                self.writeto(address, b"\x00")
        elif current[0] is not None and current[0] != mux:
            self.writeto(self.mux_addresses[current[0]], b"\x00")
        self.writeto(self.mux_addresses[mux], bytes((1 << port,)))
        self._port = (mux, port)

    def writeto(self, address, data):
        return self._call(self.i2c.writeto, address, data)

    def readfrom_mem(self, address, register, count):
        return self._call(self.i2c.readfrom_mem, address, register, count)

    def writeto_mem(self, address, register, data):
        return self._call(self.i2c.writeto_mem, address, register, data)

    def _call(self, method, *args):
        try:
            return method(*args)
        except OSError as error:
            if error.args and error.args[0] == ETIMEDOUT:
                self.clear()
            raise

    def clear(self):
        """UM10204 3.1.16: clock SCL until SDA is released (at most nine times), then a STOP; the
        multiplexers' state is unknown afterwards."""
        self.clears += 1
        self._port = None
        scl, sda = self._open_pins()
        wait = self.sleep_us
        for _ in range(CLEAR_CLOCKS):
            if sda.value():
                break
            scl.value(0)
            wait(HALF_CLOCK_US)
            scl.value(1)
            wait(HALF_CLOCK_US)
        # STOP: SDA rises while SCL is high.
        scl.value(0)
        sda.value(0)
        wait(HALF_CLOCK_US)
        scl.value(1)
        wait(HALF_CLOCK_US)
        sda.value(1)
        wait(HALF_CLOCK_US)
        self.i2c = self._open_i2c()
