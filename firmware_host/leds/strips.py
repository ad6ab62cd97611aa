"""Strips: where rendered frames go.

- `NeoPixelStrip` shows frames on Adafruit's `neopixel.NeoPixel` (a GPIO pin: the PIO on a Pi 5,
  rpi_ws281x and root on a Pi 1-4) or `neopixel_spi.NeoPixel_SPI` (SPI0's MOSI; no root), made by
  `open_strip` from the config and the board it runs on (driver "auto": PIO on a Pi 5, SPI on a
  Pi 1-4). Blinka and the drivers are imported only there, so this package imports on any machine.
- On SPI every bit of the frame is one SPI byte, and a frame longer than one spidev transfer
  (`spidev.bufsiz`, 4096 bytes unless the kernel command line raises it) goes out in pieces with a
  gap between them that the LEDs take for a reset: the far end of the strip glitches. So the strip
  refuses to open when the kernel's buffer is smaller than a frame, and sends each frame in one
  transfer (Adafruit_PureIO splits at `SPI_BUFSIZE`, 4096 unless set).
  In tests the same classes run on Blinka's OS-agnostic board with only the final write captured.
- `CapturingStrip` records frames, for the simulator, the HIL rig and tests.

A strip is anything with `show(frame)` and `close()`; the scene layer does not care which.
"""
from __future__ import annotations

import importlib
import os
from collections import deque
from pathlib import Path
from typing import Protocol

from firmware_host.hw.pimodel import MODEL_FILE, is_pi5, read_model
from firmware_host.leds.layout import LedConfig, LedLayout
from firmware_host.leds.render import OFF, RGB, Frame


SPIDEV_BUFSIZ = Path("/sys/module/spidev/parameters/bufsiz")
SPIDEV_BUFSIZ_WANTED = 65536   # what install.sh puts on the kernel command line
# NeoPixel_SPI's wire format: 8 SPI bytes per data byte at 6.4 MHz, an 80 us reset (64 zero
# bytes) before and after the pixels.
_SPI_BYTES_PER_LED = 3 * 8
_SPI_RESET_BYTES = round(6_400_000 * 80e-6 / 8)


def spi_frame_bytes(count: int) -> int:
    """The bytes one frame of `count` RGB LEDs takes on SPI with neopixel_spi."""
    return count * _SPI_BYTES_PER_LED + 2 * _SPI_RESET_BYTES


class LedStripError(RuntimeError):
    """The LED strip cannot be opened (no such pin, no driver library, not a supported board)."""


class Strip(Protocol):
    description: str   # the driver and data line, in words

    def show(self, frame: Frame) -> None:
        """Put a whole frame on the LEDs."""
        ...

    def close(self) -> None:
        """Darken the LEDs and release the hardware."""
        ...


def _check_length(frame: Frame, count: int) -> None:
    if len(frame) != count:
        raise ValueError(f"frame has {len(frame)} pixels; the strip has {count}")


class NeoPixelStrip:
    """Shows frames on an Adafruit pixel buffer (`NeoPixel`, `NeoPixel_SPI`) built with auto_write off."""

    def __init__(self, pixels, description: str):
        self._pixels = pixels
        self.description = description   # the driver and data line, for the self-test and bring-up

    def show(self, frame: Frame) -> None:
        _check_length(frame, len(self._pixels))
        self._pixels[:] = frame
        self._pixels.show()

    def close(self) -> None:
        self._pixels.deinit()


def _spidev_bufsiz(path: Path, frame_bytes: int) -> int:
    """The kernel's spidev transfer size, checked to hold a whole frame."""
    try:
        bufsiz = int(path.read_text().strip())
    except (OSError, ValueError):
        raise LedStripError(f"SPI is off ({path} is missing): add dtparam=spi=on to config.txt and reboot "
                            "(install.sh does)") from None
    if bufsiz < frame_bytes:
        raise LedStripError(f"a frame of the LEDs is {frame_bytes} bytes on SPI but the kernel sends at most {bufsiz} "
                            f"in one transfer, so the far end of the strip would glitch: add "
                            f"spidev.bufsiz={SPIDEV_BUFSIZ_WANTED} to cmdline.txt and reboot (install.sh does)")
    return bufsiz


