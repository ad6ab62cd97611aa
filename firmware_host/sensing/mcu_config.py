"""Renders the MCU's `board_config.py` from the board file, so the Pico reads the same facts as the Pi.

MicroPython has no TOML parser; the firmware imports this generated module instead, and a test
checks that the committed hardware/firmware/board_config.py is the rendering of hardware/board.toml.
"""
from __future__ import annotations

from pathlib import Path

from firmware_host.sensing.config import SensingConfig

FIRMWARE_BOARD_CONFIG = Path(__file__).resolve().parents[2] / "hardware" / "firmware" / "board_config.py"


def render_board_config(config: SensingConfig) -> str:
    mcu = config.sensors.mcu
    values = {
        "LINK": mcu.link,
        "BAUDRATE": config.serial.baudrate,
        "UART_ID": mcu.uart_id,
        "UART_TX_PIN": mcu.uart_tx_pin,
        "UART_RX_PIN": mcu.uart_rx_pin,
        "I2C_ID": mcu.i2c_id,
        "I2C_SDA_PIN": mcu.i2c_sda_pin,
        "I2C_SCL_PIN": mcu.i2c_scl_pin,
        "I2C_HZ": mcu.i2c_hz,
        "MUX_ADDRESSES": mcu.mux_addresses,
        "COLOUR_BY": mcu.colour_by,
        "CHECKER_G": mcu.checker_g,
        "COUNT_WINDOW_G": mcu.count_window_g,
        "STEADY_G": mcu.steady_g,
        "STEADY_SCANS": mcu.steady_scans,
        "HALL_ADDRESS": mcu.hall_address,
        "HALL_THRESHOLD_MT": mcu.hall_threshold_mt,
        "WHITE_FIELD_MIN_MT": mcu.white_field_min_mt,
        "BLACK_FIELD_MAX_MT": mcu.black_field_max_mt,
        "MAINTENANCE_PIN": mcu.maintenance_pin,
        "WHITE_CHECKER_G": mcu.white_checker_g,
        "BLACK_CHECKER_G": mcu.black_checker_g,
        "MASS_TOLERANCE_G": mcu.mass_tolerance_g,
        "CHANNELS": config.sensors.channels.channel_count,
        "LOCATIONS": config.sensors.channels.locations,
    }
    lines = [f'"""Generated from {Path(config.source).name} by `tavli-board firmware-config`; do not edit."""', ""]
    lines += [f"{name} = {value!r}" for name, value in values.items()]
    return "\n".join(lines) + "\n"
