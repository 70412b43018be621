/* SPDX-License-Identifier: MIT */
/*
 * top_shm.c - a segment opened, mapped and validated, the SIGBUS guard,
 * the control block's reader side (watch, a first look's flush and its
 * answer), and the read pass that frames it all; the pass's records are
 * top_shm_ring.c's, the names and processes of segments top_names.c's.
 *
 * A segment is mapped once and re-validated on every read pass, because
 * its owner may rewrite (or truncate) it at any time.  All reads of the
 * mapping happen between sigsetjmp and the end of the pass with a SIGBUS
 * handler armed: a producer that ftruncate()s the file under us turns the
 * next access into SIGBUS, and the handler turns that into an error return.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "apiprof_ctl.h"
#include "apiprof_ringbuf.h"
#include "apiprof_segname.h"
#include "top_clock.h"
#include "top_shm.h"
#include "top_shm_ring.h"

/* Bounded copy of a fixed-size, maybe unterminated field; anything a
 * terminal could interpret becomes '?'.  dst holds srclen + 1 bytes. */
void top_shm_sanitize(char *dst, const char *src, size_t srclen)
{
	size_t i;

	for (i = 0; i < srclen && src[i]; i++) {
		unsigned char c = (unsigned char)src[i];

		dst[i] = (c < 0x20 || c >= 0x7f) ? '?' : (char)c;
	}
	dst[i] = '\0';
}

/* --- SIGBUS guard ----------------------------------------------------------- */

static sigjmp_buf bus_jmp;
static volatile sig_atomic_t bus_armed;

/* Only faults inside a guarded read are ours; anything else is a real bug
 * and must still kill the process with SIGBUS. */
