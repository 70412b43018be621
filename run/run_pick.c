/* SPDX-License-Identifier: MIT */
/*
 * run_pick.c - which stopped thread may call dlopen.
 *
 * Not one in a signal handler: the handler's frame holds the return
 * address of glibc's __restore_rt (the code that makes rt_sigreturn,
 * found by its bytes in the process's libc), above the thread's stack
 * pointer (on its stack or its alternate signal stack).  And none at all
 * while any thread holds one of the loader's locks (_dl_load_lock and
 * its siblings in ld.so's _rtld_global: recursive mutexes whose owner is
 * a thread of the process): a dlopen would wait for a stopped thread, or
 * re-enter the loader's work.  Among the others, a thread stopped inside
 * a system call (waiting, not in the middle of the program's work),
 * the main thread first.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>

#include "apiprof_rsym.h"
#include "run_attach.h"

#define RESTORERS     8
#define STACK_SCAN    (256u * 1024u)
#define RTLD_SCAN     8192u
#define MUTEX_KIND_AT 16 /* pthread_mutex_t: lock, count, owner, nusers, kind */

/* mov $15, %rax; syscall: __restore_rt, the return of every handler */
static const unsigned char restore_rt[] = {0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00, 0x0f, 0x05};

struct pick_ctx {
	uint64_t restorer[RESTORERS];
	int nrestorer;
};

/* The addresses of __restore_rt in the process's libc: its bytes looked
 * for in libc's executable mappings. */
static int find_restorers(pid_t pid, struct pick_ctx *c)
{
	char path[64], line[1024];
	static unsigned char buf[1u << 16];

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	FILE *f = fopen(path, "re");
	if (f == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL && c->nrestorer < RESTORERS) {
		unsigned long lo, hi;
		char perm[8];

		if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perm) != 3 || perm[2] != 'x' ||
		    strstr(line, "/libc.so") == NULL)
			continue;
		for (uint64_t a = lo; a < hi && c->nrestorer < RESTORERS; a += sizeof(buf) - 16) {
			size_t n = hi - a < sizeof(buf) ? hi - a : sizeof(buf);

			if (run_inject_read(pid, a, buf, n) != 0)
				break;
			for (size_t i = 0; i + sizeof(restore_rt) <= n && c->nrestorer < RESTORERS;
			     i++)
				if (memcmp(buf + i, restore_rt, sizeof(restore_rt)) == 0 &&
				    (c->nrestorer == 0 || c->restorer[c->nrestorer - 1] != a + i))
					c->restorer[c->nrestorer++] = a + i;
		}
	}
	fclose(f);
	return c->nrestorer > 0 ? 0 : -1;
}

static bool is_restorer(const struct pick_ctx *c, uint64_t w)
{
	for (int i = 0; i < c->nrestorer; i++)
		if (c->restorer[i] == w)
			return true;
	return false;
}

/* True when a signal frame lies above sp (a handler is running). */
static bool in_handler(pid_t pid, uint64_t sp, const struct pick_ctx *c)
{
	static uint64_t page[512];

	for (uint64_t a = sp & ~(uint64_t)4095; a < sp + STACK_SCAN; a += sizeof(page)) {
		if (run_inject_read(pid, a, page, sizeof(page)) != 0)
			return false; /* the end of the stack's mapping */
		for (size_t i = 0; i < 512; i++)
			if (a + i * 8 >= sp && is_restorer(c, page[i]))
				return true;
	}
	return false;
}

static bool is_tid(const struct run_stopped *s, int tid)
{
	for (int i = 0; i < s->n; i++)
		if (s->t[i].tid == tid)
			return true;
	return false;
}

/* The thread that holds a lock of the loader, 0 if none, -1 unknown. */
static int loader_lock_owner(const struct run_stopped *s)
{
	struct apiprof_rsym_obj o;
	struct apiprof_rsym_err e;
	uint64_t at;
	static unsigned char g[RTLD_SCAN];

	if (apiprof_rsym_find_obj(s->pid, "ld-linux-x86-64.so", &o, &e) != 0 ||
	    apiprof_rsym_lookup(&o, "_rtld_global", &at, &e) != 0)
		return -1;
	size_t n = RTLD_SCAN;
	while (n >= 4096 && run_inject_read(s->pid, at, g, n) != 0)
		n -= 4096;
	if (n < 4096)
		return -1;
	for (size_t off = 0; off + 24 <= n; off += 8) {
		int w[5];

		memcpy(w, g + off, sizeof(w));
		if (w[0] != 0 && w[1] >= 1 && (w[MUTEX_KIND_AT / 4] & 0x7f) == 1 && w[2] > 0 &&
		    is_tid(s, w[2]))
			return w[2];
	}
	return 0;
}

/* Whether thread i may be called into; rank: 2 main and in a system
 * call, 1 in a system call, 0 otherwise, -1 not at all. */
static int rank(const struct run_stopped *s, int i, const struct pick_ctx *c)
{
	struct user_regs_struct r;
	const struct run_thread *t = &s->t[i];

	if (t->gone || t->stopped_by != SIGTRAP || ptrace(PTRACE_GETREGS, t->tid, 0, &r) != 0 ||
	    in_handler(s->pid, r.rsp, c))
		return -1;
	if ((long long)r.orig_rax < 0)
		return 0;
	return t->tid == s->pid ? 2 : 1;
}

int run_pick_thread(const struct run_stopped *s, char *why, size_t cap)
{
	struct pick_ctx c = {0};
	int owner = loader_lock_owner(s), best = -1, best_rank = -1;

	if (owner < 0)
		return run_whyf(why, cap, "cannot find the loader's locks in process %d",
		                (int)s->pid);
	if (owner > 0) {
		run_whyf(why, cap, "thread %d holds the loader's lock (a dlopen in progress)",
		         owner);
		return RUN_PICK_LATER;
	}
	if (find_restorers(s->pid, &c) != 0)
		return run_whyf(why, cap, "cannot find glibc's __restore_rt in process %d",
		                (int)s->pid);
	for (int i = 0; i < s->n && best_rank < 2; i++) {
		int k = rank(s, i, &c);

		if (k > best_rank) {
			best = i;
			best_rank = k;
		}
	}
	if (best < 0)
		return run_whyf(why, cap, "every thread of process %d is in a signal handler",
		                (int)s->pid);
	return best;
}
