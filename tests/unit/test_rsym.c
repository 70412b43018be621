/* SPDX-License-Identifier: MIT */
/*
 * test_rsym.c - where a symbol lies in another process (common/proc/
 * apiprof_rsym.h): a forked child, stopped on a pipe, is looked at from
 * outside; each address found equals what dlsym says in the parent (a
 * fork keeps the addresses), the default version of a symbol with
 * several, and a missing object or symbol is one clear line.
 */
#include "apiprof_rsym.h"
#include "check.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* libc's own definition (not a sanitizer's interceptor of the same
 * name, which RTLD_DEFAULT would find first). */
static void *libc_sym(const char *sym)
{
	void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);

	return libc != NULL ? dlsym(libc, sym) : NULL;
}

static void check_sym(pid_t pid, const char *sym)
{
	struct apiprof_rsym_obj o;
	struct apiprof_rsym_err e = {""};
	uint64_t addr = 0;
	void *want = libc_sym(sym);

	CHECK(apiprof_rsym_find_obj(pid, "libc.so", &o, &e) == 0);
	CHECK(apiprof_rsym_lookup(&o, sym, &addr, &e) == 0);
	if (addr != (uint64_t)(uintptr_t)want)
		fprintf(stderr, "%s: got %#llx, want %p (%s)\n", sym, (unsigned long long)addr,
		        want, e.text);
	CHECK(want != NULL && addr == (uint64_t)(uintptr_t)want);
}

int main(void)
{
	struct apiprof_rsym_obj o;
	struct apiprof_rsym_err e = {""};
	uint64_t addr = 1;
	int p[2];
	pid_t pid;
	char c;

	if (pipe(p) != 0)
		return 2;
	pid = fork();
	if (pid == 0) {
		close(p[1]);
		_exit(read(p[0], &c, 1) == 0 ? 0 : 1);
	}
	close(p[0]);
	check_sym(pid, "getpid");
	check_sym(pid, "dlopen");
	check_sym(pid, "pthread_cond_wait"); /* two versions: the default one */
	CHECK(apiprof_rsym_find_obj(pid, "libnothere.so", &o, &e) == -ENOENT);
	CHECK(strcmp(e.text, "") != 0 && strstr(e.text, "libnothere.so") != NULL);
	CHECK(apiprof_rsym_find_obj(pid, "libc.so", &o, &e) == 0);
	CHECK(apiprof_rsym_lookup(&o, "no_such_symbol_here", &addr, &e) == -ENOENT);
	CHECK(addr == 0 && strstr(e.text, "does not define no_such_symbol_here") != NULL);
	/* "libc" alone is not a name followed by '.' or '-' of "libc.so.6" */
	CHECK(apiprof_rsym_find_obj(pid, "libc.so.6", &o, &e) == 0);
	CHECK(apiprof_rsym_find_obj(pid, "libc.s", &o, &e) == -ENOENT);
	close(p[1]);
	waitpid(pid, NULL, 0);
	return failures != 0;
}
