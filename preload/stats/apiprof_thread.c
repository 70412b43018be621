/* SPDX-License-Identifier: MIT */
/*
 * apiprof_thread.c - the registry of threads, each with its statistics
 * tables (apiprof_tab.c).
 *
 * A thread gets an entry on its first measured call (the slow path of
 * apiprof_enter).  Entries live in a lock-free list and are never freed:
 * when a thread exits its entry keeps the final numbers (state EXITED) for
 * the outputs; once more than APIPROF_KEEP_EXITED of those exist, the oldest
 * is folded into per-api totals and the entry, tables and all, is reused by
 * a new thread.  Memory therefore follows the peak number of threads, not
 * the number that ever lived, and finding an entry costs O(1): free entries
 * wait on a stack, exited ones in a FIFO.
 *
 * The stack and the FIFO share one small lock.  A new thread only ever
 * *tries* it (a signal handler may be making the thread's first call while
 * the same thread holds it): when it is taken, the thread gets a new entry
 * instead.  Exiting threads wait for it; they hold the busy bit, so nothing
 * they do can come back here.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>

#include "apiprof_cct.h"
#include "apiprof_internal.h"
#include "apiprof_steer.h"

/* A thread's entry is in its block, apiprof_tls_block()->self: NULL until
 * its first measured call, SELF_DEAD once it has been retired. */
#define SELF_DEAD ((struct apiprof_thread *)1)

/* The registry's state.  What a fork child resets is in
 * apiprof_thread_after_fork. */
static struct apiprof_thread_reg {
	/* Every entry ever made, newest first (through next); never shrinks. */
	struct apiprof_thread *list;
	/* The key whose destructor retires a thread (thread_exit). */
	pthread_key_t exit_key;
	/* exit_key was created. */
	int exit_key_ok;
	/* Guards free_top and the exited FIFO (reg_trylock). */
	int lock;
	/* FREE entries, through free_next. */
	struct apiprof_thread *free_top;
	/* EXITED entries, a FIFO of exq_cap, oldest at exq_head. */
	struct apiprof_thread **exited_q;
	/* The FIFO's capacity (APIPROF_KEEP_EXITED), head and length. */
	uint32_t exq_cap, exq_head, exq_len;
} reg;

struct apiprof_thread *apiprof_thread_first(void)
{
	return apiprof_load_acquire(&reg.list);
}

/* The name read again for a live thread (apiprof_thread_rename) in place
 * of w, if there is a whole one for the thread that has the entry now. */
static void renamed(const struct apiprof_thread *th, uint64_t *w)
{
	uint32_t seq = apiprof_load_acquire(&th->name_seq);
	uint32_t gen = apiprof_read_once(&th->name_gen);
	uint64_t n[APIPROF_COMM_MAX / 8] = {apiprof_read_once(&th->name_w[0]),
	                                    apiprof_read_once(&th->name_w[1])};

	apiprof_fence_acquire(); /* the copy is read before name_seq again */
	if (seq == 0 || (seq & 1u) || apiprof_read_once(&th->name_seq) != seq ||
	    gen != apiprof_read_once(&th->gen))
		return;
	memcpy(w, n, sizeof(n));
}

/* A copy of th's identity, with relaxed loads: readers check th->gen
 * around it to know it belongs to one thread.  A live thread's name is
 * the one read last (it may have been renamed), an exited one's the one
 * it had as it exited. */
uint32_t apiprof_thread_identity(const struct apiprof_thread *th, char *comm)
{
	uint64_t w[APIPROF_COMM_MAX / 8] = {apiprof_load(&th->comm_w[0]),
	                                    apiprof_load(&th->comm_w[1])};

	if (apiprof_load_acquire(&th->state) == APIPROF_T_LIVE)
		renamed(th, w);
	memcpy(comm, w, sizeof(w));
	return apiprof_read_once(&th->tid);
}

/* Thread tid's name now, NUL-padded to APIPROF_COMM_MAX bytes. */
static int task_comm(uint32_t tid, char *name)
{
	char path[48], buf[APIPROF_COMM_MAX + 1];

	snprintf(path, sizeof(path), "/proc/self/task/%u/comm", tid);
	ssize_t n = apiprof_proc_read(path, buf, sizeof(buf));
	if (n <= 0)
		return -1;
	if (buf[n - 1] == '\n')
		n--;
	memset(name, 0, APIPROF_COMM_MAX);
	memcpy(name, buf, (size_t)n < APIPROF_COMM_MAX - 1 ? (size_t)n : APIPROF_COMM_MAX - 1);
	return 0;
}

/* Stores a live thread's new name, for the thread that had the entry at
 * gen (a seqlock of one writer: the flusher and the end of the image
 * only try name_lock, and the one that fails leaves it to the other).
 * An entry taken by a new thread meanwhile has another gen, so a name
 * stored late is never taken for the new thread's. */
