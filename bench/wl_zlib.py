# wl_zlib.py ROUNDS - the zlib workload of bench/run.sh.
#
# Compresses and decompresses 4 KiB and 64 KiB blocks of mildly
# compressible data and checksums them: per round CPython 3.11 calls
# deflateInit2_, deflate, deflateEnd, inflateInit2_, inflate, inflateEnd
# and crc32 once per block, so the calls are many and short, which is the
# hard case for a profiler's overhead.
import sys
import zlib

rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
seed = bytes((i * 7 + (i >> 5) * 13) & 0xFF for i in range(4096))
small = seed
large = seed * 16
total = 0
for r in range(rounds):
    for block in (small, small, small, large if r % 8 == 0 else small):
        packed = zlib.compress(block, 6)
        total += len(zlib.decompress(packed))
        total ^= zlib.crc32(block)
print("wl_zlib: %d rounds, %d" % (rounds, total))
