/* SPDX-License-Identifier: MIT */
/*
 * test_sitepair.c - the call-site/quantile pairing
 * (common/stat/apiprof_sitepair.h), as two tables of cases: a sites
 * record's stamp, and whether a reader pairs quantiles with sites.
 */
#include <stdio.h>

#include "apiprof_sitepair.h"

#define ENTRIES 4

/* A sites record's entries (key, timed) and the stamp they make. */
struct stamp_case {
	const char *what;
	uint64_t e[ENTRIES][2];
	uint64_t stamp;
};

static const struct stamp_case stamps[] = {
        {"no entry", {{0, 0}, {0, 0}, {0, 0}, {0, 0}}, 0},
        {"used entries add up", {{1 << 16, 5}, {2 << 16, 7}, {0, 0}, {0, 0}}, 12},
        {"an unused entry adds nothing", {{1 << 16, 5}, {0, 1000}, {3 << 16, 1}, {0, 0}}, 6},
        {"(other callers): a parent alone", {{1 << 16, 5}, {0, 0}, {0, 0}, {0xffff, 4}}, 9},
        {"entries with no timed call", {{1 << 16, 0}, {2 << 16, 0}, {0, 0}, {0, 0}}, 0},
        {"wraps as the counters do", {{1 << 16, UINT64_MAX}, {2 << 16, 2}, {0, 0}, {0, 0}}, 1},
};

/* A reader's row and whether its quantiles go with its sites. */
struct pair_case {
	const char *what;
	struct apiprof_sitepair p; /* sites_snap, q_snap, q_stamp, sites_stamp */
	bool pairs;
};

static const struct pair_case pairs[] = {
        {"no quantiles yet", {5, 0, 0, 0}, false},
        {"no quantiles yet, stamps equal", {5, 0, 7, 7}, false},
        {"the same snapshot", {5, 5, 7, 9}, true},
        {"the same snapshot, stamp 0", {5, 5, 0, 0}, true},
        {"kept: no timed call since", {9, 5, 7, 7}, true},
        {"kept: timed calls since", {9, 5, 7, 8}, false},
        {"kept, stamp 0: never across snapshots", {9, 5, 0, 0}, false},
        {"quantiles newer than the sites, same stamp", {5, 9, 7, 7}, true},
        {"no sites yet", {0, 5, 7, 0}, false},
};

int main(void)
{
	int failures = 0;

	for (size_t i = 0; i < sizeof(stamps) / sizeof(stamps[0]); i++) {
		const struct stamp_case *c = &stamps[i];
		uint64_t s = 0;

		for (int k = 0; k < ENTRIES; k++)
			s = apiprof_sitepair_add(s, c->e[k][0], c->e[k][1]);
		if (s != c->stamp) {
			printf("FAIL: stamp, %s: %llu, want %llu\n", c->what, (unsigned long long)s,
			       (unsigned long long)c->stamp);
			failures++;
		}
	}
	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		const struct pair_case *c = &pairs[i];
		bool got = apiprof_sitepair_pairs(&c->p);

		if (got != c->pairs) {
			printf("FAIL: pairs, %s: %d, want %d\n", c->what, got, c->pairs);
			failures++;
		}
	}
	printf("%s: %zu stamps, %zu pairings\n", failures ? "FAIL" : "ok",
	       sizeof(stamps) / sizeof(stamps[0]), sizeof(pairs) / sizeof(pairs[0]));
	return failures != 0;
}
