#!/usr/bin/env python3
"""Checks that a screenshot is not blank: decodes the PNG (8-bit RGB/RGBA, non-interlaced, as
stb_image_write writes it) with zlib and counts distinct colours and pixels that differ from
the most common (background) colour.

usage: check_png.py IMAGE.png [--min-colors N] [--min-foreground FRACTION] [--size WxH]
"""
import argparse
import struct
import sys
import zlib
from collections import Counter


def decode(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"{path}: not a PNG")
    pos, idat, header = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
    width, height, depth, color, _, _, interlace = header
    if depth != 8 or color not in (2, 6) or interlace:
        raise ValueError(f"{path}: unsupported PNG (depth {depth}, colour type {color})")
    bpp = 3 if color == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows, prev = [], bytearray(stride)
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, bpp, rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("image")
    ap.add_argument("--min-colors", type=int, default=24)
    ap.add_argument("--min-foreground", type=float, default=0.04)
    ap.add_argument("--size")
    args = ap.parse_args()
    width, height, bpp, rows = decode(args.image)
    counts = Counter()
    for row in rows[::2]:  # every other row: plenty, and twice as fast
        for x in range(0, width * bpp, bpp):
            counts[row[x:x + 3]] += 1
    total = sum(counts.values())
    background, bg_count = counts.most_common(1)[0]
    foreground = 1 - bg_count / total
    print(f"{args.image}: {width}x{height}, {len(counts)} colours, "
          f"{100 * foreground:.1f}% non-background (background #{background.hex()})")
    ok = True
    if args.size and f"{width}x{height}" != args.size:
        print(f"  expected size {args.size}")
        ok = False
    if len(counts) < args.min_colors:
        print(f"  blank? fewer than {args.min_colors} colours")
        ok = False
    if foreground < args.min_foreground:
        print(f"  blank? less than {100 * args.min_foreground:.0f}% non-background pixels")
        ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
