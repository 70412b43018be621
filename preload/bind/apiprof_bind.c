// SPDX-License-Identifier: MIT
/*
 * apiprof_bind.c - which slots the engine rewrites (apiprof_bind.h).
 *
 * For every loaded object but the excluded ones (the loader, the vDSO,
 * apiprof's own libraries and the objects that define the wrappers), every
 * relocation of DT_RELA and DT_JMPREL that names one of the symbols:
 *
 *   JUMP_SLOT  rewritten when it holds the real function, or the object's
 *              own PLT code (a lazy slot not resolved yet: the real is
 *              known, so it is bound to the wrapper right away, when the
 *              reference's version is the real's);
 *   GLOB_DAT   rewritten when it holds the real function;
 *   R_X86_64_64 with no addend: the data word (a table of function
 *              pointers filled at load time) rewritten when it still holds
 *              the real function.
 *
 * A slot holding anything else is bound to another definition (another
 * version, a local copy) and is left alone.  The real function, when the
 * caller does not give it, is the first definition in load order (the
 * objects' GNU hash tables), as the loader's global scope would bind an
 * unversioned reference; a symbol whose library is not loaded yet gets
 * its real function when an object loaded later defines it.  RELATIVE relocations are not
 * looked at: they point into their own object, which calls its own
 * functions as a generated shim cannot see either.
 *
 * Locks: the engine's mutex, then the loader's (dl_iterate_phdr).  Every
 * object is read and written inside dl_iterate_phdr's callback, so no
 * dlclose can unmap it meanwhile; dladdr (which takes the loader's other
 * lock) is called only before, never inside.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>

#include "apiprof_bind_int.h"
#include "apiprof_internal.h"

#define BIND_MAX_SETS    8
#define BIND_MAX_EXCLUDE 64
#define BIND_MAX_DONE    4096
#define BIND_HASH        16384 /* entries, a power of two: syms of all sets */

struct bind_set {
	struct apiprof_bind_sym *syms;
	size_t n;
	const char **defver; /* the real's version, when known at apply */
};

static pthread_mutex_t bind_lock = PTHREAD_MUTEX_INITIALIZER;
static struct bind_set sets[BIND_MAX_SETS];
static size_t nsets;
static uint32_t hash[BIND_HASH]; /* set << 20 | index, + 1; 0: empty */
static uintptr_t exclude[BIND_MAX_EXCLUDE];
static size_t nexclude;
static uintptr_t done[BIND_MAX_DONE][2]; /* objects bound: dyn, base */
static size_t ndone;
static uint32_t active;
/* A fork's child whose parent had another thread inside the engine: the
 * lock that thread held is nobody's, and what it was changing may be half
 * done, so the child binds and reverts nothing more (its slots each hold a
 * whole value, the wrapper or the real function). */
static uint32_t torn;
static pthread_once_t fork_once = PTHREAD_ONCE_INIT;

static void bind_after_fork_child(void)
{
	if (pthread_mutex_trylock(&bind_lock) == 0) {
		pthread_mutex_unlock(&bind_lock);
		return;
	}
	pthread_mutex_init(&bind_lock, NULL);
	__atomic_store_n(&torn, 1, __ATOMIC_RELAXED);
	__atomic_store_n(&active, 0, __ATOMIC_RELEASE);
}

/* A handler in the child only: the parent's fork never waits for the
 * engine (a prepare handler taking the lock would wait for a thread that
 * waits for the loader's lock, which a fork from a constructor holds). */
static void bind_fork_register(void)
{
	pthread_atfork(NULL, NULL, bind_after_fork_child);
}

/* --- the symbols: a hash of their names without "@VER" ------------------ */

static size_t key_len(const char *name)
{
	const char *at = strchr(name, '@');

	return at ? (size_t)(at - name) : strlen(name);
}

static uint32_t name_hash(const char *s, size_t n)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h;
}

static int hash_add(uint32_t set, uint32_t i)
{
	const char *name = sets[set].syms[i].name;
	uint32_t h = name_hash(name, key_len(name));

	for (uint32_t k = 0; k < BIND_HASH; k++, h++)
		if (hash[h & (BIND_HASH - 1)] == 0) {
			hash[h & (BIND_HASH - 1)] = (set << 20 | i) + 1;
			return 0;
		}
	return -ENOSPC;
}

/* Calls fn for every symbol whose name (without version) is name. */
static void hash_each(const char *name, void (*fn)(uint32_t set, uint32_t i, void *arg), void *arg)
{
	size_t len = strlen(name);
	uint32_t h = name_hash(name, len);

	for (uint32_t k = 0; k < BIND_HASH; k++, h++) {
		uint32_t e = hash[h & (BIND_HASH - 1)];

		if (e == 0)
			return;
		const char *s = sets[(e - 1) >> 20].syms[(e - 1) & 0xfffff].name;
		if (key_len(s) == len && memcmp(s, name, len) == 0)
			fn((e - 1) >> 20, (e - 1) & 0xfffff, arg);
	}
}

