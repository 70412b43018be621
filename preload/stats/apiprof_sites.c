/* SPDX-License-Identifier: MIT */
/*
 * apiprof_sites.c - a row's calls by call site and parent (issues 23 and
 * 35): both halves of struct apiprof_sites' protocol, the owner's switch
 * from one run of calls to the next and a reader's copy, side by side,
 * and the folding of an exited thread's sites into its api's totals.
 *
 * The inline way in (apiprof_shim.h apiprof_same_site) does nothing while
 * the calls of a row keep coming from the site of the run in progress:
 * the run's figures are the row's own since it began.  A call from
 * another site comes here.  The owner is the only writer; a reader
 * copies an entry table between two equal even values of gen (a seqlock,
 * as the ring's slots are), and adds the run in progress itself.
 *
 * The entries are heavy hitters, kept by space-saving in sets: a site's
 * address hashes to one of SITE_SETS sets of SITE_WAYS entries, and a
 * site that has none takes a free one of its set or else that of the
 * entry with the lowest upper bound (calls + err).  Each set is then a
 * space-saving summary of the sites that hash to it: an entry's count
 * starts at 0 with err the evicted entry's calls + err, so its true count
 * lies in [calls, calls + err]; the evicted entry's figures and its
 * histogram move to "(other callers)", so the entries still add up to the
 * row's calls, exactly.  A site with no entry had at most `floor` calls
 * (the most calls + err of an evicted entry).  Sets bound the work of a
 * switch: a site is found among SITE_WAYS entries, and an eviction looks
 * at no more; an interpreter's malloc, whose callers outnumber the
 * sixteen entries of a record, finds them all in the table's 128.
 */
#include <errno.h>

#include "apiprof_cct.h"
#include "apiprof_internal.h"
#include "apiprof_stat.h"

#define SITE_WAYS       8
#define SITE_SETS       16
#define SITE_SLOTS      (SITE_WAYS * SITE_SETS)
#define SITE_OTHER      SITE_SLOTS /* the entry of "(other callers)" */
#define SITE_CACHE_BITS 5
/* In struct apiprof_row's last: a run whose key no call matches (a
 * return address is below 2^47, so a key never has the top bit), so
 * that every call comes to the switch. */
#define RUN_AGAIN (1ull << 63)

/* One entry: key as in apiprof_abi.h (address and parent), the figures
 * of its calls since it took the entry, and their error bound. */
struct site_ent {
	uint64_t key, calls, ticks, timed, err;
};

/* A run key (raw return address and parent) and its entry, whose key
 * was ekey. */
struct site_cache {
	uint64_t key, ekey, ent;
};

struct apiprof_site_tbl {
	struct site_ent e[SITE_SLOTS + 1];
	/* e[k]'s latency histogram (APIPROF_HIST_BUCKETS words, from the
	 * arena when the entry is first used; NULL: none, its calls count in
	 * the row's own).  The row's histogram is its own and these summed.
	 * An evicted entry's moves to "(other callers)"' and starts again at
	 * zero for the newcomer.  Kept by resets, zeroed; never written by a
	 * shim. */
	uint64_t *hist[SITE_SLOTS + 1];
	/* hist[k] as struct apiprof_row's hist_off says it (from its table's
	 * sink), 0 until it is given: what a switch to entry k sets there. */
	int64_t hist_off[SITE_SLOTS + 1];
	/* The owner's own: the entries of the run keys it switched to lately,
	 * by the key's hash, each valid while its entry has the same key. */
	struct site_cache cache[2 << SITE_CACHE_BITS];
	/* The owner's own: two bits of 4096 for each site it has evicted (a
	 * Bloom filter), so that a newcomer it never evicted, which had no
	 * call before (every call of a site takes it an entry), starts
	 * exact.  Looked at only when a site takes an entry. */
	uint64_t gone[64];
};

APIPROF_INLINE struct apiprof_sites *sites_of(struct apiprof_tab *tab, uint32_t i)
{
	return &tab->sites[i];
}

APIPROF_INLINE struct apiprof_site_tbl *tbl_of(struct apiprof_sites *s)
{
	return apiprof_load_acquire(&s->tbl); /* pairs with tbl_get's release */
}

/* s's table, given one from the arena if it has none yet (the runtime's
 * work, under the busy guard: the arena may call mmap); NULL when there
 * is no room.  In an api's folded totals several exiting threads may ask
 * at once: the first pointer stored stays.  The runs that ended while
 * the row had none (the arena was full: switch_bare) are up to the
 * marks, and start its "(other callers)" (a folded row has no marks). */
static __attribute__((noinline, cold)) struct apiprof_site_tbl *tbl_get(struct apiprof_sites *s)
{
	struct apiprof_site_tbl *t = tbl_of(s);

	if (t != NULL)
		return t;
	uint64_t busy = apiprof_busy_enter();
	int saved = errno;
	struct apiprof_site_tbl *n = apiprof_arena_alloc(sizeof(*n)); /* zeroed */
	errno = saved;
	apiprof_busy_leave(busy);
	if (n != NULL && apiprof_read_once(&s->mark_calls) != 0)
		n->e[SITE_OTHER] = (struct site_ent){
		        APIPROF_PARENT_UNKNOWN, apiprof_read_once(&s->mark_calls),
		        apiprof_read_once(&s->mark_ticks), apiprof_read_once(&s->mark_timed), 0};
	if (n == NULL || apiprof_cas_acq_rel(&s->tbl, &t, n))
		return n;
	return t;
}

/* The histogram the row's timed calls count in now (its hist_off): that
 * of the run's site, or the row's own. */
static const uint64_t *run_hist(struct apiprof_tab *tab, uint32_t i)
{
	int64_t off = apiprof_read_once(&apiprof_tab_row(tab, i)->hist_off);

	return (const uint64_t *)((intptr_t)&tab->sink +
	                          (intptr_t)off * (intptr_t)sizeof(uint64_t));
}

/* The row's timed calls, as far as its run in progress tells them: the
 * count of the histogram the run's calls go to (with the bucket noted but
 * not yet counted, apiprof_tab.c), which only the run's timed calls
 * change while it lasts, or the row's calls when every call is timed. */
