"""Commands of the service: `run` (the systemd service), `config check|show|udev-rule`, `selftest`, `bringup`, `bug-report`, `leds-off`, `wiring`, `maker-docs`."""
from __future__ import annotations

import queue
import sys
import time
from pathlib import Path

from firmware_host import maker, wiring
from firmware_host.commands import UsageError, add_config_argument, config_from_args, config_path_from_args
from firmware_host.config import Config, ConfigError
from firmware_host.hw.boardfile import BoardFileError
from firmware_host.journal.store import path_problem
from firmware_host.leds.render import OFF
from firmware_host.leds.strips import LedStripError, open_strip
from firmware_host.sensing.config import DEFAULT_BOARD_FILE
from firmware_host.sensing.reading import BoardReading
from firmware_host.service.bringup import BringUp, ConsoleBringUpOperator, SimulatedBringUpOperator
from firmware_host.service.hardware import Hardware
from firmware_host.service.logs import setup_logging
from firmware_host.service.run import run_service
from firmware_host.service.selftest import ConsoleOperator, SelfTest, SimulatedOperator, Timings, summary

STABLE_DEVICE = "tavli-sensors"   # the udev rule's name for the sensor MCU: /dev/tavli-sensors


def register(subparsers) -> None:
    service = subparsers.add_parser(
        "run", help="referee the board: the systemd service (READY and WATCHDOG through NOTIFY_SOCKET)",
        description="Runs until SIGTERM or SIGINT. A bad configuration exits 2 before anything is opened.")
    add_config_argument(service)
    service.set_defaults(handler=run_run)

    config = subparsers.add_parser("config", help="check the configuration, or show its effective values")
    actions = config.add_subparsers(dest="action", metavar="ACTION", required=True)
    check = actions.add_parser("check", help="check the configuration file and the board file it names; "
                                             "exit 2 listing every problem")
    show = actions.add_parser("show", help="every effective setting with its origin (file, board file or default)")
    udev = actions.add_parser("udev-rule", help="print the udev rule that names the sensor MCU "
                                                f"/dev/{STABLE_DEVICE} (by its USB id, or the Pi's UART with link \"uart\")")
    for parser, handler in ((check, run_config_check), (show, run_config_show), (udev, run_udev_rule)):
        add_config_argument(parser)
        parser.set_defaults(handler=handler)

    selftest = subparsers.add_parser(
        "selftest", help="test the board with a person watching: LEDs, sensor link and sensors, live counts, "
                         "dice button; ends with pass or fail",
        description="On the simulated board (hardware = \"simulated\") the person's part is played by the "
                    "program, which checks the captured LED frames. Exit code 0: passed, 1: failed.")
    add_config_argument(selftest)
    selftest.add_argument("--dwell-ms", type=int, default=50, help="each LED's turn in the walk (default %(default)s)")
    selftest.add_argument("--timeout", type=float, default=120.0,
                          help="seconds to wait for a press, a hold or an answer (default %(default)s)")
    selftest.set_defaults(handler=run_selftest)

    bringup = subparsers.add_parser(
        "bringup", help="the first run of a newly built board: calibration, each LED for a yes, each location "
                        "with known checkers, then the self-test",
        description="Guided on the terminal and the LEDs. On the simulated board (hardware = \"simulated\") the "
                    "person's part is played by the program. Exit code 0: every step passed, 1: a step failed.")
    add_config_argument(bringup)
    bringup.add_argument("--dwell-ms", type=int, default=50,
                         help="each LED's turn in the self-test's walk (default %(default)s)")
    bringup.add_argument("--timeout", type=float, default=300.0,
                         help="seconds to wait for checkers, a press or an answer (default %(default)s)")
    bringup.set_defaults(handler=run_bringup)

    report = subparsers.add_parser("bug-report", help="bundle the configuration, the log tail, the journal tail "
                                                      "and the last minute of raw sensor frames into a .tar.gz")
    add_config_argument(report)
    report.add_argument("--output", "-o", type=Path, metavar="FILE",
                        help="default: tavli-board-bug-report-<UTC time>.tar.gz in the current folder")
    report.set_defaults(handler=run_bug_report)

    leds_off = subparsers.add_parser("leds-off", help="darken the LED strip (the service's shutdown hook)")
    add_config_argument(leds_off)
    leds_off.set_defaults(handler=run_leds_off)

    docs = subparsers.add_parser("wiring", help="generate the wiring docs (pin table, SVG diagram) from the board file")
    docs.add_argument("--board", type=Path, default=DEFAULT_BOARD_FILE, help="board file (default: %(default)s)")
    docs.add_argument("--output", type=Path, default=wiring.DOCS_DIR, help="folder (default: %(default)s)")
    docs.add_argument("--check", action="store_true", help="write nothing; exit 1 if the docs differ from the board file")
    docs.set_defaults(handler=run_wiring)

    maker_docs = subparsers.add_parser("maker-docs", help="generate the maker's documents (BOM, netlist, schematic, "
                                                          "a location's mechanics) from the board file")
    maker_docs.add_argument("--board", type=Path, default=DEFAULT_BOARD_FILE, help="board file (default: %(default)s)")
    maker_docs.add_argument("--output", type=Path, default=maker.DOCS_DIR, help="folder (default: %(default)s)")
    maker_docs.add_argument("--check", action="store_true",
                            help="write nothing; exit 1 if the documents differ from the board file")
    maker_docs.set_defaults(handler=run_maker_docs)


