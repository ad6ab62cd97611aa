"""The sensor-link frame format (docs/protocol.md, protocol version 2): a pure encoder and decoder.

On the wire every frame is `COBS(body) 0x00`; a sender puts one extra 0x00 before its first frame
after it starts, so whatever came before (a boot banner, line noise) ends there. Because 0x00 never
occurs inside an encoded frame, the decoder resynchronises at the next 0x00 after garbage or a lost
byte, and a damaged frame costs only itself.

    body = type:u8  seq:u8  len:u8  payload[len]  crc:u16
    crc  = CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF) over type..payload, big-endian

All multi-byte integers are big-endian. `FrameDecoder.feed(data)` returns the frames and the
`DecodeError`s found in `data`, in stream order, and counts both; it never raises on any input.
"""
from __future__ import annotations

import binascii
import enum
import struct
from dataclasses import dataclass, field
from typing import ClassVar, Union

PROTOCOL_VERSION = 2
# Versions this host talks to: 2 adds the unreadable channel (a byte of 0xFF, which version 1 never
# sends: 15 white and 15 black on one location is no board).
SUPPORTED_PROTOCOLS = (1, 2)
# The oldest firmware this host takes: before 1.0.1 a full stack of 16 (fifteen on a pinned checker)
# was reported as 15 of the bottom colour, the count before the last checker came, and a game
# waited for ever for a checker "in hand".
MIN_FIRMWARE = (1, 0, 1)
DELIMITER = b"\x00"
CRC_INIT = 0xFFFF
HEADER_SIZE = 3
CRC_SIZE = 2
MAX_PAYLOAD = 255
# The longest legal encoded frame: a full body plus COBS overhead (one code byte per 254 bytes).
MAX_ENCODED_FRAME = HEADER_SIZE + MAX_PAYLOAD + CRC_SIZE + 2
# A channel's two counts share one byte (white in the high nibble), so 15 is the most one channel reports.
MAX_CHANNEL_COUNT = 15
UNREADABLE = 0xFF


def crc16(data: bytes) -> int:
    """CRC-16/CCITT-FALSE; the firmware's table-driven `tavli_mcu.crc16` must agree with it."""
    return binascii.crc_hqx(data, CRC_INIT)


def cobs_encode(data: bytes) -> bytes:
    """Consistent Overhead Byte Stuffing: the result holds no 0x00 and is at most 1 + len/254 longer."""
    out = bytearray(b"\x00")
    code_at, code = 0, 1
    for byte in data:
        if byte:
            out.append(byte)
            code += 1
        if not byte or code == 0xFF:
            out[code_at] = code
            code_at, code = len(out), 1
            out.append(0)
    out[code_at] = code
    return bytes(out)


class CobsError(ValueError):
    pass


def cobs_decode(data: bytes) -> bytes:
    out = bytearray()
    position, end = 0, len(data)
    while position < end:
        code = data[position]
        block_end = position + code
        if code == 0 or block_end > end:
            raise CobsError(f"COBS block at byte {position} claims {code - 1} bytes, {end - position - 1} left")
        out += data[position + 1:block_end]
        position = block_end
        if code != 0xFF and position < end:
            out.append(0)
    return bytes(out)


class FrameType(enum.IntEnum):
    # MCU -> host
    HELLO = 0x01
    SNAPSHOT = 0x02
    HEARTBEAT = 0x03
    ACK = 0x04
    SELF_TEST_REPORT = 0x05
    # host -> MCU
    REQUEST_HELLO = 0x41
    REQUEST_SNAPSHOT = 0x42
    CONFIGURE = 0x43
    SELF_TEST = 0x44
    MAINTENANCE = 0x45   # restart into maintenance: main.py stays stopped, no watchdog (hardware/README.md)


class HelloReason(enum.IntEnum):
    BOOT = 0        # sent unprompted after every reset
    REQUESTED = 1   # the answer to REQUEST_HELLO


class AckStatus(enum.IntEnum):
    OK = 0
    BAD_ARGUMENT = 1   # a value out of the documented range; nothing was changed
    UNSUPPORTED = 2    # a command type this firmware does not know
    BAD_PAYLOAD = 3    # the payload has the wrong length for its type


