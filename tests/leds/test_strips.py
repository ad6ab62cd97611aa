"""Strips: the real NeoPixel classes with only their final write captured, and the capturing strip."""
import os
import subprocess
import sys
import textwrap

import pytest

from firmware_host.leds import (
    STANDARD,
    CapturingStrip,
    LedStripError,
    Mark,
    Palette,
    Renderer,
    Scene,
    load_led_config,
    open_strip,
)
from firmware_host.leds.render import OFF
from firmware_host.leds.strips import spi_frame_bytes

AMBER = (200, 100, 40)


@pytest.fixture
def neopixel_wire(monkeypatch):
    """Every buffer the real `neopixel.NeoPixel` class sends, as bytes."""
    import neopixel

    writes = []
    monkeypatch.setattr(neopixel, "neopixel_write", lambda pin, buffer: writes.append(bytes(buffer)))
    return writes


def neopixel_config(board, write_board, **leds):
    board["leds"].update(driver="neopixel", pin="NEOPIXEL")  # the pin Blinka's OS-agnostic board has
    board["leds"].update(leds)
    return load_led_config(write_board(board))


def amber_renderer(config, brightness):
    colours = dict(STANDARD.colours)
    colours["lifted-origin"] = AMBER
    return Renderer(config.layout, Palette("amber", colours), brightness=brightness, max_current_ma=1e6)


def test_the_neopixel_class_sends_grb_bytes_with_the_brightness_applied(board, write_board, neopixel_wire):
    config = neopixel_config(board, write_board)
    strip = open_strip(config)
    strip.show(amber_renderer(config, 0.25).render(Scene({"2": Mark.LIFTED_ORIGIN}), 0.0))
    (sent,) = neopixel_wire
    point_2 = config.layout.locations["2"]
    assert len(sent) == 3 * config.layout.count
    for index in range(config.layout.count):
        assert sent[3 * index : 3 * index + 3] == (bytes([25, 50, 10]) if index in point_2 else bytes(3))


def test_the_pixel_order_from_the_config_reaches_the_wire(board, write_board, neopixel_wire):
    config = neopixel_config(board, write_board, pixel_order="RGB")
    open_strip(config).show(amber_renderer(config, 0.25).render(Scene({"1": Mark.LIFTED_ORIGIN}), 0.0))
    assert neopixel_wire[0][:3] == bytes([50, 25, 10])


def test_closing_the_strip_darkens_it(board, write_board, neopixel_wire):
    config = neopixel_config(board, write_board)
    strip = open_strip(config)
    strip.show(amber_renderer(config, 1.0).render(Scene({"1": Mark.LIFTED_ORIGIN}), 0.0))
    strip.close()
    assert neopixel_wire[0][:3] == bytes([100, 200, 40])
    assert neopixel_wire[-1] == bytes(3 * config.layout.count)


def test_a_frame_of_the_wrong_length_is_refused(board, write_board, neopixel_wire):
    strip = open_strip(neopixel_config(board, write_board))
    with pytest.raises(ValueError, match="frame has 2 pixels; the strip has 200"):
        strip.show((OFF, OFF))
    assert neopixel_wire == []


def test_a_pin_the_board_does_not_have_is_named(board, write_board):
    config = neopixel_config(board, write_board, pin="D18")
    with pytest.raises(LedStripError, match="has no pin 'D18' \\(leds.pin\\)"):
        open_strip(config)


def spi_config(board, write_board, driver="neopixel_spi"):
    board["leds"]["driver"] = driver
    board["leds"].pop("pin", None)
    return load_led_config(write_board(board))


@pytest.fixture
def pi(tmp_path, monkeypatch):
    """Fakes the Pi's model file and spidev's transfer size: pi("Raspberry Pi 4 Model B Rev 1.5", 65536)
    gives the keyword arguments that make `open_strip` see them."""
    monkeypatch.delenv("SPI_BUFSIZE", raising=False)

    def fake(model: str, bufsiz: int | None = 65536) -> dict:
        (tmp_path / "model").write_bytes(model.encode() + b"\0")
        if bufsiz is not None:
            (tmp_path / "bufsiz").write_text(f"{bufsiz}\n")
        return {"model_file": tmp_path / "model", "spidev_bufsiz": tmp_path / "bufsiz"}

    return fake