static void bus_handler(int sig)
{
	if (bus_armed) {
		bus_armed = 0;
		siglongjmp(bus_jmp, 1);
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

static void bus_install(void)
{
	static bool done;
	struct sigaction sa;

	if (done)
		return;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = bus_handler;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, NULL);
	done = true;
}

/* The signal fences keep the compiler from moving accesses to the mapping
 * outside the armed window. */
static void bus_arm(void)
{
	bus_armed = 1;
	apiprof_compiler_barrier();
}

static void bus_disarm(void)
{
	apiprof_compiler_barrier();
	bus_armed = 0;
}

/* Copies n bytes from a mapping that may shrink under us: 0, or -1 when
 * the source is no longer backed by the file. */
int top_shm_copy_guarded(void *dst, const void *src, size_t n)
{
	bus_install();
	if (sigsetjmp(bus_jmp, 1))
		return -1;
	bus_arm();
	memcpy(dst, src, n);
	bus_disarm();
	return 0;
}

/* --- mapping ------------------------------------------------------------------ */

void top_seg_init(struct top_seg *s)
{
	memset(s, 0, sizeof(*s));
	s->fd = -1;
}

int top_shm_fail(char *err, size_t errlen, const char *msg)
{
	snprintf(err, errlen, "%s", msg);
	return TOP_SEG_INVALID;
}

/* Whose segment the viewer may read: its own, and root's viewer anyone's.
 * The owner is the uid of the name, or a new one when the name's is root's:
 * a process that drops privileges hands its segment over and keeps the
 * name (apiprof_segname.h).  Anything else was put there by someone else. */
static int check_owner(const struct top_seg *s, const struct stat *st, char *err, size_t errlen)
{
	if (geteuid() != 0 && st->st_uid != getuid()) {
		snprintf(err, errlen, "owned by uid %u, not by this user", (unsigned)st->st_uid);
		return TOP_SEG_INVALID;
	}
	if (!s->named || (s->id.uid != st->st_uid && s->id.uid != 0)) {
		snprintf(err, errlen, "owned by uid %u, not by the uid of its name",
		         (unsigned)st->st_uid);
		return TOP_SEG_INVALID;
	}
	return 0;
}

/* Opens name in the directory dfd without following a symbolic link and
 * without blocking (a FIFO put there in place of the file).  Read-write
 * only to say that we watch (watch()); the mapping stays read-only.  A
 * segment we may not write is still read. */
static int open_at(struct top_seg *s, int dfd, const char *name)
{
	const int flags = O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY;

	s->fd = openat(dfd, name, O_RDWR | flags);
	s->writable = s->fd >= 0;
	if (s->fd < 0 && (errno == EACCES || errno == EROFS))
		s->fd = openat(dfd, name, O_RDONLY | flags);
	return s->fd;
}

/* What a failed open means: gone (not ready, the runtime may be making
 * it), a symbolic link (O_NOFOLLOW's ELOOP), no descriptor left for now,
 * or the error. */
static int open_failed(char *err, size_t errlen)
{
	if (errno == ENOENT)
		return TOP_SEG_NOTREADY;
	if (errno == EMFILE || errno == ENFILE)
		return TOP_SEG_NOFD;
	return top_shm_fail(err, errlen, errno == ELOOP ? "a symbolic link" : strerror(errno));
}

static int map_fd(struct top_seg *s, const struct stat *st, char *err, size_t errlen)
{
	if ((uint64_t)st->st_size < sizeof(struct apiprof_shm_header))
		return TOP_SEG_NOTREADY; /* the runtime sizes it right after creating it */
	if ((uint64_t)st->st_size > SIZE_MAX)
		return top_shm_fail(err, errlen, "segment too large");
	void *m = mmap(NULL, (size_t)st->st_size, PROT_READ, MAP_SHARED, s->fd, 0);
	if (m == MAP_FAILED)
		return top_shm_fail(err, errlen, strerror(errno));
	s->map = m;
	s->map_size = (size_t)st->st_size;
	s->dev = (uint64_t)st->st_dev;
	s->ino = (uint64_t)st->st_ino;
	return 0;
}

/* Opens segment `name` of the directory dfd.  Everything is decided on
 * the descriptor: the name may have been swapped since it was listed. */
int top_seg_openat(struct top_seg *s, int dfd, const char *name, char *err, size_t errlen)
{
	struct stat st;

	top_seg_init(s);
	s->named = apiprof_segname_parse(name, &s->id) == 0;
	if (open_at(s, dfd, name) < 0)
		return open_failed(err, errlen);
	if (fstat(s->fd, &st))
		return top_shm_fail(err, errlen, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return top_shm_fail(err, errlen, "not a regular file");
	int rc = check_owner(s, &st, err, errlen);
	s->owner = (uint32_t)st.st_uid;
	rc = rc ? rc : map_fd(s, &st, err, errlen);
	close(s->fd); /* mapped: a read pass opens it again */
	s->fd = -1;
	return rc;
}

/* top_seg_openat relative to the directory part of path. */
int top_seg_open(struct top_seg *s, const char *path, char *err, size_t errlen)
{
	const char *slash = strrchr(path, '/');
	char dir[PATH_MAX];

	if (!slash)
		return top_seg_openat(s, AT_FDCWD, path, err, errlen);
	snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path) + (slash == path), path);
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		top_seg_init(s);
		return open_failed(err, errlen);
	}
	int rc = top_seg_openat(s, dfd, slash + 1, err, errlen);
	close(dfd);
	if (rc == 0 && !(s->path = strdup(path)))
		rc = top_shm_fail(err, errlen, "out of memory");
	return rc;
}

void top_seg_close(struct top_seg *s)
{
	if (s->map)
		munmap((void *)s->map, s->map_size);
	if (s->fd >= 0)
		close(s->fd);
	free(s->funcs);
	free(s->path);
	top_seg_init(s);
}

/* --- validation ------------------------------------------------------------------ */

_Static_assert(TOP_SEG_INVALID == APIPROF_LAYOUT_INVALID &&
                       TOP_SEG_NOTREADY == APIPROF_LAYOUT_NOTREADY,
               "the layout's verdicts are the reader's");

/* The layout's own check (apiprof_layout.h), beside the writer's format. */
int top_shm_validate(const struct apiprof_shm_header *h, size_t size, char *err, size_t errlen)
{
	return apiprof_layout_check(h, size, err, errlen);
}

/* A segment's header names its process as its file name does: pid in the
 * process's namespace, the namespace and the nonce.  The pid shown (the
 * viewer's) is the header's only when the name says nothing more. */
bool top_shm_names_process(const struct top_seg *s, int pid)
{
	if (!s->named || s->id.legacy)
		return s->hdr.pid == pid;
	return s->hdr.pid == s->id.pid && s->hdr.pidns == s->id.pidns &&
	       s->hdr.nonce == s->id.nonce;
}

/* How long a reader promises to look again within (watch()): three of
 * its refresh periods, and at least 5 s. */
static uint64_t watch_ns = 5000000000ull;

