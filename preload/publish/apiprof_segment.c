/* SPDX-License-Identifier: MIT */
/*
 * apiprof_segment.c - the process's shared-memory segment.
 *
 * Created exclusively (O_CREAT|O_EXCL|O_NOFOLLOW, mode 0600 set again with
 * fchmod so the umask cannot widen or narrow it).  Every page is reserved
 * with posix_fallocate before it is written, so that a full /dev/shm is an
 * error and never a SIGBUS in the middle of the program: the header and the
 * function table at once, the ring (most of the segment) only when it is
 * first needed, which is when a reader first watches or at exit with
 * APIPROF_KEEP_SHM.  A program nobody watches then never pays for the
 * ring's pages: reserving and freeing them took about 1.7 ms a process.
 * Any failure leaves the live view off with one warning; profiling and
 * APIPROF_OUTPUT go on regardless.
 *
 * The name (apiprof_segname.h) holds the pid namespace and a random nonce:
 * two containers' pid 1 get two names, and no one can take ours
 * beforehand.  A name that exists is someone else's: another nonce is
 * drawn, and nothing is ever unlinked that this process did not create,
 * but, at start, its own euid's segments of the same process's earlier
 * images and of processes gone from its pid namespace (sweep_earlier_images).
 * At the end of the image, while a collector watches, the segment is left
 * with its final totals for it (apiprof_final.c).
 *
 * The descriptor is kept, close-on-exec and far above the program's own
 * (keep_fd), so that the ring's pages can be reserved after the
 * program changed its uid; the program may close or reuse that number, so
 * it is used only while it still refers to our file.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "apiprof_internal.h"
#include "apiprof_steer.h"
#include "apiprof_segname.h"

#define SHM_DIR "/dev/shm/" /* where glibc's shm_open puts the names */

enum { RING_NONE, RING_BUSY, RING_READY, RING_FAILED };

/* The segment's state.  What a fork child resets is in
 * apiprof_segment_after_fork. */
static struct apiprof_segment_state {
	/* The mapped segment, published with release once formatted; NULL
	 * when there is none (or not yet). */
	struct apiprof_shm_header *hdr;
	/* Its size and the ring's offset in it (page-aligned). */
	size_t size;
	size_t ring_off;
	/* The file we made, to know it again by name or descriptor. */
	dev_t dev;
	ino_t ino;
	/* RING_*: whether the ring has its pages (apiprof_segment_ring_reserve). */
	int ring_state;
	/* What the name says: ours, or (pid 0) none made yet in this process
	 * line; a fork child starts with its parent's. */
	struct apiprof_segid id;
	/* The descriptor kept (see keep_fd), or -1. */
	int fd;
	/* The next row of the function table to hand out (all apis'). */
	uint32_t func_next;
	/* enum apiprof_proc_mode, kept for a fork child's segment. */
	uint32_t proc_mode;
	/* The directory entries of sweep_earlier_images: static memory, as
	 * the stack of a program's thread is no place for 4 KiB. */
	char sweep_buf[4096] __attribute__((aligned(8)));
	/* The name, with the leading '/'. */
	char name[1 + APIPROF_SEGNAME_MAX];
} seg = {.fd = -1};

struct apiprof_shm_header *apiprof_segment(void)
{
	return apiprof_load_acquire(&seg.hdr);
}

uint32_t apiprof_func_reserve(uint32_t n)
{
	return apiprof_fetch_add_relaxed(&seg.func_next, n);
}

ssize_t apiprof_proc_read(const char *path, char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, cap - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return n;
}

/* Field 22 of /proc/self/stat, read in small pieces (apiprof_segname.c):
 * this runs on the program's threads (a fork child's), whose stacks may be
 * small. */
static uint64_t proc_starttime(void)
{
	int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	uint64_t t = apiprof_stat_starttime(fd);
	close(fd);
	return t;
}

void apiprof_proc_comm(char *comm)
{
	char buf[64];
	ssize_t n = apiprof_proc_read("/proc/self/comm", buf, sizeof(buf));

	memset(comm, 0, APIPROF_COMM_MAX);
	if (n <= 0)
		return;
	if (buf[n - 1] == '\n')
		buf[--n] = '\0';
	memcpy(comm, buf, (size_t)n < APIPROF_COMM_MAX - 1 ? (size_t)n : APIPROF_COMM_MAX - 1);
}