APIPROF_INLINE uint64_t row_timed(struct apiprof_tab *tab, uint32_t i, bool sampled)
{
	return sampled ? apiprof_tab_hist_timed(tab, run_hist(tab, i))
	               : apiprof_load(&tab->calls[i]);
}

/* Entry k's histogram, given one from the arena if it has none yet
 * (under the busy guard, as tbl_get); NULL when there is no room, and its
 * calls count in the row's own.  The first pointer stored stays. */
static uint64_t *site_hist(struct apiprof_site_tbl *t, size_t k)
{
	uint64_t *h = apiprof_load_acquire(&t->hist[k]); /* pairs with the release below */

	if (h != NULL)
		return h;
	uint64_t busy = apiprof_busy_enter();
	int saved = errno;
	uint64_t *n = apiprof_arena_alloc(APIPROF_HIST_BUCKETS * sizeof(uint64_t));
	errno = saved;
	apiprof_busy_leave(busy);
	/* release: pairs with the readers' acquire loads; acquire: the
	 * winner's pointer, when this one loses */
	if (n == NULL || apiprof_cas_acq_rel(&t->hist[k], &h, n))
		return n;
	return h;
}

/* Points row idx's timed calls at histogram h, or its own. */
static void hist_target(struct apiprof_tab *tab, uint32_t idx, const uint64_t *h)
{
	struct apiprof_row *c = apiprof_tab_row(tab, idx);

	apiprof_write_once(&c->hist_off, apiprof_hist_off(tab, h ? h : c->hist));
}

/* The site at address addr's hash: its set is the top 4 bits, and its
 * entry is looked for from way h >> 57 & 7 of it on (where it is put
 * when that way is free), so that it is mostly found at the first look. */
APIPROF_INLINE uint64_t site_hash(uint64_t addr)
{
	return addr * 0x9e3779b97f4a7c15ull;
}

/* The n-th entry to look at for the site whose hash is h. */
APIPROF_INLINE unsigned way_of(uint64_t h, unsigned n)
{
	return (unsigned)(h >> 60) * SITE_WAYS + (((unsigned)(h >> 57) + n) & (SITE_WAYS - 1));
}

/* The entry of the site at addr in its set, or -1. */
APIPROF_INLINE int site_probe(const struct apiprof_site_tbl *t, uint64_t addr)
{
	uint64_t h = site_hash(addr);

	for (unsigned n = 0; n < SITE_WAYS; n++) {
		unsigned w = way_of(h, n);
		uint64_t k = apiprof_read_once(&t->e[w].key);

		if (APIPROF_SITE_ADDR(k) == addr && k != 0)
			return (int)w;
	}
	return -1;
}

/* An entry's key after calls of key: its parent stays while they all
 * have the same one, else becomes APIPROF_PARENT_UNKNOWN. */
static uint64_t key_merge(uint64_t have, uint64_t key)
{
	if (have == key || APIPROF_SITE_PARENT(have) == APIPROF_PARENT_UNKNOWN)
		return have;
	return (have & ~(uint64_t)0xffff) | APIPROF_PARENT_UNKNOWN;
}

/* The same in an api's folded totals, which several threads may set at
 * once. */
static void key_merge_shared(uint64_t *k, uint64_t key)
{
	uint64_t have = apiprof_read_once(k);

	while (key_merge(have, key) != have && !apiprof_cas_relaxed(k, &have, key_merge(have, key)))
		;
}

/* Adds to an entry of an api's folded totals, which several exiting
 * threads may fold into at once. */
static void ent_add(struct site_ent *e, const struct site_ent *from)
{
	apiprof_fetch_add_relaxed(&e->calls, apiprof_read_once(&from->calls));
	apiprof_fetch_add_relaxed(&e->ticks, apiprof_read_once(&from->ticks));
	apiprof_fetch_add_relaxed(&e->timed, apiprof_read_once(&from->timed));
	apiprof_fetch_add_relaxed(&e->err, apiprof_read_once(&from->err));
}

/* Adds to an entry of a thread's own table, which only its owner writes:
 * no locked instruction (a switch of site can come every call). */
APIPROF_INLINE void ent_add_own(struct site_ent *e, uint64_t calls, uint64_t ticks, uint64_t timed)
{
	apiprof_write_once(&e->calls, apiprof_read_once(&e->calls) + calls);
	apiprof_write_once(&e->ticks, apiprof_read_once(&e->ticks) + ticks);
	apiprof_write_once(&e->timed, apiprof_read_once(&e->timed) + timed);
}

/* Moves histogram from (NULL: none) into to, and zeroes it; the bucket
 * the owner noted but has not yet counted, if it is in from, is counted
 * there first (the next timed call then counts its own in the sink). */
static void hist_move(struct apiprof_tab *tab, uint64_t *to, uint64_t *from)
{
	if (from == NULL)
		return;
	int due = apiprof_tab_due_in(tab, from);
	if (due >= 0) {
		apiprof_write_once(&from[due], apiprof_read_once(&from[due]) + 1);
		apiprof_write_once(&tab->due, 0);
	}
	for (int b = 0; b < APIPROF_HIST_BUCKETS; b++) {
		apiprof_write_once(&to[b], apiprof_read_once(&to[b]) + apiprof_read_once(&from[b]));
		apiprof_write_once(&from[b], 0);
	}
}

/* Bit k (0 or 1) of the site at addr in struct apiprof_site_tbl's gone:
 * its word in *w. */
static uint64_t gone_bit(uint64_t addr, unsigned k, unsigned *w)
{
	unsigned b = (unsigned)((addr * 0xc2b2ae3d27d4eb4full) >> (40 + 12 * k)) & 4095;

	*w = b >> 6;
	return 1ull << (b & 63);
}

static bool gone_has(const struct apiprof_site_tbl *t, uint64_t addr)
{
	unsigned w0, w1;
	uint64_t b0 = gone_bit(addr, 0, &w0), b1 = gone_bit(addr, 1, &w1);

	return (t->gone[w0] & b0) && (t->gone[w1] & b1);
}

