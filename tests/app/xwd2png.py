#!/usr/bin/env python3
# An X window dump (xwd -root: ZPixmap, TrueColor, 24 or 32 bits a pixel) to an RGB PNG, with nothing but the
# standard library: the first-use run's screenshots, on a machine without ImageMagick.
# Usage: xwd2png.py IN.xwd OUT.png — prints how many distinct colours the picture has (a blank window has few).
import struct
import sys
import zlib


def convert(data):
    header = struct.unpack('>25I', data[:100])
    header_size, width, height = header[0], header[4], header[5]
    byte_order, bits_per_pixel, bytes_per_line = header[7], header[11], header[12]
    red, green, blue = header[14], header[15], header[16]
    colours = header[19]
    if bits_per_pixel not in (24, 32):
        sys.exit(f'xwd2png: {bits_per_pixel} bits a pixel: only 24 and 32 are read')
    pixels = data[header_size + 12 * colours:]
    shift = lambda mask: (mask & -mask).bit_length() - 1
    rs, gs, bs = shift(red), shift(green), shift(blue)
    step, order = bits_per_pixel // 8, 'little' if byte_order == 0 else 'big'
    rows, seen = [], set()
    for y in range(height):
        line = pixels[y * bytes_per_line:y * bytes_per_line + width * step]
        row = bytearray(b'\0')  # filter: none
        for x in range(0, width * step, step):
            v = int.from_bytes(line[x:x + step], order)
            row += bytes(((v & red) >> rs, (v & green) >> gs, (v & blue) >> bs))
        rows.append(bytes(row))
        seen.update(bytes(row[1 + i:4 + i]) for i in range(0, len(row) - 1, 3 * 7))  # every seventh pixel
    chunk = lambda kind, body: struct.pack('>I', len(body)) + kind + body + struct.pack('>I', zlib.crc32(kind + body) & 0xffffffff)
    return len(seen), (b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', width, height, 8, 2, 0, 0, 0)) +
            chunk(b'IDAT', zlib.compress(b''.join(rows), 6)) + chunk(b'IEND', b''))


if __name__ == '__main__':
    with open(sys.argv[1], 'rb') as f:
        colours, png = convert(f.read())
    with open(sys.argv[2], 'wb') as f:
        f.write(png)
    print(colours)