class SelfTestFailure(enum.IntEnum):
    NO_RESPONSE = 1    # the channel's ADC or its multiplexer does not answer
    NOT_READY = 2      # the ADC answers but produced no conversion in time
    OUT_OF_RANGE = 3   # a reading no load on the cell can explain (broken or overloaded cell)


class PayloadError(ValueError):
    """A frame whose CRC is right but whose payload does not fit its type."""


@dataclass(frozen=True, slots=True)
class Hello:
    TYPE: ClassVar[FrameType] = FrameType.HELLO
    _LAYOUT: ClassVar[struct.Struct] = struct.Struct(">BBBB8sHBBBBHH")
    seq: int
    protocol_version: int
    firmware_version: tuple[int, int, int]
    board_id: bytes
    boot_nonce: int
    reason: HelloReason
    channels: int
    scan_hz: int
    debounce_scans: int
    snapshot_interval_ms: int
    heartbeat_ms: int

    def payload(self) -> bytes:
        return self._LAYOUT.pack(self.protocol_version, *self.firmware_version, self.board_id,
                                 self.boot_nonce, self.reason, self.channels, self.scan_hz,
                                 self.debounce_scans, self.snapshot_interval_ms, self.heartbeat_ms)

    @classmethod
    def from_payload(cls, seq: int, payload: bytes) -> Hello:
        fields = _unpack(cls._LAYOUT, payload, "hello")
        try:
            reason = HelloReason(fields[6])
        except ValueError:
            raise PayloadError(f"hello reason {fields[6]} is not one of {[r.value for r in HelloReason]}") from None
        return cls(seq, fields[0], tuple(fields[1:4]), fields[4], fields[5], reason, *fields[7:])

    @property
    def firmware(self) -> str:
        return ".".join(map(str, self.firmware_version))

    @property
    def board_id_hex(self) -> str:
        return self.board_id.hex()


@dataclass(frozen=True, slots=True)
class Snapshot:
    """Every channel's debounced (white, black) count, as the MCU saw them at `mcu_time_ms`; None for a
    channel that gives no reading (broken, unplugged, uncalibrated)."""

    TYPE: ClassVar[FrameType] = FrameType.SNAPSHOT
    seq: int
    mcu_time_ms: int          # the MCU's millisecond clock modulo 65536
    counts: tuple[tuple[int, int] | None, ...]

    def payload(self) -> bytes:
        for counts in self.counts:
            if counts is not None and not (all(0 <= n <= MAX_CHANNEL_COUNT for n in counts) and counts != (15, 15)):
                raise ValueError(f"channel counts must be 0..{MAX_CHANNEL_COUNT} and not both 15, got {counts}")
        return struct.pack(">H", self.mcu_time_ms) + bytes(
            UNREADABLE if counts is None else counts[0] << 4 | counts[1] for counts in self.counts)

    @classmethod
    def from_payload(cls, seq: int, payload: bytes) -> Snapshot:
        if len(payload) < 2:
            raise PayloadError(f"snapshot payload of {len(payload)} bytes has no timestamp")
        (mcu_time_ms,) = struct.unpack_from(">H", payload)
        return cls(seq, mcu_time_ms, tuple(None if byte == UNREADABLE else (byte >> 4, byte & 0x0F)
                                           for byte in payload[2:]))


@dataclass(frozen=True, slots=True)
class Heartbeat:
    TYPE: ClassVar[FrameType] = FrameType.HEARTBEAT
    _LAYOUT: ClassVar[struct.Struct] = struct.Struct(">HB")
    seq: int
    mcu_time_ms: int
    rx_errors: int            # corrupt command frames the MCU has seen since boot (saturates at 255)

    def payload(self) -> bytes:
        return self._LAYOUT.pack(self.mcu_time_ms, self.rx_errors)

    @classmethod
    def from_payload(cls, seq: int, payload: bytes) -> Heartbeat:
        return cls(seq, *_unpack(cls._LAYOUT, payload, "heartbeat"))


@dataclass(frozen=True, slots=True)
class Ack:
    TYPE: ClassVar[FrameType] = FrameType.ACK
    _LAYOUT: ClassVar[struct.Struct] = struct.Struct(">BBB")
    seq: int
    command_seq: int
    command_type: int
    status: AckStatus

    def payload(self) -> bytes:
        return self._LAYOUT.pack(self.command_seq, self.command_type, self.status)

    @classmethod
    def from_payload(cls, seq: int, payload: bytes) -> Ack:
        command_seq, command_type, status = _unpack(cls._LAYOUT, payload, "ack")
        try:
            return cls(seq, command_seq, command_type, AckStatus(status))
        except ValueError:
            raise PayloadError(f"ack status {status} is not one of {[s.value for s in AckStatus]}") from None