/* --- the objects left alone ---------------------------------------------- */

static uintptr_t dyn_of(const void *p)
{
	struct link_map *lm = NULL;
	Dl_info info;

	if (p == NULL || !dladdr1(p, &info, (void **)&lm, RTLD_DL_LINKMAP) || lm == NULL)
		return 0;
	return (uintptr_t)lm->l_ld;
}

static void exclude_add(uintptr_t dyn)
{
	for (size_t i = 0; i < nexclude; i++)
		if (exclude[i] == dyn)
			return;
	if (dyn != 0 && nexclude < BIND_MAX_EXCLUDE)
		exclude[nexclude++] = dyn;
}

static bool name_starts(const char *path, const char *prefix)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	return strncmp(base, prefix, strlen(prefix)) == 0;
}

static bool excluded(const struct bind_obj *o)
{
	for (size_t i = 0; i < nexclude; i++)
		if (exclude[i] == o->dyn)
			return true;
	return name_starts(o->name, "ld-linux") || name_starts(o->name, "linux-vdso") ||
	       name_starts(o->name, "libapiprof");
}

/* The version of the real function's definition, found before any
 * loader lock is taken (dladdr1). */
static const char *real_version(const void *real)
{
	const ElfW(Sym) *sym = NULL;
	struct link_map *lm = NULL;
	struct bind_obj o;
	Dl_info info;

	if (real == NULL || !dladdr1(real, &info, (void **)&sym, RTLD_DL_SYMENT) || sym == NULL ||
	    !dladdr1(real, &info, (void **)&lm, RTLD_DL_LINKMAP) || lm == NULL ||
	    bind_obj_find((uintptr_t)lm->l_ld, &o) < 0 || o.symtab == NULL)
		return NULL;
	return bind_obj_def_version(&o, (size_t)(sym - o.symtab));
}

/* --- the real function: the definition the loader's global scope gives -- */

struct def_arg {
	const char *name, *ver;
	bool main_only; /* the main program only (canonical PLT entries) */
	uintptr_t found;
};

static int def_one(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct def_arg *a = arg;
	struct bind_obj o;
	const char *why;

	(void)size;
	if (bind_obj_parse(info, &o, &why) == 0 && !excluded(&o))
		a->found = bind_obj_lookup(&o, a->name, a->ver);
	return a->found != 0 || a->main_only;
}

/* The definition of "name" or "name@VER" in load order, 0 if none. */
static uintptr_t find_def(const char *sym, bool main_only)
{
	char name[256];
	size_t n = key_len(sym);
	const char *at = strchr(sym, '@');

	if (n >= sizeof(name))
		return 0;
	memcpy(name, sym, n);
	name[n] = '\0';
	struct def_arg a = {name, at ? at + 1 + (at[1] == '@') : NULL, main_only, 0};
	dl_iterate_phdr(def_one, &a);
	return a.found;
}

struct exe_arg {
	uintptr_t p;
	bool in_text;
};

static int exe_one(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct exe_arg *a = arg;
	struct bind_obj o;
	const char *why;

	(void)size;
	a->in_text = bind_obj_parse(info, &o, &why) == 0 && bind_obj_has(&o, a->p, 1, PF_X);
	return 1; /* the main program comes first */
}

/* A non-PIE program that takes a function's address makes its own PLT
 * entry the function's address for everyone (dlsym too): that entry jumps
 * through the program's slot, which the engine rewrites, so it is never
 * the real function.  The definition is looked up instead. */
static void *real_of(const char *name, void *given)
{
	struct exe_arg a = {(uintptr_t)given, false};

	if (given != NULL)
		dl_iterate_phdr(exe_one, &a);
	if (given != NULL && !(a.in_text && find_def(name, true) == 0))
		return given;
	return (void *)find_def(name, false);
}

/* --- one relocation ------------------------------------------------------ */

struct reloc_ctx {
	const struct bind_obj *o;
	const ElfW(Rela) * r;
	int n;   /* slots written */
	int err; /* the first error */
};

static bool version_ok(const struct reloc_ctx *c, const struct bind_set *set, uint32_t i, bool lazy)
{
	const char *want = strchr(set->syms[i].name, '@');
	const char *ref = bind_obj_ref_version(c->o, ELF64_R_SYM(c->r->r_info));

	if (want != NULL)
		return ref != NULL && strcmp(ref, want + 1 + (want[1] == '@')) == 0;
	if (!lazy || ref == NULL)
		return true; /* a bound slot is judged by the value it holds */
	const char *def = set->defver ? set->defver[i] : NULL;
	return def != NULL && strcmp(ref, def) == 0;
}

