#!/usr/bin/env python3
"""An independent PNG reader/writer (stdlib zlib only) for the Provisioning tests.

read FILE           -> checks signature, every chunk CRC, IHDR, inflates IDAT, undoes the five
                       filters (ISO/IEC 15948 §9) and Adam7; prints "W H" then writes an 8-bit
                       gray PGM (P5) of the image to stdout after the first line.
write MODE IN.pgm OUT.png [--interlace]
                    -> writes IN.pgm as a PNG in MODE: gray1 gray8 gray16 rgb8 rgb16 rgba8
                       palette (8-bit indexed) graya8, optionally Adam7-interlaced.
"""
import struct
import sys
import zlib

SIG = b"\x89PNG\r\n\x1a\n"
ADAM7 = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]


def read_pgm(path):
    data = open(path, "rb").read()
    parts = data.split(maxsplit=4)
    assert parts[0] == b"P5"
    w, h, maxval = int(parts[1]), int(parts[2]), int(parts[3])
    assert maxval == 255
    pix = parts[4] if len(parts[4]) == w * h else data[-w * h:]
    return w, h, pix


def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def unfilter(raw, width_bytes, height, bpp):
    out = bytearray()
    prev = bytearray(width_bytes)
    i = 0
    for _ in range(height):
        ft = raw[i]
        line = bytearray(raw[i + 1:i + 1 + width_bytes])
        i += 1 + width_bytes
        for x in range(width_bytes):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if ft == 1:
                line[x] = (line[x] + a) & 255
            elif ft == 2:
                line[x] = (line[x] + b) & 255
            elif ft == 3:
                line[x] = (line[x] + ((a + b) >> 1)) & 255
            elif ft == 4:
                line[x] = (line[x] + paeth(a, b, c)) & 255
            elif ft != 0:
                raise ValueError("bad filter type %d" % ft)
        out += line
        prev = line
    return out, i


def read_png(path):
    data = open(path, "rb").read()
    if data[:8] != SIG:
        raise ValueError("bad signature")
    pos, idat, ihdr, palette = 8, b"", None, None
    while pos < len(data):
        length, ctype = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        crc = struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])[0]
        if zlib.crc32(ctype + body) & 0xFFFFFFFF != crc:
            raise ValueError("bad CRC in %s" % ctype)
        if ctype == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif ctype == b"PLTE":
            palette = body
        elif ctype == b"IDAT":
            idat += body
        elif ctype == b"IEND":
            break
        pos += 12 + length
    w, h, depth, ctype, _, _, interlace = ihdr
    channels = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[ctype]
    bits = depth * channels
    raw = zlib.decompress(idat)
    gray = bytearray(w * h)
    passes = ADAM7 if interlace else [(0, 0, 1, 1)]
    offset = 0
    for x0, y0, dx, dy in passes:
        pw, ph = (w - x0 + dx - 1) // dx, (h - y0 + dy - 1) // dy
        if pw == 0 or ph == 0:
            continue
        wb = (pw * bits + 7) // 8
        rows, used = unfilter(raw[offset:], wb, ph, max(1, bits // 8))
        offset += used
        for py in range(ph):
            row = rows[py * wb:(py + 1) * wb]
            for px in range(pw):
                if bits < 8:
                    v = (row[px * bits // 8] >> (8 - bits - (px * bits) % 8)) & ((1 << bits) - 1)
                    samples = [v]
                else:
                    step = depth // 8
                    samples = [row[(px * channels + k) * step] for k in range(channels)]
                if ctype == 3:
                    r, g, b = palette[3 * samples[0]:3 * samples[0] + 3]
                    level = (299 * r + 587 * g + 114 * b) // 1000
                elif ctype == 0:
                    level = samples[0] * 255 // ((1 << depth) - 1) if depth < 8 else samples[0]
                elif ctype in (2, 6):
                    r, g, b = samples[:3]
                    level = (299 * r + 587 * g + 114 * b) // 1000
                else:
                    level = samples[0]
                gray[(y0 + py * dy) * w + x0 + px * dx] = level
    return w, h, bytes(gray)


def chunk(ctype, body):
    return struct.pack(">I", len(body)) + ctype + body + struct.pack(">I", zlib.crc32(ctype + body) & 0xFFFFFFFF)


def write_png(mode, w, h, pix, out, interlace):
    def sample_row(y, xs):
        row = bytearray()
        if mode == "gray1":
            acc, n = 0, 0
            for x in xs:
                acc = (acc << 1) | (1 if pix[y * w + x] >= 128 else 0)
                n += 1
                if n == 8:
                    row.append(acc)
                    acc, n = 0, 0
            if n:
                row.append(acc << (8 - n))
            return row
        for x in xs:
            v = pix[y * w + x]
            if mode == "gray8" or mode == "palette":
                row.append(v if mode == "gray8" else (1 if v >= 128 else 0))
            elif mode == "gray16":
                row += bytes([v, v])
            elif mode == "rgb8":
                row += bytes([v, v, v])
            elif mode == "rgb16":
                row += bytes([v, 0, v, 0, v, 0])
            elif mode == "rgba8":  # light pixels fully transparent: must composite on white
                row += bytes([v, v, v, 0 if v >= 128 else 255])
            elif mode == "graya8":
                row += bytes([v, 255])
        return row

    depth, ctype = {"gray1": (1, 0), "gray8": (8, 0), "gray16": (16, 0), "rgb8": (8, 2), "rgb16": (16, 2),
                    "rgba8": (8, 6), "palette": (8, 3), "graya8": (8, 4)}[mode]
    raw = bytearray()
    passes = ADAM7 if interlace else [(0, 0, 1, 1)]
    for x0, y0, dx, dy in passes:
        xs = list(range(x0, w, dx))
        if not xs:
            continue
        for y in range(y0, h, dy):
            raw.append(0)
            raw += sample_row(y, xs)
    data = SIG + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, depth, ctype, 0, 0, 1 if interlace else 0))
    if mode == "palette":
        data += chunk(b"PLTE", bytes([20, 30, 40, 250, 250, 250]))
    data += chunk(b"IDAT", zlib.compress(bytes(raw), 9)) + chunk(b"IEND", b"")
    open(out, "wb").write(data)


if __name__ == "__main__":
    if sys.argv[1] == "read":
        try:
            w, h, gray = read_png(sys.argv[2])
        except Exception as e:  # one line on stderr, exit 1
            sys.stderr.write("png_tool: %s\n" % e)
            sys.exit(1)
        sys.stdout.buffer.write(b"%d %d\n" % (w, h) + b"P5\n%d %d\n255\n" % (w, h) + gray)
    elif sys.argv[1] == "write":
        w, h, pix = read_pgm(sys.argv[3])
        write_png(sys.argv[2], w, h, pix, sys.argv[4], "--interlace" in sys.argv)
