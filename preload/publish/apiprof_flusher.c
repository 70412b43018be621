/* SPDX-License-Identifier: MIT */
/*
 * apiprof_flusher.c - the flusher thread: its loop, its commands, its
 * stack, starting and stopping it.
 *
 * Flushing is done by one helper thread every APIPROF_INTERVAL_MS while a
 * reader watches (apiprof_abi.h), not by the profiled threads themselves:
 * a thread that makes its calls and then waits (in a lock, in poll, in
 * sleep) would otherwise never publish its last numbers, and the hot path
 * would need an interval check.  With no reader it waits in the kernel.
 * The helper blocks every signal, so it never takes one of the program's,
 * and it marks itself busy, so whatever it calls passes through the shims
 * uncounted.  Threads still write their own final snapshot when they exit,
 * and the process writes everything once more at exit.
 *
 * The helper is told what to do through one word, flusher_cmd, without a
 * signal: it stops for a call the kernel allows only in a single-threaded
 * process (apiprof_ns.c) and is started again after it, and it finishes
 * the image for a program thread that takes a fatal signal
 * (apiprof_signal.c), on its own large stack.
 */
#include <errno.h>
#include <link.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "apiprof_ctl.h"
#include "apiprof_flush.h"
#include "apiprof_internal.h"

/* What the flusher is told by the runtime itself, in flusher_cmd (a
 * private futex word): not the readers' control block (apiprof_ctl.h
 * says why), which shares only the wake. */
enum {
	FL_RUN,      /* flush while a reader watches */
	FL_STOP,     /* asked to exit (apiprof_flusher_stop) */
	FL_EXITING,  /* took the stop request: it is on its way out */
	FL_FINISH,   /* asked to finish the image (a fatal signal) */
	FL_FINISHED, /* did so */
};
static uint32_t flusher_cmd;
static pid_t flusher_pid;    /* the process it runs in; not that one: none */
static pthread_t flusher_id; /* valid while flusher_pid is our pid */
static uint32_t flusher_tid; /* its kernel tid, stored by itself */

static long futex(uint32_t *word, int op, uint32_t val, const struct timespec *rel)
{
	return syscall(SYS_futex, word, op, val, rel, NULL, 0);
}

/* Waits while *word == val, at most ns, in the kernel's own clock (a
 * relative timeout: a preloaded clock faker cannot stretch it). */
static void futex_wait_ns(uint32_t *word, uint32_t val, uint64_t ns)
{
	struct timespec rel = {(time_t)(ns / 1000000000u), (long)(ns % 1000000000u)};

	futex(word, FUTEX_WAIT_PRIVATE, val, &rel);
}

static uint32_t cmd_load(void)
{
	return apiprof_load_seq_cst(&flusher_cmd);
}

static bool cmd_change(uint32_t from, uint32_t to)
{
	return apiprof_cas_seq_cst(&flusher_cmd, &from, to);
}

static void cmd_set(uint32_t to)
{
	apiprof_store_seq_cst(&flusher_cmd, to);
	futex(&flusher_cmd, FUTEX_WAKE_PRIVATE, INT32_MAX, NULL);
}

/* Wakes the flusher wherever it waits.  Changing the control block's req
 * (as a reader does) makes a wait that read it before the new command
 * return at once; one that reads it after sees the command
 * (wait_for_reader).  Async-signal-safe. */
static void flusher_wake(struct apiprof_shm_header *h)
{
	futex(&flusher_cmd, FUTEX_WAKE_PRIVATE, INT32_MAX, NULL);
	if (h != NULL)
		apiprof_ctl_kick(&h->ctl);
}

/* Sleeps in the kernel until a reader looks: a program nobody watches has
 * no thread waking up in it, which would cost it a context switch and
 * cache misses every interval.  The order that lets neither side miss the
 * other is apiprof_ctl.h's. */
static void wait_for_reader(struct apiprof_shm_header *h)
{
	uint32_t req = apiprof_ctl_req(&h->ctl);

	apiprof_ctl_idle_enter(&h->ctl);
	if (!reader_watching(h) && !apiprof_ctl_asked(&h->ctl) && cmd_load() == FL_RUN)
		apiprof_ctl_wait(&h->ctl, req, NULL);
	apiprof_ctl_idle_leave(&h->ctl);
}

/* Sleeps one interval, or less when told something: a command wakes the
 * control block's req too (flusher_wake), and so does a reader's request
 * (apiprof_ctl.h); `served` is the request taken last. */
