"""Misreads and non-reads of weighed locations per placement, three sensing schemes, on the physical model.

    .venv/bin/python bench/bench_sensors.py [--scans 5000000] [--grid-scans 1000000] [--seed 1] [--rows NAME]
                                            [--checker-g G] [--json bench/records/sensors-DATE.json]

Each trial is one placement: a location just after a checker was put on it (or lifted off), watched for
100 scans (2.5 s at 40 Hz). Its stack is drawn from long random games of every variant
(firmware_host.rules), its checkers from a checker set, its cell from the datasheet envelope, the room
from the row's conditions, the colour sensor's place and the magnets from the board file's
`[mechanics]` (firmware_host.sim.physics). Every scan is decoded as the firmware would, then debounced
(3 agreeing scans, tavli_mcu.debounce). Counted per million placements, with the one-sided 95 % upper
bound (Clopper-Pearson):

- misread: a placement during which the debounced layout (what the host would be told) was ever neither
  the one before the placement nor the true one;
- unread after 1 s: a placement whose debounced layout is not the true one 1 s after it (or never);

and per million scans, as before: settled non-reads (a scan 500 ms or more after the placement that
decoded to nothing). With a checker across two strips, reading it as on this strip is no misread.

The schemes:

- mass: colour by mass: white 16 g, black 17 g, ±0.1 g checkers, the nearest of the 256 totals 16 w + 17 b
  within ±0.35 g (tavli_mcu.weighing.MassDecoder);
- polarity (the default before issue 32): every checker of the board file's `checker_g` (±1 %; 22 g, or
  `--checker-g`), the count the nearest multiple within the board file's window while its steadiness
  window agrees, the bottom checker's colour the sign
  of the vertical field (north up in white checkers): a checker the other pole up reads the other colour;
- axis (the default): the same count, the colour the axis of the bottom magnet's field with the board
  file's field limits (tavli_mcu.counting.colour_of, checked against the firmware here): axial in
  white checkers, diametric in black ones, either face up.

The foreign rows put a coin, dice, a resting finger or a checker across two strips on the stack; their
misreads are what the location's sensors would claim there. The host sees the whole board: all 30
checkers always lie on sensed locations (points, bars, bear-off trays), and a board of more than 30 is a
sensor fault (firmware_host.sensing.stabiliser), never a layout, and stays one on the location that
gained until it holds no more than before (a checker lifted elsewhere does not explain the gain). So each
foreign row also counts the placements read as a plausible board: with all 30 checkers down when the
load came (a foreign load read as more checkers is then a fault), and with one checker already in the
mover's hand (one more checker then looks like it put down, until it is). The rows "N % of checkers the other pole up" turn a share of the checkers over (or
glue their magnets in backwards); the seat rows put every first checker at the edge of its recess, or
cut the recess wider than `[mechanics]` says.

Before the rows it prints what no row shows: whether any steadiness test could refuse a finger that adds
one checker's weight (the case a checker in the mover's hand leaves to the location), at the datasheet's
ADC noise and four times it, with the test tight as a settled checker's noise allows (`steadiness_limits`),
and how many such fingers a test of the step against one checker's weight would still take. And what the
referee makes of the board such a finger leaves (`finger_in_hand_verdicts`): the host knows each stack's
colour, so a checker more on the opponent's stack makes 16 of a colour, a fault, and many boards are illegal;
the finger rows then multiply their count for "one already in a hand" by the share it takes as the play so
far (as if a finger rested on any occupied location alike).
"""
from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import numpy as np

from firmware_host.maker.mechanics import load_mechanics
from firmware_host.referee import Reading, Referee
from firmware_host.rules import BLACK, WHITE, Position, Rules, Turn, VARIANTS, blocked_for_good
from firmware_host.sensing.config import DEFAULT_BOARD_FILE
from firmware_host.sim.firmware import firmware_module
from firmware_host.sim.physics import (AXIS, COINS_G, DICE_G, POLARITY, SCAN_S, AdcFigures, CheckerSet, Environment,
                                       HallFigures, LoadCellFigures, WeighedLocations, hall_field, hand_force_g,
                                       sensor_noise)
from firmware_host.wiring import BoardFacts
from machine import machine_text

_FACTS = BoardFacts.load(DEFAULT_BOARD_FILE)
MECHANICS = load_mechanics(DEFAULT_BOARD_FILE, _FACTS.sensing, _FACTS.leds.layout)

SCANS_PER_TRIAL = 100
LATE_SCANS = 40                   # 1 s at 40 Hz
SETTLED_SCANS = 20                # 500 ms
DEBOUNCE_SCANS = 3
MAX_STACK = 16                    # 15 of one colour, or 15 on a pinned checker in neverfinishing
CHUNK_TRIALS = 20_000

OLD_TOLERANCE_G = 0.35
SEAT_PLACEMENT_MM = HallFigures.for_mechanics(MECHANICS).placement_mm   # the seat's clearance and a magnet's centring
_MCU = _FACTS.sensing.sensors.mcu
FIELD_LIMITS_MT = (_MCU.hall_threshold_mt, _MCU.black_field_max_mt, _MCU.white_field_min_mt)
_COUNTING = firmware_module("counting")
NEW_WINDOW_G = _MCU.count_window_g
checker_g = _MCU.checker_g        # every weighed-count checker's nominal mass (--checker-g tries another)
NEW_STEADY_G = _MCU.steady_g      # checkers lie still: a wavering load (a finger) is no reading
NEW_STEADY_SCANS = _MCU.steady_scans


