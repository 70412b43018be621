/* SPDX-License-Identifier: MIT */
/*
 * test_sym.c PROG STRIPPED SYM_PROG_C SYMLIB_C LIBSYMLATE - top_sym on live
 * processes: sym_prog (built with -g) and a stripped copy print code
 * addresses and wait on a pipe while they are resolved.  Functions, files
 * and lines are checked exactly, lines against the SYM-MARK comments of
 * the sources; the stripped copy gives module+0xoffset at the offset the
 * program's own load bias gives; libc, anonymous code, a corrupt ELF file,
 * a library loaded later, a reused pid and more processes than the cache
 * keeps.
 */
#include <elf.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "apiprof_segname.h"
#include "top_sym.h"

static int failures;

#define CHECK(cond, ...)                                                                           \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			printf("FAIL %s:%d: ", __FILE__, __LINE__);                                \
			printf(__VA_ARGS__);                                                       \
			printf("\n");                                                              \
			failures++;                                                                \
		}                                                                                  \
	} while (0)

#define NADDR 16

/* A running sym_prog and the addresses it printed. */
struct child {
	pid_t pid;
	uint64_t starttime;
	FILE *out; /* its stdout */
	int in;    /* its stdin */
	char names[NADDR][32];
	uint64_t addrs[NADDR];
	int n;
};

static void die(const char *what)
{
	perror(what);
	exit(1);
}

/* The line of `SYM-MARK name ` in a source file. */
static int marker_line(const char *src, const char *name)
{
	char line[512], want[128];
	FILE *f = fopen(src, "r");

	if (f == NULL)
		die(src);
	snprintf(want, sizeof want, "SYM-MARK %s ", name);
	for (int n = 1; fgets(line, sizeof line, f) != NULL; n++)
		if (strstr(line, want) != NULL) {
			fclose(f);
			return n;
		}
	printf("no %s in %s\n", want, src);
	exit(1);
}

static uint64_t addr_of(const struct child *c, const char *name)
{
	for (int i = 0; i < c->n; i++)
		if (strcmp(c->names[i], name) == 0)
			return c->addrs[i];
	printf("sym_prog printed no %s\n", name);
	exit(1);
}

/* Reads "NAME HEX" lines up to `until`. */
static void read_addrs(struct child *c, const char *until)
{
	char line[256];

	while (fgets(line, sizeof line, c->out) != NULL) {
		if (strcmp(line, "ready\n") == 0 && strcmp(until, "ready") == 0)
			return;
		/* A name printed again ("map") replaces the one before. */
		if (c->n > 0 &&
		    strncmp(line, c->names[c->n - 1], strlen(c->names[c->n - 1])) == 0 &&
		    line[strlen(c->names[c->n - 1])] == ' ')
			c->n--;
		if (c->n == NADDR ||
		    sscanf(line, "%31s %" SCNx64, c->names[c->n], &c->addrs[c->n]) != 2) {
			printf("bad line from sym_prog: %s", line);
			exit(1);
		}
		if (strcmp(c->names[c->n++], until) == 0)
			return;
	}
	printf("sym_prog ended before %s\n", until);
	exit(1);
}

