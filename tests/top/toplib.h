/* SPDX-License-Identifier: MIT */
/* toplib.h - a tiny library for apiprof-top's end-to-end tests.  It knows
 * nothing of apiprof. */
#ifndef TOPLIB_H
#define TOPLIB_H

int tt_work(int n); /* a little arithmetic, so that calls take some time */
void tt_idle(void);
int tt_wait(int fd); /* reads one byte from fd: blocks until it comes */

#endif /* TOPLIB_H */
