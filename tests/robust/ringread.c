/* SPDX-License-Identifier: MIT */
/*
 * ringread - a producer overflowing a tiny ring, with a reader that is
 * stalled, SIGKILLed, or never started.  The reader is apiprof-top's own
 * (top_shm.h).
 *
 *   ringread stall|kill|none PRELOAD PROG N
 *
 * Runs `PROG N wait` (`PROG N` for none) with LD_PRELOAD=PRELOAD, waits
 * for its "ready" (the runtime has made its segment, no call was made
 * yet), and forwards the rest of its stdout to ours.
 *
 *   stall  reads the segment once before the first call (nothing lost
 *          yet), lets the program run to its end without reading, and
 *          reads once more: then records received + records lost must
 *          equal the positions produced (head), the producer's dropped
 *          records among the lost.  Received are the ring's complete
 *          slots, counted here after the producer is gone and nothing
 *          moves any more; lost is the reader library's own count.
 *   drop   as stall, in a ring big enough for every record of the run
 *          (APIPROF_RING_RECORDS), of which the reader marks every odd
 *          slot as being written for ever (an odd seq no producer may
 *          claim, as a producer stopped mid-write a lap behind leaves it)
 *          before the first call: every record of an odd position must be
 *          dropped and counted, every other one received.  So records
 *          received + records dropped == records produced (head), dropped
 *          == head / 2 exactly, and the reader lost just those.
 *   hist   as stall, in a ring big enough for every record: all received,
 *          none dropped; and in the records of the finished run (calls ==
 *          N), every timed call in the histogram, the lowest bucket used
 *          the one of the shortest call (min), the highest the one of the
 *          longest (max): with N = 1, the one call's bucket holds its own
 *          duration.
 *   kill   a child reads the segment without pause and is SIGKILLed
 *          while the program makes its calls.
 *   none   no reader at all.
 *
 * Exit: the program's status; 90 when the accounting is wrong, 91 on a
 * set-up failure.  The numbers go to stderr.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "apiprof_ringbuf.h"
#include "seg_attach.h"

static int die(const char *what)
{
	fprintf(stderr, "ringread: %s\n", what);
	return 91;
}

/* Opens the segment of pid and reads it once. */
static int attach(pid_t pid, struct top_seg *s, struct top_proc *p)
{
	char err[TOP_ERR_LEN];
	int rc = seg_attach(pid, s, p, err, sizeof(err));

	if (rc != 0)
		fprintf(stderr, "ringread: the segment of %d: %s\n", (int)pid,
		        rc > 0   ? "not ready"
		        : err[0] ? err
		                 : "none");
	return rc;
}

/* The ring of the header read last. */
static struct apiprof_ring_view view_of(const struct top_seg *s)
{
	struct apiprof_ring_view v = {s->map + s->hdr.ring_off, s->hdr.ring_order, s->hdr.rec_size};

	return v;
}

/* Complete slots of a ring nobody writes any more. */
static uint64_t complete_slots(const struct top_seg *s)
{
	const struct apiprof_shm_header *h = &s->hdr;
	struct apiprof_ring_view v = view_of(s);
	uint64_t cap = 1ull << h->ring_order, n = 0;

	for (uint64_t pos = h->head > cap ? h->head - cap : 0; pos < h->head; pos++)
		n += apiprof_ring_complete(&v, pos);
	return n;
}

/* Bucket b counts the durations d with floor(log2(d|1)) == b (apiprof_abi.h). */
static unsigned bucket(uint64_t d)
{
	return 63u - (unsigned)__builtin_clzll(d | 1u);
}