static bool rename_store(struct apiprof_thread *th, uint32_t gen, const char *name)
{
	uint64_t w[APIPROF_COMM_MAX / 8];
	bool done = false;

	if (apiprof_xchg_acquire(&th->name_lock, 1))
		return false;
	if (apiprof_load_acquire(&th->gen) == gen &&
	    apiprof_load_acquire(&th->state) == APIPROF_T_LIVE) {
		uint32_t seq = apiprof_read_once(&th->name_seq);

		memcpy(w, name, sizeof(w));
		apiprof_write_once(&th->name_seq, seq + 1);
		apiprof_fence_release(); /* odd before the name changes */
		apiprof_write_once(&th->name_gen, gen);
		apiprof_write_once(&th->name_w[0], w[0]);
		apiprof_write_once(&th->name_w[1], w[1]);
		apiprof_store_release(&th->name_seq, seq + 2); /* pairs with renamed() */
		done = true;
	}
	apiprof_store_release(&th->name_lock, 0);
	return done;
}

/* Threads are named after their first call too (pthread_setname_np in a
 * JVM or a pool): a look at /proc, never made on the thread's calls. */
bool apiprof_thread_rename(struct apiprof_thread *th)
{
	uint32_t gen = apiprof_load_acquire(&th->gen);
	char cur[APIPROF_COMM_MAX], now[APIPROF_COMM_MAX];

	if ((gen & 1u) || apiprof_load_acquire(&th->state) != APIPROF_T_LIVE)
		return false;
	uint32_t tid = apiprof_thread_identity(th, cur);
	if (task_comm(tid, now) != 0 || memcmp(now, cur, sizeof(now)) == 0)
		return false;
	return rename_store(th, gen, now);
}

void apiprof_thread_rename_all(void)
{
	for (struct apiprof_thread *th = apiprof_thread_first(); th; th = th->next)
		apiprof_thread_rename(th);
}

static bool reg_trylock(void)
{
	return !apiprof_xchg_acquire(&reg.lock, 1);
}

/* Only exiting threads wait here, and only for a few instructions of
 * another thread's.  That thread may be descheduled, though (many threads,
 * few CPUs): after a short spin, yield the CPU to it instead of burning
 * the whole time slice. */
static void reg_lock_wait(void)
{
	for (unsigned n = 0; !reg_trylock(); n++) {
		if (n < 64)
			__builtin_ia32_pause();
		else
			sched_yield();
	}
}

static void reg_unlock(void)
{
	apiprof_store_release(&reg.lock, 0);
}

/* Zeroes an entry's tables and the flusher's copy of their counts. */
static void entry_zero_tables(struct apiprof_thread *th)
{
	for (uint32_t id = 1; id < APIPROF_MAX_APIS; id++) {
		struct apiprof_api *api = apiprof_api_get(id);

		if (api == NULL || th->tab[id] == NULL)
			continue;
		apiprof_tab_init(th->tab[id], api->nfuncs);
		for (uint32_t i = 0; i < api->nfuncs; i++)
			apiprof_store(&th->shadow[id][i], 0);
	}
	apiprof_cct_reset(th);
}

/* Zeroes an entry's statistics and gives it its new thread's identity.
 * gen is odd meanwhile, so a flusher reading the entry throws away what it
 * read (it checks gen after reading). */
static void entry_reset(struct apiprof_thread *th, uint32_t tid, const char *comm)
{
	/* The thread making the reset is the entry's (a fork child's too) */
	struct apiprof_tls_block *blk = apiprof_tls_block();
	uint64_t w[APIPROF_COMM_MAX / 8];

	memcpy(w, comm, sizeof(w));
	apiprof_fetch_add_acq_rel(&th->gen, 1);
	entry_zero_tables(th);
	apiprof_write_once(&th->snap_seq, 0);
	apiprof_write_once(&th->tid, tid);
	apiprof_store(&th->comm_w[0], w[0]);
	apiprof_store(&th->comm_w[1], w[1]);
	apiprof_store(&th->start_tick, apiprof_now());
	apiprof_store(&th->exit_tick, 0);
	apiprof_write_once(&th->blk, blk);
	apiprof_fetch_add_release(&th->gen, 1);
}

static void entry_fold(struct apiprof_thread *th)
{
	apiprof_cct_fold(th); /* with its runs in progress, which the tables' fold ends */
	for (uint32_t id = 1; id < APIPROF_MAX_APIS; id++) {
		struct apiprof_api *api = apiprof_api_get(id);
		struct apiprof_tab *dst = apiprof_api_folded(id);

		if (api == NULL || dst == NULL || th->tab[id] == NULL)
			continue;
		for (uint32_t i = 0; i < api->nfuncs; i++)
			apiprof_tab_fold(dst, th->tab[id], i, apiprof_timing & APIPROF_MODE_SAMPLE);
	}
}