static void interval_sleep(struct apiprof_shm_header *h, uint32_t served)
{
	uint64_t ns = (uint64_t)apiprof_cfg.interval_ms * 1000000u;
	struct timespec rel = {(time_t)(ns / 1000000000u), (long)(ns % 1000000000u)};

	if (cmd_load() == FL_RUN)
		apiprof_ctl_wait(&h->ctl, served, &rel);
}

/* False when the flusher is to exit now.  A request to finish the image
 * is done here; the process is then dying, so the flusher parks. */
static bool flusher_go_on(void)
{
	for (;;) {
		uint32_t cmd = cmd_load();

		if (cmd == FL_RUN)
			return true;
		if (cmd == FL_STOP && cmd_change(FL_STOP, FL_EXITING)) {
			/* the stopper waits for this change (cmd_wait) */
			futex(&flusher_cmd, FUTEX_WAKE_PRIVATE, INT32_MAX, NULL);
			return false;
		}
		if (cmd == FL_FINISH) {
			apiprof_finish(APIPROF_END_EXIT);
			cmd_set(FL_FINISHED);
		}
		if (cmd == FL_FINISHED)
			futex(&flusher_cmd, FUTEX_WAIT_PRIVATE, FL_FINISHED, NULL);
	}
}

/* A flush every interval while a reader watches; a keyframe at once when
 * one wakes this thread, and every APIPROF_KEYFRAME-th flush after. */
static void *flusher_main(void *arg)
{
	struct apiprof_shm_header *h = arg;
	uint32_t n = 0, served = apiprof_ctl_done(&h->ctl);

	apiprof_busy_enter(); /* for good: this thread is all runtime */
	apiprof_write_once(&flusher_tid, apiprof_gettid());
	pthread_setname_np(pthread_self(), "apiprof-flush");
	while (flusher_go_on()) {
		bool woken = !reader_watching(h);

		if (woken)
			wait_for_reader(h);
		else
			interval_sleep(h, served);
		if (!flusher_go_on())
			break;
		apiprof_segment_ring_reserve(); /* does its work at the first reader only */
		apiprof_loaded_check();
		/* a reader's request (its first look): a keyframe now */
		uint32_t asked = apiprof_ctl_req(&h->ctl);
		bool full = (asked != served && ctl_keyframe(h)) || woken;
		n = full ? 0 : n + 1;
		flush_all(full || n % apiprof_cfg.keyframe == 0 ? FLUSH_KEYFRAME
		                                                : FLUSH_INCREMENTAL,
		          true);
		/* the value read, not done: a reader's late pwrite may put
		 * req back, which must not make every pass a keyframe; and a
		 * request taken, whatever it asked, is not taken again */
		served = asked;
	}
	return NULL;
}

/* The flusher's stack is this library's own .bss, not a mapping of its
 * own.  A thread whose stack glibc maps adds two mappings to the process
 * (the stack and its guard page), and the kernel's tree of mappings
 * changes shape with their number: in a program that shrinks and regrows
 * its heap every few calls (CPython compressing with zlib), that was
 * enough to send every brk() down the maple tree's dearer spanning-store
 * path (see the README's benchmark).  Untouched .bss costs no memory.
 * glibc puts the thread's static TLS at the top of the buffer, so a
 * program whose static TLS would leave less than FLUSHER_ROOM of it (one
 * under a sanitizer, whose runtime keeps most of a megabyte of TLS per
 * thread) gets a stack of glibc's instead, of the default size (the stack
 * rlimit); glibc's EINVAL for a buffer too small is the last resort.  One
 * flusher runs per process (the constructor's, or a fork child's, where
 * the parent's does not exist), so the buffer is never shared.  There is
 * no guard page: the flusher's deepest path, a warning formatted on the
 * stack, needs a few kB. */
#define FLUSHER_ROOM (64u * 1024u)
static char flusher_stack[APIPROF_FLUSHER_STACK] __attribute__((aligned(4096)));

static int tls_add(struct dl_phdr_info *info, size_t size, void *sum)
{
	(void)size;
	for (unsigned i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_TLS)
			*(size_t *)sum += info->dlpi_phdr[i].p_memsz + info->dlpi_phdr[i].p_align;
	return 0;
}

/* Whether the buffer has room for the flusher beside the static TLS of
 * every object loaded now (more than glibc reserves, never less).  Taken
 * once, in the constructor: a fork child reuses the answer instead of
 * walking the loader's list from an atfork handler. */
static bool own_stack_fits(void)
{
	static int fits = -1;
	size_t tls = 0;

	if (fits < 0) {
		dl_iterate_phdr(tls_add, &tls);
		fits = tls + FLUSHER_ROOM <= sizeof(flusher_stack);
	}
	return fits;
}