static void gone_add(struct apiprof_site_tbl *t, uint64_t addr)
{
	for (unsigned k = 0; k < 2; k++) {
		unsigned w;
		uint64_t b = gone_bit(addr, k, &w);

		t->gone[w] |= b;
	}
}

/* Space-saving's eviction, in the owner's table: entry v (of the fewest
 * calls + err of its set) moves its figures and its histogram to
 * "(other callers)", and starts again for key with its upper bound as
 * the newcomer's error (0 when the newcomer was never evicted: it then
 * had no call before).  gen is odd. */
static void site_evict(struct apiprof_tab *tab, uint32_t idx, struct apiprof_site_tbl *t, int v,
                       uint64_t key)
{
	struct apiprof_sites *s = sites_of(tab, idx);
	struct site_ent *e = &t->e[v], *o = &t->e[SITE_OTHER];
	uint64_t bound = e->calls + e->err;

	ent_add_own(o, e->calls, e->ticks, e->timed);
	apiprof_write_once(&o->key, key_merge(o->key, APIPROF_SITE_PARENT(e->key)));
	if (bound > s->floor)
		apiprof_write_once(&s->floor, bound);
	uint64_t *h = apiprof_load_acquire(&t->hist[v]);
	if (h != NULL) {
		uint64_t *oh = site_hist(t, SITE_OTHER);
		hist_move(tab, oh ? oh : apiprof_tab_row(tab, idx)->hist, h);
	}
	gone_add(t, APIPROF_SITE_ADDR(e->key));
	apiprof_write_once(&e->calls, 0);
	apiprof_write_once(&e->ticks, 0);
	apiprof_write_once(&e->timed, 0);
	/* a site never evicted had no call before this one */
	apiprof_write_once(&e->err, gone_has(t, APIPROF_SITE_ADDR(key)) ? bound : 0);
	apiprof_write_once(&e->key, key);
}

/* The entry that the site of key takes in the owner's table: a free one
 * of its set, or the one of the fewest calls + err, evicted.  gen is
 * odd. */
static int site_claim(struct apiprof_tab *tab, uint32_t idx, struct apiprof_site_tbl *t,
                      uint64_t key)
{
	uint64_t h = site_hash(APIPROF_SITE_ADDR(key));
	int v = -1;
	uint64_t low = UINT64_MAX;

	for (unsigned n = 0; n < SITE_WAYS; n++) {
		unsigned w = way_of(h, n);
		const struct site_ent *e = &t->e[w];

		if (e->key == 0) {
			apiprof_write_once(&t->e[w].key, key);
			return (int)w;
		}
		if (e->calls + e->err < low) {
			low = e->calls + e->err;
			v = (int)w;
		}
	}
	site_evict(tab, idx, t, v, key);
	return v;
}

static bool parked_in_call(struct apiprof_tab *tab, uint32_t i);

/* The parent's call is its row's call in progress: one of the row's
 * parked run's when that is timed where it is (APIPROF_CALL_PARKED), and
 * the key is then the parked run's. */
uint64_t apiprof_parent_run_key(uint32_t parent)
{
	uint32_t api, row;

	if (!apiprof_cct_node_row(parent, &api, &row))
		return 0;
	struct apiprof_tab *tab = apiprof_tls_self()->api[api].tab;
	if (tab == NULL)
		return 0;
	const uint64_t *k = parked_in_call(tab, row) ? &sites_of(tab, row)->park_key
	                                             : &apiprof_tab_row(tab, row)->last;
	return apiprof_read_once(k) & ~RUN_AGAIN;
}

/* Whether addr lies in apiprof's own code, and if so, the site of the
 * profiled call the call was made in (the innermost in progress, the
 * key's parent): its run's address, itself replaced if it too lies in
 * apiprof's code (a chain of tail calls).  A library function that
 * tail-calls another api returns from it into its own wrapper. */
static __attribute__((noinline)) uint64_t site_addr_ours(uint64_t key)
{
	uint64_t addr = APIPROF_SITE_ADDR(key);

	for (int depth = 0; depth < 8 && apiprof_wrappers_ours(addr); depth++) {
		uint64_t k = apiprof_parent_run_key(APIPROF_SITE_PARENT(key));

		if (k == 0)
			return addr;
		key = k;
		addr = APIPROF_SITE_ADDR(k);
	}
	return addr;
}

APIPROF_INLINE uint64_t site_addr(uint64_t key)
{
	return apiprof_maybe_ours(APIPROF_SITE_ADDR(key)) ? site_addr_ours(key)
	                                                  : APIPROF_SITE_ADDR(key);
}

/* One row of a table and its sites, looked up once: the switch's writes
 * are to memory that may alias any of them. */
struct row {
	struct apiprof_tab *tab;
	uint32_t idx;
	bool sampled; /* the owner's mode: sampled, or full timing */
	struct apiprof_sites *s;
	struct apiprof_row *c;
	struct apiprof_site_tbl *t; /* NULL: none (yet) */
};

APIPROF_INLINE struct row row_of(struct apiprof_tab *tab, uint32_t idx, bool sampled)
{
	struct apiprof_sites *s = sites_of(tab, idx);

	return (struct row){tab, idx, sampled, s, apiprof_tab_row(tab, idx), tbl_of(s)};
}

/* Whether the owner keeps a run's timed calls (mark_timed): the
 * process's, as the readers take it (apiprof_timing's sample bit, kept
 * once any call was counted and not timed: sampled or count mode). */
static bool own_sampled(void)
{
	return __atomic_load_n(&apiprof_timing, __ATOMIC_RELAXED) & APIPROF_MODE_SAMPLE;
}

/* Adds a run's figures d (calls, ticks, timed) to entry run - 1 of r's
 * table, or to "(other callers)" (run 0, a run with no entry yet, which
 * sampled mode has before its first timed call). */
APIPROF_INLINE void ent_credit(const struct row *r, uint64_t run, const uint64_t d[3])
{
	if (d[0] != 0 && r->t != NULL)
		ent_add_own(run ? &r->t->e[run - 1] : &r->t->e[SITE_OTHER], d[0], d[1], d[2]);
}

