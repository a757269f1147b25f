"""CRC-32 of byte arrays, table-driven, in a Python loop over the bytes."""
import numpy as np

SIZES = {"small": dict(n=200, blocks=2), "full": dict(n=32000, blocks=8)}


def crc_table():
    t = np.arange(256, dtype=np.uint32)
    for _ in range(8):
        t = np.where(t & 1, (t >> 1) ^ np.uint32(0xEDB88320), t >> 1)
    return t


def main(n=6400, blocks=4):
    table = crc_table()
    out = []
    for k in range(blocks):
        data = ((np.arange(n) * (31 + k)) % 251).astype(np.uint8)
        crc = np.uint32(0xFFFFFFFF)
        for byte in data:
            crc = table[(crc ^ byte) & 0xFF] ^ (crc >> 8)
        out.append(int(crc ^ np.uint32(0xFFFFFFFF)))
    return np.array(out, dtype=np.int64)


if __name__ == "__main__":
    print(main())
