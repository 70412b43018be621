# zlib_threads.py THREADS ROUNDS [SCALE]
#
# Each thread compresses and decompresses a buffer ROUNDS times, and takes
# its crc32 and adler32.  Thread n's buffer is (n+1)*SCALE KiB, so threads
# spend visibly different amounts of time in zlib.  Per round and thread,
# CPython 3.11 makes exactly one call each of deflateInit2_, deflate,
# deflateEnd, inflateInit2_, inflate, inflateEnd, crc32 and adler32 as long
# as the data fits its 16 KiB output buffers (SCALE <= 4 with 3 threads).
import sys
import threading
import zlib

threads = int(sys.argv[1])
rounds = int(sys.argv[2])
scale = int(sys.argv[3]) if len(sys.argv) > 3 else 1


def work(n):
    data = bytes((i * 7 + n) & 0xFF for i in range(1024)) * ((n + 1) * scale)
    for _ in range(rounds):
        packed = zlib.compress(data, 6)
        if zlib.decompress(packed) != data:
            raise SystemExit("round trip failed")
        zlib.crc32(data)
        zlib.adler32(data)


workers = [threading.Thread(target=work, args=(n,)) for n in range(threads)]
for w in workers:
    w.start()
for w in workers:
    w.join()
print("zlib_threads: %d threads x %d rounds done" % (threads, rounds))
