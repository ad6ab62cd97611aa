"""`tavli-board bringup`: the first run of a newly built board, with the person who built it.

Steps, in order:
1. calibration: the sensors are calibrated on the MCU itself, from its REPL in maintenance mode
   (hardware/README.md, "Maintenance" and "Calibration"), before this program opens the link; the
   person says when it is saved.
2. each LED: every LED lights alone, in strip order, named by its group ("point 7, LED 2 of 6");
   the person answers yes if that one is lit. Every no is listed (a dead LED, a swapped segment).
3. link and 4. sensors: the MCU's hello and its self-test of every channel.
5. locations: the board emptied, then for each location in turn (every point, bar half and bear-off
   tray) its LEDs light and the person puts a known number and colour of checkers there; the sensors
   must read exactly that, there and nowhere else (a miswired or badly calibrated location shows), then
   the checkers come off again.
6. checkers: each of the 30 checkers, numbered by the person, alone on point 1's seat in turn, either
   face up: it must read as one checker of its colour. One that reads the other colour or nothing is
   named (its magnet is of the other kind, missing or weak, or it is not a checker's weight).
7. the self-test (`selftest.SelfTest`) on the board set up for a game.

The person's part goes through a `BringUpOperator`: on the terminal (`ConsoleBringUpOperator`), or
played on the simulated board (`SimulatedBringUpOperator`), which puts the checkers on the
`SimBoard` and reads the captured LED frames in place of eyes, so the whole bring-up runs end to end
on the simulated board (tests/hil/test_bringup.py).
"""
from __future__ import annotations

from typing import Protocol

from firmware_host.leds.render import OFF, RGB
from firmware_host.leds.scene import LOCATIONS
from firmware_host.sensing.events import BoardStable
from firmware_host.sensing.reading import COLOURS, BoardReading
from firmware_host.sensing.stabiliser import CHECKERS_PER_SIDE
from firmware_host.service.selftest import (ConsoleOperator, Operator, Outcome, SelfTest, SimulatedOperator,
                                            StepResult, Timings, capped_frame,
                                            location_counts)
from firmware_host.sim.board import OPENING_LAYOUT

LOCATION_COLOUR: RGB = (255, 255, 255)
REFERENCE_LOCATION = "1"   # every checker is read alone on point 1's seat
EMPTY = BoardReading()
OPENING = BoardReading.loads(OPENING_LAYOUT)


def known_checkers(location: str, number: int) -> tuple[int, int]:
    """(white, black) to put on the `number`-th location: 1 to 5 checkers, colours taking turns on the
    points; a bar half or tray takes its own colour."""
    count = 1 + number % 5
    colour = location.split(":")[1] if ":" in location else ("white", "black")[number % 2]
    return (count, 0) if colour == "white" else (0, count)


def location_name(location: str) -> str:
    return f"point {location}" if location.isdigit() else location.replace(":", " ", 1)


def checkers_text(white: int, black: int) -> str:
    parts = [f"{count} {colour} checker{'s' if count > 1 else ''}"
             for count, colour in ((white, "white"), (black, "black")) if count]
    return " and ".join(parts) or "nothing"


def misread(wanted: dict[str, tuple[int, int]], read: dict[str, tuple[int, int]]) -> str:
    """Where a reading differs from the wanted one, in words."""
    return "; ".join(f"{location_name(location)}: {checkers_text(*read[location])} (wanted "
                     f"{checkers_text(*wanted[location])})" for location in LOCATIONS if read[location] != wanted[location])


class BringUpOperator(Operator, Protocol):
    def put(self, location: str, white: int, black: int) -> None:
        """Ask for these checkers on `location` (an LED location name: "7", "bar:white")."""

    def lay_out(self, reading: BoardReading, what: str) -> None:
        """Ask for the whole board to be laid out as `reading` (`what` says it in words)."""

    def put_checker(self, location: str, colour: str, number: int) -> None:
        """Ask for the `number`-th checker of `colour` (1 to 15, as the person numbered them) alone on `location`."""


class ConsoleBringUpOperator(ConsoleOperator):
    def put(self, location: str, white: int, black: int) -> None:
        self.tell("locations", f"Put {checkers_text(white, black)} on {location_name(location)} (its LEDs are lit).")

    def put_checker(self, location: str, colour: str, number: int) -> None:
        self.tell("checkers", f"Put {colour} checker {number} alone on {location_name(location)}'s seat, either face "
                              "up.")

    def lay_out(self, reading: BoardReading, what: str) -> None:
        self.tell("board", f"{what[0].upper()}{what[1:]}.")