/* Adds r's parked run to its entry and, unless a folder closes the row
 * (it read the tree with the runs, apiprof_cct_fold), to its node; then
 * none is parked.  gen is odd. */
static void park_settle(const struct row *r, bool node)
{
	struct apiprof_sites *s = r->s;
	uint64_t pc = s->park_calls;
	const uint64_t d[3] = {pc, s->park_ticks, pc};

	if (s->park_key == 0)
		return;
	ent_credit(r, s->park_run, d);
	if (node)
		apiprof_cct_park_end(d, s->park_self);
	apiprof_write_once(&s->park_key, 0);
	apiprof_write_once(&s->park_calls, 0);
	apiprof_write_once(&s->park_ticks, 0);
	apiprof_write_once(&s->park_run, 0);
}

/* Parks r's run in progress, whose figures are d (none is parked). */
static void park_run(const struct row *r, const uint64_t d[3])
{
	struct apiprof_sites *s = r->s;

	apiprof_write_once(&s->park_calls, d[0]);
	apiprof_write_once(&s->park_ticks, d[1]);
	apiprof_write_once(&s->park_self, apiprof_read_once(&r->c->self));
	apiprof_write_once(&s->park_hoff, apiprof_read_once(&r->c->hist_off));
	apiprof_write_once(&s->park_run, s->run);
	apiprof_write_once(&s->park_key, r->c->last);
}

/* Ends the run in progress of row r at the row's figures calls, ticks
 * and timed: what the row has had since the marks goes to the run's
 * entry (ent_credit) and to its node of the call tree, whose hook also
 * sets the row's self to the node of next, the key of the run that
 * begins (0: none, the run is only closed); or, park, it is parked with
 * those figures (none is parked), and only self is set.  The one place
 * where a run's figures are computed.  gen is odd. */
APIPROF_INLINE void run_end(const struct row *r, uint64_t calls, uint64_t ticks, uint64_t timed,
                            uint64_t next, bool park)
{
	struct apiprof_sites *s = r->s;
	uint64_t run_calls = calls - s->mark_calls; /* the owner's own: plain loads */
	uint64_t run_ticks = ticks - s->mark_ticks;
	/* full timing: every call timed (the inline swap keeps no mark_timed) */
	uint64_t run_timed = r->sampled ? timed - s->mark_timed : run_calls;
	const uint64_t delta[3] = {run_calls, run_ticks, run_timed};

	if (park) {
		park_run(r, delta);
		apiprof_cct_run_end(r->tab, r->idx, NULL, next);
	} else {
		apiprof_cct_run_end(r->tab, r->idx, delta, next);
		ent_credit(r, s->run, delta);
	}
	apiprof_write_once(&s->mark_calls, calls);
	apiprof_write_once(&s->mark_ticks, ticks);
	apiprof_write_once(&s->mark_timed, timed);
}

/* run_end at the row's figures now (the owner's own: its last call has
 * returned).  gen is odd. */
static void run_end_now(const struct row *r, uint64_t next, bool park)
{
	uint64_t calls = apiprof_load(&r->tab->calls[r->idx]);
	uint64_t timed = r->sampled ? row_timed(r->tab, r->idx, true) : calls;

	run_end(r, calls, apiprof_load(&r->c->ticks), timed, next, park);
}

/* The owner's writes to r's runs, between an odd gen (gen_open, whose
 * release pairs with apiprof_tab_read_srec's loads) and the even one
 * after it (gen_close, with the value gen_open gave). */
APIPROF_INLINE uint64_t gen_open(const struct row *r)
{
	uint64_t gen = r->s->gen;

	apiprof_write_once(&r->s->gen, gen + 1);
	apiprof_fence_release();
	return gen + 2;
}

APIPROF_INLINE void gen_close(const struct row *r, uint64_t done)
{
	apiprof_store_release(&r->s->gen, done);
}

/* Entry k's histogram as hist_off says it, given one first (the owner's
 * table: one table's entries are one thread's). */
static __attribute__((noinline, cold)) int64_t hist_off_new(struct apiprof_tab *tab, uint32_t idx,
                                                            struct apiprof_site_tbl *t, int k)
{
	const uint64_t *h = site_hist(t, (size_t)k);

	if (h == NULL)
		return apiprof_hist_off(tab, apiprof_tab_row(tab, idx)->hist);
	t->hist_off[k] = apiprof_hist_off(tab, h);
	return t->hist_off[k];
}

/* Starts a run of key's calls at entry k of r's table. */
APIPROF_INLINE void run_begin(const struct row *r, int k, uint64_t key, bool sampled)
{
	int64_t off = r->t->hist_off[k];

	apiprof_write_once(&r->s->run, (uint64_t)k + 1);
	apiprof_write_once(&r->c->last, key);
	/* the new run's timed calls count in its entry's histogram */
	apiprof_write_once(&r->c->hist_off, off != 0 ? off : hist_off_new(r->tab, r->idx, r->t, k));
	if (sampled)
		apiprof_write_once(&r->s->mark_timed, row_timed(r->tab, r->idx, true));
}

/* The run that ends and the one of key at entry k, between an odd and an
 * even gen; evict (k < 0): key's site takes an entry first, after the
 * run ends (the run's entry may be the one evicted).  In full timing the
 * run that ends is parked (apiprof_unpark), and the one parked before it
 * is added to its entry and node; not before an eviction, which may take
 * the entry of either: both are added then.  The entry. */
APIPROF_INLINE int run_switch(const struct row *r, int k, uint64_t key, uint64_t ekey)
{
	uint64_t done = gen_open(r);

	park_settle(r, true);
	run_end_now(r, key, k >= 0 && !r->sampled && r->c->last != 0);
	if (k < 0)
		k = site_claim(r->tab, r->idx, r->t, ekey);
	run_begin(r, k, key, r->sampled);
	gen_close(r, done);
	return k;
}

/* A switch to entry k for key: the run in progress ends, and one of key
 * begins, unless k is the run's own entry (the same address with another
 * parent, or an address replaced by the same enclosing site), where key
 * only becomes the run's key: a reader adds the run to the same entry
 * whichever of the two it finds.  Only while key's node of the call tree
 * is the run's too (apiprof_cct_keeps): else the run ends, so that the
 * tree has each node's calls. */