static void fill_process(struct apiprof_shm_header *h)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	h->pid = seg.id.pid;
	h->uid = geteuid();
	h->starttime = seg.id.starttime;
	h->pidns = seg.id.pidns;
	h->nonce = seg.id.nonce;
	h->start_realtime_ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	apiprof_proc_comm(h->comm);
	h->state = APIPROF_PROC_RUNNING;
	h->mode = apiprof_read_once(&seg.proc_mode);
	h->clock = apiprof_clock_tsc ? APIPROF_CLOCK_TSC : APIPROF_CLOCK_MONOTONIC;
	h->interval_ms = apiprof_cfg.interval_ms;
	h->tick_hz = apiprof_clock_tsc ? 0 : 1000000000ull; /* tsc: set at the first flush */
	h->tick0 = apiprof_clock_tick0();
	h->mono0_ns = apiprof_clock_mono0();
	h->sample = apiprof_sample > 1 ? apiprof_sample : 1;
	h->flags = apiprof_cfg.interval_ms ? APIPROF_SHM_FLUSH_ACK : 0; /* apiprof_flush.c */
}

/* Set by the profiler of a mode other than generated shims, once. */
void apiprof_set_mode(uint32_t mode)
{
	struct apiprof_shm_header *h = apiprof_segment();

	apiprof_write_once(&seg.proc_mode, mode);
	if (h != NULL)
		apiprof_store_release(&h->mode, mode);
}

static void add_funcs(struct apiprof_shm_header *h, const struct apiprof_api *api)
{
	for (uint32_t i = 0; i < api->nfuncs; i++)
		apiprof_ring_add_func(h, api->func_base + i, api->name, api->syms[i].display,
		                      api->syms[i].flags, api->id);
}

void apiprof_segment_add_api(const struct apiprof_api *api)
{
	struct apiprof_shm_header *h = apiprof_segment();

	if (h == NULL)
		return;
	add_funcs(h, api);
	apiprof_ring_publish_funcs(h, apiprof_read_once(&seg.func_next));
}

void apiprof_segment_api_unloaded(const struct apiprof_api *api, bool unloaded)
{
	struct apiprof_shm_header *h = apiprof_segment();

	for (uint32_t i = 0; h != NULL && i < api->nfuncs; i++)
		apiprof_ring_func_flags(h, api->func_base + i,
		                        api->syms[i].flags | (unloaded ? APIPROF_FUNC_UNLOADED : 0));
}

/* posix_fallocate, which returns its error, in the usual convention: 0, or
 * -1 with errno set. */
static int fallocate_range(int fd, size_t off, size_t len)
{
	int err = posix_fallocate(fd, (off_t)off, (off_t)len);

	if (err == 0)
		return 0;
	errno = err;
	return -1;
}

/* Reserves [0, reserve) and makes the file size bytes long. */
static int size_fd(int fd, size_t reserve, size_t size)
{
	struct stat st;

	if (fchmod(fd, 0600) != 0 || fstat(fd, &st) != 0)
		return -1;
	seg.dev = st.st_dev;
	seg.ino = st.st_ino;
	if (fallocate_range(fd, 0, reserve) != 0)
		return -1;
	return ftruncate(fd, (off_t)size);
}

/* 64 bits no one can guess; without entropy yet (early boot), bits no one
 * can choose either, which is all O_EXCL needs. */
static uint64_t draw_nonce(void)
{
	uint64_t v;
	struct timespec ts;

	if (getrandom(&v, sizeof(v), GRND_NONBLOCK) == (ssize_t)sizeof(v))
		return v;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((uint64_t)ts.tv_nsec << 32 ^ (uint64_t)ts.tv_sec) * 0x9e3779b97f4a7c15ull ^
	       (uint64_t)(uintptr_t)&v;
}

/* Our pid namespace, which makes the pid in the name unambiguous. */
static uint64_t pidns_inode(void)
{
	struct stat st;

	return stat("/proc/self/ns/pid", &st) == 0 ? (uint64_t)st.st_ino : 0;
}

static void make_name(void)
{
	seg.id.nonce = draw_nonce();
	seg.name[0] = '/';
	apiprof_segname_format(seg.name + 1, sizeof(seg.name) - 1, &seg.id);
}

