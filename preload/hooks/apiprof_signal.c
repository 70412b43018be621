/* SPDX-License-Identifier: MIT */
/*
 * apiprof_signal.c - death by SIGTERM, SIGINT, SIGHUP or SIGQUIT.
 *
 * Servers are usually stopped by one of these at its default disposition:
 * the kernel ends the process on the spot, and APIPROF_OUTPUT would never
 * be written nor the segment removed.  So at start-up the runtime catches
 * each of the four that is at its default; one inherited as ignored
 * (nohup's SIGHUP) is left alone.  The handler finishes the image, puts
 * the default back and raises the signal again: the process dies of it as
 * it would have, with the same wait status (and SIGQUIT's core dump).
 *
 * The program must not notice.  sigaction() and the signal() family are
 * hooked (glibc's signal() calls its internal sigaction, not the PLT's):
 * a program that asks is shown the default as it was set, mask and flags;
 * one that installs a handler or SIG_IGN gets it; one that sets the
 * default again gets the runtime's handler again.  The program's signal
 * masks are never changed (start-up holds signals on its own thread for a
 * moment, apiprof_internal.h apiprof_signal_hold: no code of the program
 * runs meanwhile).
 * Like the exec hooks this works only when libapiprof.so is itself
 * preloaded (apiprof-run does so): the handler is installed only
 * when the program's calls reach these hooks.  glibc's internal callers
 * (system(), posix_spawn) save and restore whatever the kernel has, which
 * is right; a program that asks the kernel directly (a raw rt_sigaction,
 * /proc/PID/status) sees the handler.  Not in a pid 1, whose default
 * dispositions the kernel ignores: catching would change that.
 *
 * The handler does not write the outputs on the program's thread when it
 * can avoid it: it hands the work to the flusher thread (own stack, every
 * signal blocked) and waits for it, bounded.  Without a flusher
 * (APIPROF_INTERVAL_MS=0) it does the work itself, which is safe there:
 * the exit path takes no lock and allocates nothing.  A signal that lands
 * on a thread that is itself finishing the image (an exit in progress) is
 * held until that is done.
 */
#include <errno.h>
#include <linux/futex.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "apiprof_internal.h"

typedef void (*handler_fn)(int);
typedef int (*sigaction_fn)(int, const struct sigaction *, struct sigaction *);
typedef handler_fn (*signal_fn)(int, handler_fn);

static sigaction_fn real_sigaction;
static signal_fn real_signal, real_bsd_signal, real_ssignal, real_sysv_signal, real___sysv_signal,
        real_sigset;

/* --- the end of the image, once ---------------------------------------- */

#define END_DONE 0x80000000u
static uint32_t end_state; /* 0, the tid finishing the image, or that | END_DONE */
static int end_deferred;   /* a signal that came while its thread was finishing */
static pid_t own_pid;      /* this process's (a vfork child shares the memory) */

static void die_by(int sig);

bool apiprof_end_claim(void)
{
	uint32_t none = 0;

	return apiprof_cas_seq_cst(&end_state, &none, apiprof_gettid());
}

/* The outputs are written: whoever waits may go on, and a signal held
 * meanwhile kills the process now. */
void apiprof_end_done(void)
{
	apiprof_store_seq_cst(&end_state, apiprof_gettid() | END_DONE);
	syscall(SYS_futex, &end_state, FUTEX_WAKE_PRIVATE, INT32_MAX, NULL, NULL, 0);
	int sig = apiprof_xchg_seq_cst(&end_deferred, 0);
	if (sig != 0)
		die_by(sig);
}

/* A failed exec: the image goes on, and may end again. */
void apiprof_end_reopen(void)
{
	uint32_t mine = apiprof_gettid() | END_DONE;

	apiprof_cas_seq_cst(&end_state, &mine, 0);
}

void apiprof_end_after_fork(void)
{
	apiprof_write_once(&own_pid, getpid());
	apiprof_store_seq_cst(&end_state, 0);
	apiprof_store_seq_cst(&end_deferred, 0);
}

/* Waits, bounded, for another thread that is finishing the image. */
static void end_wait(void)
{
	struct timespec slice = {0, 100000000}; /* 50 of them at most */

	for (unsigned i = 0; i < 50; i++) {
		uint32_t st = apiprof_load_seq_cst(&end_state);

		if (st == 0 || (st & END_DONE))
			return;
		syscall(SYS_futex, &end_state, FUTEX_WAIT_PRIVATE, st, &slice, NULL, 0);
	}
}

/* --- the handler ------------------------------------------------------- */

static const int caught[] = {SIGHUP, SIGINT, SIGQUIT, SIGTERM};
#define NCAUGHT (sizeof(caught) / sizeof(caught[0]))

static int active;                      /* the hooks are reached: catching is on */
static int probed;                      /* set by the hooks: see hooks_reached */
static struct sigaction shown[NCAUGHT]; /* the default, as the program set it */

/* With the default back, the signal raised again kills the process when
 * it is unblocked: at once outside the handler, and inside it when the
 * handler returns (the signal is blocked while its handler runs). */
static void die_by(int sig)
{
	struct sigaction dfl;

	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	real_sigaction(sig, &dfl, NULL);
	raise(sig);
}

static void on_signal(int sig)
{
	int saved = errno;

	if (apiprof_load_seq_cst(&end_state) == apiprof_gettid()) {
		/* this thread is writing the outputs: die once they are out */
		apiprof_store_seq_cst(&end_deferred, sig);
		errno = saved;
		return;
	}
	if (!apiprof_flusher_finish())
		apiprof_finish(APIPROF_END_EXIT);
	end_wait();
	die_by(sig);
	errno = saved;
}