static void spawn(struct child *c, const char *prog, const char *file)
{
	int out[2], in[2];

	memset(c, 0, sizeof *c);
	if (pipe2(out, O_CLOEXEC) != 0 || pipe2(in, O_CLOEXEC) != 0)
		die("pipe");
	c->pid = fork();
	if (c->pid < 0)
		die("fork");
	if (c->pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		close(in[0]), close(in[1]), close(out[0]), close(out[1]);
		execl(prog, prog, file, (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	c->in = in[1];
	c->out = fdopen(out[0], "r");
	read_addrs(c, "ready");
	if (apiprof_proc_starttime("/proc", c->pid, &c->starttime) != 0)
		die("starttime");
}

static void finish(struct child *c)
{
	int st;

	close(c->in);
	fclose(c->out);
	if (waitpid(c->pid, &st, 0) != c->pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		printf("FAIL sym_prog %d ended with status %#x\n", (int)c->pid, st);
		failures++;
	}
}

static void resolve(struct top_sym_cache *sc, const struct child *c, uint64_t addr,
                    struct top_sym *s)
{
	int rc = top_sym_resolve(sc, c->pid, c->starttime, addr, s);

	CHECK(rc == (s->kind == TOP_SYM_UNKNOWN ? -1 : 0), "rc %d for kind %d", rc, s->kind);
}

/* A return address, as the call-site recording will give them: the call
 * is the byte before. */
static void expect_func(struct top_sym_cache *sc, const struct child *c, const char *what,
                        const char *func, const char *module, const char *src)
{
	struct top_sym s;
	uint64_t addr = addr_of(c, what) - 1;
	int line = marker_line(src, func);

	resolve(sc, c, addr, &s);
	CHECK(s.kind == TOP_SYM_MODULE && strcmp(s.symbol, func) == 0 &&
	              strcmp(top_sym_base(s.module), module) == 0 &&
	              strcmp(top_sym_base(s.file), top_sym_base(src)) == 0 && s.line == line,
	      "%s: kind %d %s in %s at %s:%d, want %s in %s at %s:%d", what, s.kind, s.symbol,
	      s.module, s.file, s.line, func, module, top_sym_base(src), line);
}

/* The stripped copy: no symbol, no line, module+0xoffset from the bias. */
static void expect_stripped(struct top_sym_cache *sc, const struct child *c, const char *what,
                            const char *module)
{
	struct top_sym s;
	char label[256], want[256];
	uint64_t addr = addr_of(c, what) - 1;

	resolve(sc, c, addr, &s);
	snprintf(want, sizeof want, "%s+0x%" PRIx64, module, addr - addr_of(c, "bias"));
	top_sym_label(&s, label, sizeof label);
	CHECK(s.kind == TOP_SYM_MODULE && s.symbol[0] == '\0' && s.file[0] == '\0' && s.line == 0 &&
	              strcmp(label, want) == 0,
	      "%s: kind %d symbol '%s' file '%s' label %s, want %s", what, s.kind, s.symbol, s.file,
	      label, want);
}

static void expect_libc_and_anon(struct top_sym_cache *sc, const struct child *c)
{
	struct top_sym s;
	char label[64];

	resolve(sc, c, addr_of(c, "libc") - 1, &s);
	CHECK(s.kind == TOP_SYM_MODULE && strcmp(top_sym_base(s.module), "libc.so.6") == 0,
	      "libc: kind %d module %s", s.kind, s.module);
	resolve(sc, c, addr_of(c, "anon"), &s);
	CHECK(s.kind == TOP_SYM_ANON &&
	              strcmp(top_sym_label(&s, label, sizeof label), "[anon]") == 0,
	      "anon: kind %d label %s", s.kind, label);
	resolve(sc, c, addr_of(c, "stack"), &s);
	CHECK(s.kind == TOP_SYM_ANON, "stack: kind %d module %s", s.kind, s.module);
	resolve(sc, c, addr_of(c, "memfd"), &s);
	CHECK(s.kind == TOP_SYM_ANON, "memfd: kind %d module %s", s.kind, s.module);
	resolve(sc, c, 0, &s);
	CHECK(s.kind == TOP_SYM_UNKNOWN &&
	              strcmp(top_sym_label(&s, label, sizeof label), "[unknown]") == 0,
	      "address 0: kind %d label %s", s.kind, label);
	CHECK(top_sym_resolve(sc, c->pid, c->starttime + 1, addr_of(c, "caller_one"), &s) == -1 &&
	              s.kind == TOP_SYM_UNKNOWN,
	      "another start time: kind %d", s.kind);
}

/* An ELF header whose tables lie far outside the file. */
static void write_corrupt(const char *path)
{
	unsigned char buf[8192];
	Elf64_Ehdr eh = {.e_ident = {ELFMAG0, ELFMAG1, ELFMAG2, ELFMAG3, ELFCLASS64, ELFDATA2LSB,
	                             EV_CURRENT},
	                 .e_type = ET_DYN,
	                 .e_machine = EM_X86_64,
	                 .e_version = EV_CURRENT,
	                 .e_phoff = 64,
	                 .e_shoff = UINT64_MAX - 4095,
	                 .e_ehsize = sizeof eh,
	                 .e_phentsize = sizeof(Elf64_Phdr),
	                 .e_phnum = 0xffff,
	                 .e_shentsize = sizeof(Elf64_Shdr),
	                 .e_shnum = 0xfffe,
	                 .e_shstrndx = 0xfffd};

	memset(buf, 0xa5, sizeof buf);
	memcpy(buf, &eh, sizeof eh);
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0 || write(fd, buf, sizeof buf) != (ssize_t)sizeof buf || close(fd) != 0)
		die(path);
}

static void send(struct child *c, const char *cmd, const char *path)
{
	char line[4200];

	int n = snprintf(line, sizeof line, "%s %s\n", cmd, path);
	if (n < 0 || (size_t)n >= sizeof line || write(c->in, line, (size_t)n) != n)
		die("write");
	read_addrs(c, cmd);
}

/* More files than one process's Dwfl may open (64): each is still named
 * by its mapping, and the library loaded after them is resolved in full
 * (the Dwfl starts afresh rather than stop opening files). */
static void expect_many_files(struct top_sym_cache *sc, struct child *c, const char *dir)
{
	char path[256];
	struct top_sym s;

	for (int i = 0; i < 70; i++) {
		snprintf(path, sizeof path, "%s/many%d.so", dir, i);
		write_corrupt(path);
		send(c, "map", path);
		top_sym_cache_next(sc); /* a refresh: the maps are read again */
		resolve(sc, c, addr_of(c, "map"), &s);
		CHECK(s.kind == TOP_SYM_MODULE && strcmp(s.module, path) == 0 && s.offset == 100,
		      "file %d: kind %d module %s offset %#" PRIx64, i, s.kind, s.module, s.offset);
		unlink(path);
	}
}

static void expect_corrupt_and_late(struct top_sym_cache *sc, struct child *c, const char *dir,
                                    const char *late)
{
	struct top_sym s;

	resolve(sc, c, addr_of(c, "file"), &s);
	CHECK(s.kind == TOP_SYM_MODULE && strcmp(top_sym_base(s.module), "corrupt.so") == 0 &&
	              s.offset == 100 && s.symbol[0] == '\0' && s.line == 0,
	      "corrupt ELF: kind %d module %s offset %#" PRIx64 " symbol '%s'", s.kind, s.module,
	      s.offset, s.symbol);
	expect_many_files(sc, c, dir);
	send(c, "late", late);
	top_sym_cache_next(sc);
	resolve(sc, c, addr_of(c, "late"), &s);
	CHECK(s.kind == TOP_SYM_MODULE && strcmp(s.symbol, "symlate_fn") == 0 &&
	              strcmp(top_sym_base(s.module), "libsymlate.so") == 0,
	      "late: kind %d %s in %s", s.kind, s.symbol, s.module);
}

/* One more process than the cache keeps: the first is dropped and
 * reported again, with the same answers. */
static void expect_eviction(const char *prog, const char *src)
{
	struct top_sym_cache *sc = top_sym_cache_new();
	struct child c[TOP_SYM_PROCS + 1];

	for (int i = 0; i <= TOP_SYM_PROCS; i++) {
		spawn(&c[i], prog, NULL);
		expect_func(sc, &c[i], "caller_two", "caller_two", top_sym_base(prog), src);
	}
	expect_func(sc, &c[0], "caller_three", "caller_three", top_sym_base(prog), src);
	for (int i = 0; i <= TOP_SYM_PROCS; i++)
		finish(&c[i]);
	top_sym_cache_free(sc);
	/* A process that is gone, in a cache that never saw it. */
	struct top_sym s;
	sc = top_sym_cache_new();
	CHECK(top_sym_resolve(sc, c[0].pid, c[0].starttime, addr_of(&c[0], "caller_one"), &s) ==
	                      -1 &&
	              s.kind == TOP_SYM_UNKNOWN,
	      "a reaped process: kind %d", s.kind);
	top_sym_cache_free(sc);
}

int main(int argc, char **argv)
{
	struct child c;
	char dir[] = "/tmp/apiprof-test-sym-XXXXXX", corrupt[sizeof dir + 16];

	if (argc != 6) {
		fprintf(stderr, "usage: test_sym PROG STRIPPED SYM_PROG_C SYMLIB_C LIBSYMLATE\n");
		return 2;
	}
	const char *prog = argv[1], *stripped = argv[2], *src = argv[3], *libsrc = argv[4];
	if (mkdtemp(dir) == NULL)
		die("mkdtemp");
	snprintf(corrupt, sizeof corrupt, "%s/corrupt.so", dir);
	write_corrupt(corrupt);

	struct top_sym_cache *sc = top_sym_cache_new();
	spawn(&c, prog, corrupt);
	const char *callers[] = {"caller_one", "caller_two", "caller_three"};
	for (size_t i = 0; i < 3; i++)
		expect_func(sc, &c, callers[i], callers[i], top_sym_base(prog), src);
	expect_func(sc, &c, "symlib", "symlib_call", "libsymlib.so", libsrc);
	expect_libc_and_anon(sc, &c);
	expect_corrupt_and_late(sc, &c, dir, argv[5]);
	finish(&c);

	spawn(&c, stripped, NULL);
	for (size_t i = 0; i < 3; i++)
		expect_stripped(sc, &c, callers[i], top_sym_base(stripped));
	expect_func(sc, &c, "symlib", "symlib_call", "libsymlib.so", libsrc);
	expect_libc_and_anon(sc, &c);
	finish(&c);
	top_sym_cache_free(sc);

	expect_eviction(prog, src);
	unlink(corrupt);
	rmdir(dir);
	if (failures == 0)
		printf("ok\n");
	return failures == 0 ? 0 : 1;
}