/* The segments of this process's earlier images.  An image that execs
 * under a plain LD_PRELOAD=shim.so cannot remove its segment (the exec
 * hook is not there), but its name carries the identity the new image
 * has too: the same euid, pid, start time and pid namespace, which no
 * other process has or had.  Only a regular file (not followed if a
 * symlink) owned by the euid is removed, all relative to the directory's
 * descriptor.  Done once per image, before it makes its own segment, so
 * nothing live can match: a fork child is another process. */
static bool is_earlier_image(int dfd, const char *name)
{
	struct apiprof_segid id;
	struct stat st;

	return apiprof_segname_parse(name, &id) == 0 && !id.legacy && id.uid == seg.id.uid &&
	       id.pid == seg.id.pid && id.starttime == seg.id.starttime &&
	       id.pidns == seg.id.pidns && fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	       S_ISREG(st.st_mode) && st.st_uid == seg.id.uid;
}

/* The flags and state words of a segment's header, read with pread (a
 * file too short for them: false). */
static bool header_words(int dfd, const char *name, uint32_t *flags, uint32_t *state)
{
	int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return false;
	ssize_t a = pread(fd, flags, sizeof(*flags), offsetof(struct apiprof_shm_header, flags));
	ssize_t b = pread(fd, state, sizeof(*state), offsetof(struct apiprof_shm_header, state));
	close(fd);
	return a == (ssize_t)sizeof(*flags) && b == (ssize_t)sizeof(*state);
}

/* A segment of our euid and pid namespace whose process is gone (no
 * process has its pid now): one that died (SIGSEGV, SIGABRT, SIGKILL:
 * its state never became EXITED) or ended while a collector watched
 * (APIPROF_SHM_LEFT).  While one watches, that collector takes it
 * (top/read/top_collect.c); else nobody will read it, and the next start of a
 * process of the same user removes it, as --clean would.  A segment that
 * ended without the mark was kept by APIPROF_KEEP_SHM: the user's to
 * remove.  A pid that lives may be reused: that is the viewer's to
 * judge. */
static bool is_dead_peer(int dfd, const char *name)
{
	struct apiprof_segid id;
	struct stat st;
	uint32_t flags = 0, state = 0;

	return apiprof_segname_parse(name, &id) == 0 && !id.legacy && id.uid == seg.id.uid &&
	       id.pidns == seg.id.pidns && id.pid != seg.id.pid && kill(id.pid, 0) != 0 &&
	       errno == ESRCH && fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	       S_ISREG(st.st_mode) && st.st_uid == seg.id.uid &&
	       header_words(dfd, name, &flags, &state) &&
	       (state != APIPROF_PROC_EXITED || (flags & APIPROF_SHM_LEFT));
}

/* An earlier image's segment left for a collector (it exec'ed while one
 * watched): the collector takes it. */
static bool left_for_collector(int dfd, const char *name)
{
	uint32_t flags = 0, state = 0;

	return header_words(dfd, name, &flags, &state) && (flags & APIPROF_SHM_LEFT);
}

static bool sweep_one(int dfd, const char *name, bool watched)
{
	if (is_earlier_image(dfd, name))
		return !(watched && left_for_collector(dfd, name));
	return !watched && is_dead_peer(dfd, name);
}

/* The directory is read 4 KiB at a time into static memory (the stack of
 * a program's thread is no place for it); only the first image of a
 * process (the constructor, single-threaded) gets here. */
