/* SPDX-License-Identifier: MIT */
/*
 * test_sym_plant.c SYM_PROG LIBSYMLATE LIBSYMROOT BOMB LIBSYMLIB - what a target of
 * another user plants where its libraries were, against root's resolver
 * (top_sym.c, issue 34).
 *
 * sym_prog runs as a throwaway uid (numeric, no passwd entry, so nothing
 * under /etc changes; nothing of it remains once it has exited), from a
 * copy beside a copy of its libsymlib.so (RUNPATH $ORIGIN) in the test's
 * directory (a checkout under /root is out of that uid's reach), and loads
 * copies of libsymlate.so (symlate_fn) from a directory of its user's.
 * libsymroot.so is the same code with the function named symroot_fn, at
 * the same offset: it stands for a root-only file (0600 root).  Then,
 * while sym_prog waits, each copy is replaced:
 *   del    unlinked, and a symbolic link "del.so (deleted)" to the
 *          root-only file put in its place, before the resolver reads
 *          the maps (which name the file so);
 * and, after the resolver has read the maps, under the names they gave
 * (as a swap between a look at the maps and an open would):
 *   link   a symbolic link to the root-only file;
 *   perm   the root-only file itself (renamed there);
 *   fifo   a FIFO (opened, it would hang a reader);
 *   bomb   not replaced: a copy whose .debug_info inflates to 400 MB.
 * Resolved by root, none may name symroot_fn (the root-only file was not
 * read), each refusal is one warning line with its reason, the bomb keeps
 * its symbol (only the section is skipped, with its line) and the
 * resolver's peak memory stays under 200 MB.  All of it twice: the
 * second time in a process whose seccomp filter answers openat2 with
 * ENOSYS (as older container runtimes do), where the resolver walks the
 * path itself.  Exit 77: not root, or no openat2 (the machine cannot
 * offer what is tested).
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <linux/filter.h>
#include <linux/openat2.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "apiprof_segname.h"
#include "top_sym.h"

#define UID        23456
#define MAX_RSS_KB (200 * 1024)

static int failures;
static char warned[8][1024];
static int nwarned;

#define CHECK(cond, ...)                                                                           \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			printf("FAIL %s:%d: ", __FILE__, __LINE__);                                \
			printf(__VA_ARGS__);                                                       \
			printf("\n");                                                              \
			failures++;                                                                \
		}                                                                                  \
	} while (0)

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static void on_warn(void *ctx, const char *msg)
{
	(void)ctx;
	printf("warning: %s\n", msg);
	if (nwarned < 8)
		snprintf(warned[nwarned++], sizeof warned[0], "%s", msg);
}

/* How many warnings contain want. */
static int warnings_with(const char *want)
{
	int n = 0;

	for (int i = 0; i < nwarned; i++)
		n += strstr(warned[i], want) != NULL;
	return n;
}

static void copy(const char *from, const char *to, uid_t uid, mode_t mode)
{
	char buf[65536];
	int in = open(from, O_RDONLY | O_CLOEXEC);
	int out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
	ssize_t n;

	if (in < 0 || out < 0)
		die(to);
	while ((n = read(in, buf, sizeof buf)) > 0)
		if (write(out, buf, (size_t)n) != n)
			die(to);
	if (n < 0 || fchown(out, uid, uid) != 0 || fchmod(out, mode) != 0 || close(out) != 0)
		die(to);
	close(in);
}

struct target {
	pid_t pid;
	uint64_t starttime;
	FILE *out;
	int in;
};

static void child(const char *prog, int in[2], int out[2])
{
	gid_t g = UID;

	dup2(in[0], 0);
	dup2(out[1], 1);
	if (setgroups(1, &g) != 0 || setgid(UID) != 0 || setuid(UID) != 0)
		_exit(126);
	execl(prog, prog, (char *)NULL);
	printf("noexec\n");
	fflush(stdout);
	_exit(127);
}

