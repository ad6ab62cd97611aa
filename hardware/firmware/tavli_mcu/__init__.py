"""The sensor MCU's firmware (MicroPython on a Raspberry Pi Pico), minus its pin access.

Everything in this package is plain Python that runs under CPython too: the host's tests import it,
and the simulated MCU (firmware_host.sim) runs it with simulated sensors. Only ../main.py touches
`machine`. Written for MicroPython: no dataclasses, typing, f-strings or enum.
"""

FIRMWARE_VERSION = (1, 0, 1)   # 1.0.1: a full stack of 16 reported as it lies
PROTOCOL_VERSION = 2   # 2: a channel byte of 0xFF is an unreadable channel
