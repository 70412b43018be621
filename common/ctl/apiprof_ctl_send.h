/* SPDX-License-Identifier: MIT */
/*
 * apiprof_ctl_send.h - a steering request sent to a running process, the
 * way apiprof-ctl and apiprof-top's keys send it: the requester's side of
 * apiprof_ctl.h, with the files around it.
 *
 *   apiprof_ctl_find.c  the segments of a pid, or of every process named comm
 *   apiprof_ctl_send.c  one request to one segment: owner, lock, post, answer
 */
#ifndef APIPROF_CTL_SEND_H
#define APIPROF_CTL_SEND_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "apiprof_ctl.h"
#include "apiprof_segname.h"

/* How a request went (apiprof-ctl's exit status: its --help lists them). */
enum apiprof_send_status {
	APIPROF_SEND_OK = 0,        /* the process answered "done" */
	APIPROF_SEND_REFUSED = 1,   /* it answered, and refused or failed */
	APIPROF_SEND_USAGE = 2,     /* (apiprof-ctl's command line) */
	APIPROF_SEND_NOPROC = 3,    /* no such process, or not profiled */
	APIPROF_SEND_DENIED = 4,    /* the process is another user's */
	APIPROF_SEND_NOANSWER = 5,  /* no answer within the timeout */
	APIPROF_SEND_BUSY = 6,      /* another controller is steering it now */
	APIPROF_SEND_ASLEEP = 7,    /* a dormant process woken: it starts at its next call */
	APIPROF_SEND_STARTED = 100, /* (apiprof_wake: started already; not an exit status) */
};

/* A segment found: its name in the directory, and the process. */
struct apiprof_ctl_target {
	char name[APIPROF_SEGNAME_MAX];
	int pid;
};

/* The segments in dir of process pid (comm NULL), or of every process
 * whose name is comm (pid 0), at most cap; how many.  -1 when dir cannot
 * be read (errno). */
int apiprof_ctl_find(const char *dir, int pid, const char *comm, struct apiprof_ctl_target *out,
                     size_t cap);

/* Sends r to the segment named t->name in dir and waits at most
 * timeout_ms for its answer; one line in msg says what was done or why
 * not ("pid 12: reset (1 so far)"). */
/* One line for the user about process pid, "pid N: " then fmt, in msg
 * (cap bytes, cut if longer): apiprof-ctl's sending and waking say it so. */
void apiprof_ctl_vsay(char *msg, size_t cap, int pid, const char *fmt, va_list ap)
        __attribute__((format(printf, 4, 0)));

enum apiprof_send_status apiprof_ctl_send(const char *dir, const struct apiprof_ctl_target *t,
                                          const struct apiprof_ctl_request *r, uint64_t timeout_ms,
                                          char *msg, size_t cap);

#endif /* APIPROF_CTL_SEND_H */