def run_run(args) -> int:
    config = _usable_config(args)   # first: a bad configuration opens nothing
    _check_there_is_a_board(config)
    setup_logging(config.logging)
    try:
        return run_service(config)
    except ConfigError as error:   # what only opening can tell (the club broker's login for a remote match)
        raise UsageError(f"the configuration is not usable, nothing was started: {error}") from None


def _check_there_is_a_board(config: Config) -> None:
    """Real hardware on a machine that is no Raspberry Pi and has no sensor board either would wait
    for ever for nothing: say what is missing, and how to try the referee here. (On a Pi, a missing
    sensor board is waited for: it is being plugged in. Off a Pi, a sensor board on a serial port, or
    a rig's socket, is refereed without the Pi's button and lights.)"""
    from firmware_host.hw import pimodel

    port = config.sensing.serial.port
    on_a_pi = pimodel.read_model(pimodel.MODEL_FILE).startswith("Raspberry Pi")
    if config.hardware != "real" or on_a_pi or "://" in port or Path(port).exists():
        return
    raise UsageError(f'hardware = "real" in {config.source}, but this machine is not a Raspberry Pi ({pimodel.MODEL_FILE} '
                     f"names none: no dice button, buzzer or LEDs here) and no sensor board is at {port}: nothing "
                     "was started. To try the referee on this machine: `tavli-board demo` (a match on the simulated "
                     'board), or `tavli-board run` with hardware = "simulated" in the configuration')


def _usable_config(args) -> Config:
    """The configuration, and a journal path that can be a journal file (no folder, no device): one
    the service would only hold on for ever."""
    config = config_from_args(args)
    problem = path_problem(config.journal_path)
    if problem is not None:
        raise UsageError(f"the configuration is not usable, nothing was started: journal.path: the journal "
                         f"{config.journal_path} {problem}")
    return config


def run_config_check(args) -> int:
    config = _usable_config(args)
    print(f"configuration OK: {config.source} (board file {config.board_file}, {config.hardware} hardware, "
          f"journal {config.journal_path})")
    return 0


def run_config_show(args) -> int:
    from firmware_host.service.bugreport import effective_settings   # with tarfile: not for the service (issue 33)

    print(effective_settings(config_from_args(args)))
    return 0


UART_DEVICE = "ttyAMA0"   # the PL011 on GPIO14/15 as install.sh sets it up on a Pi 3, 4 (disable-bt) and 5 (uart0)