@dataclass(frozen=True, slots=True)
class SelfTestReport:
    TYPE: ClassVar[FrameType] = FrameType.SELF_TEST_REPORT
    seq: int
    failures: tuple[tuple[int, SelfTestFailure], ...]   # (channel, what failed); empty: all passed

    def payload(self) -> bytes:
        return bytes(byte for channel, failure in self.failures for byte in (channel, failure))

    @classmethod
    def from_payload(cls, seq: int, payload: bytes) -> SelfTestReport:
        if len(payload) % 2:
            raise PayloadError(f"self-test report payload of {len(payload)} bytes is not (channel, code) pairs")
        try:
            failures = tuple((payload[i], SelfTestFailure(payload[i + 1])) for i in range(0, len(payload), 2))
        except ValueError as error:
            raise PayloadError(f"self-test report: {error}") from None
        return cls(seq, failures)


@dataclass(frozen=True, slots=True)
class Configure:
    TYPE: ClassVar[FrameType] = FrameType.CONFIGURE
    _LAYOUT: ClassVar[struct.Struct] = struct.Struct(">BBHH")
    seq: int
    scan_hz: int
    debounce_scans: int
    snapshot_interval_ms: int   # a full snapshot at least this often; 0: only on change
    heartbeat_ms: int           # a heartbeat when nothing else was sent for this long

    def payload(self) -> bytes:
        return self._LAYOUT.pack(self.scan_hz, self.debounce_scans, self.snapshot_interval_ms, self.heartbeat_ms)

    @classmethod
    def from_payload(cls, seq: int, payload: bytes) -> Configure:
        return cls(seq, *_unpack(cls._LAYOUT, payload, "configure"))


@dataclass(frozen=True, slots=True)
class _EmptyCommand:
    seq: int

    def payload(self) -> bytes:
        return b""

    @classmethod
    def from_payload(cls, seq: int, payload: bytes):
        if payload:
            raise PayloadError(f"{cls.__name__} takes no payload, got {len(payload)} bytes")
        return cls(seq)


@dataclass(frozen=True, slots=True)
class RequestHello(_EmptyCommand):
    TYPE: ClassVar[FrameType] = FrameType.REQUEST_HELLO


@dataclass(frozen=True, slots=True)
class RequestSnapshot(_EmptyCommand):
    TYPE: ClassVar[FrameType] = FrameType.REQUEST_SNAPSHOT


@dataclass(frozen=True, slots=True)
class SelfTest(_EmptyCommand):
    TYPE: ClassVar[FrameType] = FrameType.SELF_TEST


@dataclass(frozen=True, slots=True)
class Maintenance(_EmptyCommand):
    TYPE: ClassVar[FrameType] = FrameType.MAINTENANCE


Frame = Union[Hello, Snapshot, Heartbeat, Ack, SelfTestReport, RequestHello, RequestSnapshot, Configure, SelfTest,
              Maintenance]
Command = Union[RequestHello, RequestSnapshot, Configure, SelfTest, Maintenance]
FRAME_CLASSES: dict[int, type] = {cls.TYPE: cls for cls in (
    Hello, Snapshot, Heartbeat, Ack, SelfTestReport, RequestHello, RequestSnapshot, Configure, SelfTest,
    Maintenance)}


def _unpack(layout: struct.Struct, payload: bytes, name: str) -> tuple:
    if len(payload) != layout.size:
        raise PayloadError(f"{name} payload must be {layout.size} bytes, got {len(payload)}")
    return layout.unpack(payload)


def encode_body(frame: Frame) -> bytes:
    payload = frame.payload()
    if len(payload) > MAX_PAYLOAD:
        raise ValueError(f"payload of {len(payload)} bytes exceeds {MAX_PAYLOAD}")
    head = bytes((frame.TYPE, frame.seq & 0xFF, len(payload))) + payload
    return head + crc16(head).to_bytes(2, "big")