APIPROF_INLINE void switch_to(const struct row *r, int k, uint64_t key)
{
	if (r->s->run == (uint64_t)k + 1 && r->c->last != 0 &&
	    apiprof_cct_keeps(r->tab, r->idx, key))
		apiprof_write_once(&r->c->last, key);
	else
		run_switch(r, k, key, 0);
}

/* The two slots of struct apiprof_site_tbl's cache for run key key (the
 * newer first). */
APIPROF_INLINE struct site_cache *cache_of(struct apiprof_site_tbl *t, uint64_t key)
{
	return &t->cache[2 * ((key * 0x9e3779b97f4a7c15ull) >> (64 - SITE_CACHE_BITS))];
}

/* Whether slot h knows key, and its entry still has the site it had. */
APIPROF_INLINE bool cache_hit(const struct apiprof_site_tbl *t, const struct site_cache *h,
                              uint64_t key)
{
	return h->key == key && apiprof_read_once(&t->e[h->ent].key) == h->ekey;
}

/* A key the cache does not know: its site (its address replaced if it
 * is apiprof's), the site's entry, found or taken, then the switch, and
 * the cache learns it (its slot's older key is kept in the other). */
static __attribute__((noinline)) void switch_slow(struct apiprof_tab *tab, uint32_t idx,
                                                  uint64_t key)
{
	const struct row rr = row_of(tab, idx, own_sampled()), *r = &rr;
	struct apiprof_site_tbl *t = r->t;
	/* the entry's parent is the run key's node's function */
	uint64_t ekey = site_addr(key) << 16 | apiprof_cct_parent_func(APIPROF_SITE_PARENT(key));
	int k = site_probe(t, APIPROF_SITE_ADDR(ekey));

	if (k < 0) {
		k = run_switch(r, -1, key, ekey);
	} else {
		apiprof_write_once(&t->e[k].key, key_merge(t->e[k].key, ekey));
		switch_to(r, k, key);
	}
	if (APIPROF_SITE_ADDR(ekey) != APIPROF_SITE_ADDR(key)) {
		/* replaced: the next call of this key may be made in another
		 * call, so it comes here again, and the cache does not learn it */
		apiprof_write_once(&r->c->last, key | RUN_AGAIN);
		return;
	}
	struct site_cache *h = cache_of(t, key);
	h[1] = h[0];
	h[0] = (struct site_cache){key, t->e[k].key, (uint64_t)k};
}

/* A switch of a row that has no table (the arena had no room for one):
 * the run that ends still goes to its node of the call tree, and the new
 * run's node is found, so that the tree has every run of the row and the
 * calls made inside them their parent; its calls are all in "(other
 * callers)", which a reader makes of the row's own figures
 * (apiprof_tab_read_srec). */
static __attribute__((noinline, cold)) void switch_bare(const struct row *r, uint64_t key)
{
	uint64_t done = gen_open(r);

	run_end_now(r, key, false);
	apiprof_write_once(&r->c->last, key);
	gen_close(r, done);
}

/* The owner's half, as a call of key (its run key: return address and
 * parent) is about to start: the run that ends is the row's figures since
 * the marks.  The common case, a key seen before (an interpreter's malloc
 * whose callers take turns), is a look or two at the cache: its entry
 * there still has the site it had. */
void apiprof_site_switch(struct apiprof_tab *tab, uint32_t idx, uint64_t key)
{
	struct row r = row_of(tab, idx, own_sampled());

	if (r.t == NULL && (r.t = tbl_get(r.s)) == NULL) {
		switch_bare(&r, key);
		return;
	}
	if (key == r.s->park_key) { /* the monotonic clock's calls, swapped in */
		apiprof_unpark(tab, idx, r.s);
		return;
	}
	const struct site_cache *h = cache_of(r.t, key);
	const struct site_cache *hit = cache_hit(r.t, &h[0], key)   ? &h[0]
	                               : cache_hit(r.t, &h[1], key) ? &h[1]
	                                                            : NULL;
	if (hit != NULL)
		switch_to(&r, (int)hit->ent, key);
	else
		switch_slow(tab, idx, key);
}

/* The runs of a reader's copy, the one in progress (calls since the
 * marks) and the parked one: each added to its entry's figures as the
 * copy is made. */
struct srec_run {
	uint64_t entry; /* 1 + its entry, 0: "(other callers)", UINT64_MAX: none */
	uint64_t calls, ticks, timed;
};

/* Adds run to x, entry k's copy, if it is k's. */
static void run_into(struct site_ent *x, int k, const struct srec_run *run)
{
	bool mine = run->entry == (uint64_t)k + 1 || (run->entry == 0 && k == SITE_OTHER);

	if (mine && run->calls != 0 && run->calls <= (uint64_t)1 << 62) {
		x->calls += run->calls;
		x->ticks += run->ticks;
		x->timed += run->timed;
	}
}

/* A reader's copy of entry k of t, with the runs that are k's. */
static struct site_ent ent_read(const struct apiprof_site_tbl *t, int k,
                                const struct srec_run run[2])
{
	struct site_ent x = {
	        apiprof_read_once(&t->e[k].key),   apiprof_read_once(&t->e[k].calls),
	        apiprof_read_once(&t->e[k].ticks), apiprof_read_once(&t->e[k].timed),
	        apiprof_read_once(&t->e[k].err),
	};

	run_into(&x, k, &run[0]);
	run_into(&x, k, &run[1]);
	return x;
}

static void out_put(struct apiprof_rec_sites *dst, int j, const struct site_ent *x)
{
	dst->site[j] = (struct apiprof_shm_site){x->key, x->calls, x->ticks, x->timed};
	dst->calls_error[j] = x->err;
}

/* Adds x to dst's "(other callers)", whose parent is that of all of its
 * calls, or APIPROF_PARENT_UNKNOWN. */
