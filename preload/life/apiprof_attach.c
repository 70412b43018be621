/* SPDX-License-Identifier: MIT */
/*
 * apiprof_attach.c - the runtime in a process that was already running
 * (apiprof-run -p PID, run/run_attach.c; issue 38).
 *
 * apiprof-run makes one thread of the process dlopen() libapiprof.so,
 * whose constructor starts the runtime as for any late dlopen (its thread
 * block in libapiprof-tls.so's static TLS), then call apiprof_attach with
 * what it would have put in the environment.  apiprof_attach loads each
 * shim (RTLD_LOCAL: the loader binds nothing to it) and has the binding
 * engine (preload/bind/) point the slots of every loaded object at its
 * wrappers.  A shim dlopen()ed last finds nothing with dlsym(RTLD_NEXT):
 * once attach has begun, real functions are looked up in the process's
 * global scope (RTLD_DEFAULT), where the loader found what the program
 * calls, and the engine is handed the same definition as `real`.
 *
 * apiprof_detach puts every slot back, turns every gate off, writes the
 * last snapshot and the exit JSON, stops the flusher and removes the
 * segment.  The shims stay mapped, inert: a thread may be inside a
 * wrapper (or about to return into one) at any moment, and a function
 * pointer the program copied from a slot while attached still leads
 * there; unloading would send them into unmapped memory.  Attaching again
 * binds the same wrappers, with a new segment; the counts go on from
 * where the last detach left them.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "apiprof_bind.h"
#include "apiprof_internal.h"
#include "apiprof_steer.h"

#define ATTACH_SHIMS 16

/* One shim loaded by an attach: its handle and the apis its constructor
 * registered (one per spec). */
struct attach_shim {
	void *handle;
	uint32_t first, last; /* api ids [first, last) */
};

static struct {
	int active;   /* attach has begun once: resolve in the global scope */
	int attached; /* slots bound, segment up */
	int detached; /* detached once: an attach again makes a new segment */
	uint32_t nshims;
	struct attach_shim shims[ATTACH_SHIMS];
} at;

/* What an attach asks for (its config, parsed). */
struct attach_req {
	const char *shim[ATTACH_SHIMS];
	uint32_t nshims;
	struct apiprof_mode_list *mode; /* APIPROF_MODE's list (static: 300 bytes) */
};

static int fail(char *why, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *why, size_t cap, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (why != NULL && cap > 0)
		vsnprintf(why, cap, fmt, ap);
	va_end(ap);
	return -1;
}

bool apiprof_attach_active(void)
{
	return apiprof_read_once(&at.active) != 0;
}

/* The real function as the loader bound the program's calls to it. */
void *apiprof_attach_next(const char *symbol, const char *version)
{
	return version ? dlvsym(RTLD_DEFAULT, symbol, version) : dlsym(RTLD_DEFAULT, symbol);
}

/* One line of the config, "KEY=VALUE", into req; the line is cut in place. */
static int parse_line(char *line, struct attach_req *req, char *why, size_t cap)
{
	char *eq = strchr(line, '=');
	const char *mwhy;

	if (eq == NULL)
		return fail(why, cap, "attach: a setting without '=': %.64s", line);
	*eq = '\0';
	const char *v = eq + 1;
	if (strcmp(line, "APIPROF_OUTPUT") == 0) {
		if (strlen(v) >= sizeof(apiprof_cfg.output))
			return fail(why, cap, "attach: APIPROF_OUTPUT is too long");
		memcpy(apiprof_cfg.output, v, strlen(v) + 1);
	} else if (strcmp(line, "APIPROF_MODE") == 0) {
		if (apiprof_mode_list_parse(v, req->mode, &mwhy) != 0)
			return fail(why, cap, "attach: APIPROF_MODE=%.32s: %s", v, mwhy);
	} else if (strcmp(line, "APIPROF_QUIET") == 0) {
		apiprof_cfg.quiet = strcmp(v, "1") == 0;
	} else if (strcmp(line, "APIPROF_SHIM") == 0) {
		if (req->nshims == ATTACH_SHIMS)
			return fail(why, cap, "attach: more than %d shims", ATTACH_SHIMS);
		req->shim[req->nshims++] = v;
	} else {
		return fail(why, cap, "attach: unknown setting %.64s", line);
	}
	return 0;
}

