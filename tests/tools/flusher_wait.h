/* SPDX-License-Identifier: MIT */
/*
 * flusher_wait.h - for test programs that fork: wait until the runtime's
 * flusher thread has started.
 *
 * A fork while another thread is inside the allocator leaves the child's
 * copy of the allocator's lock held.  glibc's malloc resets its locks in
 * the child; GCC 12's AddressSanitizer allocator does not, and its thread
 * start allocates.  A program that forks while its flusher is still
 * starting (right after the constructor) gets children whose own flusher
 * blocks on that lock for ever in the sanitizer build: apiprof-top never
 * sees them.  Real servers fork long after start-up.
 */
#ifndef FLUSHER_WAIT_H
#define FLUSHER_WAIT_H

/* Returns once a thread of this process is called apiprof-flush, or after
 * a bounded number of tries (a runtime without a flusher names none). */
void flusher_wait(void);

#endif