/* One record's histogram against its own min and max; 0 when it fits. */
static int hist_fits(const struct apiprof_rec_times *r)
{
	uint64_t sum = 0;
	int lo = -1, hi = -1;

	for (int b = 0; b < APIPROF_HIST_BUCKETS; b++) {
		sum += r->hist[b];
		if (r->hist[b] && lo < 0)
			lo = b;
		if (r->hist[b])
			hi = b;
	}
	if (sum == r->timed && lo == (int)bucket(r->min_ticks) && hi == (int)bucket(r->max_ticks))
		return 0;
	fprintf(stderr,
	        "ringread: %llu timed calls, min %llu max %llu ticks (buckets %u, %u): "
	        "histogram holds %llu, buckets %d..%d\n",
	        (unsigned long long)r->timed, (unsigned long long)r->min_ticks,
	        (unsigned long long)r->max_ticks, bucket(r->min_ticks), bucket(r->max_ticks),
	        (unsigned long long)sum, lo, hi);
	return -1;
}

/* The histograms of the complete records of the finished run (calls ==
 * n: the thread made no call while they were taken, so they are
 * consistent); -1 when one does not fit or there is none. */
static int check_hists(const struct top_seg *s, uint64_t n)
{
	const struct apiprof_shm_header *h = &s->hdr;
	struct apiprof_ring_view v = view_of(s);
	uint64_t cap = 1ull << h->ring_order, checked = 0;
	int bad = 0;

	for (uint64_t pos = h->head > cap ? h->head - cap : 0; pos < h->head; pos++) {
		struct apiprof_shm_rec r;

		if (!apiprof_ring_read(&v, pos, &r) || r.h.kind != APIPROF_REC_KIND_TIMES ||
		    r.u.times.calls != n || r.u.times.timed == 0)
			continue;
		checked++;
		bad |= hist_fits(&r.u.times);
	}
	fprintf(stderr, "ringread: %llu records of the finished run, histograms %s\n",
	        (unsigned long long)checked, bad ? "WRONG" : "consistent");
	return checked && !bad ? 0 : -1;
}

/* Marks every odd slot as being written, for ever: seq odd and beyond any
 * position, so that no producer claims it.  Only while nothing has been
 * produced (head 0 after the marks), so that no producer was at a slot. */
static int poison_odd_slots(const struct top_seg *s)
{
	const struct apiprof_shm_header *mh = (const void *)s->map;
	uint64_t cap = 1ull << s->hdr.ring_order, v = UINT64_MAX;

	/* The viewer keeps no descriptor between read passes (issue 34): the
	 * file is opened again here, by the path it was mapped from. */
	int fd = s->writable && s->path ? open(s->path, O_RDWR | O_NOFOLLOW | O_CLOEXEC) : -1;
	int rc = fd < 0 ? -1 : 0;

	for (uint64_t i = 1; rc == 0 && i < cap; i += 2)
		if (pwrite(fd, &v, sizeof(v), (off_t)(s->hdr.ring_off + i * s->hdr.rec_size)) !=
		    (ssize_t)sizeof(v))
			rc = -1;
	if (fd >= 0)
		close(fd);
	if (rc != 0)
		return -1;
	return __atomic_load_n(&mh->head, __ATOMIC_SEQ_CST) == 0 ? 0 : -1;
}

static pid_t reader_child(pid_t pid, int *attached_fd)
{
	int fds[2];
	pid_t r;

	if (pipe(fds) != 0 || (r = fork()) < 0)
		return -1;
	if (r == 0) {
		struct top_seg s;
		struct top_proc p;
		char err[TOP_ERR_LEN];

		close(fds[0]);
		if (attach(pid, &s, &p) != 0 || write(fds[1], "a", 1) != 1)
			_exit(1);
		for (;;) /* until SIGKILL */
			top_seg_read(&s, &p, err, sizeof(err));
	}
	close(fds[1]);
	*attached_fd = fds[0];
	return r;
}

/* The stalled reader's final pass and the mode's verdict: 0, or 1 when
 * the accounting is wrong. */