static int parse_config(char *config, struct attach_req *req, char *why, size_t cap)
{
	apiprof_cfg.output[0] = '\0';
	*req->mode = (struct apiprof_mode_list){{APIPROF_LEVEL_NONE, 0}, 0, {{"", {0, 0}}}};
	for (char *save = NULL, *line = strtok_r(config, "\n", &save); line != NULL;
	     line = strtok_r(NULL, "\n", &save))
		if (parse_line(line, req, why, cap) != 0)
			return -1;
	if (req->nshims == 0)
		return fail(why, cap, "attach: no shim named");
	return 0;
}

/* The shim at path, loaded (its constructor registers its apis) or found
 * among those loaded before. */
static struct attach_shim *shim_load(const char *path, char *why, size_t cap)
{
	uint32_t before = apiprof_api_count();
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);

	if (h == NULL) {
		const char *e = dlerror();
		fail(why, cap, "attach: cannot load %s", e != NULL ? e : path);
		return NULL;
	}
	for (uint32_t i = 0; i < at.nshims; i++)
		if (at.shims[i].handle == h) {
			dlclose(h); /* the reference of the first load stays */
			return &at.shims[i];
		}
	if (at.nshims == ATTACH_SHIMS) {
		fail(why, cap, "attach: more than %d shims", ATTACH_SHIMS);
		return NULL;
	}
	struct attach_shim *s = &at.shims[at.nshims++];
	*s = (struct attach_shim){h, before + 1, apiprof_api_count() + 1};
	return s;
}

/* The engine's name of a symbol: "name" or "name@VERSION" (arena). */
static const char *bind_name(const struct apiprof_sym *sym)
{
	if (sym->version == NULL)
		return sym->symbol;
	size_t n = strlen(sym->symbol) + strlen(sym->version) + 2;
	char *s = apiprof_arena_alloc(n);
	if (s != NULL)
		snprintf(s, n, "%s@%s", sym->symbol, sym->version);
	return s;
}

/* The bind entries of every symbol of s's apis, from out[n] on; the new n. */
static size_t shim_syms(const struct attach_shim *s, struct apiprof_bind_sym *out, size_t n)
{
	for (uint32_t id = s->first; id < s->last; id++) {
		const struct apiprof_api *api = apiprof_api_get(id);

		for (uint32_t i = 0; api != NULL && i < apiprof_api_nsyms(api); i++) {
			const struct apiprof_sym *sym = &api->syms[i];
			void *w = sym->wrapper ? dlsym(s->handle, sym->wrapper) : NULL;
			const char *name = bind_name(sym);

			if (w == NULL || name == NULL)
				continue;
			out[n++] = (struct apiprof_bind_sym){
			        name, w, apiprof_attach_next(sym->symbol, sym->version)};
		}
	}
	return n;
}

static size_t syms_room(struct attach_shim *const *shims, uint32_t n)
{
	size_t total = 0;

	for (uint32_t k = 0; k < n; k++)
		for (uint32_t id = shims[k]->first; id < shims[k]->last; id++)
			if (apiprof_api_get(id) != NULL)
				total += apiprof_api_nsyms(apiprof_api_get(id));
	return total;
}

/* Loads the shims and binds their symbols; the number of slots rewritten. */
static int bind_shims(const struct attach_req *req, char *why, size_t cap)
{
	struct attach_shim *shims[ATTACH_SHIMS];

	for (uint32_t k = 0; k < req->nshims; k++)
		if ((shims[k] = shim_load(req->shim[k], why, cap)) == NULL)
			return -1;
	size_t room = syms_room(shims, req->nshims), n = 0;
	/* The engine keeps the array until the revert: arena memory, never freed. */
	struct apiprof_bind_sym *syms = apiprof_arena_alloc(room * sizeof(*syms) + 1);
	if (syms == NULL)
		return fail(why, cap, "attach: out of memory for %zu symbols", room);
	for (uint32_t k = 0; k < req->nshims; k++)
		n = shim_syms(shims[k], syms, n);
	int r = apiprof_bind_apply(syms, n);
	if (r < 0)
		return fail(why, cap, "attach: cannot rewrite the slots: %s", strerror(-r));
	return r;
}

