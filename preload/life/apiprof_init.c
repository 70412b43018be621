/* SPDX-License-Identifier: MIT */
/*
 * apiprof_init.c - the runtime's life: lazy start, fork, and process exit.
 *
 * The runtime may be needed before its constructor runs (another library's
 * constructor calling malloc, say), so it starts on first use from any
 * thread; the constructor only makes sure it has started and launches the
 * flusher thread, which is not safe to start from inside an arbitrary call.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "apiprof_internal.h"
#include "apiprof_steer_ctl.h"
#include "apiprof_steer.h"

/* INIT_DORMANT: APIPROF_MODE=off at start, until woken (apiprof_dormant.c). */
enum { INIT_NONE, INIT_RUNNING, INIT_DONE, INIT_DORMANT };
static int init_state;
int apiprof_init_done; /* init_state is INIT_DONE, for apiprof_started */
static pid_t self_pid; /* tells a vfork child, which runs no atfork handler */

/* In a fork child only the forking thread exists, and the child's numbers
 * are its own.  One reset per concept, the numbers before what shows them:
 * the end of the image (not ended here), the thread registry (ours zeroed,
 * the others free), the apis' totals, then the child's own segment, and
 * last the flusher, the only writer of that segment's ring. */
static void after_fork_child(void)
{
	uint64_t busy = apiprof_busy_enter();

	self_pid = getpid();
	apiprof_end_after_fork();
	apiprof_thread_after_fork();
	apiprof_api_after_fork();
	apiprof_steer_after_fork();
	apiprof_steer_modes_after_fork();
	apiprof_segment_after_fork();
	apiprof_loaded_forked(false);
	apiprof_flusher_forget();
	apiprof_flusher_start();
	apiprof_busy_leave(busy);
}

/* A process that forks is quiet about libraries never loaded: its
 * children are what the spec is for (apiprof_loaded.c). */
static void after_fork_parent(void)
{
	apiprof_loaded_forked(true);
}

/* What needs the per-thread state: from start() when the runtime's own
 * block is static, else from the constructor once it found another. */
static void start_profiling(void)
{
	uint64_t busy = apiprof_busy_enter();

	apiprof_thread_init();
	apiprof_segment_open();
	pthread_atfork(NULL, after_fork_parent, after_fork_child);
	apiprof_busy_leave(busy);
}

static void start(void)
{
	self_pid = getpid();
	apiprof_env_load(&apiprof_cfg);
	apiprof_clock_init(apiprof_cfg.clock);
	apiprof_timing = apiprof_clock_tsc ? 0 : APIPROF_MODE_MONOTONIC;
	apiprof_steer_start(apiprof_cfg.sample); /* apiprof_sample, its bit */
	if (apiprof_tls_use_own())
		start_profiling();
}

/* True once the runtime has started (apiprof_ready, inline, tells that
 * first).  A call that arrives while another thread (or this one,
 * recursively) is starting it is simply not counted. */
bool apiprof_ready_slow(void)
{
	int st = apiprof_load_acquire(&init_state);

	if (st == INIT_DONE)
		return true;
	if (st != INIT_NONE || !apiprof_cas_acq_rel(&init_state, &st, INIT_RUNNING))
		return false;
	if (apiprof_dormant_wanted()) { /* the environment, and nothing else */
		apiprof_dormant_sleep();
		apiprof_store_release(&init_state, INIT_DORMANT);
		return false;
	}
	uint64_t held = apiprof_signal_hold();
	start();
	apiprof_store_release(&init_state, INIT_DONE);
	apiprof_store_release(&apiprof_init_done, 1);
	apiprof_signal_release(held);
	return true;
}

/* What the constructor does once the runtime has started. */
static void start_threads(void)
{
	uint64_t busy = apiprof_busy_enter();

	if (apiprof_tls_ok()) {
		apiprof_flusher_start();
		apiprof_signal_init();
		apiprof_hooks_init();
	}
	apiprof_busy_leave(busy);
}

/* A dormant runtime woken (apiprof_dormant.c), from a profiled call: the
 * start the constructor skipped, once, with signals held; then the apis
 * kept asleep and the mode the waker asked for.  A runtime without static
 * TLS of its own (dlopen()ed late) does not load the spare block here (a
 * dlopen from an arbitrary call could wait on the loader's lock): its
 * calls stay uncounted. */