class BringUp(SelfTest):
    """One bring-up over opened hardware whose drivers post to `events`."""

    def __init__(self, hardware, events, operator: BringUpOperator, timings: Timings = Timings(),
                 port: str = "the MCU's port"):
        super().__init__(hardware, events, operator, timings)
        self.operator: BringUpOperator = operator
        self.port = port

    def run(self) -> list[StepResult]:
        self._calibration()
        self.hardware.start()
        self._each_led()
        link_up = self._link()
        self._sensors(link_up)
        self._locations(link_up)
        self._each_checker(link_up)
        if link_up and self._board_reads(OPENING, "set the board up for a game of portes"):
            self._add("self-test", Outcome.INFO, "the self-test's steps follow, on the board set up for a game")
            self.steps()
        else:
            self._add("self-test", Outcome.SKIP, "the board did not read the opening position"
                      if link_up else "the link is down")
        return self.results

    def _calibration(self) -> None:
        sensors = self.hardware.config.sensing.sensors
        self.operator.tell("calibration", "Calibrate the sensors on the MCU before the link opens (hardware/README.md, "
                                          "Calibration). In another terminal put the MCU in maintenance, where its "
                                          "REPL is open and no watchdog runs: tavli-board sensor-watch --maintenance "
                                          f"(or hold GP{sensors.mcu.maintenance_pin} to GND while plugging it in); "
                                          f"then mpremote connect {self.port} repl and, with the board empty: import "
                                          "calibrate; calibrate.tare(); then for each location with a 100 g reference "
                                          "mass on it: calibrate.span(\"<location>\", 100) "
                                          f"({', '.join(sensors.channels.locations)}); then calibrate.save() "
                                          "(calibration.json, kept across firmware updates), leave the REPL and run "
                                          "the board again with mpremote reset or a re-plug.")
        answer = self.operator.confirm("calibration", "Is the calibration saved on the MCU (calibration.json)?")
        self._judge("calibration", answer, "the person calibrated every location")

    def _each_led(self) -> None:
        strip, config = self.hardware.strip, self.hardware.config.leds
        if strip is None:
            self._add("each LED", Outcome.FAIL, f"no LED strip: {self.hardware.errors.get('leds')}")
            return
        names = {index: (group, position, len(indices)) for group, indices in config.layout.groups().items()
                 for position, index in enumerate(indices, start=1)}
        self.operator.tell("each LED", f"Each of the {config.layout.count} LEDs lights alone ({strip.description}); "
                                       "answer y when the one named is lit, and no other.")
        dark = []
        for index in range(config.layout.count):
            pixels = [OFF] * config.layout.count
            pixels[index] = LOCATION_COLOUR
            strip.show(capped_frame(pixels, config.brightness, config.max_current_ma))
            group, position, size = names[index]
            if not self._ask(f"led:{index}", f"LED {index}: {location_name(group)}, {position} of {size}. Lit?"):
                dark.append(f"{index} ({location_name(group)} {position}/{size})")
        strip.show((OFF,) * config.layout.count)
        if dark:
            self._add("each LED", Outcome.FAIL, f"{len(dark)} not seen lit: {', '.join(dark)}")
        else:
            self._add("each LED", Outcome.PASS, f"all {config.layout.count} LEDs seen lit, one at a time")

    def _locations(self, link_up: bool) -> None:
        if not link_up:
            self._add("locations", Outcome.SKIP, "the link is down")
            return
        if not self._board_reads(EMPTY, "take every checker off the board"):
            self._add("locations", Outcome.FAIL, f"the empty board reads: {self._misread(EMPTY)}")
            return
        wrong = []
        for number, location in enumerate(LOCATIONS):
            white, black = known_checkers(location, number)
            self._light(location)
            self.operator.put(location, white, black)
            wanted = self._with(location, white, black)
            if not self._wait_for_reading(wanted):
                wrong.append(self._misread(wanted))
            self._light(None)
            if not self._board_reads(EMPTY, f"take the checkers off {location_name(location)}"):
                wrong.append(f"the board did not read empty again: {self._misread(EMPTY)}")
                break
        if wrong:
            self._add("locations", Outcome.FAIL, " | ".join(wrong))
        else:
            self._add("locations", Outcome.PASS, f"all {len(LOCATIONS)} locations read the checkers put on them")

    def _each_checker(self, link_up: bool) -> None:
        if not link_up:
            self._add("checkers", Outcome.SKIP, "the link is down")
            return
        self.operator.tell("checkers", f"Number the checkers 1 to {CHECKERS_PER_SIDE} of each colour (a pencil mark "
                                       "under each): each is read alone on point 1's seat in turn.")
        wrong = []
        self._light(REFERENCE_LOCATION)
        for colour in COLOURS:
            for number in range(1, CHECKERS_PER_SIDE + 1):
                self.operator.put_checker(REFERENCE_LOCATION, colour, number)
                one = (1, 0) if colour == "white" else (0, 1)
                if not self._wait_for_reading(self._with(REFERENCE_LOCATION, *one)):
                    wrong.append(f"{colour} checker {number} reads {self._read_alone(REFERENCE_LOCATION)}")
                if not self._board_reads(EMPTY, f"take {colour} checker {number} off {location_name(REFERENCE_LOCATION)}"):
                    wrong.append(f"the board did not read empty again: {self._misread(EMPTY)}")
                    self._light(None)
                    self._add("checkers", Outcome.FAIL, " | ".join(wrong))
                    return
        self._light(None)
        if wrong:
            self._add("checkers", Outcome.FAIL, "; ".join(wrong) + " (the other colour: its magnet is the other kind; "
                                                "nothing: its magnet is missing or weak, or its weight is off)")
        else:
            self._add("checkers", Outcome.PASS, f"all {2 * CHECKERS_PER_SIDE} checkers read alone in their colour")

    def _read_alone(self, location: str) -> str:
        if self._reading is None:
            return "nothing (no reading from the sensors)"
        return checkers_text(*location_counts(self._reading)[location])

    # -- helpers ----------------------------------------------------------------------------------

    def _light(self, location: str | None) -> None:
        strip, config = self.hardware.strip, self.hardware.config.leds
        if strip is None:
            return
        pixels = [OFF] * config.layout.count
        for index in config.layout.locations[location] if location else ():
            pixels[index] = LOCATION_COLOUR
        strip.show(capped_frame(pixels, config.brightness, config.max_current_ma))

    @staticmethod
    def _with(location: str, white: int, black: int) -> dict[str, tuple[int, int]]:
        wanted = dict(location_counts(EMPTY))
        wanted[location] = (white, black)
        return wanted

    def _misread(self, wanted: BoardReading | dict[str, tuple[int, int]]) -> str:
        if isinstance(wanted, BoardReading):
            wanted = location_counts(wanted)
        read = location_counts(self._reading) if self._reading is not None else None
        return misread(wanted, read) if read is not None else "no reading from the sensors"

    def _board_reads(self, reading: BoardReading, what: str) -> bool:
        self.operator.lay_out(reading, what)
        return self._wait_for_reading(location_counts(reading))

    def _wait_for_reading(self, wanted: dict[str, tuple[int, int]]) -> bool:
        """Whether a stable reading equal to `wanted` comes within the person's time."""
        def stable_and_wanted() -> bool:
            latest = next((event for event in reversed(self._seen) if isinstance(event, BoardStable)), None)
            return latest is not None and location_counts(latest.reading) == wanted

        self._pump(self.timings.person_timeout_s, stable_and_wanted)
        return stable_and_wanted()


