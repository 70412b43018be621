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

/* The watching marker of uid's collectors (apiprof-top, any mode):
 * apiprof-watching-<uid>, in the same directory, owned by uid.  While a
 * collector holds a lock on it (apiprof_watch.h), a process of uid (or of
 * anyone, for root's) that ends leaves its segment with its final totals
 * (APIPROF_SHM_LEFT) for the collectors to take and remove.  Not a
 * segment name: apiprof_segname_parse refuses it.  0, or -1 when it does
 * not fit. */
#define APIPROF_WATCH_PREFIX "apiprof-watching-"
int apiprof_watchname_format(char *buf, size_t len, uint32_t uid);

/* The name, without a leading '/'; 0, or -1 when it does not fit. */
int apiprof_segname_format(char *buf, size_t len, const struct apiprof_segid *id);
/* Strictly: decimal fields without sign or leading zero, pid in
 * [1, INT32_MAX], the nonce exactly 16 lower-case hex digits.  0 or -1. */
int apiprof_segname_parse(const char *name, struct apiprof_segid *id);

/* The starttime field of process pid as procdir ("/proc") shows it: field
 * 22 of <procdir>/<pid>/stat, counted after the last ')' (the comm may
 * hold spaces and parentheses).  0, or -1 with errno (ENOENT: no such
 * process; EINVAL: not a stat file).  Read in small pieces, as the
 * runtime reads its own (apiprof_stat_starttime). */
int apiprof_proc_starttime(const char *procdir, int pid, uint64_t *st);

/* Field 22 of a stat file (the start time), counted after the last ')',
 * which ends the comm (a comm may hold spaces and parentheses).  The text
 * is scanned as it comes, in pieces of any size: feed them in order to a
 * zeroed struct; the value is good once apiprof_stat_scan_done says so
 * (field 22 reached, 1 to 19 digits and nothing else in it). */
struct apiprof_stat_scan {
	uint32_t field;  /* the field the scan is in; 0 before any ')' */
	uint32_t digits; /* of field 22 seen so far */
	bool bad;        /* field 22 is not a number */
	uint64_t value;
};
void apiprof_stat_scan_feed(struct apiprof_stat_scan *st, const char *p, size_t n);
bool apiprof_stat_scan_done(const struct apiprof_stat_scan *st);
/* The start time read from fd (at the start of a stat file) 128 bytes at a
 * time, for the runtime on a program's thread; 0 when it cannot be read. */
uint64_t apiprof_stat_starttime(int fd);

#endif /* APIPROF_SEGNAME_H */