/* A detached process's segment and flusher made again. */
static void publish_again(void)
{
	if (!at.detached || apiprof_segment() != NULL)
		return;
	apiprof_segment_open();
	apiprof_flusher_start();
}

static int attach_locked(char *config, char *why, size_t cap)
{
	static struct apiprof_mode_list mode;
	struct attach_req req = {.mode = &mode};

	if (!apiprof_ready() || !apiprof_tls_ok())
		return fail(why, cap,
		            "attach: the runtime has no thread block in this process "
		            "(no static TLS left for libapiprof-tls.so)");
	if (!at.active && apiprof_api_count() > 0)
		return fail(why, cap,
		            "attach: apiprof is already in this process "
		            "(started under apiprof-run or LD_PRELOAD)");
	if (at.attached)
		return fail(why, cap, "attach: already attached (apiprof-run -p PID --detach)");
	if (parse_config(config, &req, why, cap) != 0)
		return -1;
	apiprof_store_release(&at.active, 1);
	publish_again();
	apiprof_steer_list(req.mode);
	int r = bind_shims(&req, why, cap);
	if (r >= 0)
		at.attached = 1;
	return r;
}

/* What a failed attach leaves: nothing that publishes (the constructor
 * opened a segment and started the flusher), every gate off. */
static void quiesce(void)
{
	if (at.attached || (!at.active && apiprof_api_count() > 0))
		return; /* attached, or preloaded: not ours to end */
	apiprof_steer_mode(NULL, (struct apiprof_modeval){APIPROF_LEVEL_OFF, 0});
	apiprof_flusher_stop();
	apiprof_segment_detach();
	apiprof_cfg.output[0] = '\0';
	at.detached = 1;
}

/* The injector's entry: config is "KEY=VALUE" lines (APIPROF_OUTPUT,
 * APIPROF_MODE, APIPROF_QUIET, APIPROF_SHIM once per shim), changed in
 * place.  The number of slots rewritten, or -1 with one line in why.
 * Runs on a thread of the program, which apiprof-run restores after:
 * errno is its business. */
APIPROF_EXPORT int apiprof_attach(char *config, char *why, size_t cap)
{
	uint64_t held = apiprof_signal_hold(), busy = apiprof_busy_enter();
	int r = attach_locked(config, why, cap);

	if (r < 0)
		quiesce();
	apiprof_busy_leave(busy);
	apiprof_signal_release(held);
	return r;
}

static int detach_locked(char *why, size_t cap)
{
	if (!at.attached)
		return fail(why, cap, "detach: not attached");
	int r = apiprof_bind_revert();
	if (r < 0)
		return fail(why, cap, "detach: cannot put the slots back: %s", strerror(-r));
	apiprof_steer_mode(NULL, (struct apiprof_modeval){APIPROF_LEVEL_OFF, 0});
	apiprof_flusher_stop();
	apiprof_flush_all(true);
	if (apiprof_cfg.output[0])
		apiprof_output_json(apiprof_cfg.output, false);
	apiprof_cfg.output[0] = '\0';
	apiprof_segment_detach();
	at.detached = 1;
	at.attached = 0;
	return 0;
}

/* Puts every slot back and ends the publishing; 0, or -1 with why. */
APIPROF_EXPORT int apiprof_detach(char *why, size_t cap)
{
	uint64_t held = apiprof_signal_hold(), busy = apiprof_busy_enter();
	int r = detach_locked(why, cap);

	apiprof_busy_leave(busy);
	apiprof_signal_release(held);
	return r;
}