class SimulatedBringUpOperator(SimulatedOperator):
    """The person's part on the simulated board: checkers put on the `SimBoard`, LEDs read from the frames.
    `faulty_checkers`: (colour, number) -> what that checker reads as alone ("white", "black", or None for
    nothing), a set with a wrong or missing magnet."""

    def __init__(self, hardware, *args, faulty_checkers: dict[tuple[str, int], str | None] | None = None, **options):
        super().__init__(hardware, *args, **options)
        self.faulty_checkers = faulty_checkers or {}

    def confirm(self, step: str, question: str) -> bool:
        if step == "calibration":
            self._write(f"[{step}] {question} yes (simulated: the simulated MCU weighs exactly, nothing to calibrate)")
            return True
        if step.startswith("led:"):
            index = int(step.split(":")[1])
            lit = [number for number, pixel in enumerate(self.strip.frames[-1]) if pixel != OFF]
            return lit == [index]
        return super().confirm(step, question)

    def put(self, location: str, white: int, black: int) -> None:
        self._write(f"[locations] put {checkers_text(white, black)} on {location_name(location)} (simulated)")
        where = int(location) if location.isdigit() else location
        for colour, count in (("white", white), ("black", black)):
            if count:
                self.simulation.board.add(where, colour, count)

    def lay_out(self, reading: BoardReading, what: str) -> None:
        self._write(f"[board] {what} (simulated)")
        self.simulation.board.set_reading(reading)

    def put_checker(self, location: str, colour: str, number: int) -> None:
        self._write(f"[checkers] put {colour} checker {number} on {location_name(location)} (simulated)")
        reads_as = self.faulty_checkers.get((colour, number), colour)
        if reads_as is not None:
            self.simulation.board.add(int(location) if location.isdigit() else location, reads_as, 1)
