"""The sensor MCU's firmware (MicroPython on a Raspberry Pi Pico), minus its pin access.

Everything in this package is plain Python that runs under CPython too: the host's tests import it,
and the simulated MCU (firmware_host.sim) runs it with simulated sensors. Only ../main.py touches
`machine`. Written for MicroPython: no dataclasses, typing, f-strings or enum.
"""

# Semantic versioning, the protocol's checks on it in firmware_host/sensing/protocol.py (MIN_FIRMWARE). Changes:
# 2.0.0: colour by the magnet's axis (axial white, diametric black): a set made for 1.x, colour by the pole,
#        reads every checker white, so a maker must rebuild the checkers (a major change). A channel without
#        a fresh conversion, a chip that lost its setup or does not answer is unreadable, never its last
#        value; bus clear, muxes off at boot, failed channels retried, a bounded scan (hardware/README.md,
#        "Failing loud").
# 1.0.1: a full stack of 16 reported as it lies.
FIRMWARE_VERSION = (2, 0, 0)
PROTOCOL_VERSION = 2   # 2: a channel byte of 0xFF is an unreadable channel