static void out_other(struct apiprof_rec_sites *dst, const struct site_ent *x)
{
	struct apiprof_shm_site *o = &dst->site[APIPROF_SITES];
	uint64_t p = x->key ? APIPROF_SITE_PARENT(x->key) : APIPROF_PARENT_UNKNOWN;

	if (x->calls == 0)
		return;
	o->key = o->key == 0 ? p : key_merge(o->key, p);
	o->calls += x->calls;
	o->ticks += x->ticks;
	o->timed += x->timed;
	/* a site counted here had at most its entry's upper bound */
	if (x->calls + x->err > dst->calls_error[APIPROF_SITES])
		dst->calls_error[APIPROF_SITES] = x->calls + x->err;
}

/* Entry x into dst's APIPROF_SITES with the most calls (n of them so
 * far), or the one it beats, or itself, into "(other callers)". */
static void out_rank(struct apiprof_rec_sites *dst, int *n, const struct site_ent *x)
{
	if (x->calls == 0)
		return;
	if (*n < APIPROF_SITES) {
		out_put(dst, (*n)++, x);
		return;
	}
	int low = 0;
	for (int j = 1; j < APIPROF_SITES; j++)
		if (dst->site[j].calls < dst->site[low].calls)
			low = j;
	if (dst->site[low].calls >= x->calls) {
		out_other(dst, x);
		return;
	}
	struct site_ent y = {dst->site[low].key, dst->site[low].calls, dst->site[low].ticks,
	                     dst->site[low].timed, dst->calls_error[low]};
	out_other(dst, &y);
	out_put(dst, low, x);
}

/* One copy of t into dst, the runs added. */
static void srec_copy(struct apiprof_rec_sites *dst, const struct apiprof_site_tbl *t,
                      const struct srec_run run[2])
{
	int n = 0;

	for (int j = 0; j <= APIPROF_SITES; j++) {
		dst->site[j] = (struct apiprof_shm_site){0};
		dst->calls_error[j] = 0;
	}
	for (int k = 0; t != NULL && k < SITE_SLOTS; k++) {
		struct site_ent x = ent_read(t, k, run);
		out_rank(dst, &n, &x);
	}
	struct site_ent o = {0};
	if (t != NULL)
		o = ent_read(t, SITE_OTHER, run);
	else /* no table (the arena had no room): every call, any of its sites */
		o = (struct site_ent){0, run[0].calls, run[0].ticks, run[0].timed, 0};
	o.key = o.key ? o.key : APIPROF_PARENT_UNKNOWN;
	out_other(dst, &o);
}

/* The runs of row i, whose calls are calls, as a reader reads them
 * (between two equal values of gen): in full timing every call is
 * timed. */
static void runs_read(struct srec_run run[2], struct apiprof_tab *tab, uint32_t i, bool sampled,
                      uint64_t calls)
{
	const struct apiprof_sites *s = sites_of(tab, i);
	uint64_t rc = calls - apiprof_read_once(&s->mark_calls);
	uint64_t pc = apiprof_read_once(&s->park_calls);

	run[0] = (struct srec_run){
	        apiprof_read_once(&s->run),
	        rc,
	        apiprof_load(&apiprof_tab_row(tab, i)->ticks) - apiprof_read_once(&s->mark_ticks),
	        sampled ? row_timed(tab, i, true) - apiprof_read_once(&s->mark_timed) : rc,
	};
	run[1] = (struct srec_run){
	        apiprof_read_once(&s->park_key) ? apiprof_read_once(&s->park_run) : UINT64_MAX,
	        pc,
	        apiprof_read_once(&s->park_ticks),
	        pc,
	};
}

/* A reader's half: row i's entries into dst, the APIPROF_SITES with the
 * most calls and the rest in "(other callers)", with the run in progress
 * added to its entry (an api's folded totals have none), from a copy
 * taken while the owner was not switching (a few tries; false when it
 * always was: the next snapshot has it).  Written straight into dst,
 * which may be a ring slot. */
bool apiprof_tab_read_srec(struct apiprof_rec_sites *dst, struct apiprof_tab *tab, uint32_t i,
                           bool sampled, bool folded)
{
	struct apiprof_sites *s = sites_of(tab, i);
	struct apiprof_row *c = apiprof_tab_row(tab, i);

	for (int tries = 0; tries < 16; tries++) {
		uint64_t gen = apiprof_load_acquire(&s->gen); /* pairs with the switch's release */
		if (gen & 1)
			continue;
		const struct apiprof_site_tbl *t = tbl_of(s);
		uint64_t calls = apiprof_load(&tab->calls[i]);
		struct srec_run run[2];
		runs_read(run, tab, i, sampled, calls);
		if (folded || t == NULL || apiprof_read_once(&c->last) == 0)
			run[0].entry = folded ? UINT64_MAX : 0;
		if (folded || t == NULL)
			run[1].entry = UINT64_MAX;
		if (folded)
			run[0].calls = 0;
		if (t == NULL) /* no table: the row's own figures, whole */
			run[0] = (struct srec_run){0, calls, apiprof_load(&c->ticks),
			                           row_timed(tab, i, sampled)};
		uint64_t floor = apiprof_read_once(&s->floor);
		srec_copy(dst, t, run);
		apiprof_fence_acquire(); /* pairs with the switch's fence_release */
		if (apiprof_read_once(&s->gen) != gen)
			continue;
		/* folded: a site may have been out of any entry in each thread */
		for (int j = 0; folded && j < APIPROF_SITES; j++)
			dst->calls_error[j] += dst->site[j].calls ? floor : 0;
		if (floor > dst->calls_error[APIPROF_SITES])
			dst->calls_error[APIPROF_SITES] = floor;
		dst->calls = calls;
		return true;
	}
	return false;
}

/* Ends the run in progress of row i of a table whose owner is done with
 * it (a thread on its way out): the entries then have every call. */
static void sites_close(struct apiprof_tab *tab, uint32_t i, bool sampled)
{
	struct row r = row_of(tab, i, sampled);
	uint64_t done = gen_open(&r);

	park_settle(&r, false);
	run_end_now(&r, 0, false);
	gen_close(&r, done);
}

/* Adds from, a histogram of src's row i (NULL: none), with the bucket
 * noted but not yet counted if it is there, into histogram k of dst's
 * table t, or the row's own when that has none. */