static struct apiprof_thread *entry_new(void)
{
	struct apiprof_thread *th = apiprof_arena_alloc(sizeof(*th));

	if (th == NULL)
		return NULL;
	th->state = APIPROF_T_FOLDING; /* claimed by us until published LIVE */
	th->next = apiprof_read_once(&reg.list);
	while (!apiprof_cas_release(&reg.list, &th->next, th))
		;
	return th;
}

/* A free entry if one can be had at once, else a new one.  The result is
 * in state FOLDING, owned by the caller. */
static struct apiprof_thread *entry_acquire(void)
{
	struct apiprof_thread *th = NULL;

	if (reg_trylock()) {
		th = reg.free_top;
		if (th != NULL)
			reg.free_top = th->free_next;
		reg_unlock();
	}
	if (th != NULL) {
		apiprof_store_release(&th->state, APIPROF_T_FOLDING);
		return th;
	}
	return entry_new();
}

/* Queues a retired entry.  When APIPROF_KEEP_EXITED are kept already, the
 * oldest is folded into the per-api totals and freed for reuse. */
static void entry_park(struct apiprof_thread *th)
{
	struct apiprof_thread *victim = th;

	reg_lock_wait();
	if (reg.exq_cap != 0) {
		victim = reg.exq_len == reg.exq_cap ? reg.exited_q[reg.exq_head] : NULL;
		if (victim != NULL) {
			reg.exq_head = (reg.exq_head + 1) % reg.exq_cap;
			reg.exq_len--;
		}
		reg.exited_q[(reg.exq_head + reg.exq_len++) % reg.exq_cap] = th;
	}
	if (victim != NULL)
		apiprof_store_release(&victim->state, APIPROF_T_FOLDING);
	reg_unlock();
	if (victim == NULL)
		return;
	entry_fold(victim);
	reg_lock_wait();
	apiprof_store_release(&victim->state, APIPROF_T_FREE);
	victim->free_next = reg.free_top;
	reg.free_top = victim;
	reg_unlock();
}

static void thread_exit(void *p);

/* The calling thread's name, NUL-padded to APIPROF_COMM_MAX bytes. */
static void own_comm(char *comm)
{
	memset(comm, 0, APIPROF_COMM_MAX);
	if (prctl(PR_GET_NAME, comm, 0, 0, 0) != 0)
		comm[0] = '\0';
}

static struct apiprof_thread *thread_self(void)
{
	struct apiprof_thread *th = apiprof_tls_block()->self;
	char comm[APIPROF_COMM_MAX];

	if (th == SELF_DEAD)
		return NULL;
	if (th != NULL)
		return th;
	th = entry_acquire();
	if (th == NULL)
		return NULL;
	own_comm(comm);
	entry_reset(th, apiprof_gettid(), comm);
	th->exit_rounds = 0;
	if (reg.exit_key_ok)
		pthread_setspecific(reg.exit_key, th);
	apiprof_tls_block()->self = th;
	apiprof_store_release(&th->state, APIPROF_T_LIVE);
	return th;
}

static struct apiprof_tab *thread_table(struct apiprof_thread *th, uint32_t id,
                                        const struct apiprof_api *api)
{
	struct apiprof_tab *tab = th->tab[id];
	uint32_t n = api->nfuncs;

	if (tab == NULL) {
		/* the api's folded totals first (where this thread's figures
		 * go when it exits), and its wrappers' ranges */
		if (apiprof_api_in_use(api, id) == NULL)
			return NULL;
		tab = apiprof_tab_alloc(api);
		th->shadow[id] = apiprof_arena_alloc(
		        (size_t)n * (sizeof(uint64_t) + sizeof(struct apiprof_qmark)));
		th->inflight[id] = apiprof_arena_alloc(sizeof(struct apiprof_inflight));
		if (tab == NULL || th->shadow[id] == NULL || th->inflight[id] == NULL)
			return NULL;
		apiprof_cct_attach(th); /* signals held: see apiprof_thread_attach */
		apiprof_store_release(&th->tab[id], tab);
	}
	return tab;
}

/* The slow path of apiprof_enter: the first call of an api on a thread.
 * NULL when the call is not to be counted: the runtime cannot, or the api
 * is off (issue 37), which the thread then never has a table for. */
struct apiprof_tab *apiprof_thread_attach(struct apiprof_api *api)
{
	uint64_t held = apiprof_signal_hold(), busy = apiprof_busy_enter();
	int saved = errno;
	struct apiprof_tab *tab = NULL;
	struct apiprof_thread *th;