static void sweep_earlier_images(void)
{
	int dfd = open(SHM_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	bool watched = apiprof_collector_watching();
	ssize_t n;

	if (dfd < 0)
		return;
	while ((n = getdents64(dfd, seg.sweep_buf, sizeof(seg.sweep_buf))) > 0)
		for (ssize_t off = 0; off < n;) {
			struct dirent64 *d = (struct dirent64 *)(void *)(seg.sweep_buf + off);

			if (d->d_reclen == 0)
				break;
			if (d->d_type != DT_DIR && sweep_one(dfd, d->d_name, watched))
				unlinkat(dfd, d->d_name, 0);
			off += d->d_reclen;
		}
	close(dfd);
}

/* A name that exists is not ours (ours has a nonce no one knew): leave it
 * and draw another.  Four draws that all collide mean someone is creating
 * names as fast as we draw them, which we do not fight. */
static int create_excl(void)
{
	const int flags = O_CREAT | O_EXCL | O_RDWR | O_NOFOLLOW | O_CLOEXEC;
	bool first = seg.id.pid == 0; /* not a fork child, which has its parent's */
	int fd = -1;

	seg.id.uid = geteuid();
	seg.id.pid = getpid();
	seg.id.starttime = proc_starttime();
	seg.id.pidns = pidns_inode();
	/* Without the start time or the namespace, the identity is not proof. */
	if (first && seg.id.starttime != 0 && seg.id.pidns != 0)
		sweep_earlier_images();
	for (int i = 0; i < 4 && fd < 0; i++) {
		make_name();
		fd = shm_open(seg.name, flags, 0600);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	return fd;
}

static int create_fd(size_t reserve, size_t size)
{
	int fd = create_excl();
	if (fd < 0) {
		apiprof_warn("cannot create /dev/shm%s (%s): live view off", seg.name,
		             strerror(errno));
		return -1;
	}
	if (size_fd(fd, reserve, size) != 0) {
		apiprof_warn("cannot reserve %zu bytes for /dev/shm%s (%s): live view off", reserve,
		             seg.name, strerror(errno));
		shm_unlink(seg.name);
		close(fd);
		return -1;
	}
	return fd;
}

/* Growing a file past RLIMIT_FSIZE raises SIGXFSZ, which kills the
 * program: the segment is sized only when it fits under the limit. */
static bool fits_fsize(size_t size)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_FSIZE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY ||
	    (uint64_t)size <= (uint64_t)rl.rlim_cur)
		return true;
	apiprof_warn("the live segment needs %zu bytes, more than the file size limit (ulimit -f) "
	             "of %llu: live view off",
	             size, (unsigned long long)rl.rlim_cur);
	return false;
}

/* The descriptor goes far above the program's: a program that counts on
 * the lowest free number (open() returning 3) still gets it.  Without a
 * free high number, none is kept and the ring is reserved by name. */
static void keep_fd(int fd)
{
	struct rlimit rl;
	long lo = 3;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur > 64)
		lo = (long)rl.rlim_cur - 64;
	seg.fd = fcntl(fd, F_DUPFD_CLOEXEC, lo);
}

/* The kept descriptor while it is still our file, else -1.  The program
 * may have closed the number and opened something else under it. */
static int own_fd(void)
{
	struct stat st;
	int fd = apiprof_read_once(&seg.fd);

	if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_dev != seg.dev ||
	    st.st_ino != seg.ino)
		return -1;
	return fd;
}

void apiprof_segment_open(void)
{
	struct apiprof_ring_geom g = {apiprof_cfg.func_cap, apiprof_cfg.ring_order};
	size_t size = apiprof_ring_size(&g);
	int fd;

	apiprof_write_once(&seg.ring_state, RING_NONE);
	seg.ring_off = apiprof_ring_offset(&g);
	if (!apiprof_cfg.shm || !fits_fsize(size) || (fd = create_fd(seg.ring_off, size)) < 0)
		return;
	struct apiprof_shm_header *h = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (h == MAP_FAILED) {
		apiprof_warn("cannot map /dev/shm%s (%s): live view off", seg.name,
		             strerror(errno));
		shm_unlink(seg.name);
		close(fd);
		return;
	}
	keep_fd(fd);
	close(fd);
	apiprof_ring_format(h, size, &g);
	fill_process(h);
	for (uint32_t id = 1; id <= apiprof_api_count(); id++)
		if (apiprof_api_get(id) != NULL)
			add_funcs(h, apiprof_api_get(id));
	apiprof_ring_publish_funcs(h, apiprof_read_once(&seg.func_next));
	/* Pairs with the reader's check of magic: a reader that sees it sees a
	 * formatted header. */
	apiprof_store_release(&h->magic, APIPROF_SHM_MAGIC);
	seg.size = size;
	apiprof_store_release(&seg.hdr, h);
	apiprof_steer_show(); /* the modes, once the steering can see it */
}

/* Our file reopened by name: the descriptor, or -1 with errno set (ESTALE:
 * the name is now another file's). */
