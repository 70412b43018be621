/* SPDX-License-Identifier: MIT */
/*
 * segtool - segment files for the viewer's black-box tests, and a runner
 * that reports a command's peak memory.
 *
 *   segtool make DIR PID COMM [ORDER [sparse]]
 *       Writes a segment named as the runtime names it, for process PID
 *       (its start time and pid namespace read from /proc), into DIR, and
 *       prints the name.  One function (testlib.tl_add) and one record of
 *       42 calls by thread PID, every page reserved; with `sparse`, a ring
 *       of 1 << ORDER records (default 4) that claims to be full but has
 *       no pages: only the header and the function table are reserved.
 *       The name and header say uid $SEGTOOL_UID when it is set, and
 *       the nonce $SEGTOOL_NONCE (decimal) when it is set: many segments
 *       can then name one process.  The function is api id 1's; with
 *       $SEGTOOL_MODES ("PROC API", two words as strtoull reads them),
 *       the header's proc_mode and api_mode[1] are those (issue 37).
 *   segtool maxrss OUT CMD...
 *       Runs CMD, writes its peak resident size in KiB to OUT, and exits
 *       with its status.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "apiprof_abi.h"
#include "apiprof_ringbuf.h"
#if __has_include("apiprof_segname.h")
#include "apiprof_segname.h"
#define SEGTOOL_NAMES 1
#endif

#define NONCE 0x0123456789abcdefull

static void die(const char *what)
{
	perror(what);
	exit(2);
}

static uint64_t starttime_of(int pid)
{
	uint64_t st;

	if (apiprof_proc_starttime("/proc", pid, &st) == 0)
		return st;
	if (errno != EINVAL)
		die("/proc/<pid>/stat");
	return 0;
}

#ifdef SEGTOOL_NAMES
static uint64_t pidns_of(int pid)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%d/ns/pid", pid);
	return stat(path, &st) == 0 ? (uint64_t)st.st_ino : 0;
}
#endif

static void set_name(char *name, size_t len, const struct apiprof_shm_header *h)
{
#ifdef SEGTOOL_NAMES
	struct apiprof_segid id = {h->uid, h->pid, h->starttime, h->pidns, h->nonce, false};

	if (apiprof_segname_format(name, len, &id))
		die("name");
#else
	snprintf(name, len, APIPROF_SHM_PREFIX "%u-%d-%llu", h->uid, h->pid,
	         (unsigned long long)h->starttime);
#endif
}

/* The modes' words, as $SEGTOOL_MODES says (else none: the runtime's
 * are never 0, so a reader shows "?"). */
static void modes(struct apiprof_shm_header *h)
{
	const char *m = getenv("SEGTOOL_MODES");
	char *end;

	if (m == NULL)
		return;
	h->proc_mode = strtoull(m, &end, 0);
	h->api_mode[1] = strtoull(end, NULL, 0);
}

/* The header as the runtime lays it out, one function, 1 << order records. */
static void layout(struct apiprof_shm_header *h, int pid, const char *comm, uint32_t order)
{
	struct apiprof_ring_geom g = {1, order};

	memset(h, 0, sizeof(*h));
	h->version = APIPROF_SHM_VERSION;
	h->header_size = APIPROF_SHM_HEADER_SIZE;
	h->pid = pid;
	h->uid = getenv("SEGTOOL_UID") ? (uint32_t)atol(getenv("SEGTOOL_UID")) : (uint32_t)getuid();
	h->starttime = starttime_of(pid);
#ifdef SEGTOOL_NAMES
	h->pidns = pidns_of(pid);
	h->nonce = getenv("SEGTOOL_NONCE") ? strtoull(getenv("SEGTOOL_NONCE"), NULL, 10) : NONCE;
#endif
	snprintf(h->comm, sizeof(h->comm), "%s", comm);
	h->state = APIPROF_PROC_RUNNING;
	h->clock = APIPROF_CLOCK_MONOTONIC;
	h->interval_ms = 1000;
	h->tick_hz = 1000000000ull;
	h->func_off = APIPROF_SHM_HEADER_SIZE;
	h->func_size = sizeof(struct apiprof_shm_func);
	h->func_cap = 1;
	h->func_count = 1;
	h->ring_off = apiprof_ring_offset(&g);
	h->rec_size = sizeof(struct apiprof_shm_rec);
	h->ring_order = order;
	h->segment_size = apiprof_ring_size(&g);
	h->magic = APIPROF_SHM_MAGIC;
	modes(h);
}