def test_an_spi_bus_that_cannot_be_opened_is_a_clear_error(board, write_board, pi):
    # Blinka's OS-agnostic board has no SPI0 under the names board.SPI() asks for.
    with pytest.raises(LedStripError, match="cannot open SPI0 for the LEDs \\(is SPI enabled"):
        open_strip(spi_config(board, write_board), **pi("Raspberry Pi 4 Model B Rev 1.5"))


def test_spi_turned_off_in_the_kernel_is_named(board, write_board, pi):
    with pytest.raises(LedStripError, match="SPI is off .*dtparam=spi=on"):
        open_strip(spi_config(board, write_board), **pi("Raspberry Pi 4 Model B Rev 1.5", bufsiz=None))


def test_a_frame_longer_than_one_spi_transfer_is_refused_with_the_fix(board, write_board, pi):
    # 200 LEDs: 4,928 bytes on the wire; Pi OS's default spidev.bufsiz is 4,096
    with pytest.raises(LedStripError, match="frame of the LEDs is 4928 bytes on SPI but the kernel sends at most 4096 "
                                            ".*spidev.bufsiz=65536 to cmdline.txt"):
        open_strip(spi_config(board, write_board), **pi("Raspberry Pi 3 Model B Plus Rev 1.3", bufsiz=4096))


class RecordingSpiBus:
    """Stands in for `board.SPI()`: records what `NeoPixel_SPI` writes to the bus."""

    def __init__(self):
        self.writes = []

    def try_lock(self):
        return True

    def unlock(self):
        pass

    def configure(self, **settings):
        self.settings = settings

    def write(self, buffer, **_):
        self.writes.append(bytes(buffer))


def spi_to_bytes(signal: bytes) -> bytes:
    """Undo NeoPixel_SPI's encoding: one SPI byte per data bit (0xF0 a one, 0xC0 a zero), reset gaps of zeros."""
    bits = [{0xF0: 1, 0xC0: 0}[byte] for byte in signal.strip(b"\x00")]
    return bytes(int("".join(map(str, bits[start : start + 8])), 2) for start in range(0, len(bits), 8))


@pytest.mark.parametrize("driver", ["neopixel_spi", "auto"])
def test_the_spi_driver_sends_the_same_bytes_on_mosi_in_one_transfer(board, write_board, monkeypatch, pi, driver):
    import board as blinka_board

    bus = RecordingSpiBus()
    monkeypatch.setattr(blinka_board, "SPI", lambda: bus)
    config = spi_config(board, write_board, driver)
    strip = open_strip(config, **pi("Raspberry Pi 4 Model B Rev 1.5"))
    strip.show(amber_renderer(config, 0.25).render(Scene({"1": Mark.LIFTED_ORIGIN}), 0.0))
    (signal,) = bus.writes
    assert spi_to_bytes(signal) == bytes([25, 50, 10]) * 6 + bytes(3 * (config.layout.count - 6))
    assert len(signal) == spi_frame_bytes(config.layout.count) == 4928
    # Adafruit_PureIO cuts a write into SPI_BUFSIZE pieces (4096 unless set): the whole frame fits one
    assert int(os.environ["SPI_BUFSIZE"]) == 65536 >= len(signal)
    assert strip.description == "neopixel_spi on SPI0 MOSI (GPIO10): 4928-byte frames in one transfer (spidev.bufsiz 65536)"