def open_strip(config: LedConfig, *, model_file: Path = MODEL_FILE, spidev_bufsiz: Path = SPIDEV_BUFSIZ) -> NeoPixelStrip:
    """Open the strip the config names, driver "auto" chosen by the board in `model_file`.
    Brightness stays 1.0 in the driver: frames come already dimmed and current-capped by the
    renderer, which must see the values that go on the wire."""
    count, order = config.layout.count, config.pixel_order
    model = read_model(model_file)
    if config.data_line.driver == "auto" and not model.startswith("Raspberry Pi"):
        raise LedStripError(f"cannot drive LEDs on this machine: leds.driver \"auto\" needs a Raspberry Pi "
                            f"({model_file} says {model or 'nothing'})")
    line = config.data_line.on(pi5=is_pi5(model))
    spi = line.driver == "neopixel_spi"
    try:
        import board

        driver = importlib.import_module("neopixel_spi" if spi else "neopixel")
    except ImportError as error:
        raise LedStripError(f"the LED driver library is missing (install the 'pi' extra): {error}") from error
    except NotImplementedError as error:  # what Blinka raises on a board it does not know
        raise LedStripError(f"cannot drive LEDs on this machine: {error}") from error
    if spi:
        frame_bytes = spi_frame_bytes(count)
        bufsiz = _spidev_bufsiz(spidev_bufsiz, frame_bytes)
        os.environ["SPI_BUFSIZE"] = str(bufsiz)   # read by Adafruit_PureIO when the bus opens
        try:
            bus = board.SPI()
        except ValueError as error:  # Blinka's word for a bus it cannot open
            raise LedStripError(f"cannot open SPI0 for the LEDs (is SPI enabled, dtparam=spi=on?): {error}") from error
        pixels = driver.NeoPixel_SPI(bus, count, pixel_order=order, auto_write=False)
        description = (f"neopixel_spi on SPI0 MOSI (GPIO10): {frame_bytes}-byte frames in one transfer "
                       f"(spidev.bufsiz {bufsiz})")
    else:
        pin = getattr(board, line.pin, None)
        if pin is None:
            raise LedStripError(f"board {board.board_id} has no pin {line.pin!r} (leds.pin); names look like D18")
        pixels = driver.NeoPixel(pin, count, pixel_order=order, auto_write=False)
        description = f"neopixel on {line.pin}"
    return NeoPixelStrip(pixels, description)


# Frames a capturing strip keeps: the service on the simulated board runs for days and shows a frame
# at every blink, so it keeps the last ones only (two 200-LED walks of the self-test; some 0.8 MB).
FRAMES_KEPT = 500


class CapturingStrip:
    """Records the last FRAMES_KEPT frames shown (`frames`) and counts them all (`shown`); `close()`
    records a dark frame, as a real strip goes dark."""

    description = "captured frames (simulated board)"

    def __init__(self, layout: LedLayout):
        self.layout = layout
        self.frames: deque[Frame] = deque(maxlen=FRAMES_KEPT)
        self.shown = 0

    def show(self, frame: Frame) -> None:
        _check_length(frame, self.layout.count)
        self._keep(tuple(frame))

    def close(self) -> None:
        self._keep((OFF,) * self.layout.count)

    def _keep(self, frame: Frame) -> None:
        self.frames.append(frame)
        self.shown += 1

    def since(self, shown: int) -> list[Frame]:
        """The frames shown after the first `shown` of them (as far as they are kept)."""
        return list(self.frames)[max(0, len(self.frames) - (self.shown - shown)):]

    def colours(self, frame: Frame | None = None) -> dict[str, tuple[RGB, ...]]:
        """The colours of each named LED group (see `LedLayout.groups`) in `frame`, default the last."""
        if frame is None:
            if not self.frames:
                raise LookupError("no frame has been shown yet")
            frame = self.frames[-1]
        return {group: tuple(frame[index] for index in indices) for group, indices in self.layout.groups().items()}