static void put(int fd, const void *p, size_t n, uint64_t off)
{
	if (pwrite(fd, p, n, (off_t)off) != (ssize_t)n)
		die("pwrite");
}

/* Record 0: 42 calls of function 0 by thread pid. */
static void first_record(int fd, struct apiprof_shm_header *h)
{
	struct apiprof_shm_rec r;

	memset(&r, 0, sizeof(r));
	r.h.seq = apiprof_seq_complete(0);
	r.h.tid = (uint32_t)h->pid;
	snprintf(r.h.comm, sizeof(r.h.comm), "%s", h->comm);
	r.h.tick = 1;
	apiprof_rec_set_kind(&r.h, APIPROF_REC_KIND_TIMES);
	r.u.times.calls = r.u.times.timed = 42;
	r.u.times.ticks = 42 * 1000;
	r.u.times.min_ticks = r.u.times.max_ticks = 1000;
	r.u.times.hist[9] = 42;
	put(fd, &r, sizeof(r), h->ring_off);
	h->head = 1;
}

static int make(int argc, char **argv)
{
	struct apiprof_shm_header h;
	struct apiprof_shm_func f;
	uint32_t order = argc > 5 ? (uint32_t)atoi(argv[5]) : 4;
	int sparse = argc > 6 && strcmp(argv[6], "sparse") == 0, fd, dfd;
	char name[128];

	layout(&h, atoi(argv[3]), argv[4], order);
	set_name(name, sizeof(name), &h);
	if ((dfd = open(argv[2], O_RDONLY | O_DIRECTORY)) < 0 ||
	    (fd = openat(dfd, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW, 0600)) < 0)
		die(argv[2]);
	if (ftruncate(fd, (off_t)h.segment_size) ||
	    posix_fallocate(fd, 0, sparse ? (off_t)h.ring_off : (off_t)h.segment_size))
		die("ftruncate or posix_fallocate");
	memset(&f, 0, sizeof(f));
	snprintf(f.api, sizeof(f.api), "testlib");
	snprintf(f.name, sizeof(f.name), "tl_add");
	f.api_id = 1;
	put(fd, &f, sizeof(f), h.func_off);
	if (sparse)
		h.head = 1ull << order; /* claims a full ring */
	else
		first_record(fd, &h);
	put(fd, &h, sizeof(h), 0);
	printf("%s\n", name);
	return 0;
}

static int maxrss(char **argv)
{
	struct rusage ru;
	int st;
	pid_t pid = fork();
	FILE *out;

	if (pid < 0)
		die("fork");
	if (pid == 0) {
		execvp(argv[3], argv + 3);
		_exit(127);
	}
	if (wait4(pid, &st, 0, &ru) != pid || !(out = fopen(argv[2], "w")))
		die("wait4");
	fprintf(out, "%ld\n", ru.ru_maxrss);
	fclose(out);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int main(int argc, char **argv)
{
	if (argc >= 5 && strcmp(argv[1], "make") == 0)
		return make(argc, argv);
	if (argc >= 4 && strcmp(argv[1], "maxrss") == 0)
		return maxrss(argv);
	fprintf(stderr, "usage: segtool make DIR PID COMM [ORDER [sparse]] | maxrss OUT CMD...\n");
	return 2;
}