def test_auto_drives_gpio10_through_the_pio_on_a_pi_5(board, write_board, monkeypatch, neopixel_wire, pi):
    import board as blinka_board

    monkeypatch.setattr(blinka_board, "D10", blinka_board.NEOPIXEL, raising=False)
    config = spi_config(board, write_board, "auto")
    strip = open_strip(config, **pi("Raspberry Pi 5 Model B Rev 1.0", bufsiz=None))  # no SPI needed
    strip.show(amber_renderer(config, 0.25).render(Scene({"1": Mark.LIFTED_ORIGIN}), 0.0))
    assert neopixel_wire[0][:3] == bytes([25, 50, 10]) and strip.description == "neopixel on D10"


def test_the_capturing_strip_records_frames_and_reads_colours_per_group(layout, renderer):
    strip = CapturingStrip(layout)
    first = renderer.render(Scene({"5": Mark.ILLEGAL}, turn="white"), 0.0)
    strip.show(first)
    strip.show(renderer.render(Scene(), 0.0))
    assert strip.frames[0] == first
    colours = strip.colours(first)
    assert colours["5"] == (first[layout.locations["5"][0]],) * 6
    assert colours["turn:white"] == (first[layout.turn["white"][0]],)
    assert colours["6"] == (OFF,) * 6
    assert all(pixel == OFF for group in strip.colours().values() for pixel in group)  # the last frame
    strip.close()
    assert strip.frames[-1] == (OFF,) * layout.count
    with pytest.raises(ValueError, match="frame has 1 pixels"):
        strip.show((OFF,))


def test_the_capturing_strip_says_when_nothing_was_shown(layout):
    with pytest.raises(LookupError, match="no frame has been shown yet"):
        CapturingStrip(layout).colours()


def test_the_capturing_strip_keeps_the_last_frames_of_a_long_run_and_counts_them_all(layout, renderer):
    # The service on the simulated board shows a frame at every blink for days (issue 33: its memory grew).
    from firmware_host.leds.strips import FRAMES_KEPT
    strip = CapturingStrip(layout)
    dark, lit = renderer.render(Scene(), 0.0), renderer.render(Scene({"5": Mark.ILLEGAL}), 0.0)
    for n in range(3 * FRAMES_KEPT):
        strip.show(lit if n % 2 else dark)
    assert len(strip.frames) == FRAMES_KEPT and strip.shown == 3 * FRAMES_KEPT
    assert strip.frames[-1] == lit and strip.frames[-2] == dark
    walk_from = strip.shown
    strip.show(dark)
    strip.close()
    assert strip.since(walk_from) == [dark, (OFF,) * layout.count]
    assert len(strip.since(0)) == FRAMES_KEPT   # shown before the kept ones: only those kept


def run_python(code: str, **environment) -> subprocess.CompletedProcess:
    env = {key: value for key, value in os.environ.items() if key != "BLINKA_OS_AGNOSTIC"}
    env.update(environment)
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, env=env)


def test_the_packages_import_and_render_without_blinka(shipped_board_file, pi):
    model_file = pi("Raspberry Pi 4 Model B Rev 1.5")["model_file"]
    result = run_python(
        f"""
        import sys
        from pathlib import Path
        for name in ("board", "neopixel", "neopixel_spi", "digitalio", "adafruit_blinka"):
            sys.modules[name] = None  # as if Blinka and the drivers were not installed
        import firmware_host.hw, firmware_host.leds as leds
        config = leds.load_led_config({str(shipped_board_file)!r})
        leds.Renderer.from_config(config).render(leds.Scene(dice=(1, 2)), 0.0)
        try:
            leds.open_strip(config, model_file=Path({str(model_file)!r}))
        except leds.LedStripError as error:
            print(error)
        """
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("the LED driver library is missing (install the 'pi' extra)")


def test_off_a_pi_opening_the_real_strip_is_a_clear_error(shipped_board_file):
    result = run_python(
        f"""
        import firmware_host.leds as leds
        try:
            leds.open_strip(leds.load_led_config({str(shipped_board_file)!r}))
        except leds.LedStripError as error:
            print(error)
        """
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("cannot drive LEDs on this machine")