static void spawn(struct target *t, const char *prog)
{
	int out[2], in[2];
	char line[256];

	if (pipe2(out, O_CLOEXEC) != 0 || pipe2(in, O_CLOEXEC) != 0)
		die("pipe");
	t->pid = fork();
	if (t->pid < 0)
		die("fork");
	if (t->pid == 0)
		child(prog, in, out);
	close(in[0]);
	close(out[1]);
	t->in = in[1];
	t->out = fdopen(out[0], "r");
	while (fgets(line, sizeof line, t->out) != NULL && strcmp(line, "ready\n") != 0)
		if (strcmp(line, "noexec\n") == 0) {
			printf("FAIL: uid %d cannot run %s\n", UID, prog);
			exit(1);
		}
	if (apiprof_proc_starttime("/proc", t->pid, &t->starttime) != 0)
		die("starttime");
}

/* "late PATH": sym_prog loads it and prints its symlate_fn. */
static uint64_t load(struct target *t, const char *path)
{
	char line[4200];
	uint64_t addr;

	int n = snprintf(line, sizeof line, "late %s\n", path);
	if (write(t->in, line, (size_t)n) != n || fgets(line, sizeof line, t->out) == NULL ||
	    sscanf(line, "late %" SCNx64, &addr) != 1) {
		printf("sym_prog did not load %s\n", path);
		exit(1);
	}
	return addr;
}

/* The files, in dir/u (the target's) and dir (root's). */
struct files {
	char dir[64], u[80], secret[96], name[5][96], prog[96], lib[96];
	uint64_t addr[5];
};

enum { DEL, LINK, PERM, FIFO, BOMB };
static const char *const names[] = {"del", "link", "perm", "fifo", "bomb"};

/* argv: SYM_PROG LIBSYMLATE LIBSYMROOT BOMB LIBSYMLIB, from 1. */
static void lay_out(struct files *f, char **argv)
{
	const char *late = argv[2], *root = argv[3], *bomb = argv[4];

	snprintf(f->dir, sizeof f->dir, "/tmp/apiprof-test-plant-XXXXXX");
	if (mkdtemp(f->dir) == NULL || chmod(f->dir, 0711) != 0)
		die("mkdtemp");
	snprintf(f->u, sizeof f->u, "%s/u", f->dir);
	if (mkdir(f->u, 0755) != 0 || chown(f->u, UID, UID) != 0)
		die(f->u);
	snprintf(f->secret, sizeof f->secret, "%s/secret.so", f->dir);
	copy(root, f->secret, 0, 0600);
	for (int i = 0; i < 5; i++) {
		snprintf(f->name[i], sizeof f->name[i], "%s/%s.so", f->u, names[i]);
		copy(i == BOMB ? bomb : late, f->name[i], UID, 0644);
	}
	snprintf(f->prog, sizeof f->prog, "%s/sym_prog", f->dir);
	snprintf(f->lib, sizeof f->lib, "%s/libsymlib.so", f->dir);
	copy(argv[1], f->prog, 0, 0755);
	copy(argv[5], f->lib, 0, 0644);
}

static void plant_deleted(struct files *f)
{
	char deleted[128];

	snprintf(deleted, sizeof deleted, "%s (deleted)", f->name[DEL]);
	if (unlink(f->name[DEL]) != 0 || symlink(f->secret, deleted) != 0)
		die("plant del");
}

static void plant(struct files *f)
{
	char tmp[128];

	snprintf(tmp, sizeof tmp, "%s/link.tmp", f->u);
	if (symlink(f->secret, tmp) != 0 || rename(tmp, f->name[LINK]) != 0)
		die("plant link");
	snprintf(tmp, sizeof tmp, "%s/perm.tmp", f->dir);
	copy(f->secret, tmp, 0, 0600);
	if (rename(tmp, f->name[PERM]) != 0)
		die("plant perm");
	snprintf(tmp, sizeof tmp, "%s/fifo.tmp", f->u);
	if (mkfifo(tmp, 0644) != 0 || rename(tmp, f->name[FIFO]) != 0)
		die("plant fifo");
}

static void clean(const struct files *f)
{
	char deleted[128];

	snprintf(deleted, sizeof deleted, "%s (deleted)", f->name[DEL]);
	unlink(deleted);
	for (int i = 1; i < 5; i++)
		unlink(f->name[i]);
	unlink(f->secret);
	unlink(f->prog);
	unlink(f->lib);
	rmdir(f->u);
	rmdir(f->dir);
}

