/* SPDX-License-Identifier: MIT */
/*
 * apiprof_busy.c - the calls a thread is inside right now, as the flusher
 * sees them: which function, and since when.
 *
 * Nothing is added to the hot path for this but one store of the start
 * (apiprof_start).  A thread's frame word for an api already says whether
 * a call is in progress: it holds the stack pointer of the outermost call
 * while one runs.  The flusher reads the thread's TLS block, and for an
 * inline-entered call the words of its stack just below that frame, where
 * the wrapper's return address tells the row (as the longjmp hooks do,
 * apiprof_jmp.c); an out-of-line call keeps its row in the thread's entry.
 * Both are another thread's memory, which may be unmapped at any moment
 * (the thread exits, its stack is freed): they are read with
 * process_vm_readv on our own pid, which fails where a load would fault,
 * into copies on the flusher's own stack, which is large (256 KiB; the
 * stack-usage test exempts this file's two big frames).
 *
 * The start is the row's latest timed start (struct apiprof_cold t0).  It
 * is this call's when every call is timed, unless the flusher looks in
 * the few instructions between the frame word's store and the start's;
 * a start older than the flusher's previous look, when that look did not
 * see this call, is such a stale one.  Where the start is not known (a
 * sampled mode's untimed call, a shim older than the field, a stale
 * start), the flusher's first sighting of the call stands for it, and the
 * record says so (APIPROF_REC_BUSY_BOUND): the call has run at least that
 * long.  One call is told from the next with the same frame and row by
 * the row's count, which every way out of a call moves.
 */
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "apiprof_internal.h"

/* Copies len bytes of this process at src into dst; false when any of it
 * is not mapped (or the kernel refuses the call, e.g. a seccomp filter). */
static bool read_self(void *dst, uintptr_t src, size_t len)
{
	struct iovec local = {dst, len}, remote = {(void *)src, len};

	return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == (ssize_t)len;
}

/* The row of an inline-entered call whose frame word is frame: the first
 * return address below it that lies in one of the api's wrappers. */
static uint32_t busy_inline_row(uint32_t id, uintptr_t frame)
{
	uintptr_t words[APIPROF_SCAN_WORDS];

	if (frame < sizeof(words) || !read_self(words, frame - sizeof(words), sizeof(words)))
		return UINT32_MAX;
	for (int n = APIPROF_SCAN_WORDS - 1; n >= 0; n--) {
		uint32_t row = apiprof_wrappers_row(id, words[n]);

		if (row != UINT32_MAX)
			return row;
	}
	return UINT32_MAX;
}

/* The row of the call in progress with frame word w, of api id. */
static uint32_t row_of(const struct apiprof_thread *th, uint32_t id, uintptr_t w)
{
	const struct apiprof_api *api = apiprof_api_get(id);
	uintptr_t frame = w & ~(uintptr_t)APIPROF_FRAME_TAGS;

	if (api == NULL)
		return UINT32_MAX;
	if (!(w & APIPROF_FRAME_SLOW))
		return busy_inline_row(id, frame);
	if (apiprof_read_once(&th->slow_frame[id]) != frame)
		return UINT32_MAX;
	return apiprof_read_once(&th->slow_row[id]);
}

/* The start of the call b has just found (its first sighting), or 0 when
 * it cannot be known: see the head of this file. */
static uint64_t start_of(const struct apiprof_thread *th, const struct apiprof_tls *t, uint32_t id,
                         const struct apiprof_busy *b, uint64_t now)
{
	struct apiprof_tab *tab = apiprof_load_acquire(&th->tab[id]);

	if (tab == NULL || (t->guard & APIPROF_GUARD_SAMPLE))
		return 0;
	uint64_t t0 = apiprof_load(&apiprof_tab_cold(tab, b->row)->t0);
	if (t0 == 0 || t0 > now || t0 < apiprof_load(&th->start_tick) || t0 < b->look)
		return 0;
	return t0;
}

/* Whether b still describes the call with frame word w in row `row`,
 * whose count is `calls`. */
static bool same_call(const struct apiprof_busy *b, uint32_t gen, uintptr_t w, uint32_t row,
                      uint64_t calls)
{
	return b->gen == gen && b->frame == w && b->row == row && b->calls == calls;
}

/* One api of the thread: b is updated to what the frame word w says. */
static void scan_api(struct apiprof_thread *th, const struct apiprof_tls *t, uint32_t id,
                     uint32_t gen, uint64_t now)
{
	struct apiprof_busy *b = th->busy[id];
	struct apiprof_tab *tab = apiprof_load_acquire(&th->tab[id]);
	const struct apiprof_api *api = apiprof_api_get(id);
	uintptr_t w = t->api[id].frame;
	uint32_t row = w > APIPROF_FRAME_IDLE ? row_of(th, id, w) : UINT32_MAX;

	if (b->gen != gen)
		*b = (struct apiprof_busy){.gen = gen, .row = UINT32_MAX};
	if (tab == NULL || api == NULL || row >= api->nfuncs) {
		*b = (struct apiprof_busy){
		        .gen = gen, .row = UINT32_MAX, .shown = b->shown, .look = now};
		return;
	}
	uint64_t calls = apiprof_load(&tab->calls[row]);

	if (!same_call(b, gen, w, row, calls)) {
		b->frame = w;
		b->row = row;
		b->calls = calls;
		uint64_t t0 = start_of(th, t, id, b, now);
		b->since = t0 ? t0 : now;
		b->bound = t0 ? 0 : APIPROF_REC_BUSY_BOUND;
	}
	b->look = now;
}

void apiprof_busy_scan(struct apiprof_thread *th, uint32_t gen, uint64_t now)
{
	struct apiprof_tls_block *blk = apiprof_read_once(&th->blk);
	struct apiprof_tls t;

	/* unreadable: as if no call were in progress */
	if (blk == NULL || !read_self(&t, (uintptr_t)&blk->hot, sizeof(t)))
		memset(&t, 0, sizeof(t));

	for (uint32_t id = 1; id <= apiprof_api_count() && id < APIPROF_MAX_APIS; id++) {
		/* busy[id] is stored before the table is published (release) */
		if (apiprof_load_acquire(&th->tab[id]) == NULL || th->busy[id] == NULL)
			continue;
		scan_api(th, &t, id, gen, now);
	}
}
