/* SPDX-License-Identifier: MIT */
/*
 * apiprof_wake.c - a dormant runtime woken from outside (apiprof_wake.h).
 * Everything read from the other process is untrusted: the struct must
 * say what this version writes, and every gate it names must read "off"
 * before anything is written, so that a struct that is not a dormant
 * runtime's makes apiprof-ctl refuse, not write into the process.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>

#include "apiprof_dormant.h"
#include "apiprof_rsym.h"
#include "apiprof_wake.h"

struct waker {
	int pid;
	char *msg;
	size_t cap;
};

static enum apiprof_send_status say(struct waker *w, enum apiprof_send_status st, const char *fmt,
                                    ...) __attribute__((format(printf, 3, 4)));

static enum apiprof_send_status say(struct waker *w, enum apiprof_send_status st, const char *fmt,
                                    ...)
{
	va_list ap;

	va_start(ap, fmt);
	apiprof_ctl_vsay(w->msg, w->cap, w->pid, fmt, ap);
	va_end(ap);
	return st;
}

/* The status of a failed access to the process. */
static enum apiprof_send_status access_failed(struct waker *w, int err, const char *what)
{
	if (err == EPERM || err == EACCES)
		return say(w, APIPROF_SEND_DENIED,
		           "cannot %s it (%s): waking a process takes ptrace rights over it "
		           "(its user, with kernel.yama.ptrace_scope 0, or root)",
		           what, strerror(err));
	if (err == ESRCH)
		return say(w, APIPROF_SEND_NOPROC, "no such process");
	return say(w, APIPROF_SEND_REFUSED, "cannot %s it: %s", what, strerror(err));
}

static int peek(int pid, uint64_t addr, void *buf, size_t len)
{
	struct iovec l = {buf, len}, r = {(void *)(uintptr_t)addr, len};
	ssize_t n = process_vm_readv(pid, &l, 1, &r, 1, 0);

	if (n == (ssize_t)len)
		return 0;
	return n < 0 ? errno : EFAULT;
}

static int poke(int pid, uint64_t addr, const void *buf, size_t len)
{
	struct iovec l = {(void *)buf, len}, r = {(void *)(uintptr_t)addr, len};
	ssize_t n = process_vm_writev(pid, &l, 1, &r, 1, 0);

	if (n == (ssize_t)len)
		return 0;
	return n < 0 ? errno : EFAULT;
}

/* The struct as this version knows it, and every gate it names off. */
static enum apiprof_send_status check(struct waker *w, const struct apiprof_dormant *d)
{
	if (d->magic != APIPROF_DORMANT_MAGIC || d->version != APIPROF_DORMANT_VERSION)
		return say(w, APIPROF_SEND_REFUSED,
		           "its apiprof_dormant is not one this apiprof-ctl knows (magic %#llx, "
		           "version %u): not woken",
		           (unsigned long long)d->magic, d->version);
	if (d->state == APIPROF_DORMANT_STARTED)
		return APIPROF_SEND_STARTED;
	if (d->state != APIPROF_DORMANT_ASLEEP || d->napis > APIPROF_DORMANT_APIS)
		return say(w, APIPROF_SEND_REFUSED,
		           "its apiprof_dormant says state %u, %u apis: not a dormant runtime; "
		           "not woken",
		           d->state, d->napis);
	for (uint32_t i = 0; i < d->napis; i++) {
		uint64_t g = 0;

		if (d->gate[i] == 0 || d->gate[i] % 8 != 0 ||
		    peek(w->pid, d->gate[i], &g, 8) != 0 ||
		    (g != APIPROF_DORMANT_GATE_OFF && g != APIPROF_DORMANT_GATE_WAKE))
			return say(w, APIPROF_SEND_REFUSED,
			           "its apiprof_dormant names a gate at %#llx that is not an api's "
			           "gate asleep: not woken",
			           (unsigned long long)d->gate[i]);
	}
	return APIPROF_SEND_OK;
}

/* The mode word, then each gate. */
static enum apiprof_send_status write_wake(struct waker *w, uint64_t at,
                                           const struct apiprof_dormant *d, uint64_t mode_word)
{
	static const uint64_t wake = APIPROF_DORMANT_GATE_WAKE;
	int err = poke(w->pid, at + offsetof(struct apiprof_dormant, mode), &mode_word, 8);

	for (uint32_t i = 0; err == 0 && i < d->napis; i++)
		err = poke(w->pid, d->gate[i], &wake, 8);
	if (err != 0)
		return access_failed(w, err, "write into");
	return say(w, APIPROF_SEND_OK, "woken (%u apis)", d->napis);
}

enum apiprof_send_status apiprof_wake(int pid, uint64_t mode_word, char *msg, size_t cap)
{
	struct waker w = {pid, msg, cap};
	struct apiprof_rsym_obj o;
	struct apiprof_rsym_err e;
	struct apiprof_dormant d;
	uint64_t at;
	int r = apiprof_rsym_find_obj(pid, "libapiprof.so", &o, &e);

	if (r == -ENOENT)
		return say(&w, APIPROF_SEND_NOPROC, "not profiled by apiprof");
	if (r != 0)
		return access_failed(&w, -r, "read the maps of");
	if ((r = apiprof_rsym_lookup(&o, APIPROF_DORMANT_SYMBOL, &at, &e)) != 0)
		return say(&w, r == -EACCES ? APIPROF_SEND_DENIED : APIPROF_SEND_REFUSED,
		           "its libapiprof.so cannot sleep or wake (%s)", e.text);
	if ((r = peek(pid, at, &d, sizeof(d))) != 0)
		return access_failed(&w, r, "read");
	enum apiprof_send_status st = check(&w, &d);
	if (st != APIPROF_SEND_OK)
		return st;
	return write_wake(&w, at, &d, mode_word);
}