static void hist_fold(struct apiprof_tab *dst, uint32_t i, struct apiprof_site_tbl *t, int k,
                      struct apiprof_tab *src, const uint64_t *from)
{
	if (from == NULL)
		return;
	uint64_t *h = t ? site_hist(t, (size_t)k) : NULL;
	if (h == NULL)
		h = apiprof_tab_row(dst, i)->hist;
	int due = apiprof_tab_due_in(src, from);
	for (int b = 0; b < APIPROF_HIST_BUCKETS; b++)
		apiprof_fetch_add_relaxed(&h[b], apiprof_load(&from[b]) + (b == due));
}

/* The entry of the site of key in an api's folded totals, which other
 * exiting threads may be folding into at once: found, or a free one of
 * its set taken with a compare-and-swap; SITE_OTHER when its set is
 * full (the folded totals evict nothing). */
static int fold_find(struct apiprof_site_tbl *t, uint64_t key)
{
	uint64_t h = site_hash(APIPROF_SITE_ADDR(key));

	for (unsigned n = 0; n < SITE_WAYS; n++) {
		unsigned w = way_of(h, n);
		uint64_t have = apiprof_read_once(&t->e[w].key);

		if (have == 0 && !apiprof_cas_relaxed(&t->e[w].key, &have, key) && have == 0)
			continue;
		if (have == 0 || APIPROF_SITE_ADDR(have) == APIPROF_SITE_ADDR(key)) {
			key_merge_shared(&t->e[w].key, key);
			return (int)w;
		}
	}
	return SITE_OTHER;
}

/* Row i of src had no table (the arena had no room): its calls, any of
 * its sites', go to dst's "(other callers)", or, when dst has no table
 * either, stay in the folded row's own figures, which a reader then
 * takes whole (apiprof_tab_read_srec). */
static void sites_fold_bare(struct apiprof_tab *dst, struct apiprof_tab *src, uint32_t i,
                            bool sampled)
{
	struct apiprof_sites *to = sites_of(dst, i);
	struct apiprof_site_tbl *t = tbl_get(to);
	const struct apiprof_row *c = apiprof_tab_row(src, i);
	uint64_t calls = apiprof_load(&src->calls[i]);
	const struct site_ent e = {APIPROF_PARENT_UNKNOWN, calls, apiprof_load(&c->ticks),
	                           row_timed(src, i, sampled), 0};

	if (t == NULL || calls == 0)
		return;
	key_merge_shared(&t->e[SITE_OTHER].key, APIPROF_PARENT_UNKNOWN);
	ent_add(&t->e[SITE_OTHER], &e);
	apiprof_fetch_add_relaxed(&to->floor, calls);
}

/* Adds row i's sites of src (an exited thread's table, whose run is ended
 * here) into dst (its api's totals), which other exiting threads may be
 * folding into at once; the folded table never has a run of its own.  A
 * site's error bound in the totals is the sum of its bounds in the
 * threads, where a thread that had no entry for it (or whose entry found
 * no room here) adds the most it may have had: dst's floor sums those. */
void apiprof_sites_fold(struct apiprof_tab *dst, struct apiprof_tab *src, uint32_t i, bool sampled)
{
	struct apiprof_sites *from = sites_of(src, i), *to = sites_of(dst, i);
	struct apiprof_site_tbl *f = tbl_of(from);
	uint64_t spill = apiprof_read_once(&from->floor);

	sites_close(src, i, sampled);
	if (f == NULL) {
		sites_fold_bare(dst, src, i, sampled);
		return;
	}
	struct apiprof_site_tbl *t = tbl_get(to);
	for (int k = 0; k <= SITE_OTHER; k++) {
		const struct site_ent *e = &f->e[k];

		if (apiprof_read_once(&e->calls) == 0)
			continue;
		int j = t == NULL ? -1 : k < SITE_OTHER ? fold_find(t, e->key) : SITE_OTHER;
		if (j == SITE_OTHER && k < SITE_OTHER && e->calls + e->err > spill)
			spill = e->calls + e->err;
		if (j == SITE_OTHER)
			key_merge_shared(&t->e[SITE_OTHER].key,
			                 k < SITE_OTHER ? APIPROF_SITE_PARENT(e->key)
			                                : apiprof_read_once(&e->key));
		if (j >= 0)
			ent_add(&t->e[j], e);
		hist_fold(dst, i, t, j, src, apiprof_load_acquire(&f->hist[k]));
	}
	apiprof_fetch_add_relaxed(&to->floor, spill);
}

/* Whether row i's call in progress (the owner's) is one of its parked
 * run's, timed where it is (APIPROF_CALL_PARKED): in full timing every
 * timed call of the row stores its start in t0, and only those in
 * park_t0 too (both kept by resets). */
static bool parked_in_call(struct apiprof_tab *tab, uint32_t i)
{
	uint64_t t0 = apiprof_read_once(&apiprof_tab_row(tab, i)->t0);

	return t0 != 0 && apiprof_read_once(&sites_of(tab, i)->park_t0) == t0;
}

/* A fork child's row whose call was in progress at the fork (its tables
 * reset): the call's run is not known.  A call of the parked run, whose
 * way out adds it to the parked run, finds one of "(other callers)"
 * that no call continues (RUN_AGAIN), as the run in progress is. */
void apiprof_sites_inherited(struct apiprof_tab *tab, uint32_t i)
{
	struct apiprof_row *c = apiprof_tab_row(tab, i);
	struct apiprof_sites *s = sites_of(tab, i);

	apiprof_write_once(&c->self, APIPROF_CCT_OVF | 0u);
	apiprof_write_once(&c->last, RUN_AGAIN);
	if (parked_in_call(tab, i)) {
		apiprof_write_once(&s->park_self, APIPROF_CCT_OVF | 0u);
		apiprof_write_once(&s->park_key, RUN_AGAIN);
	}
}

void apiprof_sites_abandoned(struct apiprof_tab *tab, uint32_t i)
{
	struct apiprof_sites *s = sites_of(tab, i);

	if (apiprof_read_once(&s->park_key) == 0 || !parked_in_call(tab, i)) {
		apiprof_add(&tab->calls[i], 1);
		return;
	}
	struct row r = row_of(tab, i, false); /* only full timing parks */
	uint64_t done = gen_open(&r);

	apiprof_add(&tab->calls[i], 1);
	apiprof_write_once(&s->mark_calls, s->mark_calls + 1);
	apiprof_write_once(&s->park_calls, s->park_calls + 1);
	gen_close(&r, done);
}

