/* SPDX-License-Identifier: MIT */
/* apiprof_life.h - the life room's declarations (start, settings, clock,
 * memory, the thread block, the busy guard); part of apiprof_internal.h. */
#ifndef APIPROF_LIFE_H
#define APIPROF_LIFE_H

#include <stdbool.h>
#include <stddef.h>
#include <signal.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#include "apiprof_ringbuf.h"
#include "apiprof_atomic.h"
#include "apiprof_shim.h"

#define APIPROF_HIDDEN __attribute__((visibility("hidden")))

/* --- configuration (apiprof_env.c) ------------------------------------ */
struct apiprof_config {
	uint32_t interval_ms; /* APIPROF_INTERVAL_MS, 0 = no flusher thread */
	uint32_t keyframe;    /* APIPROF_KEYFRAME: a full snapshot every N flushes */
	uint32_t ring_order;  /* log2 of APIPROF_RING_RECORDS */
	uint32_t func_cap;    /* APIPROF_MAX_FUNCS */
	uint32_t keep_exited; /* APIPROF_KEEP_EXITED: exited threads kept one by one */
	int clock;            /* APIPROF_CLOCK: enum apiprof_clock, 0 = automatic */
	uint32_t sample;      /* APIPROF_SAMPLE: time about one call in N (0, 1: all) */
	uint32_t node_cap;    /* APIPROF_MAX_NODES: the call tree's nodes per thread */
	bool summary;         /* APIPROF_SUMMARY=1 */
	bool shm;             /* APIPROF_SHM=0 turns the live segment off */
	bool keep_shm;        /* APIPROF_KEEP_SHM=1: do not unlink at exit */
	bool quiet;           /* APIPROF_QUIET=1 (apiprof-run -q): no hints, no notes */
	uint32_t hints_pid;   /* APIPROF_HINTS_PID: who speaks for the run (0: each) */
	char output[4096];    /* APIPROF_OUTPUT, "" = none */
};
APIPROF_HIDDEN extern struct apiprof_config apiprof_cfg;
APIPROF_HIDDEN void apiprof_env_load(struct apiprof_config *cfg);
APIPROF_HIDDEN void apiprof_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The program's stderr as it was at start-up, kept on a private duplicate:
 * warnings and the summary go there only (apiprof_env.c). */
APIPROF_HIDDEN void apiprof_err_init(void);
APIPROF_HIDDEN int apiprof_err_write(const void *buf, size_t len);

/* --- clock (apiprof_clock.c) ------------------------------------------ */
APIPROF_HIDDEN extern int apiprof_clock_tsc;   /* 1: rdtsc, 0: CLOCK_MONOTONIC */
APIPROF_HIDDEN extern uint32_t apiprof_sample; /* 0, or time one call in N */
APIPROF_HIDDEN extern uint32_t apiprof_timing; /* APIPROF_MODE_*, copied to each thread */

/* Whether some calls were counted and not timed (sampled or count mode,
 * ever: the sample bit of apiprof_timing is kept once set), so that a
 * function's time is estimated from its timed calls (ticks x calls /
 * timed) and the outputs say "estimated". */
static inline bool apiprof_estimating(void)
{
	return (__atomic_load_n(&apiprof_timing, __ATOMIC_RELAXED) & APIPROF_MODE_SAMPLE) != 0;
}

/* A timestamp for the runtime's own use, in the process's clock. */
static inline uint64_t apiprof_now(void)
{
	return apiprof_clock_tsc ? __rdtsc() : apiprof_clock_mono();
}

APIPROF_HIDDEN void apiprof_clock_init(int wanted);
APIPROF_HIDDEN uint64_t apiprof_clock_hz(void);
APIPROF_HIDDEN uint64_t apiprof_clock_tick0(void);
APIPROF_HIDDEN uint64_t apiprof_clock_mono0(void);
APIPROF_HIDDEN double apiprof_ticks_to_ns(uint64_t ticks);

/* --- memory (apiprof_arena.c): lock-free, zeroed, never freed --------- */
APIPROF_HIDDEN void *apiprof_arena_alloc(size_t size);

