/* SPDX-License-Identifier: MIT */
/*
 * top_watch.h - the set of watched processes: discovery of new segments,
 * one read pass per refresh, liveness, and expiry of ended processes.
 */
#ifndef TOP_WATCH_H
#define TOP_WATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "top_model.h"
#include "top_select.h"
#include "top_shm.h"

typedef void (*top_warn_fn)(void *ctx, const char *msg);

enum top_entry_state {
	TOP_E_PENDING = 0, /* not readable yet */
	TOP_E_ACTIVE,      /* mapped and read each refresh */
	TOP_E_DONE,        /* ended: model kept, mapping released */
	TOP_E_BAD,         /* failed validation: warned once, ignored */
	TOP_E_EXPIRED,     /* ended long enough ago: hidden */
};

struct top_entry {
	char name[APIPROF_SEGNAME_MAX];
	bool present; /* still listed in the directory this refresh */
	enum top_entry_state st;
	struct top_seg seg;
	struct top_proc proc;
	uint64_t info_next_ns; /* when to read its title and parent again */
	bool foreign_said;     /* its process runs as another uid: said once */
	bool owned;            /* its process ran as the segment's owner, uid */
	uint32_t uid;
	/* To be removed by this collector (top_collect.c): the file mapped;
	 * when left for collectors, once every one still holding its slot
	 * has read it. */
	bool take;
	bool take_left;
	uint32_t take_owner; /* the file's uid when judged */
	uint64_t take_dev, take_ino;
	bool seen_running; /* a read showed its process running */
	bool before;       /* had ended before this viewer's first refresh began */
};

struct top_watch {
	const char *dir;
	const char *procdir;
	uint32_t uid;
	struct top_select sel; /* which processes: -p, --children, --user, --comm */
	uint64_t linger_ns;    /* how long an ended process stays visible */
	top_warn_fn warn;
	void *warn_ctx;

	struct top_entry **v;
	size_t n;
	size_t cap;
	size_t nofd; /* segments this refresh could not read for want of a descriptor */
	bool nodir;  /* ... nor list: what was listed before stays */

	/* As a collector (top_collect.h): takes the segments of ended and
	 * dead processes; with promise, holds a slot of the watching marker
	 * (common/abi/apiprof_watch.h) from its first refresh to its last. */
	bool collect;
	bool promise;
	bool last;        /* the viewer's last refresh: it promises nothing */
	bool marker_said; /* no slot could be held: said once */
	bool ack_said;    /* a left segment could not be marked read: said once */
	int marker_fd;    /* the marker, our slot's lock on it; -1 */
	int slot;         /* the slot held, -1 */
	size_t taken;     /* segments removed so far */
	uint64_t refreshes;
	uint64_t start_real_ns; /* CLOCK_REALTIME at the first refresh */
};

void top_watch_init(struct top_watch *w);
void top_watch_free(struct top_watch *w);
void top_watch_refresh(struct top_watch *w, uint64_t mono_ns, uint64_t real_ns);
void top_watch_reset(struct top_watch *w);
bool top_entry_visible(const struct top_entry *e);
size_t top_watch_visible(const struct top_watch *w);
uint64_t top_watch_dropped(const struct top_watch *w);

#endif /* TOP_WATCH_H */