/* The value the slot should hold from now on, 0 to leave it. */
static uintptr_t decide(struct reloc_ctx *c, struct apiprof_bind_sym *s, uintptr_t cur, bool lazy)
{
	uintptr_t real = (uintptr_t)__atomic_load_n(&s->real, __ATOMIC_ACQUIRE);
	unsigned type = ELF64_R_TYPE(c->r->r_info);

	if (cur == (uintptr_t)s->wrapper || cur == 0)
		return 0;
	if (real == 0) { /* its library came later: stored before any slot */
		real = find_def(s->name, false);
		if (real == 0)
			return 0;
		__atomic_store_n(&s->real, (void *)real, __ATOMIC_RELEASE);
	}
	if (type == R_X86_64_64)
		return c->r->r_addend == 0 && real != 0 && cur == real ? (uintptr_t)s->wrapper : 0;
	if (lazy)
		return real != 0 ? (uintptr_t)s->wrapper : 0;
	return cur == real ? (uintptr_t)s->wrapper : 0;
}

/* Whether cur, in the object's own code, is its own definition of the
 * relocation's symbol (a copy it bundles and binds to) rather than its PLT
 * code: such a slot is bound to another definition and left alone. */
static bool own_definition(const struct reloc_ctx *c, uintptr_t cur)
{
	const char *name = bind_obj_sym_name(c->o, ELF64_R_SYM(c->r->r_info));

	return name != NULL && bind_obj_lookup(c->o, name, NULL) == cur;
}

static void bind_one(uint32_t set, uint32_t i, void *arg)
{
	struct reloc_ctx *c = arg;
	struct apiprof_bind_sym *s = &sets[set].syms[i];
	uintptr_t *slot = (uintptr_t *)(c->o->base + c->r->r_offset);

	if (((uintptr_t)slot & 7) != 0 || !bind_obj_has(c->o, (uintptr_t)slot, 8, 0))
		return;
	uintptr_t cur = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
	bool lazy = ELF64_R_TYPE(c->r->r_info) == R_X86_64_JUMP_SLOT && cur != (uintptr_t)s->real &&
	            bind_obj_has(c->o, cur, 1, PF_X) && !own_definition(c, cur);
	if (!version_ok(c, &sets[set], i, lazy))
		return;
	uintptr_t now = decide(c, s, cur, lazy);
	if (now == 0)
		return;
	int e = bind_slot_write(c->o, slot, now);
	if (e == 0)
		c->n++;
	else {
		bind_say("%s: cannot rewrite the slot of %s at %p (%s); its calls there are not "
		         "seen",
		         c->o->name, s->name, (void *)slot,
		         e == -EACCES ? "not in a writable segment" : strerror(-e));
		if (c->err == 0)
			c->err = e;
	}
}

static void bind_table(struct reloc_ctx *c, const ElfW(Rela) * t, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		unsigned type = ELF64_R_TYPE(t[k].r_info);
		size_t idx = ELF64_R_SYM(t[k].r_info);

		if (idx == 0 || (type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT &&
		                 type != R_X86_64_64))
			continue;
		const char *name = bind_obj_sym_name(c->o, idx);
		if (name == NULL)
			continue;
		c->r = &t[k];
		hash_each(name, bind_one, c);
	}
}

static bool done_has(const struct bind_obj *o)
{
	for (size_t i = 0; i < ndone; i++)
		if (done[i][0] == o->dyn && done[i][1] == o->base)
			return true;
	return false;
}

/* Binds every symbol of every set in o; the number of slots written. */
static int bind_obj(const struct bind_obj *o, int *err)
{
	struct reloc_ctx c = {o, NULL, 0, 0};

	if (excluded(o))
		return 0;
	bind_table(&c, o->rela, o->nrela);
	bind_table(&c, o->jmprel, o->njmprel);
	if (!done_has(o) && ndone < BIND_MAX_DONE) {
		done[ndone][0] = o->dyn;
		done[ndone++][1] = o->base;
	}
	if (c.err && *err == 0)
		*err = c.err;
	return c.n;
}

struct walk {
	bool only_new;  /* skip the objects bound before */
	uintptr_t only; /* this object's dyn, 0: every object */
	int n, err;
};

static int walk_one(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct walk *w = arg;
	struct bind_obj o;
	const char *why = NULL;

	(void)size;
	if (bind_obj_parse(info, &o, &why) < 0) {
		if (!name_starts(o.name, "linux-vdso"))
			bind_say("%s: not bound (%s)", o.name, why);
		return 0;
	}
	if ((w->only && o.dyn != w->only) || (w->only_new && done_has(&o)))
		return 0;
	w->n += bind_obj(&o, &w->err);
	return 0;
}

