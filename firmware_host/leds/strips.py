"""Strips: where rendered frames go.

- `NeoPixelStrip` shows frames on Adafruit's `neopixel.NeoPixel` (a GPIO pin; root on a Pi 1-4)
  or `neopixel_spi.NeoPixel_SPI` (SPI0's MOSI; no root), made by `open_strip` from the config.
  Blinka and the drivers are imported only there, so this package imports on any machine.
  In tests the same classes run on Blinka's OS-agnostic board with only the final write captured.
- `CapturingStrip` records frames, for the simulator, the HIL rig and tests.

A strip is anything with `show(frame)` and `close()`; the scene layer does not care which.
"""
from __future__ import annotations

import importlib
from typing import Protocol

from firmware_host.leds.layout import LedConfig, LedLayout
from firmware_host.leds.render import OFF, RGB, Frame


class LedStripError(RuntimeError):
    """The LED strip cannot be opened (no such pin, no driver library, not a supported board)."""


class Strip(Protocol):
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

    def __init__(self, pixels):
        self._pixels = pixels

    def show(self, frame: Frame) -> None:
        _check_length(frame, len(self._pixels))
        self._pixels[:] = frame
        self._pixels.show()

    def close(self) -> None:
        self._pixels.deinit()


def open_strip(config: LedConfig) -> NeoPixelStrip:
    """Open the strip the config names. Brightness stays 1.0 in the driver: frames come already
    dimmed and current-capped by the renderer, which must see the values that go on the wire."""
    count, order = config.layout.count, config.pixel_order
    spi = config.data_line.driver == "neopixel_spi"
    try:
        import board

        driver = importlib.import_module("neopixel_spi" if spi else "neopixel")
    except ImportError as error:
        raise LedStripError(f"the LED driver library is missing (install the 'pi' extra): {error}") from error
    except NotImplementedError as error:  # what Blinka raises on a board it does not know
        raise LedStripError(f"cannot drive LEDs on this machine: {error}") from error
    if spi:
        try:
            bus = board.SPI()
        except ValueError as error:  # Blinka's word for a bus it cannot open
            raise LedStripError(f"cannot open SPI0 for the LEDs (is SPI enabled, dtparam=spi=on?): {error}") from error
        pixels = driver.NeoPixel_SPI(bus, count, pixel_order=order, auto_write=False)
    else:
        pin = getattr(board, config.data_line.pin, None)
        if pin is None:
            raise LedStripError(
                f"board {board.board_id} has no pin {config.data_line.pin!r} (leds.pin); names look like D18"
            )
        pixels = driver.NeoPixel(pin, count, pixel_order=order, auto_write=False)
    return NeoPixelStrip(pixels)


class CapturingStrip:
    """Records every frame shown (`frames`); `close()` records a dark frame, as a real strip goes dark."""

    def __init__(self, layout: LedLayout):
        self.layout = layout
        self.frames: list[Frame] = []

    def show(self, frame: Frame) -> None:
        _check_length(frame, self.layout.count)
        self.frames.append(tuple(frame))

    def close(self) -> None:
        self.frames.append((OFF,) * self.layout.count)

    def colours(self, frame: Frame | None = None) -> dict[str, tuple[RGB, ...]]:
        """The colours of each named LED group (see `LedLayout.groups`) in `frame`, default the last."""
        if frame is None:
            if not self.frames:
                raise LookupError("no frame has been shown yet")
            frame = self.frames[-1]
        return {group: tuple(frame[index] for index in indices) for group, indices in self.layout.groups().items()}
