/* SPDX-License-Identifier: MIT */
/*
 * apiprof_segname.h - the name of a process's shared-memory segment, in one
 * place: the runtime writes it, apiprof-top and the tests parse it.
 *
 *   apiprof-<uid>-<pid>-<starttime>-<pidns>-<nonce>
 *
 * uid        the user that created the segment (the file's owner may have
 *            changed since: a process that drops privileges hands its
 *            segment over to its new user, and keeps the name)
 * pid        in the process's own pid namespace
 * starttime  field 22 of /proc/self/stat (tells a reused pid apart)
 * pidns      the inode of /proc/self/ns/pid, 0 when it could not be read
 * nonce      64 random bits, 16 lower-case hex digits
 *
 * pid and pidns together name the process in every namespace, the nonce
 * makes the name unpredictable, so no one can take it beforehand.  The
 * header of the segment repeats pid, pidns and nonce; a reader checks them.
 *
 * Readers also accept the legacy three-field form of segment version 3
 * (apiprof-<uid>-<pid>-<starttime>), with pidns = nonce = 0 and legacy set,
 * so that an old runtime's segment is listed and refused by its version.
 */
#ifndef APIPROF_SEGNAME_H
#define APIPROF_SEGNAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define APIPROF_SEGNAME_MAX 96 /* with the NUL; the longest name is 78 bytes */

struct apiprof_segid {
	uint32_t uid;
	int32_t pid;
	uint64_t starttime;
	uint64_t pidns;
	uint64_t nonce;
	bool legacy; /* parsed from the three-field form */
};

/* The name, without a leading '/'; 0, or -1 when it does not fit. */
int apiprof_segname_format(char *buf, size_t len, const struct apiprof_segid *id);
/* Strictly: decimal fields without sign or leading zero, pid in
 * [1, INT32_MAX], the nonce exactly 16 lower-case hex digits.  0 or -1. */
int apiprof_segname_parse(const char *name, struct apiprof_segid *id);

#endif /* APIPROF_SEGNAME_H */