	if (apiprof_load_acquire(&api->id) == 0)
		apiprof_register(api);
	uint32_t id = apiprof_load_acquire(&api->id);
	/* an api off (its gate comes with its id): no table, nothing counted */
	if (id != 0 && apiprof_gate_of(api) != APIPROF_GATE_OFF && (th = thread_self()) != NULL)
		tab = thread_table(th, id, api);
	if (tab != NULL) {
		struct apiprof_tls *t = apiprof_tls_self();

		apiprof_api_publish(api, id);
		t->mode = (uint16_t)apiprof_timing;
		if (id > t->apis)
			t->apis = (uint16_t)id;
		if (apiprof_timing & APIPROF_MODE_MONOTONIC)
			t->guard |= APIPROF_GUARD_SLOW;
		if (t->cur == 0) /* the thread's first table: no call in progress */
			t->cur = APIPROF_PARENT_NONE;
		t->api[id].tab = tab;
		t->api[id].frame = APIPROF_FRAME_IDLE;
		/* the process's timing (full, sampled:N) */
		apiprof_timing_take_up(t);
	}
	errno = saved;
	apiprof_busy_leave(busy);
	apiprof_signal_release(held);
	return tab;
}

/* The thread's last snapshot.  Afterwards the thread keeps the busy bit:
 * whatever it still calls on its way out passes straight through. */
static void thread_retire(struct apiprof_thread *th)
{
	uint64_t w[APIPROF_COMM_MAX / 8];
	char comm[APIPROF_COMM_MAX];

	apiprof_busy_enter();
	apiprof_store_release(&th->state, APIPROF_T_EXITING);
	apiprof_store(&th->exit_tick, apiprof_now());
	/* The name it has now, for its last snapshot and the outputs.  Only
	 * this thread writes comm; the flusher, which keeps off an exiting
	 * thread, may at worst copy one word of each name. */
	own_comm(comm);
	memcpy(w, comm, sizeof(w));
	apiprof_store(&th->comm_w[0], w[0]);
	apiprof_store(&th->comm_w[1], w[1]);
	apiprof_flush_thread(th);
	apiprof_store_release(&th->state, APIPROF_T_EXITED);
	/* No table and no frame: calls of every api go out of line */
	memset(apiprof_tls_self()->api, 0, sizeof(apiprof_tls_self()->api));
	apiprof_tls_block()->self = SELF_DEAD;
	entry_park(th);
}

/* ThreadSanitizer's own key destructor also re-arms itself to glibc's last
 * round, and being older it runs first there and tears down the thread's
 * TSan state: under TSan the entry is retired in the first round. */
#ifdef __SANITIZE_THREAD__
#define EXIT_ROUNDS 1
#else
#define EXIT_ROUNDS PTHREAD_DESTRUCTOR_ITERATIONS
#endif

/* Thread-specific-data destructor.  It re-arms itself for every round glibc
 * runs, so that calls made by other keys' destructors are still counted;
 * the entry is retired in the last round. */
static void thread_exit(void *p)
{
	struct apiprof_thread *th = p;

	if (++th->exit_rounds < EXIT_ROUNDS && pthread_setspecific(reg.exit_key, th) == 0)
		return;
	thread_retire(th);
}

void apiprof_thread_init(void)
{
	reg.exit_key_ok = pthread_key_create(&reg.exit_key, thread_exit) == 0;
	reg.exq_cap = apiprof_cfg.keep_exited;
	reg.exited_q =
	        reg.exq_cap ? apiprof_arena_alloc(reg.exq_cap * sizeof(*reg.exited_q)) : NULL;
	if (reg.exited_q == NULL)
		reg.exq_cap = 0;
}

/* In a fork child only the forking thread exists, and the child's numbers
 * must be its own: every other entry is freed and ours is zeroed.  The
 * lock may have been held by a thread that is gone here; the FIFO starts
 * empty.  The list, the key and the FIFO's memory stay. */
void apiprof_thread_after_fork(void)
{
	reg.lock = 0;
	reg.free_top = NULL;
	reg.exq_head = reg.exq_len = 0;
	for (struct apiprof_thread *th = apiprof_thread_first(); th; th = th->next) {
		th->name_lock = 0; /* its holder may be a thread that is gone here */
		if (th == apiprof_tls_block()->self) {
			char comm[APIPROF_COMM_MAX];

			memcpy(comm, th->comm, sizeof(comm));
			entry_reset(th, apiprof_gettid(), comm);
			apiprof_cct_forked(th);
		} else {
			apiprof_store_release(&th->state, APIPROF_T_FREE);
			th->free_next = reg.free_top;
			reg.free_top = th;
		}
	}
}
