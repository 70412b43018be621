# wl_malloc.py ROUNDS - the malloc workload of bench/run.sh.
#
# CPython serves objects up to 512 bytes from its own pools, so this
# allocates what it hands to the C allocator: byte buffers of 513 B to
# 8 KiB and lists past 64 elements (malloc, free), grown in steps
# (realloc), replacing older ones so that the heap stays a few MiB.
import sys

rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 200000
keep = [b""] * 256
acc = 0
for i in range(rounds):
    keep[i & 255] = bytearray(513 + (i * 97) % 7680)
    lst = list(range(64 + (i & 63)))
    lst.extend(lst)
    acc += len(keep[(i * 31) & 255]) + len(lst)
print("wl_malloc: %d rounds, %d" % (rounds, acc))