# -- stacks from long games --------------------------------------------------------------------

def game_stacks(games_per_variant: int, seed: int) -> np.ndarray:
    """(white, black, bottom colour) of every location after every turn of random games of every
    variant; bottom is 0 white, 1 black, -1 empty (a pinned checker is the bottom one)."""
    rng = random.Random(seed)
    rows = []
    for variant in VARIANTS:
        rules = Rules.for_variant(variant)
        for _ in range(games_per_variant):
            position = Position.start(variant, rng.choice((WHITE, BLACK)))
            for _turn in range(400):
                rows.extend(_location_rows(position))
                play = Turn(position, (rng.randint(1, 6), rng.randint(1, 6)), rules).pick_play(rng.choice)
                position = play.position
                if play.result is not None or (not play.moves and blocked_for_good(position, rules)):
                    break
    return np.array(rows, dtype=np.int64)


def _location_rows(position: Position) -> list[tuple[int, int, int]]:
    rows = []
    for index in range(24):
        white, black = position.white[index], position.black[index]
        pinned = position.pinned[index]
        if pinned is not None:
            bottom = 0 if pinned == WHITE else 1
        else:
            bottom = 0 if white else (1 if black else -1)
        rows.append((white, black, bottom))
    for colour in (0, 1):
        for count in (position.bar[colour], position.off[colour]):
            rows.append((count, 0, 0 if count else -1) if colour == 0 else (0, count, 1 if count else -1))
    return rows


# -- conditions ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Conditions:
    name: str
    cell_scale: float = 1.0                  # the cell's error figures times this
    season_c: float = 10.0                   # temperature since calibration: uniform within ±
    game_c: float = 5.0                      # temperature since the location was last empty (zero tracked)
    humidity_rh: float = 20.0                # humidity since the checkers were made: uniform within ±
    off_centre_cm: float = 8.0
    old_tolerance: float = 0.1 / 16.5        # the BOM's ±0.1 g
    new_tolerance: float = 0.01              # moulded checkers, ±1 %
    moisture_per_rh: float = 0.00002         # resin; CheckerSet.WOOD_MOISTURE_PER_RH * wood share for wood
    seat_too_wide_mm: float = 0.0            # the seat's recess cut this much wider all round than [mechanics] says
    at_seat_edge: bool = False               # every first checker as far off centre as its seat lets it lie
    wrong_pole_rate: float = 0.0             # checkers lying the other pole up (turned over, magnet backwards)
    adc_noise: float = 1.0                   # the NAU7802's noise times this
    unsteadiness: float = 1.0                # a resting hand's tremor and drift times this
    foreign: str = ""                        # "", "coin", "dice", "hand", "across"
    min_stack: int = 0                       # only locations holding at least this many checkers


GRID = (
    Conditions("datasheet"),
    Conditions("no drift (ideal room)", season_c=0.0, game_c=0.0, humidity_rh=0.0, off_centre_cm=0.0),
    Conditions("cells at twice their datasheet", cell_scale=2.0),
    Conditions("±20 °C since calibration", season_c=20.0),
    Conditions("stacks ±12 cm off-centre", off_centre_cm=12.0),
    Conditions("stacks of 12 or more", min_stack=12),
    Conditions("checkers ±3 %", new_tolerance=0.03),
    Conditions("0.1 % of checkers the other pole up", wrong_pole_rate=0.001),
    Conditions("1 % of checkers the other pole up", wrong_pole_rate=0.01),
    Conditions("5 % of checkers the other pole up", wrong_pole_rate=0.05),
    Conditions("ADC noise x4", adc_noise=4.0),
    Conditions(f"first checker at its seat's edge ({SEAT_PLACEMENT_MM:g} mm off centre)", at_seat_edge=True),
    Conditions(f"the seat cut 1 mm too wide all round (first checker within {SEAT_PLACEMENT_MM + 1:g} mm)",
               seat_too_wide_mm=1.0),
    Conditions(f"the seat cut 2 mm too wide all round (first checker within {SEAT_PLACEMENT_MM + 2:g} mm)",
               seat_too_wide_mm=2.0),
    Conditions("a coin on the stack", foreign="coin"),
    Conditions("dice on the stack (one or two: acrylic of 16 or 19 mm, precision of 19 mm)", foreign="dice"),
    Conditions("a finger resting on the stack", foreign="hand"),
    Conditions("a steady finger resting on the stack (a tenth of the tremor and drift: steadier than fingers "
               "measured, physics.py)", foreign="hand",
               unsteadiness=0.1),
    Conditions("a checker across two strips", foreign="across"),
)


# -- decoders (vectorised twins of the firmware's, checked against it in check_old_decoder) -----

_OLD_TABLE = sorted((16.0 * w + 17.0 * b, w * 16 + b) for w in range(16) for b in range(16))
_OLD_MASSES = np.array([row[0] for row in _OLD_TABLE])
_OLD_CODES = np.array([row[1] for row in _OLD_TABLE])


