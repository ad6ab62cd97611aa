"""`hil run --port DEVICE`: scenarios against a real Pi running the service, through a USB-serial
adapter wired where the sensor MCU would be (docs/hil.md, "A real Pi").

The simulated MCU plays the board on this end of the cable. The Pi tells what its LEDs show over
the same link (`firmware_host.service.led_report`: an LED_STATUS frame whenever the controller's
state, verdict or scene changes). On this end a `StatusTap` takes those frames out of the byte stream
before the MCU sees it. The dice button is pressed through the adapter's RTS line wired
to the Pi's button pin (asserted = pressed).

    StatusTap().feed(frame + other_bytes)       # -> other_bytes; .status == the Pi's LedStatus
"""
from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass

from firmware_host.leds.render import Renderer
from firmware_host.sensing import protocol as p
from firmware_host.sensing.clock import MonotonicClock
from firmware_host.sim.board import SimBoard
from firmware_host.sim.mcu import SimulatedMcu
from firmware_host.sim.transport import SerialDeviceTransport
from firmware_host.hil.rig import hold, press
from firmware_host.service.led_report import LED_STATUS, LedStatus, StatusError

class StatusTap:
    """On the rig: takes the Pi's LED_STATUS frames out of the bytes for the MCU; passes the rest on."""

    def __init__(self, history: int = 200):
        self._piece = bytearray()
        self.statuses: deque[tuple[float, LedStatus]] = deque(maxlen=history)   # (monotonic time, status)

    @property
    def status(self) -> LedStatus | None:
        return self.statuses[-1][1] if self.statuses else None

    def feed(self, data: bytes) -> bytes:
        out = bytearray()
        for byte in data:
            if byte:
                self._piece.append(byte)
                continue
            piece, self._piece = bytes(self._piece), bytearray()
            status = self._status(piece)
            if status is None:
                out += piece + p.DELIMITER
            else:
                self.statuses.append((time.monotonic(), status))
        return bytes(out)

    @staticmethod
    def _status(piece: bytes) -> LedStatus | None:
        try:
            body = p.cobs_decode(piece)
        except p.CobsError:
            return None
        if len(body) < 5 or body[0] != LED_STATUS or body[2] != len(body) - 5 or \
                p.crc16(body[:-2]) != int.from_bytes(body[-2:], "big"):
            return None
        try:
            return LedStatus.from_payload(body[3:-2])
        except StatusError:
            return None


class TappedTransport:
    """The MCU's end of the cable with the tap on what the Pi sends; RTS drives the Pi's button."""

    def __init__(self, transport, tap: StatusTap):
        self._transport, self.tap = transport, tap
        self.port = transport.port

    def read(self) -> bytes:
        return self.tap.feed(self._transport.read())

    def write(self, data: bytes) -> None:
        self._transport.write(data)

    def unplug(self) -> None:
        self._transport.unplug()

    def replug(self) -> None:
        self._transport.replug()

    def close(self) -> None:
        self._transport.close()

    def button(self, down: bool) -> None:
        if not isinstance(self._transport, AdapterTransport):
            raise RemoteUnsupported("this link has no RTS line to press the Pi's button with")
        self._transport.button(down)


class AdapterTransport(SerialDeviceTransport):
    """The USB-serial adapter: its TX/RX are the sensor link, its RTS line the Pi's dice button."""

    def button(self, down: bool) -> None:
        self._serial.rts = down   # asserted RTS pulls the button pin low: pressed


class RemoteUnsupported(RuntimeError):
    """An action or check a real Pi cannot be put through from the rig."""


@dataclass(frozen=True)
class RemoteView:
    """What the rig knows of a real Pi: its last LED status."""

    state: str | None
    verdict_kind: str | None
    turn: str | None = None   # the side to move is not reported (its turn light is, in `leds`)


class RemoteRig:
    """The rig's surface for `ScenarioRun`, in real time, with the application on a Pi at the other
    end of `transport` (a `SerialDeviceTransport`; a `PtyTransport` in the tests)."""

    checkable = ("state", "verdict", "leds")

    def __init__(self, config, dice, transport, first_board):
        self.realtime = True
        self.config = config
        self.dice = dice
        self.clock = MonotonicClock()
        self.board = SimBoard(first_board)
        self.tap = StatusTap()
        self.link = TappedTransport(transport, self.tap)
        self.mcu = SimulatedMcu(self.board, config.sensing.sensors.channels, self.link,
                                colour_by=config.sensing.sensors.mcu.colour_by)
        self.frames = ()

    def __enter__(self) -> RemoteRig:
        self.mcu.start()
        return self

    def __exit__(self, *exc_info) -> None:
        self.mcu.stop()

    @property
    def view(self) -> RemoteView:
        status = self.tap.status
        return RemoteView(status.state if status else None, status.verdict if status else None)

    def shown(self, renderer: Renderer) -> dict[str, str]:
        status = self.tap.status
        return dict(status.leds) if status else {}

    def shown_history(self, renderer: Renderer, count: int) -> list[tuple[float, dict[str, str]]]:
        return [(at, dict(status.leds)) for at, status in list(self.tap.statuses)[-count:]] if count else []

    def button(self, down: bool) -> None:
        self.link.button(down)

    def press(self) -> None:
        press(self)

    def hold(self, seconds: float | None = None) -> None:
        hold(self, seconds)

    def advance(self, seconds: float) -> None:
        time.sleep(seconds)

    def settle(self) -> bool:
        """The Pi's controller is not visible from here: wait its sensors' quiet and grace times."""
        sensors = self.config.sensing.sensors
        time.sleep((sensors.quiet_ms + sensors.grace_ms) / 1000 + 0.3)
        return True

    def power_off(self) -> None:
        raise RemoteUnsupported("power-cut: the rig cannot switch a real Pi's power")

    power_on = power_off
