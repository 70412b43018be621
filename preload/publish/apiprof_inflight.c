/* SPDX-License-Identifier: MIT */
/*
 * apiprof_inflight.c - the calls a thread is inside right now, as the flusher
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
 * A call is shown in progress only while it really is, and with its own
 * start: the flusher reads the row's count, the frame word again, the
 * start (struct apiprof_row t0) and the count again (read_call).  Every
 * way out of a call adds to the count before it sets the frame word idle,
 * and only the call in progress stores the start, so a count that did not
 * move while the frame word still said "in a call" means no call of the
 * row ended meanwhile: the call in progress is the one whose start was
 * read.  Anything else (the call ended or another
 * began while the flusher read) is not a call in progress this time: the
 * next pass looks again.  Once seen, a call is told from the next one at
 * the same frame and row by the count and by the start (a flusher that
 * read the count of a call just ending, in the one instruction between its
 * count and its frame word, knows the next call by its new start).
 *
 * The start read is this call's when every call is timed, unless the
 * thread was stopped in the few instructions between its frame word's
 * store and its start's while the flusher read (it reads the start after
 * a system call, long after those instructions); a start older than the
 * flusher's previous look, when that look did not see this call, is such
 * a stale one.  Where the start is not known (a sampled mode's untimed
 * call, a shim older than the field, a stale start), the flusher's first
 * sighting of the call stands for it, and the record says so
 * (APIPROF_REC_INFLIGHT_BOUND): the call has run at least that long.
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
static uint32_t inflight_inline_row(uint32_t id, uintptr_t frame)
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
		return inflight_inline_row(id, frame);
	if (apiprof_read_once(&th->slow_frame[id]) != frame)
		return UINT32_MAX;
	return apiprof_read_once(&th->slow_row[id]);
}

/* What read_call read of a call in progress: its row's count and start. */
struct inflight_read {
	uint64_t calls;
	uint64_t t0;
};

/* Reads the count and the start of row `row` of tab, for the call with
 * frame word w of api id on the thread of TLS block blk: the count, the
 * frame word again, the start, the count again.  True when the call was
 * in progress all along (see the head of this file).  The loads are
 * acquire loads, so that they stay in this order. */
static bool read_call(const struct apiprof_tls_block *blk, struct apiprof_tab *tab, uint32_t id,
                      uint32_t row, uintptr_t w, struct inflight_read *r)
{
	uint64_t *t0 = &apiprof_tab_row(tab, row)->t0;
	uintptr_t again;

	r->calls = apiprof_load_acquire(&tab->calls[row]);
	if (!read_self(&again, (uintptr_t)&blk->hot.api[id].frame, sizeof(again)) || again != w)
		return false;
	/* after a system call: a thread that was in the few instructions
	 * between its frame word's store and its start's has long stored it,
	 * unless it was stopped there */
	r->t0 = apiprof_load_acquire(t0);
	return apiprof_load_acquire(&tab->calls[row]) == r->calls;
}

/* The start of the call b has just found (its first sighting), whose row's
 * start reads t0, or 0 when it cannot be known: see the head of this file. */
static uint64_t start_of(const struct apiprof_thread *th, const struct apiprof_tls *t,
                         const struct apiprof_inflight *b, uint64_t t0, uint64_t now)
{
	/* once count mode was used (the sample bit is kept), the call may be
	 * one its way in did not time: its row's start is another call's */
	if ((t->guard & APIPROF_GUARD_SAMPLE) ||
	    (apiprof_read_once(&apiprof_timing) & APIPROF_MODE_SAMPLE))
		return 0;
	if (t0 == 0 || t0 > now || t0 < apiprof_load(&th->start_tick) || t0 < b->look)
		return 0;
	return t0;
}

/* Whether b still describes the call with frame word w in row `row`,
 * whose count and start read r. */
static bool same_call(const struct apiprof_inflight *b, uint32_t gen, uintptr_t w, uint32_t row,
                      const struct inflight_read *r)
{
	return b->gen == gen && b->frame == w && b->row == row && b->calls == r->calls &&
	       b->t0 == r->t0;
}

/* No call in progress on this api (or none the flusher could be sure of). */
static void inflight_none(struct apiprof_inflight *b, uint32_t gen, uint64_t now)
{
	*b = (struct apiprof_inflight){
	        .gen = gen, .row = UINT32_MAX, .shown = b->shown, .look = now};
}

/* One api of the thread (TLS block blk, copied into t): b is updated to
 * what the frame word says. */
static void scan_api(struct apiprof_thread *th, const struct apiprof_tls_block *blk,
                     const struct apiprof_tls *t, uint32_t id, uint32_t gen, uint64_t now)
{
	struct apiprof_inflight *b = th->inflight[id];
	struct apiprof_tab *tab = apiprof_load_acquire(&th->tab[id]);
	const struct apiprof_api *api = apiprof_api_get(id);
	uintptr_t w = t->api[id].frame;
	uint32_t row = w > APIPROF_FRAME_IDLE ? row_of(th, id, w) : UINT32_MAX;
	struct inflight_read r;

	if (b->gen != gen)
		*b = (struct apiprof_inflight){.gen = gen, .row = UINT32_MAX};
	/* a call timed since the snapshot's tick was not in progress then:
	 * the next pass sees it, with its start */
	if (tab == NULL || api == NULL || row >= api->nfuncs ||
	    !read_call(blk, tab, id, row, w, &r) ||
	    (r.t0 > now && !(t->guard & APIPROF_GUARD_SAMPLE))) {
		inflight_none(b, gen, now);
		return;
	}
	if (!same_call(b, gen, w, row, &r)) {
		uint64_t t0 = start_of(th, t, b, r.t0, now);

		b->frame = w;
		b->row = row;
		b->calls = r.calls;
		b->t0 = r.t0;
		b->since = t0 ? t0 : now;
		b->bound = t0 ? 0 : APIPROF_REC_INFLIGHT_BOUND;
	}
	b->look = now;
}

void apiprof_inflight_scan(struct apiprof_thread *th, uint32_t gen, uint64_t now)
{
	struct apiprof_tls_block *blk = apiprof_read_once(&th->blk);
	struct apiprof_tls t;

	/* unreadable: as if no call were in progress */
	if (blk == NULL || !read_self(&t, (uintptr_t)&blk->hot, sizeof(t)))
		memset(&t, 0, sizeof(t));

	for (uint32_t id = 1; id <= apiprof_api_count() && id < APIPROF_MAX_APIS; id++) {
		/* inflight[id] is stored before the table is published (release) */
		if (apiprof_load_acquire(&th->tab[id]) == NULL || th->inflight[id] == NULL)
			continue;
		scan_api(th, blk, &t, id, gen, now);
	}
}
