/* SPDX-License-Identifier: MIT */
/* top_batch.h - batch-mode output: plain text tables and JSON lines. */
#ifndef TOP_BATCH_H
#define TOP_BATCH_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "top_model.h"
#include "top_ptree.h"
#include "top_watch.h"

void top_batch_text(FILE *out, const struct top_watch *w, const struct top_view *v,
                    uint64_t real_ns, double delay_s);
int top_batch_json(FILE *out, const struct top_watch *w, enum top_group group, uint64_t real_ns,
                   double delay_s);

/* A time in ns as a JSON integer, null when negative (not available);
 * a count, capped at INT64_MAX. */
json_t *top_ns_json(double ns);
json_t *top_u64_json(uint64_t v);
/* In top_calls_json.c: r's "self_ns", "children" and (callers) its
 * "callers", of the threads w says, into o. */
struct top_calls_of;
void top_calls_json(json_t *o, const struct top_proc *p, struct top_calls_of w,
                    const struct top_row *r, bool callers);

/* --folded: every process's folded stacks (top_folded.h); -1 out of
 * memory. */
int top_batch_folded(FILE *out, const struct top_watch *w, bool ns);

#define TOP_TREE_MAX_DEPTH 8 /* deeper children are shown as deep as this */
#define TOP_NAME_BUF       (TOP_COMM_LEN + TOP_TITLE_LEN + 4)

/* What goes before a process's title at that depth of the tree. */
void top_tree_indent(char *buf, size_t cap, int depth);
/* "TREE pid  comm \"title\"  N processes: pid pid ..." (its root's), or
 * "COMM comm  N processes: ...". */
void top_group_title(const struct top_pgroup *g, enum top_group kind, char *buf, size_t cap);

#endif /* TOP_BATCH_H */