void top_shm_watch_delay(double delay_s)
{
	double ns = 3e9 * delay_s;

	watch_ns = ns > 5e9 ? (uint64_t)ns : 5000000000ull;
}

/* Whether the segment's runtime answers a request for a flush
 * (APIPROF_SHM_FLUSH_ACK), as the latest header copy says. */
static bool acks(const struct top_seg *s)
{
	return (s->hdr.flags & APIPROF_SHM_FLUSH_ACK) != 0;
}

/* Tells the runtime that a reader watches (apiprof_ctl.h): the flusher
 * runs only then.  The control block is written with pwrite, so the
 * mapping stays read-only.  A runtime that answers requests is asked for
 * a keyframe at the first look (top_seg_await waits for it), whether its
 * flusher is idle or not; another one is woken only when idle.  Only for
 * a segment of our version: the offsets are its. */
static void watch(struct top_seg *s, const struct apiprof_shm_header *mh)
{
	uint64_t until = top_now_ns(CLOCK_MONOTONIC) + watch_ns;
	uint32_t gen;
	bool ask = acks(s) && !s->asked;

	if (!s->writable || s->fd < 0 || s->hdr.magic != APIPROF_SHM_MAGIC ||
	    s->hdr.version != APIPROF_SHM_VERSION || apiprof_ctl_watch(s->fd, until) != 0)
		return;
	if (!ask && !apiprof_ctl_idle(&mh->ctl))
		return;
	if (apiprof_ctl_post(s->fd, &mh->ctl, APIPROF_CTL_WATCH, &gen) != 0)
		return;
	s->woken = !ask;
	s->asked = s->asked || ask;
	s->ask_new = ask;
	s->ask_gen = ask ? gen : s->ask_gen;
}

/* A flusher this reader just woke writes a snapshot at once; waiting for
 * it (its heartbeat moves) keeps a first look, and a one-shot
 * `apiprof-top -n 1`, from showing the process empty or stale.  Once per
 * segment, only while its process lives, and 1 s at most in all for the
 * life of the viewer: segments whose flusher never answers (killed while
 * it waited, or lying) must not slow it down. */
static int wait_steps_left = 200; /* of 5 ms */

/* pid: the process as this viewer's namespace numbers it (the header's pid
 * is the one in the process's own). */
static bool woken_flushed(struct top_seg *s, int pid)
{
	const struct apiprof_shm_header *mh = (const void *)s->map;
	uint64_t beat0 = s->hdr.heartbeat_tick;
	struct timespec ts = {0, 5000000};

	if (s->waited || pid <= 0 || (kill(pid, 0) != 0 && errno != EPERM))
		return false;
	s->waited = true;
	for (; wait_steps_left > 0; wait_steps_left--) {
		if (apiprof_load_acquire(&mh->heartbeat_tick) != beat0)
			return true;
		nanosleep(&ts, NULL);
	}
	return false;
}

/* Whether the runtime has answered this reader's request: the control
 * block's done has reached ask_gen.  In the armed window of a guarded
 * access. */
static bool answered(const struct top_seg *s)
{
	const struct apiprof_shm_header *mh = (const void *)s->map;

	return apiprof_ctl_reached(apiprof_ctl_done(&mh->ctl), s->ask_gen);
}

/* Waits for the answer until deadline_ns (CLOCK_MONOTONIC), on the futex
 * the runtime wakes. */
static void await_answer(struct top_seg *s, uint64_t deadline_ns)
{
	const struct apiprof_shm_header *mh = (const void *)s->map;

	for (;;) {
		uint32_t cur = apiprof_ctl_done(&mh->ctl);
		uint64_t now = top_now_ns(CLOCK_MONOTONIC);

		if (apiprof_ctl_reached(cur, s->ask_gen)) {
			s->answered = true;
			return;
		}
		if (now >= deadline_ns)
			return;
		struct timespec rel = {(time_t)((deadline_ns - now) / 1000000000u),
		                       (long)((deadline_ns - now) % 1000000000u)};
		apiprof_ctl_await(&mh->ctl, cur, &rel);
	}
}

bool top_seg_pending(const struct top_seg *s)
{
	return s->map != NULL && s->asked && !s->answered;
}

/* await_answer with the mapping guarded: a segment that shrinks under
 * the reader is no answer. */
static void await_guarded(struct top_seg *s, uint64_t deadline_ns)
{
	bus_install();
	if (sigsetjmp(bus_jmp, 1))
		return;
	bus_arm();
	await_answer(s, deadline_ns);
	bus_disarm();
}