bool apiprof_wake_start(void)
{
	int st = INIT_DORMANT;

	if (!apiprof_cas_acq_rel(&init_state, &st, INIT_RUNNING))
		return apiprof_started();
	uint64_t held = apiprof_signal_hold();
	start();
	apiprof_store_release(&init_state, INIT_DONE);
	apiprof_store_release(&apiprof_init_done, 1);
	start_threads();
	uint64_t busy = apiprof_busy_enter();
	apiprof_dormant_started();
	apiprof_busy_leave(busy);
	apiprof_signal_release(held);
	return true;
}

/* errno is saved: a program must find it as the loader left it in main.
 * A runtime without static TLS of its own was dlopen()ed late: the spare
 * block is loaded here, where the loader's lock is already ours (from a
 * call in another thread, a dlopen could wait on a thread that waits on
 * that one). */
__attribute__((constructor)) static void apiprof_ctor(void)
{
	int saved = errno;

	/* dormant (apiprof_dormant.c): not even the signals held */
	if (!apiprof_ready()) {
		errno = saved;
		return;
	}
	uint64_t held = apiprof_signal_hold();
	if (apiprof_load_acquire(&apiprof_tls_state) == 0 && apiprof_tls_use_spare())
		start_profiling();
	start_threads();
	apiprof_signal_release(held);
	errno = saved;
}

/* The end of this process image (exit, _exit, an exec, or a fatal signal):
 * the threads' names and the apis' libraries as they are now, one last
 * snapshot of everything, then the outputs, once (a signal may come while
 * another thread exits).  Not in a vfork child, which shares
 * the parent's memory and must not close the parent's segment.
 * Returns the busy state to hand to apiprof_resume() if the image goes on
 * (a failed exec). */
uint64_t apiprof_finish(enum apiprof_end how)
{
	/* A vfork child (an exec, or _exit): the parent, whose memory this is,
	 * has started another process, although no fork handler ran. */
	if (apiprof_load_acquire(&init_state) == INIT_DONE && getpid() != self_pid)
		apiprof_loaded_forked(true);
	if (apiprof_load_acquire(&init_state) != INIT_DONE || getpid() != self_pid ||
	    !apiprof_tls_ok() || !apiprof_end_claim())
		return APIPROF_GUARD_BUSY;
	uint64_t busy = apiprof_busy_enter();
	apiprof_thread_rename_all();
	apiprof_loaded_check();
	/* Left for a collector, even by an exec (the new image's start
	 * leaves it to the collector too): else removed, unless kept. */
	bool left = apiprof_flush_final();
	apiprof_segment_close(!left && (how == APIPROF_END_EXEC || !apiprof_cfg.keep_shm), left);
	if (apiprof_cfg.output[0])
		apiprof_output_json(apiprof_cfg.output, how == APIPROF_END_EXEC);
	if (apiprof_cfg.summary && how != APIPROF_END_EXEC)
		apiprof_output_summary();
	if (how == APIPROF_END_EXIT) /* an exec'd image may still load it */
		apiprof_loaded_warn();
	apiprof_end_done();
	return busy;
}

/* An exec failed: the image goes on, and so does profiling. */
void apiprof_resume(uint64_t busy)
{
	struct apiprof_shm_header *h = apiprof_segment();

	if (h != NULL) { /* no longer left for a collector (it may have taken it) */
		apiprof_and_fetch_relaxed(&h->flags, ~APIPROF_SHM_LEFT);
		apiprof_store_release(&h->state, APIPROF_PROC_RUNNING);
	}
	apiprof_end_reopen();
	apiprof_busy_leave(busy);
}

/* The thread keeps the busy bit: what later destructors call is not counted. */
uint32_t apiprof_end_by_exit;

__attribute__((destructor)) static void apiprof_dtor(void)
{
	if (apiprof_load_acquire(&init_state) != INIT_DONE) /* dormant: nothing recorded */
		return;
	apiprof_write_once(&apiprof_end_by_exit, apiprof_gettid());
	apiprof_finish(APIPROF_END_EXIT);
}