/* --- per-thread state (apiprof_tls.c) --------------------------------- */
/* A thread's block: the hot state first, then the runtime's own.  Aligned
 * to a cache line, so that the hot state's first line is one line (see
 * struct apiprof_tls); the whole block is 1024 bytes, which still fits the
 * surplus glibc keeps for libapiprof-tls.so's initial-exec copy. */
struct apiprof_tls_block {
	struct apiprof_tls hot;
	struct apiprof_thread *self; /* NULL, the thread's entry, or retired */
} __attribute__((aligned(64)));
_Static_assert(offsetof(struct apiprof_tls, api[3]) == 64, "apis 1 and 2 share the first line");
_Static_assert(sizeof(struct apiprof_tls_block) == 1024, "the block stays 1024 bytes");

APIPROF_HIDDEN extern int apiprof_tls_state;     /* 0 undecided, 1 usable, -1 none */
APIPROF_HIDDEN extern intptr_t apiprof_tls_off;  /* of every thread's block from its %fs */
APIPROF_HIDDEN bool apiprof_tls_use_own(void);   /* from start(): no lock, no allocation */
APIPROF_HIDDEN bool apiprof_tls_use_spare(void); /* from the constructor: dlopen()s */

/* The thread pointer: the x86-64 TLS ABI keeps its own value at %fs:0. */
static inline char *apiprof_tp(void)
{
	char *p;

	__asm__("mov %%fs:0, %0" : "=r"(p));
	return p;
}

/* True once the per-thread state has a home; nothing touches it before.
 * Not instrumented by ASan: it is the first thing the hooks ask, and ASan's
 * own start-up calls dlsym (apiprof_dl.c) before its shadow memory exists. */
__attribute__((no_sanitize_address)) static inline bool apiprof_tls_ok(void)
{
	return apiprof_load_acquire(&apiprof_tls_state) > 0;
}

/* The calling thread's block; only when apiprof_tls_ok(). */
static inline struct apiprof_tls_block *apiprof_tls_block(void)
{
	return (struct apiprof_tls_block *)(apiprof_tp() + apiprof_tls_off);
}

static inline struct apiprof_tls *apiprof_tls_self(void)
{
	return &apiprof_tls_block()->hot;
}

/* --- lifecycle (apiprof_init.c) --------------------------------------- */
APIPROF_HIDDEN bool apiprof_ready_slow(void);
APIPROF_HIDDEN extern int apiprof_init_done;

/* True once the runtime has started; unlike apiprof_ready, never starts
 * it.  Pairs with the release store at the end of start-up. */
static inline bool apiprof_started(void)
{
	return apiprof_load_acquire(&apiprof_init_done) != 0;
}

/* True once the runtime has started, starting it if no thread is
 * (apiprof_ready_slow): a started runtime is told here, inline, so that a
 * thread's first call does not leave the statistics for it. */
static inline bool apiprof_ready(void)
{
	return apiprof_started() || apiprof_ready_slow();
}
/* --- attach (apiprof_attach.c): a process apiprof-run -p joined ---------- */
/* True once an attach has begun: real functions are then looked up in the
 * process's global scope (apiprof_attach_next), not with RTLD_NEXT. */
APIPROF_HIDDEN bool apiprof_attach_active(void);
APIPROF_HIDDEN void *apiprof_attach_next(const char *symbol, const char *version);

/* Dormant (apiprof_dormant.c): APIPROF_MODE=off at start. */
APIPROF_HIDDEN bool apiprof_dormant_wanted(void);  /* APIPROF_MODE is "off" */
APIPROF_HIDDEN void apiprof_dormant_sleep(void);   /* apiprof_dormant says asleep */
APIPROF_HIDDEN bool apiprof_dormant_asleep(void);  /* and no waker has started it */
APIPROF_HIDDEN bool apiprof_wake_start(void);      /* apiprof_init.c: the start, once */
APIPROF_HIDDEN void apiprof_dormant_started(void); /* the apis kept, then the mode */
/* A registration while asleep: api kept (its gate off); false when not
 * asleep (any more): register it as usual. */
APIPROF_HIDDEN bool apiprof_dormant_keep(struct apiprof_api *api);
/* A call that found api's gate APIPROF_GATE_WAKE (apiprof_slow.c): starts
 * the runtime if asleep (not from a signal handler's alternate stack), or
 * puts the gate of a started runtime back.  True once started. */