static void install(int sig)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigfillset(&sa.sa_mask); /* nothing of the program's runs in between */
	sa.sa_flags = SA_RESTART;
	real_sigaction(sig, &sa, NULL);
}

/* The program set sig to its default: remember how (mask, flags, as the
 * kernel reports them), then catch it again.  scratch: a sigaction the
 * caller has done with, to keep the stack small. */
static void take_over(int i, struct sigaction *scratch)
{
	int saved = errno;

	if (getpid() == apiprof_read_once(&own_pid) &&
	    real_sigaction(caught[i], NULL, scratch) == 0 && scratch->sa_handler == SIG_DFL) {
		shown[i] = *scratch;
		install(caught[i]);
	}
	errno = saved;
}

/* caught[]'s index of sig while catching is on, else -1. */
static int slot_of(int sig)
{
	apiprof_write_once(&probed, 1);
	if (!apiprof_load_acquire(&active))
		return -1;
	for (unsigned i = 0; i < NCAUGHT; i++)
		if (caught[i] == sig)
			return (int)i;
	return -1;
}

/* Whether the program's sigaction() reaches these hooks: first in the
 * lookup order, or behind another interposer that passes calls on
 * (a sanitizer's).  A mere dependency of a shim comes after libc. */
static bool hooks_reached(void)
{
	void *p = dlsym(RTLD_DEFAULT, "sigaction");
	sigaction_fn f;
	struct sigaction cur;

	if (p == NULL)
		return false;
	apiprof_hook_store(&f, p);
	apiprof_write_once(&probed, 0);
	return f(SIGTERM, NULL, &cur) == 0 && apiprof_read_once(&probed);
}

void apiprof_signal_init(void)
{
	int saved = errno;
	struct sigaction cur;

	if (getpid() == 1 || APIPROF_REAL(real_sigaction, "sigaction") == NULL ||
	    !hooks_reached() ||
	    (!apiprof_cfg.output[0] && !apiprof_cfg.summary && apiprof_segment() == NULL)) {
		errno = saved;
		return;
	}
	apiprof_write_once(&own_pid, getpid());
	apiprof_store_release(&active, 1);
	for (unsigned i = 0; i < NCAUGHT; i++)
		if (real_sigaction(caught[i], NULL, &cur) == 0 && cur.sa_handler == SIG_DFL)
			take_over((int)i, &cur);
	errno = saved;
}

/* --- the hooks --------------------------------------------------------- */

static int hook_sigaction(int sig, const struct sigaction *act, struct sigaction *oact)
{
	sigaction_fn f = APIPROF_REAL(real_sigaction, "sigaction");
	int i = slot_of(sig);
	bool to_default = act != NULL && act->sa_handler == SIG_DFL;
	struct sigaction old;

	if (f == NULL) {
		errno = ENOSYS;
		return -1;
	}
	if (i < 0)
		return f(sig, act, oact);
	if (f(sig, act, &old) != 0)
		return -1;
	if (oact != NULL) /* act may be oact: it was read before */
		*oact = old.sa_handler == on_signal ? shown[i] : old;
	if (to_default)
		take_over(i, &old);
	return 0;
}

APIPROF_EXPORT int sigaction(int sig, const struct sigaction *act, struct sigaction *oact)
{
	return hook_sigaction(sig, act, oact);
}

APIPROF_EXPORT int __sigaction(int sig, const struct sigaction *act, struct sigaction *oact)
{
	return hook_sigaction(sig, act, oact);
}

/* signal(), bsd_signal() ...: the real function sets what it sets; the
 * old handler it returns is shown as the program left it. */
static handler_fn signal_like(signal_fn f, int sig, handler_fn h)
{
	int i = slot_of(sig);
	struct sigaction scratch;

	if (f == NULL) {
		errno = ENOSYS;
		return SIG_ERR;
	}
	if (i < 0)
		return f(sig, h);
	handler_fn was = shown[i].sa_handler;
	handler_fn r = f(sig, h);
	if (r == SIG_ERR)
		return r;
	if (h == SIG_DFL)
		take_over(i, &scratch);
	return r == on_signal ? was : r;
}

APIPROF_EXPORT handler_fn signal(int sig, handler_fn h)
{
	return signal_like(APIPROF_REAL(real_signal, "signal"), sig, h);
}

APIPROF_EXPORT handler_fn bsd_signal(int sig, handler_fn h)
{
	return signal_like(APIPROF_REAL(real_bsd_signal, "bsd_signal"), sig, h);
}

APIPROF_EXPORT handler_fn ssignal(int sig, handler_fn h)
{
	return signal_like(APIPROF_REAL(real_ssignal, "ssignal"), sig, h);
}

APIPROF_EXPORT handler_fn sysv_signal(int sig, handler_fn h)
{
	return signal_like(APIPROF_REAL(real_sysv_signal, "sysv_signal"), sig, h);
}

APIPROF_EXPORT handler_fn __sysv_signal(int sig, handler_fn h)
{
	return signal_like(APIPROF_REAL(real___sysv_signal, "__sysv_signal"), sig, h);
}

/* SIG_HOLD is not a handler: sigset(sig, SIG_HOLD) only blocks sig. */
APIPROF_EXPORT handler_fn sigset(int sig, handler_fn h)
{
	return signal_like(APIPROF_REAL(real_sigset, "sigset"), sig, h);
}
