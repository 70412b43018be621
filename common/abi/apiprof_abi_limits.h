/* SPDX-License-Identifier: MIT */
/*
 * apiprof_abi_limits.h - the fixed sizes of the shared-memory ABI that the
 * segment's header and function table (apiprof_abi.h) and the ring's
 * records (apiprof_abi_rec.h) both use: names, histograms, errno slots.
 */
#ifndef APIPROF_ABI_LIMITS_H
#define APIPROF_ABI_LIMITS_H

#include <stdint.h>

/* Bucket b counts the durations d (in ticks) with floor(log2(d|1)) == b. */
#define APIPROF_HIST_BUCKETS 64
#define APIPROF_NAME_MAX     64 /* function and api names, NUL-padded */
#define APIPROF_API_NAME_MAX 32
#define APIPROF_COMM_MAX     16 /* thread and process names, as in /proc/<pid>/comm */

/* Bucket b of a size histogram counts the sizes n (bytes) with
 * floor(log2(n|1)) == b; the last bucket also counts every larger one. */
#define APIPROF_SIZE_BUCKETS 40
/* The errno values of failed calls are counted in slots: slot s > 0 counts
 * errno apiprof_errno_values[s] (Linux numbers), slot 0 every other.  The
 * one list of them, X(NAME, Linux number) in slot order from 1: the
 * readers' table below and the shims' switch (apiprof_errno_slot) are both
 * made from it, and apiprof_shim.h asserts each number against <errno.h>. */
#define APIPROF_ERRNO_LIST(X)                                                                      \
	X(EPERM, 1)                                                                                \
	X(ENOENT, 2)                                                                               \
	X(EINTR, 4)                                                                                \
	X(EIO, 5)                                                                                  \
	X(EBADF, 9)                                                                                \
	X(EAGAIN, 11)                                                                              \
	X(ENOMEM, 12)                                                                              \
	X(EACCES, 13)                                                                              \
	X(EEXIST, 17)                                                                              \
	X(ENOTDIR, 20)                                                                             \
	X(EISDIR, 21)                                                                              \
	X(EINVAL, 22)                                                                              \
	X(EMFILE, 24)                                                                              \
	X(ENOSPC, 28)                                                                              \
	X(ESPIPE, 29)                                                                              \
	X(EPIPE, 32)                                                                               \
	X(ENOSYS, 38)                                                                              \
	X(EADDRINUSE, 98)                                                                          \
	X(ECONNRESET, 104)                                                                         \
	X(ENOTCONN, 107)                                                                           \
	X(ETIMEDOUT, 110)                                                                          \
	X(ECONNREFUSED, 111)                                                                       \
	X(EINPROGRESS, 115)

/* Slot numbers by name (APIPROF_ERRNO_SLOT_EPERM is 1), and their count. */
#define APIPROF_ERRNO_ENUM(name, linux_no) APIPROF_ERRNO_SLOT_##name,
enum { APIPROF_ERRNO_SLOT_OTHER, APIPROF_ERRNO_LIST(APIPROF_ERRNO_ENUM) APIPROF_ERRNO_SLOTS };
#undef APIPROF_ERRNO_ENUM

#define APIPROF_ERRNO_VALUE(name, linux_no) linux_no,
__attribute__((unused)) static const uint16_t apiprof_errno_values[APIPROF_ERRNO_SLOTS] = {
        0, APIPROF_ERRNO_LIST(APIPROF_ERRNO_VALUE)};
#undef APIPROF_ERRNO_VALUE
_Static_assert(APIPROF_ERRNO_SLOTS == 24, "a record's errno counts are 24 slots");

#endif /* APIPROF_ABI_LIMITS_H */