/* --- the interface --------------------------------------------------- */

static int set_prepare(struct bind_set *set)
{
	size_t len = set->n * sizeof(*set->defver);
	void *p = len ? mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
	              : NULL;

	if (p == MAP_FAILED)
		return -ENOMEM;
	set->defver = p;
	for (size_t i = 0; i < set->n; i++) {
		struct apiprof_bind_sym *s = &set->syms[i];

		if (s->name == NULL || s->wrapper == NULL)
			return -EINVAL;
		s->real = real_of(s->name, s->real);
		set->defver[i] = real_version(s->real);
	}
	return 0;
}

static void set_release(struct bind_set *set)
{
	if (set->defver != NULL)
		munmap((void *)set->defver, set->n * sizeof(*set->defver));
	set->defver = NULL;
}

static int add_set(struct bind_set *set)
{
	if (nsets == BIND_MAX_SETS || set->n >= (1u << 20))
		return -ENOSPC;
	sets[nsets] = *set;
	for (uint32_t i = 0; i < set->n; i++)
		if (hash_add((uint32_t)nsets, i) < 0) {
			for (uint32_t k = 0; k < BIND_HASH; k++)
				if (hash[k] != 0 && (hash[k] - 1) >> 20 == nsets)
					hash[k] = 0; /* open addressing: rebuilt below */
			return -ENOSPC;
		}
	nsets++;
	return 0;
}

int apiprof_bind_apply(struct apiprof_bind_sym *syms, size_t n)
{
	struct bind_set set = {syms, n, NULL};
	struct walk w = {false, 0, 0, 0};
	uint64_t busy = apiprof_busy_enter();
	int saved = errno, r = set_prepare(&set);

	pthread_once(&fork_once, bind_fork_register);
	if (r == 0 && __atomic_load_n(&torn, __ATOMIC_RELAXED))
		r = -EAGAIN;
	if (r == 0) {
		exclude_add(dyn_of((const void *)apiprof_bind_apply));
		for (size_t i = 0; i < n; i++)
			exclude_add(dyn_of(syms[i].wrapper));
	}
	pthread_mutex_lock(&bind_lock);
	if (r == 0)
		r = add_set(&set);
	if (r == 0) {
		dl_iterate_phdr(walk_one, &w);
		__atomic_store_n(&active, 1, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&bind_lock);
	if (r < 0)
		set_release(&set);
	apiprof_busy_leave(busy);
	errno = saved;
	return r < 0 ? r : w.n;
}

static int bind_walk(struct walk *w)
{
	uint64_t busy = apiprof_busy_enter();
	int saved = errno;

	pthread_mutex_lock(&bind_lock);
	if (nsets > 0 && !__atomic_load_n(&torn, __ATOMIC_RELAXED))
		dl_iterate_phdr(walk_one, w);
	pthread_mutex_unlock(&bind_lock);
	apiprof_busy_leave(busy);
	errno = saved;
	return w->n;
}

int apiprof_bind_object(struct link_map *lm)
{
	struct walk w = {false, lm ? (uintptr_t)lm->l_ld : 0, 0, 0};

	if (lm == NULL)
		return -EINVAL;
	return bind_walk(&w);
}

int apiprof_bind_new_objects(void)
{
	struct walk w = {true, 0, 0, 0};

	if (!__atomic_load_n(&active, __ATOMIC_ACQUIRE))
		return 0;
	return bind_walk(&w);
}

bool apiprof_bind_active(void)
{
	return __atomic_load_n(&active, __ATOMIC_ACQUIRE) != 0;
}

int apiprof_bind_revert(void)
{
	uint64_t busy = apiprof_busy_enter();
	int saved = errno;

	if (__atomic_load_n(&torn, __ATOMIC_RELAXED)) {
		apiprof_busy_leave(busy);
		return 0; /* a torn child's: nothing more is touched */
	}
	pthread_mutex_lock(&bind_lock);
	int r = bind_slot_revert_all();
	for (size_t i = 0; i < nsets; i++)
		set_release(&sets[i]);
	nsets = ndone = 0;
	memset(hash, 0, sizeof(hash));
	__atomic_store_n(&active, 0, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&bind_lock);
	apiprof_busy_leave(busy);
	errno = saved;
	return r;
}

void apiprof_bind_forget_gone(void)
{
	if (!__atomic_load_n(&active, __ATOMIC_ACQUIRE))
		return;
	pthread_mutex_lock(&bind_lock);
	bind_slot_forget_gone();
	size_t k = 0;
	for (size_t i = 0; i < ndone; i++)
		if (bind_obj_loaded(done[i][0], done[i][1]))
			done[k][0] = done[i][0], done[k++][1] = done[i][1];
	ndone = k;
	pthread_mutex_unlock(&bind_lock);
}