static int verdict(const char *mode, struct top_seg *s, struct top_proc *p, uint64_t n)
{
	char err[TOP_ERR_LEN];
	uint64_t received, head, cap = 1ull << s->hdr.ring_order;
	int bad = 0;

	if (top_seg_read(s, p, err, sizeof(err)) != 0)
		return die(err);
	received = complete_slots(s);
	head = s->hdr.head;
	fprintf(stderr, "ringread: %s: head %llu received %llu lost %llu dropped %llu\n", mode,
	        (unsigned long long)head, (unsigned long long)received, (unsigned long long)p->lost,
	        (unsigned long long)p->dropped);
	if (received + p->lost != head || p->dropped > p->lost) {
		fprintf(stderr, "ringread: received + lost != head, or dropped > lost\n");
		bad = 1;
	}
	if (strcmp(mode, "stall") != 0 && head > cap)
		return die("the ring wrapped: give it more records than the run writes");
	if (strcmp(mode, "drop") == 0 &&
	    (received + p->dropped != head || p->dropped != head / 2 || p->lost != p->dropped)) {
		fprintf(stderr, "ringread: want received + dropped == head, dropped == head / 2 "
		                "(the odd positions), lost == dropped\n");
		bad = 1;
	}
	if (strcmp(mode, "hist") == 0 && (received != head || p->dropped != 0 || check_hists(s, n)))
		bad = 1;
	top_seg_close(s);
	top_proc_free(p);
	return bad;
}

/* The stalled reader's attach, before the program's first call. */
static int attach_stalled(const char *mode, pid_t pid, struct top_seg *s, struct top_proc *p)
{
	if (attach(pid, s, p) != 0)
		return die("cannot read the program's segment");
	if (s->hdr.head > (1ull << s->hdr.ring_order))
		return die("records lost before the reader attached");
	if (strcmp(mode, "drop") == 0 && poison_odd_slots(s) != 0)
		return die("cannot mark the odd slots before the first record");
	return 0;
}

int main(int argc, char **argv)
{
	int in[2], out[2], st, bad = 0, attached_fd = -1;
	const char *mode;
	char line[256], c = 'g';
	struct top_seg s;
	struct top_proc p;
	pid_t pid, reader = -1;
	bool stalled;
	FILE *from;

	if (argc != 5)
		return 2;
	mode = argv[1];
	stalled = strcmp(mode, "stall") == 0 || strcmp(mode, "drop") == 0 ||
	          strcmp(mode, "hist") == 0;
	if (pipe(in) != 0 || pipe(out) != 0 || (pid = fork()) < 0)
		return die("pipe or fork");
	if (pid == 0) {
		dup2(in[0], STDIN_FILENO);
		dup2(out[1], STDOUT_FILENO);
		close(in[0]), close(in[1]), close(out[0]), close(out[1]);
		setenv("LD_PRELOAD", argv[2], 1);
		if (strcmp(mode, "none") == 0)
			execl(argv[3], argv[3], argv[4], (char *)NULL);
		else
			execl(argv[3], argv[3], argv[4], "wait", (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	if ((from = fdopen(out[0], "r")) == NULL)
		return die("fdopen");
	if (strcmp(mode, "none") != 0) {
		if (!fgets(line, sizeof(line), from) || strcmp(line, "ready\n") != 0)
			return die("no ready line from the program");
		if (stalled) {
			if (attach_stalled(mode, pid, &s, &p) != 0)
				return 91;
		} else if ((reader = reader_child(pid, &attached_fd)) < 0 ||
		           read(attached_fd, &c, 1) != 1) {
			return die("the reader did not attach");
		}
		if (write(in[1], &c, 1) != 1)
			return die("cannot start the program");
		if (reader > 0) {
			kill(reader, SIGKILL);
			waitpid(reader, NULL, 0);
		}
	}
	close(in[1]);
	while (fgets(line, sizeof(line), from))
		fputs(line, stdout);
	if (waitpid(pid, &st, 0) != pid)
		return die("waitpid");
	if (stalled && (bad = verdict(mode, &s, &p, strtoull(argv[4], NULL, 10))) != 0)
		return bad == 1 ? 90 : bad;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
