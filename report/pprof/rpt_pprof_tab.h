/* SPDX-License-Identifier: MIT */
/*
 * rpt_pprof_tab.h - a profile being built: its string table, functions,
 * mappings and locations, each made once (looked up by name), and the
 * samples; every allocation kept in one list, freed at the end.
 */
#ifndef RPT_PPROF_TAB_H
#define RPT_PPROF_TAB_H

#include <jansson.h>
#include <stdbool.h>

#include "profile.pb-c.h"
#include "rpt_model.h"

typedef Perftools__Profiles__Profile pb_profile;
typedef Perftools__Profiles__Sample pb_sample;
typedef Perftools__Profiles__Location pb_location;
typedef Perftools__Profiles__Function pb_function;
typedef Perftools__Profiles__Mapping pb_mapping;
typedef Perftools__Profiles__Line pb_line;
typedef Perftools__Profiles__Label pb_label;
typedef Perftools__Profiles__ValueType pb_value_type;

struct vec {
	void **v;
	size_t n, cap;
};

struct pb {
	pb_profile prof;
	struct vec strs, funcs, maps, locs, samples, types;
	struct vec mem; /* everything allocated, freed by pb_free */
	json_t *ids;    /* "s:TEXT", "f:NAME", "m:MODULE", "l:KEY" -> index or id */
	bool oom;
};

void pb_init(struct pb *b);
/* Memory owned by b (zeroed); NULL (and b->oom) when there is none. */
void *pb_alloc(struct pb *b, size_t size);
/* Appends p to v; false (and b->oom) on failure. */
bool pb_push(struct pb *b, struct vec *v, void *p);
/* The string table index of s. */
int64_t pb_str(struct pb *b, const char *s);
/* The id of the function named name. */
uint64_t pb_func(struct pb *b, const char *name);
/* The id of the mapping of module. */
uint64_t pb_map(struct pb *b, const char *module);
/* The id of a location of a profiled function (no address). */
uint64_t pb_loc_func(struct pb *b, const char *name);
/* The id of a call site's location: in module at offset, in function
 * symbol, at line of file when known. */
uint64_t pb_loc_site(struct pb *b, const struct rpt_site *s);
/* Sets the profile's repeated fields from the tables. */
void pb_finish(struct pb *b);
void pb_free(struct pb *b);

#endif /* RPT_PPROF_TAB_H */