def udev_rule(config: Config) -> str:
    serial = config.sensing.serial
    if config.sensing.sensors.mcu.link == "uart":
        where, match = f"on the Pi's UART ({UART_DEVICE}, GPIO14/15)", f'SUBSYSTEM=="tty", KERNEL=="{UART_DEVICE}"'
    else:
        where = f"(USB {serial.usb_vid:04x}:{serial.usb_pid:04x})"
        match = f'SUBSYSTEM=="tty", ATTRS{{idVendor}}=="{serial.usb_vid:04x}", ATTRS{{idProduct}}=="{serial.usb_pid:04x}"'
    return (f"# tavli-board: the sensor MCU {where} as /dev/{STABLE_DEVICE}, readable by the dialout group.\n"
            "# Generated by `tavli-board config udev-rule` from the configuration and its board file.\n"
            f'{match}, SYMLINK+="{STABLE_DEVICE}", GROUP="dialout", MODE="0660", TAG+="systemd"\n')


def run_udev_rule(args) -> int:
    sys.stdout.write(udev_rule(config_from_args(args)))
    return 0


def run_selftest(args) -> int:
    if args.dwell_ms < 0 or args.timeout <= 0:
        raise UsageError("--dwell-ms must be 0 or more and --timeout more than 0")
    config = config_from_args(args)
    events: queue.SimpleQueue = queue.SimpleQueue()
    hardware = Hardware.open(config, events.put)
    try:
        operator = SimulatedOperator(hardware, write=print) if config.simulated else ConsoleOperator()
        timings = Timings(led_dwell_s=args.dwell_ms / 1000, person_timeout_s=args.timeout)
        results = SelfTest(hardware, events, operator, timings).run()
    finally:
        hardware.close()
    text, passed = summary(results)
    print(text)
    return 0 if passed else 1


def run_bringup(args) -> int:
    if args.dwell_ms < 0 or args.timeout <= 0:
        raise UsageError("--dwell-ms must be 0 or more and --timeout more than 0")
    config = config_from_args(args)
    events: queue.SimpleQueue = queue.SimpleQueue()
    hardware = Hardware.open(config, events.put, board=BoardReading() if config.simulated else None)
    try:
        operator = SimulatedBringUpOperator(hardware, write=print) if config.simulated else ConsoleBringUpOperator()
        timings = Timings(led_dwell_s=args.dwell_ms / 1000, person_timeout_s=args.timeout)
        results = BringUp(hardware, events, operator, timings, port=config.sensing.serial.port or "auto").run()
    finally:
        hardware.close()
    text, passed = summary(results)
    print(text.replace("SELF-TEST", "BRING-UP"))
    return 0 if passed else 1


def run_bug_report(args) -> int:
    from firmware_host.service.bugreport import build_bug_report   # with tarfile: not for the service (issue 33)

    path = config_path_from_args(args)  # not loaded here: a bug report must work with a broken configuration
    output = args.output or Path(time.strftime("tavli-board-bug-report-%Y%m%dT%H%M%SZ.tar.gz", time.gmtime()))
    try:
        written = build_bug_report(path, output)
    except OSError as error:
        raise UsageError(f"cannot write {output}: {error.strerror}") from None
    print(f"bug report written to {written}")
    return 0


def run_leds_off(args) -> int:
    config = config_from_args(args)
    if config.simulated:
        print("simulated board: no LEDs to darken")
        return 0
    try:
        strip = open_strip(config.leds)
    except LedStripError as error:
        print(f"tavli-board leds-off: {error}", file=sys.stderr)
        return 1
    strip.show((OFF,) * config.leds.layout.count)
    strip.close()
    return 0


def _generated_docs(args, files: dict[str, str], what: str, command: str) -> int:
    if args.check:
        stale = wiring.stale_in(args.output, files)
        if stale:
            print(f"out of date in {args.output}: {', '.join(stale)}; run `tavli-board {command}`", file=sys.stderr)
            return 1
        print(f"the {what} in {args.output} match {args.board}")
        return 0
    for path in wiring.write_into(args.output, files):
        print(f"wrote {path}")
    return 0


def run_wiring(args) -> int:
    try:
        files = wiring.generate(args.board)
    except BoardFileError as error:
        raise UsageError(str(error)) from None
    return _generated_docs(args, files, "wiring docs", "wiring")


def run_maker_docs(args) -> int:
    try:
        files = maker.generate(args.board)
    except BoardFileError as error:
        raise UsageError(str(error)) from None
    return _generated_docs(args, files, "maker's documents", "maker-docs")
