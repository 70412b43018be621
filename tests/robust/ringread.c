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
 *   kill   a child reads the segment without pause and is SIGKILLed
 *          while the program makes its calls.
 *   none   no reader at all.
 *
 * Exit: the program's status; 90 when the accounting is wrong, 91 on a
 * set-up failure.  The numbers go to stderr.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "top_model.h"
#include "top_shm.h"

static int die(const char *what)
{
	fprintf(stderr, "ringread: %s\n", what);
	return 91;
}

/* Opens the segment of pid and reads it once. */
static int attach(pid_t pid, struct top_seg *s, struct top_proc *p)
{
	struct top_segname *v;
	size_t n = top_shm_list(TOP_SHM_DIR, (uint32_t)getuid(), &v);
	char path[128], err[TOP_ERR_LEN];
	int rc = -1;

	for (size_t i = 0; i < n; i++) {
		if (v[i].pid != pid)
			continue;
		snprintf(path, sizeof(path), "%s/%s", TOP_SHM_DIR, v[i].name);
		top_proc_init(p, pid, v[i].starttime);
		if (top_seg_open(s, path, err, sizeof(err)) == 0)
			rc = top_seg_read(s, p, err, sizeof(err));
		if (rc != 0)
			fprintf(stderr, "ringread: %s: %s\n", path, rc > 0 ? "not ready" : err);
	}
	free(v);
	return rc;
}

/* Complete slots of a ring nobody writes any more. */
static uint64_t complete_slots(const struct top_seg *s)
{
	const struct apiprof_shm_header *h = &s->hdr;
	uint64_t cap = 1ull << h->ring_order, n = 0;

	for (uint64_t pos = h->head > cap ? h->head - cap : 0; pos < h->head; pos++) {
		const uint64_t *seq =
		        (const void *)(s->map + h->ring_off + (pos & (cap - 1)) * h->rec_size);

		n += __atomic_load_n(seq, __ATOMIC_ACQUIRE) == 2 * pos + 2;
	}
	return n;
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

int main(int argc, char **argv)
{
	int in[2], out[2], st, bad = 0, attached_fd = -1;
	const char *mode;
	char line[256], c = 'g';
	struct top_seg s;
	struct top_proc p;
	pid_t pid, reader = -1;
	FILE *from;

	if (argc != 5)
		return 2;
	mode = argv[1];
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
		if (strcmp(mode, "stall") == 0) {
			if (attach(pid, &s, &p) != 0)
				return die("cannot read the program's segment");
			if (s.hdr.head > (1ull << s.hdr.ring_order))
				return die("records lost before the reader attached");
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

	if (strcmp(mode, "stall") == 0) {
		char err[TOP_ERR_LEN];
		uint64_t received, calls = 0;
		struct top_row *rows;
		struct top_view view = {.aggregate = true};
		size_t nrows;

		if (top_seg_read(&s, &p, err, sizeof(err)) != 0)
			return die(err);
		received = complete_slots(&s);
		top_proc_refresh(&p, 1, 1);
		nrows = top_rows_build(&p, &view, &rows);
		for (size_t i = 0; i < nrows; i++)
			calls += rows[i].calls;
		free(rows);
		fprintf(stderr,
		        "ringread: head %llu received %llu lost %llu dropped %llu; "
		        "calls in the latest records %llu\n",
		        (unsigned long long)s.hdr.head, (unsigned long long)received,
		        (unsigned long long)p.lost, (unsigned long long)p.dropped,
		        (unsigned long long)calls);
		if (received + p.lost != s.hdr.head || p.dropped > p.lost) {
			fprintf(stderr, "ringread: received + lost != head, or dropped > lost\n");
			bad = 1;
		}
		top_seg_close(&s);
		top_proc_free(&p);
	}
	if (bad)
		return 90;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