static int open_by_name(int mode)
{
	int fd = shm_open(seg.name, mode | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0);
	struct stat st;
	int err = ESTALE;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0)
		err = errno;
	else if (S_ISREG(st.st_mode) && st.st_dev == seg.dev && st.st_ino == seg.ino)
		return fd;
	close(fd);
	errno = err;
	return -1;
}

/* The ring's first len bytes get their pages.  Through the kept
 * descriptor, which works whatever the program's uid is now; else reopened
 * by name, and the file must still be the one we made. */
static int ring_fallocate(size_t len)
{
	int fd = own_fd();

	if (fd >= 0)
		return fallocate_range(fd, seg.ring_off, len);
	fd = open_by_name(O_RDWR);
	if (fd < 0)
		return -1;
	int rc = fallocate_range(fd, seg.ring_off, len);
	int err = errno;
	close(fd);
	errno = err;
	return rc;
}

/* Gives the ring its pages, once per segment: true when it has them.  A
 * caller that finds another one at it gets false and writes nothing now;
 * the next keyframe repeats whatever it would have written. */
static bool ring_reserve(size_t len)
{
	int st = RING_NONE, saved = errno;

	if (apiprof_segment() == NULL)
		return false;
	if (!apiprof_cas_acquire(&seg.ring_state, &st, RING_BUSY))
		return st == RING_READY;
	bool ok = ring_fallocate(len) == 0;
	if (ok && len < seg.size - seg.ring_off)
		apiprof_ring_limit(apiprof_segment(), len / sizeof(struct apiprof_shm_rec));
	if (!ok) {
		apiprof_warn("cannot reserve the ring of /dev/shm%s (%s): live view off", seg.name,
		             strerror(errno));
		/* A reader shows the process without numbers rather than not at
		 * all; the heartbeat's release store publishes it. */
		apiprof_or_fetch_relaxed(&apiprof_segment()->flags, APIPROF_SHM_NO_RING);
	}
	/* Pairs with the acquire in apiprof_segment_ring: a writer that sees
	 * READY writes to pages that exist. */
	apiprof_store_release(&seg.ring_state, ok ? RING_READY : RING_FAILED);
	errno = saved;
	return ok;
}

bool apiprof_segment_ring_reserve(void)
{
	return ring_reserve(seg.size - seg.ring_off);
}

/* How long the exit path waits for a reservation the flusher is making. */
#define RING_SETTLE_NS 200000000ull

/* At exit: a reader's first look may have the flusher reserving the ring at
 * this very moment.  Waiting for it to finish keeps the final records; not
 * waiting would lose them, since the ring may not be written until it has
 * its pages.  It is one fallocate, and the flusher blocks every signal, so
 * nothing stops it halfway; the wait is bounded all the same, for exit must
 * never hang. */
bool apiprof_segment_ring_reserve_at_exit(void)
{
	uint64_t until = apiprof_clock_mono() + RING_SETTLE_NS;

	while (apiprof_load_acquire(&seg.ring_state) == RING_BUSY && apiprof_clock_mono() < until)
		sched_yield();
	return apiprof_segment_ring_reserve();
}

/* At exit, for a collector, when no reader has asked for the ring: only
 * its first slots get pages, enough for nrec records (whole pages), so
 * that a short process's final snapshot costs a few kB of /dev/shm, not
 * the 2.4 MB ring.  The writers stop at that limit (apiprof_ring_limit);
 * a ring that has its pages already is used whole. */
bool apiprof_segment_ring_reserve_final(uint64_t nrec)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), whole = seg.size - seg.ring_off;
	uint64_t want = nrec * sizeof(struct apiprof_shm_rec);
	uint64_t until = apiprof_clock_mono() + RING_SETTLE_NS;

	while (apiprof_load_acquire(&seg.ring_state) == RING_BUSY && apiprof_clock_mono() < until)
		sched_yield();
	if (want < whole)
		want = (want + page - 1) / page * page;
	return ring_reserve(want < whole ? (size_t)want : whole);
}

struct apiprof_shm_header *apiprof_segment_ring(void)
{
	if (apiprof_load_acquire(&seg.ring_state) != RING_READY)
		return NULL;
	return apiprof_segment();
}

/* The name still refers to the file we made.  In /dev/shm (sticky) only
 * its owner and root can replace it, so this is a check against mistakes
 * (an administrator's rm, then a new file), not against an attacker. */