def encode(frame: Frame) -> bytes:
    """One frame as it goes on the wire, with its trailing delimiter."""
    return cobs_encode(encode_body(frame)) + DELIMITER


class ErrorKind(enum.Enum):
    COBS = "cobs"                  # bad byte stuffing: a lost or inserted byte, or garbage
    SHORT = "short"                # fewer bytes than a header and a CRC
    LENGTH = "length"              # the length field disagrees with the bytes received
    CRC = "crc"                    # a corrupted byte
    OVERLONG = "overlong"          # more bytes than any frame without a delimiter: garbage
    UNKNOWN_TYPE = "unknown-type"  # intact, but of a type this side does not know (a newer peer)
    PAYLOAD = "payload"            # intact, but its payload does not fit its type


@dataclass(frozen=True, slots=True)
class DecodeError:
    kind: ErrorKind
    detail: str


@dataclass
class DecoderCounters:
    frames: int = 0
    bytes_received: int = 0
    errors: dict[ErrorKind, int] = field(default_factory=lambda: {kind: 0 for kind in ErrorKind})

    @property
    def total_errors(self) -> int:
        return sum(self.errors.values())


def decode_body(body: bytes) -> Frame:
    """One unstuffed body -> its frame; raises `_BodyError` naming the defect."""
    if len(body) < HEADER_SIZE + CRC_SIZE:
        raise _BodyError(ErrorKind.SHORT, f"{len(body)} bytes, a frame has at least {HEADER_SIZE + CRC_SIZE}")
    frame_type, seq, length = body[0], body[1], body[2]
    if length != len(body) - HEADER_SIZE - CRC_SIZE:
        raise _BodyError(ErrorKind.LENGTH, f"length field {length}, payload has {len(body) - HEADER_SIZE - CRC_SIZE}")
    expected = crc16(body[:-CRC_SIZE])
    received = int.from_bytes(body[-CRC_SIZE:], "big")
    if expected != received:
        raise _BodyError(ErrorKind.CRC, f"CRC {received:04x}, computed {expected:04x}")
    cls = FRAME_CLASSES.get(frame_type)
    if cls is None:
        raise _BodyError(ErrorKind.UNKNOWN_TYPE, f"frame type 0x{frame_type:02x}")
    try:
        return cls.from_payload(seq, body[HEADER_SIZE:-CRC_SIZE])
    except PayloadError as error:
        raise _BodyError(ErrorKind.PAYLOAD, str(error)) from None


class _BodyError(Exception):
    def __init__(self, kind: ErrorKind, detail: str) -> None:
        super().__init__(detail)
        self.kind = kind
        self.detail = detail


class FrameDecoder:
    """Bytes in any split -> frames and errors, in order; counts both. Never raises on input bytes."""

    def __init__(self) -> None:
        self.counters = DecoderCounters()
        self._pending = b""
        self._skipping_overlong = False

    def feed(self, data: bytes) -> list[Frame | DecodeError]:
        self.counters.bytes_received += len(data)
        *chunks, self._pending = (self._pending + data).split(DELIMITER)
        results: list[Frame | DecodeError] = []
        for chunk in chunks:
            if self._skipping_overlong:
                # The tail of garbage already reported as overlong: it ends at this delimiter.
                self._skipping_overlong = False
            elif chunk:
                results.append(self._decode_chunk(chunk))
        if len(self._pending) > MAX_ENCODED_FRAME:
            if not self._skipping_overlong:
                results.append(self._error(ErrorKind.OVERLONG, f"over {MAX_ENCODED_FRAME} bytes without a delimiter"))
            self._skipping_overlong = True
            self._pending = b""
        return results

    def reset(self) -> None:
        """Forget a partial frame (the port was reopened); counters are kept."""
        self._pending = b""
        self._skipping_overlong = False

    def _decode_chunk(self, chunk: bytes) -> Frame | DecodeError:
        try:
            frame = decode_body(cobs_decode(chunk))
        except CobsError as error:
            return self._error(ErrorKind.COBS, str(error))
        except _BodyError as error:
            return self._error(error.kind, error.detail)
        self.counters.frames += 1
        return frame

    def _error(self, kind: ErrorKind, detail: str) -> DecodeError:
        self.counters.errors[kind] += 1
        return DecodeError(kind, detail)