bool top_seg_await(struct top_seg *s, int pid, uint64_t deadline_ns)
{
	if (!top_seg_pending(s) || !s->ask_new)
		return s->answered;
	s->ask_new = false;
	/* gone: its last snapshot answered, or nothing will */
	await_guarded(s, pid <= 0 || (kill(pid, 0) != 0 && errno != EPERM) ? 0 : deadline_ns);
	return s->answered;
}

/* One pass over a mapped segment; every access to the mapping is here. */
static int read_pass(struct top_seg *s, int pid, const struct top_seg_sink *k, char *err,
                     size_t errlen)
{
	const struct apiprof_shm_header *mh = (const void *)s->map;
	struct ring_scan sc = {s, k, 0, err, errlen};

	/* Pairs with the runtime's release store of the magic, published
	 * last: seeing it means seeing the fields written before it. */
	if (!apiprof_load_acquire(&mh->magic))
		return TOP_SEG_NOTREADY;
	memcpy(&s->hdr, s->map, sizeof(s->hdr));
	watch(s, mh); /* also while not ready: the first flush makes it so */
	int rc = top_shm_validate(&s->hdr, s->map_size, err, errlen);
	if (rc)
		return rc;
	if (!top_shm_names_process(s, pid))
		return top_shm_fail(err, errlen, "pid does not match the segment name");
	uint64_t head = apiprof_load_acquire(&mh->head);
	if (top_shm_check_backed(s, head, err, errlen))
		return TOP_SEG_INVALID;
	if (top_shm_scan_ring(&sc, head))
		return TOP_SEG_INVALID;
	/* Loaded after the records: a function is published before any record
	 * names it, so this count covers every record just read. */
	uint32_t count = apiprof_load_acquire(&mh->func_count);
	if (count > s->hdr.func_cap || sc.func_end > count)
		return top_shm_fail(err, errlen, "record refers to a function beyond func_count");
	if (top_shm_copy_funcs(s, k, count))
		return top_shm_fail(err, errlen, "out of memory");
	k->pass(k->ctx, &s->hdr, s->lost);
	return 0;
}

/* The file mapped, opened again for a pass: -1 with errno when its name
 * leads to it no more (ENOENT: gone, or another file put there).  Its
 * owner is taken again: a process that changes uid hands its segment
 * over (apiprof_creds.c), and only it, while privileged, or root can. */
static int reopen(struct top_seg *s)
{
	int flags = O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY;
	int fd = s->path ? open(s->path, (s->writable ? O_RDWR : O_RDONLY) | flags) : -1;
	struct stat st;

	if (!s->path)
		errno = ENOENT;
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0 || (uint64_t)st.st_dev != s->dev || (uint64_t)st.st_ino != s->ino) {
		close(fd);
		errno = ENOENT;
		return -1;
	}
	s->owner = (uint32_t)st.st_uid;
	return fd;
}

static int scan_guarded(struct top_seg *s, int pid, const struct top_seg_sink *k, char *err,
                        size_t errlen)
{
	struct stat st;
	int rc;

	if (s->fd >= 0 && (fstat(s->fd, &st) || (uint64_t)st.st_size < s->map_size))
		return top_shm_fail(err, errlen, "segment shrank under the reader");
	bus_install();
	if (sigsetjmp(bus_jmp, 1))
		return top_shm_fail(err, errlen, "segment shrank under the reader (SIGBUS)");
	bus_arm();
	s->woken = false;
	rc = read_pass(s, pid, k, err, errlen);
	if (rc != TOP_SEG_INVALID && s->woken && woken_flushed(s, pid))
		rc = read_pass(s, pid, k, err, errlen);
	/* a late answer to an earlier look's request (this look's own is
	 * waited for, and the segment read again, by top_seg_await's caller) */
	if (s->asked && !s->answered && !s->ask_new)
		s->answered = answered(s);
	bus_disarm();
	return rc;
}

int top_seg_scan(struct top_seg *s, int pid, const struct top_seg_sink *k, char *err, size_t errlen)
{
	if (!s->map)
		return top_shm_fail(err, errlen, "not mapped");
	s->fd = reopen(s);
	if (s->fd < 0 && (errno == EMFILE || errno == ENFILE))
		return TOP_SEG_NOFD;
	int rc = scan_guarded(s, pid, k, err, errlen);
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
	return rc;
}