/* Zeroes row i's sites, word by word (a reader may be copying them), and
 * their histograms, which they keep; the row's timed calls count in its
 * own histogram until its first run. */
void apiprof_sites_init(struct apiprof_tab *tab, uint32_t i)
{
	struct apiprof_sites *s = sites_of(tab, i);
	struct apiprof_site_tbl *t = tbl_of(s);

	apiprof_write_once(&s->gen, 0);
	apiprof_write_once(&s->mark_calls, 0);
	apiprof_write_once(&s->mark_ticks, 0);
	apiprof_write_once(&s->mark_timed, 0);
	apiprof_write_once(&s->run, 0);
	apiprof_write_once(&s->park_key, 0);
	apiprof_write_once(&s->park_calls, 0);
	apiprof_write_once(&s->park_ticks, 0);
	apiprof_write_once(&s->park_self, 0);
	/* a parked call's way out counts through it at any moment (a fork
	 * child's call in progress): the row's own, never 0 */
	apiprof_write_once(&s->park_hoff, apiprof_hist_off(tab, apiprof_tab_row(tab, i)->hist));
	apiprof_write_once(&s->park_run, 0);
	apiprof_write_once(&s->floor, 0);
	for (int k = 0; t != NULL && k <= SITE_OTHER; k++) {
		uint64_t *w = (uint64_t *)&t->e[k];

		for (size_t j = 0; j < sizeof(t->e[k]) / sizeof(uint64_t); j++)
			apiprof_write_once(&w[j], 0);
		for (int b = 0; t->hist[k] != NULL && b < APIPROF_HIST_BUCKETS; b++)
			apiprof_write_once(&t->hist[k][b], 0);
	}
	for (int w = 0; t != NULL && w < 64; w++)
		t->gone[w] = 0;
	for (int w = 0; t != NULL && w < (2 << SITE_CACHE_BITS); w++)
		t->cache[w] = (struct site_cache){0};
	apiprof_write_once(&apiprof_tab_row(tab, i)->last, 0);
	hist_target(tab, i, NULL);
}

/* Adds histogram k of t into hist, with the bucket noted but not yet
 * counted if it is there. */
static void hist_add_one(uint64_t *hist, struct apiprof_tab *tab, const struct apiprof_site_tbl *t,
                         int k)
{
	const uint64_t *h = apiprof_load_acquire(&t->hist[k]); /* pairs with site_hist */
	int due = h ? apiprof_tab_due_in(tab, h) : -1;

	for (int b = 0; h != NULL && b < APIPROF_HIST_BUCKETS; b++)
		hist[b] += apiprof_load(&h[b]) + (b == due);
}

/* "(other callers)"' first: an eviction adds the evicted entry's buckets
 * there before it zeroes them, so a reader may miss them for one read,
 * never count them twice. */
void apiprof_sites_hist_add(uint64_t *hist, struct apiprof_tab *tab, uint32_t i)
{
	const struct apiprof_site_tbl *t = tbl_of(sites_of(tab, i));

	if (t == NULL)
		return;
	hist_add_one(hist, tab, t, SITE_OTHER);
	apiprof_fence_acquire();
	for (int k = 0; k < SITE_OTHER; k++)
		hist_add_one(hist, tab, t, k);
}

/* The entry of row i whose key is key (other: "(other callers)"), or -1. */
static int ent_of_key(const struct apiprof_site_tbl *t, uint64_t key, bool other)
{
	if (other)
		return SITE_OTHER;
	return key ? site_probe(t, APIPROF_SITE_ADDR(key)) : -1;
}

bool apiprof_site_quantiles(struct apiprof_tab *tab, uint32_t i, uint64_t key, bool other,
                            uint64_t *scratch, uint64_t q[2])
{
	const struct apiprof_site_tbl *t = tbl_of(sites_of(tab, i));
	int k = t ? ent_of_key(t, key, other) : -1;
	const uint64_t *h = k >= 0 ? apiprof_load_acquire(&t->hist[k]) : NULL;
	const struct apiprof_row *c = apiprof_tab_row(tab, i);
	uint64_t n = 0;

	if (h == NULL)
		return false;
	int due = apiprof_tab_due_in(tab, h);
	for (int b = 0; b < APIPROF_HIST_BUCKETS; b++)
		n += scratch[b] = apiprof_load(&h[b]) + (b == due);
	if (n == 0)
		return false;
	/* within the row's extremes: a site's calls are among the row's */
	uint64_t lo = apiprof_load(&c->min_ticks), hi = apiprof_load(&c->max_ticks);
	q[0] = (uint64_t)(apiprof_stat_quantile(scratch, 0.50, lo, hi) + 0.5);
	q[1] = (uint64_t)(apiprof_stat_quantile(scratch, 0.99, lo, hi) + 0.5);
	return true;
}

/* Written straight into dst, a ring slot: the entries of a copy of the
 * sites (apiprof_tab_read_srec, into scratch's srec), each paired with
 * the sites of the same snapshot by its key. */
void apiprof_tab_read_qrec(struct apiprof_rec_siteq *dst, struct apiprof_tab *tab, uint32_t i,
                           const struct apiprof_rec_sites *sites, uint64_t *scratch)
{
	dst->calls = apiprof_load(&tab->calls[i]);
	dst->timed = 0; /* the flusher stamps it */
	for (int k = 0; k <= APIPROF_SITES; k++) {
		struct apiprof_shm_siteq *e = &dst->site[k];
		uint64_t q[2];

		e->key = sites ? sites->site[k].key : 0;
		bool known = e->key != 0 &&
		             apiprof_site_quantiles(tab, i, e->key, k == APIPROF_SITES, scratch, q);
		e->p50_ticks = known ? q[0] : APIPROF_SITEQ_NONE;
		e->p99_ticks = known ? q[1] : APIPROF_SITEQ_NONE;
	}
}
