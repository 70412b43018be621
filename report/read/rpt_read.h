/* SPDX-License-Identifier: MIT */
/*
 * rpt_read.h - the reader's parts: one exit JSON file into a process
 * (rpt_read.c), its functions (rpt_read_func.c), the inputs named on the
 * command line (rpt_inputs.c).
 */
#ifndef RPT_READ_H
#define RPT_READ_H

#include "rpt_json.h"
#include "rpt_model.h"

typedef bool rpt_item_fn(struct rpt_ctx *c, json_t *o, void *slot);

/* An array of the file and where its elements go: each element an
 * object read by fn into a new array of size-byte slots (*out, *n). */
struct rpt_list {
	const char *key;
	size_t size;
	rpt_item_fn *fn;
	void **out;
	size_t *n;
};

/* The array at l->key of o. */
bool rpt_read_list(struct rpt_ctx *c, json_t *o, const struct rpt_list *l);

bool rpt_read_func(struct rpt_ctx *c, json_t *o, void *slot);
bool rpt_read_site(struct rpt_ctx *c, json_t *o, struct rpt_site *s);

/* One file into p.  0, or -1 after its line on stderr. */
int rpt_read_file(const char *path, struct rpt_proc *p);
void rpt_proc_free(struct rpt_proc *p);

#endif /* RPT_READ_H */
