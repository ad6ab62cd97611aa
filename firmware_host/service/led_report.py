"""The LED status report: on a HIL rig's request (`[hil] report_leds`), the service tells what its
LEDs show over the sensor link, so a rig at the other end of the cable can check a real Pi.

An event-loop observer (`LedStatusReporter`) sends an LED_STATUS frame (host -> MCU, type 0x60, a
HIL-only frame: a real MCU drops it as a frame of an unknown type) whenever the controller's state,
verdict or scene changes. The rig (`firmware_host.hil.remote`) taps the frames out of the stream and
reads them back with `LedStatus.from_payload`.

    status = LedStatus("moving", "in_hand", {"13": "lifted-origin", "8": "legal-destination"})
    frame = encode_status(status, seq=7)        # what the Pi sends
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

from firmware_host.controller.view import GameView
from firmware_host.controller import machine as m
from firmware_host.leds.palette import DICE_ELEMENTS, LOCATION_ELEMENTS, SCORE_ELEMENTS, TURN_ELEMENTS
from firmware_host.leds.render import Renderer
from firmware_host.leds.scene import LOCATIONS
from firmware_host.referee import VERDICTS
from firmware_host.sensing import protocol as p
from firmware_host.sensing.sensor import BoardSensor

# The LED groups a status names: every location, then the dice faces, the turn and the score lights.
LED_GROUPS = LOCATIONS + ("dice:1", "dice:2", "turn:white", "turn:black", "score:white", "score:black")
LED_STATUS = 0x60
NONE = 0xFF
# Element names by code: each LED group's vocabulary, then the dice values and the score lights.
ELEMENTS = tuple(dict.fromkeys(
    (*LOCATION_ELEMENTS, *TURN_ELEMENTS, *DICE_ELEMENTS, *SCORE_ELEMENTS,
     *(f"die:{value}" for value in range(1, 7)), *(f"no-legal-move:{value}" for value in range(1, 7)))))
SCORE_CODE = 0x80   # an element code with this bit is a score: won in the low 7 bits, the target follows


class StatusError(ValueError):
    """An LED_STATUS payload this end cannot read."""


@dataclass(frozen=True)
class LedStatus:
    state: str
    verdict: str | None
    leds: Mapping[str, str] = field(default_factory=dict)   # LED group -> element name (lit groups)

    def payload(self) -> bytes:
        out = bytearray((m.STATES.index(self.state), NONE if self.verdict is None else VERDICTS.index(self.verdict)))
        for group, element in self.leds.items():
            out.append(LED_GROUPS.index(group))
            if element.startswith("score:"):
                won, target = element.removeprefix("score:").split("/")
                out += bytes((SCORE_CODE | int(won), int(target)))
            else:
                out.append(ELEMENTS.index(element))
        return bytes(out)

    @classmethod
    def from_payload(cls, payload: bytes) -> LedStatus:
        try:
            state = m.STATES[payload[0]]
            verdict = None if payload[1] == NONE else VERDICTS[payload[1]]
            leds, index = {}, 2
            while index < len(payload):
                group, code = LED_GROUPS[payload[index]], payload[index + 1]
                if code & SCORE_CODE:
                    leds[group] = f"score:{code & ~SCORE_CODE}/{payload[index + 2]}"
                    index += 3
                else:
                    leds[group] = ELEMENTS[code]
                    index += 2
        except IndexError:
            raise StatusError(f"LED_STATUS payload {payload.hex()} does not read") from None
        return cls(state, verdict, leds)


def encode_status(status: LedStatus, seq: int) -> bytes:
    payload = status.payload()
    head = bytes((LED_STATUS, seq & 0xFF, len(payload))) + payload
    return p.cobs_encode(head + p.crc16(head).to_bytes(2, "big")) + p.DELIMITER


class LedStatusReporter:
    """On the Pi: an event-loop observer that sends the LED status over the sensor link when it changes."""

    def __init__(self, sensor: BoardSensor, renderer: Renderer):
        self._sensor = sensor
        self._renderer = renderer
        self._last: LedStatus | None = None
        self._seq = 0

    def observe(self, view: GameView, event: object) -> None:
        status = LedStatus(view.state.value, view.verdict_kind, self._renderer.names(view.scene))
        if status == self._last:
            return
        self._last, self._seq = status, self._seq + 1
        frame = encode_status(status, self._seq)
        link = self._sensor.link
        link.submit(lambda now: link.write(frame))   # written on the link's thread, as every frame is
