"""The sensor MCU's main loop on a Raspberry Pi Pico (MicroPython). With calibrate.py, the only files
touching `machine`.

Copy to the Pico with tavli_mcu/ and board_config.py (hardware/README.md). Every scan period it
takes the host's bytes, scans every load cell and lets the protocol node answer and report.

Maintenance (updating the firmware, calibrating): with MAINTENANCE_PIN held to GND at power-up, or
after the host's MAINTENANCE command (`tavli-board sensor-watch --maintenance`), main.py stops at once:
no watchdog, Ctrl-C works, `mpremote` gets the REPL. The next reset runs the board again.
"""
import os
import select
import sys
import time

import machine
import micropython

import board_config as cfg
from tavli_mcu.bus import open_bus
from tavli_mcu.counting import CountDecoder
from tavli_mcu.hall import HallBank
from tavli_mcu.loadcells import LoadCellSensors, Nau7802Bank
from tavli_mcu.node import Node
from tavli_mcu.scanloop import Clock, ScanLoop
from tavli_mcu.weighing import Calibration, MassDecoder

CALIBRATION_FILE = "calibration.json"
MAINTENANCE_FLAG = "maintenance"   # left by the MAINTENANCE command for the next boot only
WATCHDOG_MS = 2000   # a hung scan loop restarts the MCU; the host sees a new hello


def open_link():
    """(read() -> bytes, write(bytes)) over the configured link."""
    if cfg.LINK == "uart":
        uart = machine.UART(cfg.UART_ID, cfg.BAUDRATE, tx=machine.Pin(cfg.UART_TX_PIN),
                            rx=machine.Pin(cfg.UART_RX_PIN), timeout=0)
        return (lambda: uart.read() or b""), uart.write
    # USB-CDC is the REPL's console: stop a 0x03 byte in a command from raising KeyboardInterrupt.
    micropython.kbd_intr(-1)
    poller = select.poll()
    poller.register(sys.stdin, select.POLLIN)
    stdin = sys.stdin.buffer

    def read():
        data = b""
        while poller.poll(0) and len(data) < 64:
            data += stdin.read(1)
        return data

    return read, sys.stdout.buffer.write


def maintenance_requested():
    """The maintenance pin held low, or the flag the MAINTENANCE command left (used up here)."""
    if machine.Pin(cfg.MAINTENANCE_PIN, machine.Pin.IN, machine.Pin.PULL_UP).value() == 0:
        return True
    try:
        os.remove(MAINTENANCE_FLAG)
    except OSError:
        return False
    return True


def restart_into_maintenance():
    with open(MAINTENANCE_FLAG, "w") as flag:
        flag.write("set by the host's MAINTENANCE command\n")
    time.sleep_ms(50)   # the ACK leaves the USB or UART buffer first
    machine.reset()


def load_calibration():
    try:
        with open(CALIBRATION_FILE) as handle:
            return Calibration.loads(handle.read(), cfg.CHANNELS)
    except (OSError, ValueError, KeyError):
        return Calibration.uncalibrated(cfg.CHANNELS)   # every location reports unreadable


def main():
    read, write = open_link()
    clock = Clock(time.ticks_ms, time.ticks_diff)
    bus = open_bus(machine, cfg.I2C_ID, cfg.I2C_SDA_PIN, cfg.I2C_SCL_PIN, cfg.I2C_HZ, cfg.MUX_ADDRESSES, time.sleep_us)
    bus.start()
    bank = Nau7802Bank(bus, cfg.CHANNELS, clock, time.sleep_ms)
    bank.start_all()   # at most 2 s; channels that failed are tried again while scanning
    if cfg.COLOUR_BY == "magnet":
        hall = HallBank(bus, cfg.CHANNELS, cfg.HALL_ADDRESS, clock)
        hall.start_all()
        decoder = CountDecoder(cfg.CHANNELS, cfg.CHECKER_G, cfg.COUNT_WINDOW_G, cfg.STEADY_G, cfg.STEADY_SCANS,
                               (cfg.HALL_THRESHOLD_MT, cfg.BLACK_FIELD_MAX_MT, cfg.WHITE_FIELD_MIN_MT))
    else:
        hall = None
        decoder = MassDecoder(cfg.WHITE_CHECKER_G, cfg.BLACK_CHECKER_G, cfg.MASS_TOLERANCE_G)
    sensors = LoadCellSensors(bank, load_calibration(), decoder, hall)
    board_id = (machine.unique_id() + b"\x00" * 8)[:8]
    node = Node(cfg.CHANNELS, board_id, int.from_bytes(os.urandom(2), "big"), write, self_test=bank.self_test,
                maintenance=restart_into_maintenance)
    watchdog = machine.WDT(timeout=WATCHDOG_MS)
    ScanLoop(node, sensors.read_counts, read, watchdog.feed, clock, time.sleep_ms).run()


if maintenance_requested():
    print("tavli main.py: maintenance mode: stopped, no watchdog; mpremote can connect; reset to run")
else:
    main()