APIPROF_HIDDEN bool apiprof_dormant_wake(struct apiprof_api *api);
/* The program's own wake (apiprof_control_mode): the mode word, then
 * every gate.  0, or -1 when not asleep. */
APIPROF_HIDDEN int apiprof_dormant_request(uint64_t word);
enum apiprof_end { APIPROF_END_EXIT, APIPROF_END_EXEC };
APIPROF_HIDDEN uint64_t apiprof_finish(enum apiprof_end how);
/* The thread whose exit() (the runtime's destructor) ends the image, 0
 * if none: its exit JSON may load libdw to name call sites
 * (apiprof_addr.c); another thread's end at the same time (a signal,
 * _exit) may not. */
APIPROF_HIDDEN extern uint32_t apiprof_end_by_exit;
APIPROF_HIDDEN void apiprof_resume(uint64_t busy);

/* The calling thread's id (inline: a thread's first call names it). */
static inline uint32_t apiprof_gettid(void)
{
	return (uint32_t)syscall(SYS_gettid);
}

/* --- held signals (the kernel's mask, beside the busy guard below) ---- */
/* Blocks every signal but a fault's and glibc's own on this thread while
 * the runtime starts (returns the mask to restore), so that a handler's
 * calls never find start-up's busy guard: they come after.  Inline, as
 * the busy guard is: a thread's first call holds them.
 *
 * Signals are held back while the runtime starts, registers an api, or
 * starts on a thread (its first call of an api), on a program's thread: a
 * handler that interrupted the start-up would find the runtime busy
 * there, and its calls would go uncounted.  Held, a signal is delivered
 * the moment start-up ends, to the same handler, with the program's mask
 * restored, so the program cannot tell.  Not held: the signals of a
 * fault (the kernel kills a thread that faults with them blocked) and
 * glibc's internal two (setxid would wait on this thread).  The kernel's
 * sets, 8 bytes on the stack, not sigset_t's 128. */
#define APIPROF_SIG_BIT(sig) (1ull << ((sig)-1))
#define APIPROF_SIG_NOT_HELD                                                                       \
	(APIPROF_SIG_BIT(SIGSEGV) | APIPROF_SIG_BIT(SIGBUS) | APIPROF_SIG_BIT(SIGILL) |            \
	 APIPROF_SIG_BIT(SIGFPE) | APIPROF_SIG_BIT(SIGTRAP) | APIPROF_SIG_BIT(SIGSYS) |            \
	 APIPROF_SIG_BIT(32) | APIPROF_SIG_BIT(33))

static inline uint64_t apiprof_signal_hold(void)
{
	const uint64_t held = ~(uint64_t)APIPROF_SIG_NOT_HELD;
	uint64_t old = 0;

	syscall(SYS_rt_sigprocmask, SIG_BLOCK, &held, &old, sizeof(old));
	return old;
}

static inline void apiprof_signal_release(uint64_t old)
{
	syscall(SYS_rt_sigprocmask, SIG_SETMASK, &old, NULL, sizeof(old));
}

/* Marks this thread as running runtime code, so that whatever the runtime
 * calls (malloc, write, mmap ...) passes straight through any shim.  Nests:
 * leave() restores what enter() found. */
static inline uint64_t apiprof_busy_enter(void)
{
	if (!apiprof_tls_ok())
		return APIPROF_GUARD_BUSY; /* nothing is counted anyway */
	struct apiprof_tls *t = apiprof_tls_self();
	uint64_t old = t->guard & APIPROF_GUARD_BUSY;
	t->guard |= APIPROF_GUARD_BUSY;
	return old;
}

static inline void apiprof_busy_leave(uint64_t old)
{
	if (!old)
		apiprof_tls_self()->guard &= ~APIPROF_GUARD_BUSY;
}

/* True when this thread's calls are not the program's to count. */
static inline bool apiprof_busy(void)
{
	return !apiprof_tls_ok() || (apiprof_tls_self()->guard & APIPROF_GUARD_BUSY);
}

#endif /* APIPROF_LIFE_H */
