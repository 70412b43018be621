/* SPDX-License-Identifier: MIT */
/*
 * apiprof_ctl.h - the control block (struct apiprof_shm_ctl in the
 * segment's header): how a reader steers the runtime of the process it
 * looks at, both halves side by side.  Readers: apiprof-top (top_shm.c);
 * the runtime: its flusher thread (preload/apiprof_flush.c).
 *
 *   reader                                  runtime (the flusher)
 *   apiprof_ctl_watch   until_ns = T         apiprof_ctl_watched: flush every
 *                                            interval while now < until_ns
 *   apiprof_ctl_post    cmd, then req + 1,   wakes (apiprof_ctl_wait), takes
 *                       FUTEX_WAKE req       the command (apiprof_ctl_cmd)
 *   apiprof_ctl_answered done reaches req?   does it; apiprof_ctl_answer:
 *                                            done = req (release), FUTEX_WAKE
 *
 * A reader says it watches by storing until_ns (CLOCK_MONOTONIC, when it
 * will have looked again), at every look.  It posts APIPROF_CTL_WATCH at
 * its first look (where the header's flags have APIPROF_SHM_FLUSH_ACK),
 * and at any look that finds the flusher idle: the flusher then writes a
 * keyframe at once and answers with done, as the end of the image's last
 * snapshot does too.  A reader that waits until done reaches its req has
 * every call made before its look.  A flusher with no reader watching
 * waits in the kernel on req: idle is stored before until_ns is checked
 * again, and a reader stores until_ns before it checks idle, so one of the
 * two sees the other (seq_cst on both sides; a reader's store is a
 * pwrite(2), a system call).  A wake between the flusher's load of req and
 * its wait makes the wait return at once.
 *
 * Commands are one row each of enum apiprof_ctl_cmd, and one case of the
 * runtime's dispatch (ctl_keyframe in apiprof_flush.c).  A value the
 * runtime does not know asks for nothing: no keyframe at once, and no
 * answer before the next keyframe the flusher writes anyway.  Requests of
 * two readers may overwrite each other's cmd; WATCH is the same whoever
 * asks, and a command for which that matters must confirm what was done
 * (issue 37's steering: room in arg, and an answer that names it).
 *
 * Everything here is untrusted on the runtime's side: any process of the
 * owner's uid may write the block.  The runtime never waits for a reader
 * and never uses a reader's word as an index or a size.
 *
 * Not in this dispatch: the runtime's own commands to its flusher (stop
 * for a call that needs a single-threaded process, finish the image from
 * a fatal signal: flusher_cmd in apiprof_flush.c).  They are private to
 * the process, trusted, async-signal-safe state changes with a
 * compare-and-swap handshake; a reader must never be able to stop or end
 * the flusher.  They share only the wake: apiprof_ctl_kick.
 */
#ifndef APIPROF_CTL_H
#define APIPROF_CTL_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "apiprof_abi.h"

/* The commands, in struct apiprof_shm_ctl cmd. */
enum apiprof_ctl_cmd {
	/* never posted: what the runtime makes of a value it does not know */
	APIPROF_CTL_NONE = 0,
	/* a keyframe now, answered in done; flushing goes on until until_ns */
	APIPROF_CTL_WATCH = 1,
};

/* --- the reader's half: fd is the segment opened read-write, c its
 * mapped block (read-only).  0, or -1 when a write fails. */

/* Says that this reader looks again before until_ns (CLOCK_MONOTONIC). */
int apiprof_ctl_watch(int fd, uint64_t until_ns);
/* Whether the flusher waits for a reader. */
bool apiprof_ctl_idle(const struct apiprof_shm_ctl *c);
/* Posts cmd and wakes the flusher; *req: the request's number, which
 * done reaches once it is answered. */
int apiprof_ctl_post(int fd, const struct apiprof_shm_ctl *c, enum apiprof_ctl_cmd cmd,
                     uint32_t *req);
/* The latest request answered (acquire: its answer is in the ring). */
uint32_t apiprof_ctl_done(const struct apiprof_shm_ctl *c);
/* Whether done has reached req (serial arithmetic). */
static inline bool apiprof_ctl_reached(uint32_t done, uint32_t req)
{
	return (int32_t)(done - req) >= 0;
}
/* Waits while done is still `seen`, at most rel. */
void apiprof_ctl_await(const struct apiprof_shm_ctl *c, uint32_t seen, const struct timespec *rel);

/* --- the runtime's half: c is its own segment's block. */

/* True while a reader has said it will look again. */
bool apiprof_ctl_watched(const struct apiprof_shm_ctl *c, uint64_t now_ns);
/* The latest request's number. */
uint32_t apiprof_ctl_req(const struct apiprof_shm_ctl *c);
/* The latest request's command; APIPROF_CTL_NONE for a value not known. */
enum apiprof_ctl_cmd apiprof_ctl_cmd(const struct apiprof_shm_ctl *c);
/* The flusher waits for a reader (idle_enter) or no longer (idle_leave). */
void apiprof_ctl_idle_enter(struct apiprof_shm_ctl *c);
void apiprof_ctl_idle_leave(struct apiprof_shm_ctl *c);
/* Waits while req is still `seen`: at most rel, or until woken (NULL). */
void apiprof_ctl_wait(struct apiprof_shm_ctl *c, uint32_t seen, const struct timespec *rel);
/* Wakes the flusher wherever it waits on req (the runtime's own wake,
 * for flusher_cmd).  Async-signal-safe. */
void apiprof_ctl_kick(struct apiprof_shm_ctl *c);
/* Answers the requests up to `asked`: done only moves forward, and the
 * flusher and the end of the image may both answer. */
void apiprof_ctl_answer(struct apiprof_shm_ctl *c, uint32_t asked);

#endif /* APIPROF_CTL_H */