static bool is_ours_by_name(void)
{
	char path[sizeof(SHM_DIR) + APIPROF_SEGNAME_MAX];
	struct stat st;

	/* The precision tells the compiler how long the name can be. */
	snprintf(path, sizeof(path), SHM_DIR "%.*s", (int)sizeof(seg.name) - 1, seg.name + 1);
	return lstat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_dev == seg.dev &&
	       st.st_ino == seg.ino;
}

/* A segment left for a collector may wait seconds for it: the function
 * table's pages past the entries in use (about 210 kB of its 220 under
 * the default APIPROF_MAX_FUNCS) are given back.  Entries reserved from
 * now on (an api registered by a thread still running) are neither
 * written nor named by a record (apiprof_ring_func_limit), so nothing
 * touches those pages again; a reader reads only entries below
 * func_count. */
static void trim_funcs(struct apiprof_shm_header *h)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), size = sizeof(struct apiprof_shm_func);
	uint32_t used = apiprof_load_seq_cst(&seg.func_next);

	if (used > apiprof_cfg.func_cap)
		return;
	size_t from = (APIPROF_SHM_HEADER_SIZE + (size_t)used * size + page - 1) / page * page;
	if (from >= seg.ring_off)
		return;
	apiprof_ring_func_limit(h, (uint32_t)((from - APIPROF_SHM_HEADER_SIZE) / size));
	int fd = own_fd();
	bool opened = fd < 0;
	if (opened)
		fd = open_by_name(O_RDWR);
	if (fd < 0)
		return;
	fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)from,
	          (off_t)(seg.ring_off - from));
	if (opened)
		close(fd);
}

/* At exit: readers see the process ended with its final numbers.  The
 * mapping stays: a thread still running may write one more record.  A
 * segment left for a collector says so before it says EXITED, so that a
 * collector that sees the state sees the mark. */
void apiprof_segment_close(bool unlink_it, bool left)
{
	struct apiprof_shm_header *h = apiprof_segment();
	int saved = errno;

	if (h == NULL)
		return;
	if (left)
		trim_funcs(h);
	errno = saved;
	if (left)
		apiprof_or_fetch_relaxed(&h->flags, APIPROF_SHM_LEFT);
	apiprof_store_release(&h->state, APIPROF_PROC_EXITED);
	if (unlink_it && is_ours_by_name())
		shm_unlink(seg.name);
}

/* The inherited mapping is the parent's segment, which a fork child must
 * never write: dropped, with the parent's descriptor. */
static void segment_forget(void)
{
	struct apiprof_shm_header *h = apiprof_xchg_acq_rel(&seg.hdr, NULL);
	int fd = own_fd();

	/* The inherited copy of the parent's descriptor; a number the program
	 * reused is the program's, and stays open. */
	if (fd >= 0)
		close(fd);
	apiprof_write_once(&seg.fd, -1);
	if (h != NULL)
		munmap(h, seg.size);
}

/* In a fork child: the parent's segment dropped, the child's own made (a
 * new name: the id keeps the parent's pid, which tells create_excl this
 * is a fork child, not a new image).  The func_next rows already handed
 * out stay the apis', and the proc_mode is the parent's. */
void apiprof_segment_after_fork(void)
{
	segment_forget();
	apiprof_segment_open();
}

/* Before the program's uid changes to uid (apiprof_creds.c): the segment
 * becomes uid's file, so that the process can still reserve its ring and
 * remove it at exit, and uid's apiprof-top sees it.  Needs the privilege
 * the process has before it drops it (CAP_CHOWN).  0, or -1 with errno
 * set. */
int apiprof_segment_handover(uint32_t uid)
{
	struct apiprof_shm_header *h = apiprof_segment();

	if (h == NULL || seg.id.pid != getpid()) /* none, or a vfork child's parent's */
		return 0;
	if (apiprof_read_once(&h->uid) == uid)
		return 0;
	int fd = own_fd();
	if (fd < 0)
		fd = open_by_name(O_RDONLY);
	if (fd < 0)
		return -1;
	int rc = fchown(fd, uid, (gid_t)-1);
	if (rc == 0)
		apiprof_store_release(&h->uid, uid);
	int err = errno;
	if (fd != seg.fd)
		close(fd);
	errno = err;
	return rc;
}