static void expect(struct top_sym_cache *sc, const struct target *t, const struct files *f, int i,
                   const char *symbol)
{
	struct top_sym s;

	top_sym_resolve(sc, t->pid, t->starttime, f->addr[i], &s);
	CHECK(s.kind == TOP_SYM_MODULE && strcmp(s.symbol, symbol) == 0,
	      "%s: kind %d symbol '%s' in %s, want '%s'", names[i], s.kind, s.symbol, s.module,
	      symbol);
}

static void expect_warning(const char *file, const char *why)
{
	char want[256];

	snprintf(want, sizeof want, "/%s: %s", file, why);
	CHECK(warnings_with(want) == 1, "%d warnings with '%s', want 1", warnings_with(want), want);
}

static void check(struct top_sym_cache *sc, struct target *t, struct files *f)
{
	struct rusage ru;

	expect(sc, t, f, DEL, "");
	expect(sc, t, f, LINK, "");
	expect(sc, t, f, PERM, "");
	expect(sc, t, f, FIFO, "");
	expect(sc, t, f, BOMB, "symlate_fn");
	expect_warning("link.so", "a symbolic link on its path, not read");
	expect_warning("perm.so", "Permission denied, not read");
	expect_warning("fifo.so", "not a regular file, not read");
	expect_warning("bomb.so", "section .debug_info inflates to 419430400 bytes, more than the "
	                          "268435456 allowed, skipped");
	CHECK(nwarned == 4, "%d warnings, want 4", nwarned);
	getrusage(RUSAGE_SELF, &ru);
	CHECK(ru.ru_maxrss < MAX_RSS_KB, "peak memory %ld kB, want less than %d", ru.ru_maxrss,
	      MAX_RSS_KB);
}

static int have_openat2(void)
{
	struct open_how how = {.flags = O_PATH | O_CLOEXEC, .resolve = RESOLVE_NO_SYMLINKS};
	int fd = (int)syscall(SYS_openat2, AT_FDCWD, "/", &how, sizeof how);

	if (fd >= 0)
		close(fd);
	return fd >= 0;
}

/* openat2 answers ENOSYS in this process and its children. */
static void refuse_openat2(void)
{
	struct sock_filter f[] = {
	        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
	        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_openat2, 0, 1),
	        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
	        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {sizeof f / sizeof f[0], f};

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0)
		die("seccomp");
}

static void run(char **argv)
{
	struct files f;
	struct target t;
	struct top_sym s;
	int st;

	lay_out(&f, argv);
	spawn(&t, f.prog);
	for (int i = 0; i < 5; i++)
		f.addr[i] = load(&t, f.name[i]);
	plant_deleted(&f);
	/* The resolver reads the maps (an address no mapping holds): the
	 * modules are named, none is opened yet. */
	struct top_sym_cache *sc = top_sym_cache_new();
	top_sym_cache_warn(sc, on_warn, NULL);
	top_sym_resolve(sc, t.pid, t.starttime, 1, &s);
	plant(&f);
	check(sc, &t, &f);
	top_sym_cache_free(sc);
	close(t.in);
	fclose(t.out);
	CHECK(waitpid(t.pid, &st, 0) == t.pid && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "sym_prog ended with status %#x", st);
	clean(&f);
}

int main(int argc, char **argv)
{
	int st;

	if (argc != 6) {
		fprintf(stderr, "usage: test_sym_plant SYM_PROG LIBSYMLATE LIBSYMROOT BOMB LIBSYMLIB\n");
		return 2;
	}
	if (geteuid() != 0 || !have_openat2()) {
		printf("skip: %s\n", geteuid() != 0 ? "needs root, to be the viewer of another user"
		                                    : "the kernel has no openat2 (Linux 5.6)");
		return 77;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("with openat2:\n");
	run(argv);
	printf("openat2 refused (ENOSYS) by seccomp:\n");
	pid_t pid = fork();
	if (pid == 0) {
		nwarned = 0;
		refuse_openat2();
		CHECK(!have_openat2(), "openat2 still works");
		run(argv);
		_exit(failures == 0 ? 0 : 1);
	}
	CHECK(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "the pass without openat2 failed (status %#x)", st);
	if (failures == 0)
		printf("ok\n");
	return failures == 0 ? 0 : 1;
}
