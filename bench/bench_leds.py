"""LED benchmarks: scene -> frame time for the shipped 200-LED layout (goal: p99 under 1 ms).

    .venv/bin/python bench/bench_leds.py [--renders 20000] [--json bench/results/leds.json]

Scenes, each rendered at a new time every call (1 ms steps, so blink phases change):
- turn:       a lifted checker (origin, four destinations), dice, turn and score lights;
- correction: an illegal board being guided back (illegal, take-from, put-on) with dice and score;
- everything: every location marked with a blinking mark, all lights on, over the current cap;
- new scene:  a different scene at every call (the renderer's per-scene plan is never cached):
              the cost the first time a scene is shown.
Then the driver step: frame -> bytes through the real `neopixel.NeoPixel` class (Blinka's
OS-agnostic board, with the final write captured), which is not part of the scene -> frame budget.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import os
import statistics
import sys
import time
from pathlib import Path

os.environ["BLINKA_OS_AGNOSTIC"] = "1"  # before anything imports board

from firmware_host.hw import LedDataLine  # noqa: E402
from firmware_host.leds import LOCATIONS, DiceSignal, Mark, Renderer, Scene, Score, load_led_config, open_strip  # noqa: E402

BOARD_FILE = Path(__file__).resolve().parents[1] / "hardware" / "board.toml"
BLINKING = [Mark.LEGAL_DESTINATION, Mark.ILLEGAL, Mark.TAKE_FROM, Mark.PUT_ON, Mark.SENSOR_FAULT, Mark.LAST_PLAY_ORIGIN]


def scenes() -> dict[str, list[Scene]]:
    score = Score(white=2, black=1, target=5)
    turn = Scene(
        {"13": Mark.LIFTED_ORIGIN, "8": Mark.LEGAL_DESTINATION, "7": Mark.LEGAL_DESTINATION,
         "9": Mark.LEGAL_DESTINATION, "2": Mark.LEGAL_DESTINATION},
        dice=(6, 5), turn="white", score=score,
    )
    correction = Scene(
        {"5": Mark.ILLEGAL, "6": Mark.ILLEGAL, "11": Mark.TAKE_FROM, "bar:black": Mark.PUT_ON},
        dice=(3, 1), turn="black", score=score,
    )
    everything = Scene(
        {location: BLINKING[number % len(BLINKING)] for number, location in enumerate(LOCATIONS)},
        dice=(6, 6), dice_signal=DiceSignal.NO_LEGAL_MOVE, turn="white", score=Score(4, 6, target=7),
    )
    new = [
        Scene({str(1 + number % 24): Mark.LIFTED_ORIGIN, str(1 + (number * 7) % 24): Mark.LEGAL_DESTINATION},
              dice=(1 + number % 6, 1 + number // 6 % 6), turn="white", score=Score(number % 5, number // 5 % 5, 5))
        for number in range(1000)
    ]
    return {"turn": [turn], "correction": [correction], "everything": [everything], "new scene": new}


def percentiles(samples_ns: list[int]) -> dict[str, float]:
    cuts = statistics.quantiles(samples_ns, n=100)
    return {"p50_us": cuts[49] / 1000, "p99_us": cuts[98] / 1000, "max_us": max(samples_ns) / 1000}


def time_renders(renderer: Renderer, cycle: list[Scene], renders: int) -> dict[str, float]:
    for number in range(200):  # warm up
        renderer.render(cycle[number % len(cycle)], number / 1000)
    samples = []
    clock = time.perf_counter_ns
    for number in range(renders):
        scene = cycle[number % len(cycle)]
        started = clock()
        renderer.render(scene, number / 1000)
        samples.append(clock() - started)
    return percentiles(samples)


def time_driver(config, renderer: Renderer, scene: Scene, writes: int) -> dict[str, float]:
    import neopixel

    neopixel.neopixel_write = lambda pin, buffer: None  # capture nothing: only the class's own work
    # The OS-agnostic board's data pin; on a Pi the config's own pin is used.
    strip = open_strip(dataclasses.replace(config, data_line=LedDataLine("neopixel", "NEOPIXEL")))
    samples = []
    for number in range(writes):
        frame = renderer.render(scene, number / 1000)
        started = time.perf_counter_ns()
        strip.show(frame)
        samples.append(time.perf_counter_ns() - started)
    return percentiles(samples)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--renders", type=int, default=20_000)
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    args = parser.parse_args(argv)

    config = load_led_config(BOARD_FILE)
    renderer = Renderer.from_config(config)
    results = {"leds": config.layout.count, "python": sys.version.split()[0]}
    print(f"scene -> frame, {config.layout.count} LEDs, {args.renders} renders each (microseconds)")
    for name, cycle in scenes().items():
        figures = time_renders(renderer, cycle, args.renders)
        results[name] = figures
        print(f"  {name:<11} p50 {figures['p50_us']:7.1f}   p99 {figures['p99_us']:7.1f}   max {figures['max_us']:8.1f}")
    figures = time_driver(config, renderer, scenes()["turn"][0], min(args.renders, 2000))
    results["neopixel class"] = figures
    print(f"frame -> bytes through neopixel.NeoPixel: p50 {figures['p50_us']:7.1f}   p99 {figures['p99_us']:7.1f}")
    worst_p99 = max(results[name]["p99_us"] for name in scenes())
    print(f"worst scene -> frame p99: {worst_p99:.1f} us (goal: under 1000 us)")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
