/* SPDX-License-Identifier: MIT */
/*
 * apiprof_ctl.h - the control block (struct apiprof_shm_ctl in the
 * segment's header): how a reader steers the runtime of the process it
 * looks at, both halves side by side.  Readers: apiprof-top (top_shm.c);
 * the runtime: its flusher thread (preload/publish/apiprof_flusher.c, apiprof_flush_ctl.c).
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
 * runtime's dispatch (WATCH: ctl_keyframe in apiprof_flush_ctl.c; the
 * steering commands: apiprof_steer_ctl.c).  WATCH comes in cmd, from any
 * number of readers at once: it is the same whoever asks, and a value the
 * runtime does not know there asks for nothing.
 *
 * Steering (issue 37): MODE, RESET, MARK, DUMP come as a request of their
 * own, with a numbered answer, one request at a time:
 *
 *   requester                               runtime (the flusher)
 *   apiprof_ctl_lock    OFD write lock on    -
 *                       the request's bytes
 *   apiprof_ctl_ask     ask_cmd, arg, text,  woken by req, sees ask_seq !=
 *                       then ask_seq = S,    ans_seq: apiprof_ctl_take
 *                       then req + 1, wake   copies the body (bounded,
 *                                            the text NUL-forced)
 *   apiprof_ctl_reply_of ans_seq == S?       applies it (the mode set, the
 *   (apiprof_ctl_await_reply: futex on       baseline taken, the mark
 *   ans_seq, with the requester's timeout)   stored, the dump written);
 *                                            apiprof_ctl_reply: ans_cmd,
 *                                            ans_result, ans_n, then
 *                                            ans_seq = S (release), wake
 *
 * The lock (F_OFD_SETLK on the segment's file, never waited for: a second
 * requester is told the process is being steered) keeps well-behaved
 * requesters from overwriting each other's body; the runtime never takes
 * it.  A request is taken once: the runtime takes a body only while
 * ask_seq differs from its own ans_seq, so neither its own wakes (which
 * move req) nor a reader's WATCH repeat one.  The answer names the
 * request (ans_seq) and echoes its command, so a requester knows which
 * request was done and how: a command the runtime does not know, or a
 * body that changed while it was copied, is answered at once with
 * APIPROF_CTL_REFUSED.  A process that never answers (stopped, exiting,
 * no flusher: APIPROF_INTERVAL_MS=0) leaves the requester to its timeout.
 *
 * MODE: arg is apiprof_mode_pack's word, text an api's name or "" (the
 * whole process); the runtime unpacks the word (apiprof_mode_unpack) and
 * looks the name up among its apis.  RESET: the process's "since reset"
 * totals start again at zero (the runtime keeps a baseline; the segment
 * says how many resets and when, in marks).  MARK: text is the label,
 * kept in the segment's marks (the newest APIPROF_MARKS) and the exit
 * JSON with the totals at that moment.  DUMP: the exit JSON now, to
 * APIPROF_OUTPUT with the suffix .dumpN (N in ans_n).
 *
 * Everything here is untrusted on the runtime's side: any process of the
 * owner's uid may write the block (the segment is 0600: no other uid can,
 * and only the owner or root opens it).  The runtime never waits for a
 * reader and never uses a reader's word as an index or a size: a hostile
 * writer can change the mode, reset, mark or dump, never crash the
 * program or corrupt what it counts.
 *
 * Not in this dispatch: the runtime's own commands to its flusher (stop
 * for a call that needs a single-threaded process, finish the image from
 * a fatal signal: flusher_cmd in apiprof_flusher.c).  They are private to
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
	/* steering requests (ask_cmd), answered in ans_* */
	APIPROF_CTL_MODE = 2,  /* arg: a mode's word; text: an api, or "" for all */
	APIPROF_CTL_RESET = 3, /* "since reset" starts again at zero */
	APIPROF_CTL_MARK = 4,  /* text: the label */
	APIPROF_CTL_DUMP = 5,  /* the exit JSON now, to APIPROF_OUTPUT.dumpN */
};

/* A steering request's result, in ans_result. */
enum apiprof_ctl_result {
	APIPROF_CTL_OK = 0,
	APIPROF_CTL_REFUSED = 1, /* a command not known, or a body torn while copied */
	APIPROF_CTL_BADMODE = 2, /* MODE: not a mode, or one the process cannot take */
	APIPROF_CTL_NOAPI = 3,   /* MODE: no api of that name */
	APIPROF_CTL_NOFILE = 4,  /* DUMP: no APIPROF_OUTPUT, or the file could not be written */
};
/* One sentence for a result ("refused: not a command this process knows"). */
const char *apiprof_ctl_result_text(int result);
/* The command's name ("mode"), "?" for a value that is none. */
const char *apiprof_ctl_cmd_name(uint32_t cmd);

/* A steering request as posted, and as the runtime took it. */
struct apiprof_ctl_request {
	uint32_t seq;
	uint32_t cmd; /* enum apiprof_ctl_cmd; the runtime's copy: NONE for a value not known */
	uint64_t arg;
	char text[APIPROF_CTL_TEXT_MAX]; /* NUL-terminated */
};
/* The runtime's answer to one request. */
struct apiprof_ctl_reply {
	uint32_t cmd;
	int32_t result; /* enum apiprof_ctl_result */
	uint32_t n;
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

/* Steering.  The lock on fd's segment for one request; -1 with errno
 * EAGAIN when another requester holds it.  Released by unlock or close. */
int apiprof_ctl_lock(int fd);
void apiprof_ctl_unlock(int fd);
/* Posts r (its seq is chosen here, into *seq) and wakes the flusher. */
int apiprof_ctl_ask(int fd, const struct apiprof_shm_ctl *c, const struct apiprof_ctl_request *r,
                    uint32_t *seq);
/* True once request seq is answered, with the answer in *a. */
bool apiprof_ctl_reply_of(const struct apiprof_shm_ctl *c, uint32_t seq,
                          struct apiprof_ctl_reply *a);
/* Waits for an answer to seq, at most until deadline_ns (CLOCK_MONOTONIC);
 * true when it came (*a filled). */
bool apiprof_ctl_await_reply(const struct apiprof_shm_ctl *c, uint32_t seq, uint64_t deadline_ns,
                             struct apiprof_ctl_reply *a);

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
/* True while a steering request waits for its answer: the flusher does
 * not go to sleep on req (read before this) with one pending. */
bool apiprof_ctl_asked(const struct apiprof_shm_ctl *c);
/* A steering request not yet answered, copied into *r (the text bounded
 * and NUL-forced, a command not known as NONE); false when there is none. */
bool apiprof_ctl_take(const struct apiprof_shm_ctl *c, struct apiprof_ctl_request *r);
/* Answers request r: the reply's words, then ans_seq (release), a wake. */
void apiprof_ctl_reply(struct apiprof_shm_ctl *c, const struct apiprof_ctl_request *r,
                       const struct apiprof_ctl_reply *a);

#endif /* APIPROF_CTL_H */
