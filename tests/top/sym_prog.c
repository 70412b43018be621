/* SPDX-License-Identifier: MIT */
/*
 * sym_prog.c - code addresses for test_sym.c to resolve.  Built with -g
 * -O0 (and a stripped copy), it prints one "NAME HEXADDR" line each:
 *
 *   bias      the executable's load bias (dl_iterate_phdr)
 *   caller_*  return addresses in three functions of its own (call sites)
 *   symlib    a return address inside symlib_call (a shared library)
 *   libc      a return address inside libc (qsort calling back)
 *   anon      an address in an anonymous executable mapping
 *   stack     an address on its stack (above every module)
 *   memfd     an address in an executable mapping of a memfd (as JITs
 *             double-map their code)
 *   file      an address in a mapping of argv[1] (a corrupt ELF), if given
 *
 * then "ready", and waits on stdin: "late PATH" loads PATH with dlopen and
 * prints "late HEXADDR" for its symlate_fn, "map PATH" maps PATH and
 * prints "map HEXADDR"; end of input exits 0.  The
 * lines marked SYM-MARK are the ones the test expects.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "symlib.h"

static void note(void **where)
{
	*where = __builtin_return_address(0);
}

__attribute__((noinline)) static void *caller_one(void **inner)
{
	void *ret = symlib_call(note, inner); /* SYM-MARK caller_one */
	return ret;
}

__attribute__((noinline)) static void *caller_two(void **inner)
{
	void *ret = symlib_call(note, inner); /* SYM-MARK caller_two */
	return ret;
}

__attribute__((noinline)) static void *caller_three(void **inner)
{
	void *ret = symlib_call(note, inner); /* SYM-MARK caller_three */
	return ret;
}

static void *in_libc;

static int cmp(const void *a, const void *b)
{
	in_libc = __builtin_return_address(0);
	return *(const int *)a - *(const int *)b;
}

/* The first object dl_iterate_phdr reports is the executable. */
static int first_bias(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	*(uintptr_t *)data = info->dlpi_addr;
	return 1;
}

static void put(const char *name, const void *addr)
{
	printf("%s %lx\n", name, (unsigned long)(uintptr_t)addr);
}

static void *map_file(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	void *p = fd < 0 ? MAP_FAILED : mmap(NULL, 8192, PROT_READ, MAP_PRIVATE, fd, 0);

	if (fd >= 0)
		close(fd);
	return p == MAP_FAILED ? NULL : (char *)p + 100;
}

static void *map_memfd(void)
{
	int fd = memfd_create("jit", MFD_CLOEXEC);
	void *p = fd < 0 || ftruncate(fd, 4096) != 0
	                  ? MAP_FAILED
	                  : mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_SHARED, fd, 0);

	if (fd >= 0)
		close(fd);
	return p == MAP_FAILED ? NULL : (char *)p + 8;
}

static int late(const char *path)
{
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	void *fn = h != NULL ? dlsym(h, "symlate_fn") : NULL;

	if (fn == NULL) {
		fprintf(stderr, "sym_prog: %s\n", dlerror());
		return -1;
	}
	put("late", fn);
	return fflush(stdout);
}

int main(int argc, char **argv)
{
	uintptr_t bias = 0;
	void *inner = NULL;
	int v[] = {3, 1, 2};
	char line[4096];

	dl_iterate_phdr(first_bias, &bias);
	put("bias", (void *)bias);
	put("caller_one", caller_one(&inner));
	put("caller_two", caller_two(&inner));
	put("caller_three", caller_three(&inner));
	put("symlib", inner);
	qsort(v, 3, sizeof v[0], cmp);
	put("libc", in_libc);
	char *anon = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
	                  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (anon == MAP_FAILED)
		return 1;
	put("anon", anon + 16);
	put("stack", line);
	put("memfd", map_memfd());
	if (argc > 1)
		put("file", map_file(argv[1]));
	puts("ready");
	fflush(stdout);
	while (fgets(line, sizeof line, stdin) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		if (strncmp(line, "map ", 4) == 0)
			put("map", map_file(line + 4));
		else if (strncmp(line, "late ", 5) != 0 || late(line + 5) != 0)
			return 1;
		fflush(stdout);
	}
	return 0;
}
