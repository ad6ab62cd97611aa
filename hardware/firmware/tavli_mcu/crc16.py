"""CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF), table-driven.

MicroPython's binascii has crc32 but no crc_hqx; the host computes the same CRC with
binascii.crc_hqx(data, 0xFFFF), and its tests check that the two agree.
"""


def _make_table():
    table = []
    for byte in range(256):
        crc = byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else (crc << 1)
        table.append(crc & 0xFFFF)
    return table


_TABLE = _make_table()


def crc16(data, crc=0xFFFF):
    table = _TABLE
    for byte in data:
        crc = ((crc << 8) & 0xFFFF) ^ table[((crc >> 8) ^ byte) & 0xFF]
    return crc
