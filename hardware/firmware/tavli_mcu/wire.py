"""The frame format of docs/protocol.md, the MCU's half: build frames, read commands.

    wire: COBS(body) 0x00        body: type seq len payload crc16(big-endian)
"""
from tavli_mcu.crc16 import crc16

# Frame types (docs/protocol.md).
HELLO = 0x01
SNAPSHOT = 0x02
HEARTBEAT = 0x03
ACK = 0x04
SELF_TEST_REPORT = 0x05
REQUEST_HELLO = 0x41
REQUEST_SNAPSHOT = 0x42
CONFIGURE = 0x43
SELF_TEST = 0x44
MAINTENANCE = 0x45

# ACK statuses.
OK = 0
BAD_ARGUMENT = 1
UNSUPPORTED = 2
BAD_PAYLOAD = 3

# The longest command is a few bytes; anything longer without a delimiter is garbage.
MAX_COMMAND = 64


def cobs_encode(data):
    out = bytearray(b"\x00")
    code_at = 0
    code = 1
    for byte in data:
        if byte:
            out.append(byte)
            code += 1
        if not byte or code == 0xFF:
            out[code_at] = code
            code_at = len(out)
            code = 1
            out.append(0)
    out[code_at] = code
    return out


def cobs_decode(data):
    """The unstuffed bytes, or None if the stuffing is broken."""
    out = bytearray()
    position = 0
    end = len(data)
    while position < end:
        code = data[position]
        block_end = position + code
        if code == 0 or block_end > end:
            return None
        out.extend(data[position + 1:block_end])
        position = block_end
        if code != 0xFF and position < end:
            out.append(0)
    return out


def frame(frame_type, seq, payload=b""):
    body = bytearray((frame_type, seq & 0xFF, len(payload)))
    body.extend(payload)
    crc = crc16(body)
    body.append(crc >> 8)
    body.append(crc & 0xFF)
    out = cobs_encode(body)
    out.append(0)
    return out


def parse_body(body):
    """(type, seq, payload) of an intact body, or None."""
    if body is None or len(body) < 5 or body[2] != len(body) - 5:
        return None
    if crc16(body[:-2]) != (body[-2] << 8 | body[-1]):
        return None
    return body[0], body[1], bytes(body[3:-2])


class CommandReader:
    """Bytes from the host in any split -> intact (type, seq, payload) commands; counts the rest."""

    def __init__(self):
        self.errors = 0
        self._pending = bytearray()
        self._skipping = False

    def feed(self, data):
        commands = []
        for byte in data:
            if byte:
                if not self._skipping:
                    self._pending.append(byte)
                    if len(self._pending) > MAX_COMMAND:
                        self.errors += 1
                        self._pending = bytearray()
                        self._skipping = True
                continue
            if self._pending:
                command = parse_body(cobs_decode(self._pending))
                if command is None:
                    self.errors += 1
                else:
                    commands.append(command)
                self._pending = bytearray()
            self._skipping = False
        return commands