/* Joinable: stopping it waits for its end (apiprof_flusher_stop). */
static int flusher_create(void *seg, bool own_stack)
{
	pthread_attr_t attr;

	pthread_attr_init(&attr);
	if (own_stack)
		pthread_attr_setstack(&attr, flusher_stack, sizeof(flusher_stack));
	int err = pthread_create(&flusher_id, &attr, flusher_main, seg);
	pthread_attr_destroy(&attr);
	if (err == 0)
		return 0;
	errno = err;
	return -1;
}

/* Starts the flusher, unless this process has one: from the constructor,
 * in a fork child (whose flusher_pid is the parent's), and again after a
 * call that needed the process to itself. */
void apiprof_flusher_start(void)
{
	sigset_t all, old;
	int saved = errno;

	if (apiprof_cfg.interval_ms == 0 || apiprof_segment() == NULL ||
	    apiprof_load_acquire(&flusher_pid) == getpid())
		return;
	apiprof_store_seq_cst(&flusher_cmd, FL_RUN);
	sigfillset(&all);
	/* The new thread inherits this mask: it can never take a signal. */
	pthread_sigmask(SIG_SETMASK, &all, &old);
	bool own = own_stack_fits();
	int rc = own ? flusher_create(apiprof_segment(), true) : -1;
	if (rc != 0 && (!own || errno == EINVAL)) /* static TLS too large for the buffer */
		rc = flusher_create(apiprof_segment(), false);
	int err = errno;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0)
		apiprof_warn("cannot start the flusher thread (%s): live numbers only at exit",
		             strerror(err));
	else
		apiprof_store_release(&flusher_pid, getpid());
	errno = saved;
}

/* In a fork child: the parent's flusher is not there (the child may even
 * have the parent's pid, in a new pid namespace). */
void apiprof_flusher_forget(void)
{
	apiprof_store_release(&flusher_pid, 0);
}

/* True while this process has a flusher that takes requests. */
bool apiprof_flusher_running(void)
{
	return apiprof_load_acquire(&flusher_pid) == getpid() && cmd_load() == FL_RUN;
}

/* How long a request waits for the flusher: it answers within one flush,
 * so these bounds are only reached if something is badly wrong. */
#define STOP_WAIT_NS   2000000000ull
#define FINISH_WAIT_NS 5000000000ull
#define WAIT_SLICE_NS  100000000ull

/* Waits, at most ns, while flusher_cmd is still `cmd`. */
static void cmd_wait(uint32_t cmd, uint64_t ns)
{
	for (uint64_t t = 0; t < ns && cmd_load() == cmd; t += WAIT_SLICE_NS)
		futex_wait_ns(&flusher_cmd, cmd, WAIT_SLICE_NS);
}

/* pthread_join returns once the thread has left user space (its tid word
 * is cleared), but the kernel counts it in the thread group a little
 * longer, and unshare(CLONE_NEWUSER) would still see two threads.  It is
 * gone from the group when tgkill no longer finds it. */
static void wait_gone(pid_t tid)
{
	uint32_t never = 0;

	for (unsigned i = 0; i < 1000 && syscall(SYS_tgkill, getpid(), tid, 0) == 0; i++)
		if (i < 100)
			sched_yield();
		else
			futex_wait_ns(&never, 0, 1000000u); /* 1 ms */
}

/* Ends the flusher thread, so that the process has only the program's
 * threads for a call that requires it (apiprof_ns.c).  True when it did:
 * the caller starts it again with apiprof_flusher_start.  A request the
 * flusher does not take in time is withdrawn (false). */
bool apiprof_flusher_stop(void)
{
	int saved = errno;

	if (apiprof_load_acquire(&flusher_pid) != getpid() || !cmd_change(FL_RUN, FL_STOP))
		return false;
	flusher_wake(apiprof_segment());
	cmd_wait(FL_STOP, STOP_WAIT_NS);
	if (cmd_change(FL_STOP, FL_RUN)) {
		errno = saved;
		return false;
	}
	pthread_join(flusher_id, NULL); /* it is on its way out */
	pid_t tid = (pid_t)apiprof_read_once(&flusher_tid);
	apiprof_store_release(&flusher_pid, 0);
	wait_gone(tid);
	errno = saved;
	return true;
}

/* From a signal handler: has the flusher finish the image, and waits for
 * it (bounded).  False when there is no flusher to ask.  Async-signal-
 * safe: atomics and futex calls only. */
bool apiprof_flusher_finish(void)
{
	if (apiprof_load_acquire(&flusher_pid) != getpid() || !cmd_change(FL_RUN, FL_FINISH))
		return false;
	flusher_wake(apiprof_segment());
	cmd_wait(FL_FINISH, FINISH_WAIT_NS);
	return true;
}
