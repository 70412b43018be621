#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A decompression bomb: a copy of a small library whose .debug_info is a
zlib-compressed (SHF_COMPRESSED, ELFCOMPRESS_ZLIB) section of SIZE zero
bytes, a few hundred kB in the file.

    make_bomb.py OBJCOPY INPUT OUTPUT SIZE

The stream is made in pieces, never SIZE bytes at once; objcopy adds it
as a plain section, then its header gets SHF_COMPRESSED (objcopy has no
flag for that).  Only 64-bit little-endian ELF files.
"""
import os
import struct
import subprocess
import sys
import tempfile
import zlib

SHF_COMPRESSED = 0x800
ELFCOMPRESS_ZLIB = 1


def payload(size):
    z = zlib.compressobj(9)
    chunk = bytes(1 << 20)
    parts = [struct.pack("<IIQQ", ELFCOMPRESS_ZLIB, 0, size, 1)]
    left = size
    while left:
        n = min(left, len(chunk))
        parts.append(z.compress(chunk[:n]))
        left -= n
    parts.append(z.flush())
    return b"".join(parts)


def set_compressed(path, name):
    with open(path, "r+b") as f:
        elf = bytearray(f.read())
        if elf[:6] != b"\x7fELF\x02\x01":
            sys.exit("make_bomb: not a 64-bit little-endian ELF file")
        shoff, = struct.unpack_from("<Q", elf, 0x28)
        shentsize, shnum, shstrndx = struct.unpack_from("<HHH", elf, 0x3a)
        stroff, = struct.unpack_from("<Q", elf, shoff + shstrndx * shentsize + 0x18)
        for i in range(shnum):
            at = shoff + i * shentsize
            nameoff, = struct.unpack_from("<I", elf, at)
            start = stroff + nameoff
            if elf[start:elf.index(b"\0", start)] == name:
                flags, = struct.unpack_from("<Q", elf, at + 8)
                struct.pack_into("<Q", elf, at + 8, flags | SHF_COMPRESSED)
                f.seek(0)
                f.write(elf)
                return
    sys.exit("make_bomb: no section %s" % name.decode())


def main():
    objcopy, src, out, size = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    with tempfile.TemporaryDirectory() as tmp:
        data = os.path.join(tmp, "debug_info")
        with open(data, "wb") as f:
            f.write(payload(size))
        subprocess.run([objcopy, "--remove-section=.debug_*", src, out], check=True)
        subprocess.run([objcopy, "--add-section", ".debug_info=" + data, out], check=True)
    set_compressed(out, b".debug_info")


if __name__ == "__main__":
    main()
