/* SPDX-License-Identifier: MIT */
/*
 * ctl.h - apiprof-ctl: steers a running profiled process through its
 * segment's control block (common/abi/apiprof_ctl.h).
 *
 *   ctl_main.c  the command line, the messages, the exit status
 *   ctl_find.c  the segments of a pid, or of every process named comm
 *   ctl_send.c  one request to one segment: owner, lock, post, answer
 */
#ifndef CTL_H
#define CTL_H

#include <stddef.h>
#include <stdint.h>

#include "apiprof_ctl.h"
#include "apiprof_segname.h"

/* The exit status (apiprof-ctl --help lists them). */
enum ctl_status {
	CTL_OK = 0,       /* every process answered "done" */
	CTL_REFUSED = 1,  /* a process answered, and refused or failed */
	CTL_USAGE = 2,    /* the command line */
	CTL_NOPROC = 3,   /* no such process, or not profiled */
	CTL_DENIED = 4,   /* the process is another user's */
	CTL_NOANSWER = 5, /* no answer within the timeout */
	CTL_BUSY = 6,     /* another controller is steering it now */
};

/* A segment found: its name in the directory, and the process. */
struct ctl_target {
	char name[APIPROF_SEGNAME_MAX];
	int pid;
};

/* The segments in dir of process pid (comm NULL), or of every process
 * whose name is comm (pid 0), at most cap; how many.  -1 when dir cannot
 * be read (errno). */
int ctl_find(const char *dir, int pid, const char *comm, struct ctl_target *out, size_t cap);

/* Sends r to the segment named t->name in dir and waits at most
 * timeout_ms for its answer; prints one line (stdout when done, stderr
 * otherwise) and returns the status. */
enum ctl_status ctl_send(const char *dir, const struct ctl_target *t,
                         const struct apiprof_ctl_request *r, uint64_t timeout_ms);

#endif /* CTL_H */
