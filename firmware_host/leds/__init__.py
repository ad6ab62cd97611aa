"""The LEDs: layout, scenes, rendering, strips and a terminal view.

The controller builds a `Scene` (what each location shows, by meaning); a `Renderer` turns it and
the time into a whole frame of pixels for the layout in the board file; a strip shows the frame.
`Renderer.decode` reads a frame back into element names, for the HIL rig and tests.
Blinka and the NeoPixel drivers are imported only when a real strip is opened.
"""
from firmware_host.leds.layout import LedConfig, LedLayout, load_led_config
from firmware_host.leds.palette import COLOUR_BLIND, PALETTES, STANDARD, Palette
from firmware_host.leds.render import UNKNOWN, Frame, Renderer, frame_current_ma
from firmware_host.leds.scene import LOCATIONS, DiceSignal, Mark, Scene, Score
from firmware_host.leds.strips import CapturingStrip, LedStripError, NeoPixelStrip, Strip, open_strip
from firmware_host.leds.terminal import render_board

__all__ = [
    "COLOUR_BLIND",
    "LOCATIONS",
    "PALETTES",
    "STANDARD",
    "UNKNOWN",
    "CapturingStrip",
    "DiceSignal",
    "Frame",
    "LedConfig",
    "LedLayout",
    "LedStripError",
    "Mark",
    "NeoPixelStrip",
    "Palette",
    "Renderer",
    "Scene",
    "Score",
    "Strip",
    "frame_current_ma",
    "load_led_config",
    "open_strip",
    "render_board",
]