def decode_old(grams: np.ndarray) -> np.ndarray:
    """w * 16 + b of the nearest total within the tolerance, else -1 (tavli_mcu.weighing.MassDecoder)."""
    high = np.clip(np.searchsorted(_OLD_MASSES, grams), 1, len(_OLD_MASSES) - 1)
    low = high - 1
    nearest = np.where(grams - _OLD_MASSES[low] < _OLD_MASSES[high] - grams, low, high)
    return np.where(np.abs(_OLD_MASSES[nearest] - grams) <= OLD_TOLERANCE_G, _OLD_CODES[nearest], -1)


def check_old_decoder(rng: np.random.Generator) -> None:
    """The vectorised decoder agrees with the firmware's on 20,000 masses around every total."""
    decoder = firmware_module("weighing").MassDecoder(16.0, 17.0, OLD_TOLERANCE_G)
    grams = rng.choice(_OLD_MASSES, 20_000) + rng.uniform(-0.6, 0.6, 20_000)
    ours = decode_old(grams)
    for value, code in zip(grams.tolist(), ours.tolist()):
        theirs = decoder.decode(value)
        assert (code == -1 and theirs is None) or (theirs == (code // 16, code % 16)), (value, code, theirs)


def decode_magnet(grams: np.ndarray, field: np.ndarray, scheme: str) -> np.ndarray:
    """count * 3 + bottom (0 none, 1 white, 2 black), or -1: `grams` (trials, scans), `field` (trials, scans, 3)
    mT. AXIS: tavli_mcu.counting (checked against it in check_axis_decoder); POLARITY: the field's sign."""
    count = np.rint(grams / checker_g)
    readable = (np.abs(grams - checker_g * count) <= NEW_WINDOW_G) & (count >= 0) & (count <= MAX_STACK)
    window = np.lib.stride_tricks.sliding_window_view(grams, NEW_STEADY_SCANS, axis=1)
    spread = window.max(axis=2) - window.min(axis=2)
    steady = np.concatenate([np.zeros((grams.shape[0], NEW_STEADY_SCANS - 1), dtype=bool),
                             spread <= NEW_STEADY_G], axis=1)
    bottom = colours_of(field, scheme)
    consistent = (count == 0) == (bottom == 0)
    return np.where(readable & steady & consistent & (bottom >= 0), count.astype(np.int64) * 3 + bottom, -1)


def colours_of(field: np.ndarray, scheme: str) -> np.ndarray:
    """0 no magnet, 1 white, 2 black, -1 neither, of fields (..., 3) in mT."""
    threshold, black_max, white_min = FIELD_LIMITS_MT
    horizontal2 = field[..., 0] ** 2 + field[..., 1] ** 2
    vertical2 = field[..., 2] ** 2
    strength2 = horizontal2 + vertical2
    magnet = strength2 >= threshold ** 2
    if scheme == POLARITY:   # the firmware before issue 32: the sign of the vertical field beyond the threshold
        return np.where(vertical2 <= threshold ** 2, 0, np.where(field[..., 2] > 0, 1, 2))
    white = (horizontal2 <= _COUNTING.WHITE_TILT ** 2 * vertical2) & (strength2 >= white_min ** 2)
    black = (horizontal2 >= _COUNTING.BLACK_TILT ** 2 * vertical2) & (strength2 <= black_max ** 2)
    return np.where(~magnet, 0, np.where(white, 1, np.where(black, 2, -1)))


def check_axis_decoder(rng: np.random.Generator) -> None:
    """The vectorised colour decision agrees with the firmware's on 20,000 fields of every direction."""
    fields = rng.normal(0, 6.0, (20_000, 3))
    names = {_COUNTING.WHITE: 1, _COUNTING.BLACK: 2, 0: 0, None: -1}
    ours = colours_of(fields, AXIS)
    for field, colour in zip(fields.tolist(), ours.tolist()):
        assert names[_COUNTING.colour_of(field, FIELD_LIMITS_MT)] == colour, (field, colour)


def check_count_decoder(rng: np.random.Generator) -> None:
    """decode_magnet agrees with the firmware's CountDecoder, scan by scan, on locations where one checker lies,
    then a second one (in the row: the field stays the first's) or a finger's weight comes, then goes."""
    trials, scans = 300, 60
    weight = checker_g * np.where(np.arange(scans)[None, :] < 20, 1, np.where(np.arange(scans)[None, :] < 45, 2, 1))
    grams = weight + rng.normal(0, 0.1, (trials, scans)) + np.where(rng.random((trials, 1)) < 0.5, 0.0, 1.5)
    field = np.array([0.0, 0.0, 12.0]) + rng.normal(0, 0.08, (trials, scans, 3))
    ours = decode_magnet(grams, field, AXIS)
    decoder = _COUNTING.CountDecoder(trials, checker_g, NEW_WINDOW_G, NEW_STEADY_G, NEW_STEADY_SCANS, FIELD_LIMITS_MT)
    for scan in range(scans):
        for trial in range(trials):
            theirs = decoder.decode(trial, float(grams[trial, scan]), tuple(field[trial, scan].tolist()))
            code = ours[trial, scan]
            assert (code == -1 and theirs is None) or theirs == (code // 3, 0), (trial, scan, code, theirs)


def debounce(codes: np.ndarray, initial: np.ndarray) -> np.ndarray:
    """The debounced code after every scan (tavli_mcu.debounce.Debouncer, vectorised over trials)."""
    stable = initial.copy()
    candidate = np.full_like(initial, -2)
    agreeing = np.zeros_like(initial)
    out = np.empty_like(codes)
    for scan in range(codes.shape[1]):
        value = codes[:, scan]
        skip = (value < 0) | (value == stable)
        agreeing = np.where(skip, 0, np.where(value == candidate, agreeing + 1, 1))
        candidate = np.where(skip, candidate, value)
        flip = agreeing >= DEBOUNCE_SCANS
        stable = np.where(flip, value, stable)
        agreeing = np.where(flip, 0, agreeing)
        out[:, scan] = stable
    return out


# -- one chunk of trials -------------------------------------------------------------------------

@dataclass
class Tally:
    scans: int = 0
    misreads: int = 0
    non_reads: int = 0
    settled_non_reads: int = 0
    reported_wrong: int = 0
    trials: int = 0
    late: int = 0
    misread_placements: int = 0
    plausible_all_down: int = 0
    plausible_in_hand: int = 0
    worst_delay_s: float = 0.0

    def add(self, truth: np.ndarray, before: np.ndarray, codes: np.ndarray, foreign: bool, count_of,
            also_right: np.ndarray | None = None) -> None:
        """`count_of`: a code's number of checkers (the board's total is what the host checks)."""
        debounced = debounce(codes, before)
        self.scans += codes.size
        self.trials += len(truth)
        right_codes = [truth[:, None]] + ([] if also_right is None else [also_right[:, None]])
        wrong = (codes >= 0) & np.logical_and.reduce([codes != right for right in right_codes])
        self.misreads += int(wrong.sum())
        self.non_reads += int((codes < 0).sum())
        self.settled_non_reads += int((codes[:, SETTLED_SCANS:] < 0).sum())
        reported = np.logical_and.reduce([debounced != right for right in right_codes]) & (debounced != before[:, None])
        self.reported_wrong += int(reported.sum())
        self.misread_placements += int(reported.any(axis=1).sum())
        if foreign:
            # The host (sensing.stabiliser) calls a board of more than 30 checkers a fault, kept on the location until
            # it holds no more than before, so a foreign load read as k more checkers is a plausible layout only where
            # k checkers were already missing elsewhere when it came: none while all 30 lie on the board, one while
            # one is in a hand.
            excess = count_of(debounced) - count_of(truth)[:, None]
            self.plausible_all_down += int((reported & (excess <= 0)).any(axis=1).sum())
            self.plausible_in_hand += int((reported & (excess <= 1)).any(axis=1).sum())
        else:
            right = debounced == truth[:, None]
            settled = right[:, ::-1].cumprod(axis=1)[:, ::-1].astype(bool)   # right from this scan to the end
            first = np.where(settled.any(axis=1), settled.argmax(axis=1), codes.shape[1])
            self.late += int((first >= LATE_SCANS).sum())
            self.worst_delay_s = max(self.worst_delay_s, float(first.max() + 1) * SCAN_S)

    def per_million(self) -> dict[str, float]:
        scale = 1e6 / max(self.scans, 1)
        placements = max(self.trials, 1)
        return {"placements": self.trials,
                "misread_placements_per_million": self.misread_placements * 1e6 / placements,
                "misread_placements_95_upper": upper_95(self.misread_placements, self.trials) * 1e6,
                "plausible_all_down_per_million": self.plausible_all_down * 1e6 / placements,
                "plausible_all_down_95_upper": upper_95(self.plausible_all_down, self.trials) * 1e6,
                "plausible_in_hand_per_million": self.plausible_in_hand * 1e6 / placements,
                "plausible_in_hand_95_upper": upper_95(self.plausible_in_hand, self.trials) * 1e6,
                "unread_after_1s_per_million": self.late * 1e6 / placements,
                "unread_after_1s_95_upper": upper_95(self.late, self.trials) * 1e6,
                "scans": self.scans, "misreads_per_million": self.misreads * scale,
                "non_reads_per_million": self.non_reads * scale,
                "settled_non_reads_per_million": self.settled_non_reads * scale,
                "reported_wrong_per_million": self.reported_wrong * scale, "misreads": self.misreads,
                "reported_wrong": self.reported_wrong, "trials": self.trials, "late_over_1s": self.late,
                "worst_delay_s": round(self.worst_delay_s, 3)}


def upper_95(hits: int, trials: int) -> float:
    """The one-sided 95 % upper bound of a rate seen `hits` times in `trials` (Clopper-Pearson, by bisection)."""
    if trials == 0:
        return 1.0

    def at_most_hits(rate: float) -> float:
        if rate >= 1.0:
            return 0.0
        log_term = trials * math.log1p(-rate)
        total = math.exp(log_term)
        for k in range(1, hits + 1):
            log_term += math.log((trials - k + 1) / k) + math.log(rate) - math.log1p(-rate)
            total += math.exp(log_term)
        return total

    low, high = hits / trials, 1.0
    for _ in range(60):
        middle = (low + high) / 2
        low, high = (middle, high) if at_most_hits(middle) > 0.05 else (low, middle)
    return high


SCHEMES = ("mass", POLARITY, AXIS)


def run_chunk(stacks: np.ndarray, conditions: Conditions, trials: int, rng: np.random.Generator,
              tallies: dict[str, Tally]) -> None:
    stacks = stacks[stacks[:, 0] + stacks[:, 1] >= conditions.min_stack]
    picked = stacks[rng.integers(0, len(stacks), trials)]
    white, black, bottom = picked[:, 0], picked[:, 1], picked[:, 2]
    # The last handling: a checker of the top colour put on (or, on an empty location, one lifted off).
    empty = white + black == 0
    top = np.where(bottom == 0, np.where(black > 0, 1, 0), np.where(white > 0, 0, 1))
    placed_white = ~empty & (top == 0)
    placed_black = ~empty & (top == 1)
    lifted_white = empty & (rng.random(trials) < 0.5)
    white_before = white - placed_white + lifted_white
    black_before = black - placed_black + (empty & ~lifted_white)
    if conditions.foreign:   # the stack lay settled; the foreign load arrives on it
        white_before, black_before = white.copy(), black.copy()
    scans = SCANS_PER_TRIAL
    transient = _placement_transient(rng, trials, scans)
    extra = _foreign_load(rng, conditions, trials, scans)
    figures = HallFigures.for_mechanics(MECHANICS)
    figures = replace(figures, placement_mm=figures.placement_mm + conditions.seat_too_wide_mm)
    placement = None
    if conditions.at_seat_edge:
        angle = rng.uniform(0, 2 * np.pi, trials)
        placement = figures.placement_mm * np.stack([np.cos(angle), np.sin(angle)], axis=1)
    for scheme, tally in tallies.items():
        grams = _weigh(rng, conditions, scheme, white, black, white_before + black_before > white + black,
                       transient + extra * (across_g(scheme) if conditions.foreign == "across" else 1.0))
        if scheme == "mass":
            codes = decode_old(grams)
            truth, before = white * 16 + black, white_before * 16 + black_before
            across = (white + 1) * 16 + black        # the checker across two strips is a white one
        else:
            bottom_before = np.where(white_before + black_before == 0, -1,
                                     np.where(bottom >= 0, bottom, np.where(white_before > 0, 0, 1)))
            seed = int(rng.integers(1 << 62))    # the same checkers, lying the same way, before and after
            field = hall_field(np.random.default_rng(seed), _colours_up(white, black, bottom), figures, scheme,
                               conditions.wrong_pole_rate, placement)[:, None, :]
            field = field + sensor_noise(rng, figures, (trials, scans))
            codes = decode_magnet(grams, field, scheme)
            truth = (white + black) * 3 + (bottom + 1)
            before = (white_before + black_before) * 3 + (bottom_before + 1)
            across = (white + black + 1) * 3 + np.where(bottom < 0, 1, bottom + 1)
        count_of = (lambda code: code // 16 + code % 16) if scheme == "mass" else (lambda code: code // 3)
        tally.add(truth, before, codes, bool(conditions.foreign), count_of,
                  across if conditions.foreign == "across" else None)


def _weigh(rng, conditions: Conditions, scheme: str, white, black, unloading, disturbance) -> np.ndarray:
    """(trials, scans) grams as the firmware's calibration computes them from the physical model."""
    trials, scans = disturbance.shape
    nominal = (16.0, 17.0) if scheme == "mass" else (checker_g, checker_g)
    tolerance = conditions.old_tolerance if scheme == "mass" else conditions.new_tolerance
    checkers = CheckerSet(nominal[0], nominal[1], tolerance, conditions.moisture_per_rh)
    humidity = rng.uniform(-conditions.humidity_rh, conditions.humidity_rh, (trials, 1))
    loads = (_stack_mass(rng, checkers, white, 0, humidity) + _stack_mass(rng, checkers, black, 1, humidity))
    season = rng.uniform(-conditions.season_c, conditions.season_c, trials)
    since_empty = rng.uniform(-conditions.game_c, conditions.game_c, trials)
    adc = AdcFigures(noise_nv_rms_10sps=AdcFigures().noise_nv_rms_10sps * conditions.adc_noise)
    cells = WeighedLocations(trials, rng, LoadCellFigures().scaled(conditions.cell_scale), adc)
    counts_per_g = cells.calibrate()[1]
    # The firmware's zero tracking followed the cell while it was last empty, at that temperature.
    cells.environment = Environment(temperature_change_c=season - since_empty)
    tracked_zero = cells.raw_without_noise()
    cells.environment = Environment(temperature_change_c=season)
    cells.load(loads, rng.uniform(-conditions.off_centre_cm, conditions.off_centre_cm, trials), unloading)
    cells.advance(rng.uniform(0, 1800, trials))            # the stack's age under load
    grams = np.empty((trials, scans))
    steady = cells.raw_without_noise()
    noise_counts = rng.normal(0, cells.noise_g, (trials, scans)) * counts_per_g[:, None]
    raw = steady[:, None] + noise_counts + disturbance * counts_per_g[:, None]
    grams[:] = (raw - tracked_zero[:, None]) / counts_per_g[:, None]
    return grams


def _stack_mass(rng, checkers: CheckerSet, counts: np.ndarray, colour: int, humidity: np.ndarray) -> np.ndarray:
    masses = checkers.masses(rng, (len(counts), MAX_STACK), colour) * (1 + checkers.moisture_per_rh * humidity)
    return np.where(np.arange(MAX_STACK)[None, :] < counts[:, None], masses, 0.0).sum(axis=1)


def _colours_up(white, black, bottom) -> np.ndarray:
    """(trials, MAX_STACK) the colours of each location's checkers in the order they lie (physics.checker_places):
    the seat's first, then a pinning stack's other colour, then the rest; -1 where none."""
    total = white + black
    own_above = np.where(bottom == 0, white, black) - 1
    level = np.arange(1, MAX_STACK)[None, :]
    colour = np.where(level <= (total - 1 - own_above)[:, None], 1 - bottom[:, None], bottom[:, None])
    above = np.where(level < total[:, None], colour, -1)
    return np.concatenate([bottom[:, None], above], axis=1)


def _placement_transient(rng, trials: int, scans: int) -> np.ndarray:
    """A checker set down rings the strip: up to half a checker's weight, 12-25 Hz, damped in 40-80 ms."""
    t = np.arange(scans)[None, :] * SCAN_S + rng.uniform(0, SCAN_S, (trials, 1))
    amplitude = rng.uniform(0, 8.0, (trials, 1))
    return amplitude * np.exp(-t / rng.uniform(0.04, 0.08, (trials, 1))) * np.cos(
        2 * np.pi * rng.uniform(12, 25, (trials, 1)) * t)


def across_g(scheme: str) -> float:
    """The mass of the checker across two strips: a white one of the scheme's set."""
    return 16.0 if scheme == "mass" else checker_g


def _foreign_load(rng, conditions: Conditions, trials: int, scans: int) -> np.ndarray:
    foreign = conditions.foreign
    if foreign in ("coin", "dice"):
        return np.repeat(rng.choice(COINS_G if foreign == "coin" else DICE_G, (trials, 1)), scans, axis=1)
    if foreign == "hand":
        return hand_force_g(rng, trials, scans, unsteadiness=conditions.unsteadiness)
    if foreign == "across":
        return np.repeat(rng.uniform(0.1, 0.9, (trials, 1)), scans, axis=1)   # a share of the checker (run_chunk)
    return np.zeros((trials, scans))


def magnet_field_changes(seed: int, draws: int = 20_000) -> list[dict]:
    """What each checker's magnet adds to the field at the colour sensor, by the order it comes to a location
    of one colour (2: the second checker, in the row beside the seat's; 6: the first on the seat's), and a
    pinning checker's (on the one it pins), either kind, lying as the model draws them (the seat, the row, the
    layers, the magnets' tolerance): |change| in mT, min, median and max over `draws` locations, without the
    sensor's noise."""
    figures = replace(HallFigures.for_mechanics(MECHANICS), noise_mt=0.0)
    rng = np.random.default_rng(seed)
    found = []
    for checker in range(2, MAX_STACK + 1):
        for pinning in ((False, True) if checker == 2 else (False,)):
            bottom = rng.integers(0, 2, draws)
            colours = np.repeat(bottom[:, None], MAX_STACK, axis=1)
            if pinning:
                colours[:, 1] = 1 - bottom
            before = np.where(np.arange(MAX_STACK)[None, :] < checker - 1, colours, -1)
            after = np.where(np.arange(MAX_STACK)[None, :] < checker, colours, -1)
            stack_seed = int(rng.integers(1 << 62))
            change = np.linalg.norm(hall_field(np.random.default_rng(stack_seed), after, figures)
                                    - hall_field(np.random.default_rng(stack_seed), before, figures), axis=1)
            found.append({"checker": checker, "pinning": pinning, "min_mt": round(float(change.min()), 3),
                          "median_mt": round(float(np.median(change)), 3), "max_mt": round(float(change.max()), 3)})
    return found


STEP_TOLERANCES_G = (0.25, 0.7)   # one checker's step: ±1 % checkers and a little; ±3 % checkers and a little


def steadiness_limits(seed: int, fingers: int = 20_000) -> list[dict]:
    """Could any steadiness test tell a finger from a checker, where the finger adds one checker's weight (the
    case a checker already in the mover's hand leaves to the location)? For fingers of each `unsteadiness` whose
    force lies within the count window of one checker, with the ADC's noise at the datasheet and four times
    it: the share a test takes as a count (its window steady for DEBOUNCE_SCANS scans running, anywhere in a
    placement's SCANS_PER_TRIAL scans). The tests: the firmware's, and for windows of 8, 16 and 24 scans the
    tightest spread that a settled checker's noise exceeds in one window in 10,000 (so it refuses no more
    checkers), set for four times the datasheet's noise (what the firmware must let settle) and, as if each
    board knew its own noise, for the noise it has. And the share a step test would still take: the finger's
    force within STEP_TOLERANCES_G of one checker's weight (the tolerance a step must allow its checkers)."""
    rng = np.random.default_rng(seed)
    datasheet_noise_g = WeighedLocations(1, rng).noise_g
    found = []

    def taken(readings: np.ndarray, window: int, spread_g: float) -> float:
        frames = np.lib.stride_tricks.sliding_window_view(readings, window, axis=1)
        steady = (frames.max(axis=2) - frames.min(axis=2)) <= spread_g
        running = np.logical_and.reduce([steady[:, k:steady.shape[1] - DEBOUNCE_SCANS + 1 + k]
                                         for k in range(DEBOUNCE_SCANS)])
        return float(running.any(axis=1).mean())

    def spread_limit(window: int, noise_g: float) -> float:
        frames = rng.normal(0, noise_g, (200_000, window))
        return float(np.quantile(frames.max(axis=1) - frames.min(axis=1), 1 - 1e-4))

    for unsteadiness in (1.0, 0.1):
        kept, count = [], 0
        while count < fingers:    # a finger's force is drawn over 5-300 g: about one in 74 adds a checker's weight
            drawn = hand_force_g(rng, 100_000, SCANS_PER_TRIAL, unsteadiness=unsteadiness)
            kept.append(drawn[np.abs(drawn.mean(axis=1) - checker_g) <= NEW_WINDOW_G])
            count += len(kept[-1])
        forces = np.concatenate(kept)[:fingers]
        row = {"unsteadiness": unsteadiness, "fingers": len(forces),
               "step_within_g": {f"{tolerance:g}": float((np.abs(forces.mean(axis=1) - checker_g) <= tolerance).mean())
                                 for tolerance in STEP_TOLERANCES_G}, "tests": []}
        for adc_noise in (1.0, 4.0):
            readings = forces + rng.normal(0, datasheet_noise_g * adc_noise, forces.shape)
            tests = [("firmware", NEW_STEADY_SCANS, NEW_STEADY_G)]
            for window in (8, 16, 24):
                tests.append(("set for 4x noise", window, spread_limit(window, datasheet_noise_g * 4)))
                tests.append(("set for its own noise", window, spread_limit(window, datasheet_noise_g * adc_noise)))
            for name, window, spread_g in tests:
                row["tests"].append({"adc_noise": adc_noise, "test": name, "window_scans": window,
                                     "spread_g": round(spread_g, 3), "taken": taken(readings, window, spread_g)})
        found.append(row)
    return found


def finger_in_hand_verdicts(games_per_variant: int, seed: int) -> dict[str, int]:
    """What the referee makes of a board where the mover has lifted a checker (the first that a random legal play
    of the roll moves) and a finger resting on a stack is read as one checker more there: every occupied
    location of every such board (its point, bar or tray; on a point where both colours lie, a checker more of
    the top one), over random games of every variant. Counted by verdict: "illegal" the lights show, "partial"
    and "complete" boards it takes as the play so far ("complete": a dice press would commit it), "unchanged"
    where the finger rests on the stack the checker came from."""
    rng = random.Random(seed)
    verdicts: dict[str, int] = {}
    for variant in VARIANTS:
        rules = Rules.for_variant(variant)
        for _ in range(games_per_variant):
            position = Position.start(variant, rng.choice((WHITE, BLACK)))
            for _turn in range(400):
                dice = (rng.randint(1, 6), rng.randint(1, 6))
                play = Turn(position, dice, rules).pick_play(rng.choice)
                if play.moves:
                    lifted = _lifted(position, play.position, rng)
                    referee = Referee(position, dice, rules)
                    for reading in _finger_readings(lifted, position.pinned):
                        kind = referee.judge(reading).kind.value
                        verdicts[kind] = verdicts.get(kind, 0) + 1
                position = play.position
                if play.result is not None or (not play.moves and blocked_for_good(position, rules)):
                    break
    return verdicts


def _lifted(start: Position, end: Position, rng: random.Random) -> Reading:
    """The board of `start` with one of the mover's checkers lifted from a location that the play `end` took
    checkers from."""
    mover = start.turn.index
    points = [list(start.white), list(start.black)]
    bar = list(start.bar)
    sources = [index for index in range(24) if points[mover][index] > (end.white, end.black)[mover][index]]
    if bar[mover] > end.bar[mover]:
        sources.append(-1)
    source = rng.choice(sources)
    if source < 0:
        bar[mover] -= 1
    else:
        points[mover][source] -= 1
    return Reading(start.variant, tuple(points[0]), tuple(points[1]), tuple(bar), start.off)


def _finger_readings(lifted: Reading, pinned: tuple) -> list[Reading]:
    """`lifted` with one checker more on each occupied location in turn."""
    found = []
    for index in range(24):
        white, black = lifted.white[index], lifted.black[index]
        if white + black == 0:
            continue
        top = 1 if (black and not white) or (white and black and pinned[index] is WHITE) else 0
        points = [list(lifted.white), list(lifted.black)]
        points[top][index] += 1
        found.append(replace(lifted, white=tuple(points[0]), black=tuple(points[1])))
    for colour in (0, 1):
        for name in ("bar", "off"):
            counts = list(getattr(lifted, name))
            if counts[colour]:
                counts[colour] += 1
                found.append(replace(lifted, **{name: tuple(counts)}))
    return found


def run_row(stacks: np.ndarray, conditions: Conditions, scans: int, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    tallies = {scheme: Tally() for scheme in SCHEMES}
    trials_left = -(-scans // SCANS_PER_TRIAL)
    started = time.perf_counter()
    while trials_left > 0:
        trials = min(CHUNK_TRIALS, trials_left)
        run_chunk(stacks, conditions, trials, rng, tallies)
        trials_left -= trials
    return {"conditions": asdict(conditions), **{scheme: tally.per_million() for scheme, tally in tallies.items()},
            "seconds": round(time.perf_counter() - started, 1)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scans", type=int, default=10_000_000, help="scans for the datasheet row")
    parser.add_argument("--grid-scans", type=int, default=1_000_000, help="scans for every other row")
    parser.add_argument("--games", type=int, default=20, help="random games per variant for the stacks")
    parser.add_argument("--verdict-games", type=int, default=5, help="random games per variant for what the "
                                                                        "referee makes of a finger's board")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rows", help="only the rows whose name contains this")
    parser.add_argument("--checker-g", type=float, help="the weighed-count checkers' mass, g (default: the board "
                                                         "file's checker_g)")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    global checker_g
    checker_g = args.checker_g or checker_g
    check_old_decoder(np.random.default_rng(args.seed))
    check_axis_decoder(np.random.default_rng(args.seed))
    check_count_decoder(np.random.default_rng(args.seed))
    noise = HallFigures.for_mechanics(MECHANICS).noise_mt
    changes = magnet_field_changes(args.seed)
    print(f"The field each checker's magnet adds at the colour sensor (the sensor's noise: {noise:g} mT an axis, "
          f"{noise / math.sqrt(NEW_STEADY_SCANS):.3f} mT in the mean of {NEW_STEADY_SCANS} scans):")
    for change in changes:
        print(f"  checker {change['checker']}{' pinning the first' if change['pinning'] else ''}: "
              f"{change['min_mt']:.3f}-{change['max_mt']:.3f} mT (median {change['median_mt']:.3f})")
    limits = steadiness_limits(args.seed)
    print("\nFingers adding one checker's weight (within the count window): the share each test takes as a count")
    for limit in limits:
        steps = ", ".join(f"±{tolerance} g {share:.0%}" for tolerance, share in limit["step_within_g"].items())
        print(f"  unsteadiness {limit['unsteadiness']:g} ({limit['fingers']:,} fingers); a step test within {steps}")
        for test in limit["tests"]:
            print(f"    ADC noise x{test['adc_noise']:g}: {test['test']:22s} {test['window_scans']:2d} scans within "
                  f"{test['spread_g']:.3f} g: {test['taken']:.1%}")
    verdicts = finger_in_hand_verdicts(args.verdict_games, args.seed)
    boards = sum(verdicts.values())
    taken = verdicts.get("partial", 0) + verdicts.get("complete", 0)
    print(f"\nA checker lifted, a finger read as one checker more on an occupied location ({boards:,} boards from "
          f"{args.verdict_games} random games of each variant): "
          + ", ".join(f"{kind} {count / boards:.1%}" for kind, count in sorted(verdicts.items()))
          + f"; taken as the play so far {taken / boards:.1%} (95 % <= {upper_95(taken, boards):.1%})")
    stacks = game_stacks(args.games, args.seed)
    print(f"{len(stacks)} location states from {args.games} random games of each of {len(VARIANTS)} variants")
    results = []
    for index, conditions in enumerate(GRID):
        if args.rows and args.rows not in conditions.name:
            continue
        scans = args.scans if index == 0 else args.grid_scans
        row = run_row(stacks, conditions, scans, args.seed + index)
        results.append(row)
        print(f"\n{conditions.name}  ({row['mass']['placements']:,} placements, {row['seconds']} s)")
        for scheme in SCHEMES:
            r = row[scheme]
            print(f"  {scheme:8s}: per million placements: misread {r['misread_placements_per_million']:9.0f} "
                  f"(95 % <= {r['misread_placements_95_upper']:9.0f})  unread after 1 s "
                  f"{r['unread_after_1s_per_million']:9.0f} (95 % <= {r['unread_after_1s_95_upper']:9.0f})   "
                  f"per million scans: settled non-reads {r['settled_non_reads_per_million']:9.0f}")
            if conditions.foreign:
                print(f"            a plausible board (no fault at the host): all 30 checkers down "
                      f"{r['plausible_all_down_per_million']:9.0f} (95 % <= {r['plausible_all_down_95_upper']:9.0f}), "
                      f"one already in a hand {r['plausible_in_hand_per_million']:9.0f} "
                      f"(95 % <= {r['plausible_in_hand_95_upper']:9.0f})")
                if conditions.foreign == "hand" and scheme != "mass":
                    print(f"            ... of which the referee takes as the play so far about "
                          f"{r['plausible_in_hand_per_million'] * taken / boards:.0f} (95 % <= "
                          f"{r['plausible_in_hand_95_upper'] * upper_95(taken, boards):.0f}), a dice press "
                          f"commits about {r['plausible_in_hand_per_million'] * verdicts.get('complete', 0) / boards:.0f}")
        sys.stdout.flush()
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                                         "command": " ".join(sys.argv), "machine": machine_text(),
                                         "cpu_s": round(time.process_time(), 1), "magnet_field_changes": changes,
                                         "steadiness_limits": limits, "finger_in_hand_verdicts": verdicts,
                                         "rows": results}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
