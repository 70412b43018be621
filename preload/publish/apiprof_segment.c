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
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "apiprof_internal.h"
#include "apiprof_segment.h"
#include "apiprof_steer.h"
#include "apiprof_segname.h"

/* The segment's state (apiprof_segment.h). */
struct apiprof_segment_state seg = {.fd = -1};

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
		                        api->syms[i].flags |
		                                (unloaded ? APIPROF_FUNC_UNLOADED : 0));
}

/* posix_fallocate, which returns its error, in the usual convention: 0, or
 * -1 with errno set. */
int fallocate_range(int fd, size_t off, size_t len)
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
int own_fd(void)
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
int open_by_name(int mode)
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
