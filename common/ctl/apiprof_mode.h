/* SPDX-License-Identifier: MIT */
/*
 * apiprof_mode.h - what a process is told to do with its calls, as users
 * write it and as the control block carries it (issue 37).
 *
 *   off          every call passes straight through: not counted, not timed
 *   count        every call counted (bytes and failures where declared), no clock
 *   sampled:N    every call counted, about one in N timed (N >= 2; "sampled": 64)
 *   full         every call counted and timed
 *
 * One parser for every place a user writes a mode: APIPROF_MODE at start
 * (a list, with modes per api: apiprof_mode_list_parse), apiprof-ctl's
 * argument, apiprof_mode() in a program (apiprof/control.h),
 * apiprof-top's key.  The control block carries a mode as one 64-bit word
 * (apiprof_mode_pack); the runtime unpacks it as untrusted input.
 */
#ifndef APIPROF_MODE_H
#define APIPROF_MODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum apiprof_level {
	APIPROF_LEVEL_NONE = 0, /* not a mode: "not set", or a word not understood */
	APIPROF_LEVEL_OFF = 1,
	APIPROF_LEVEL_COUNT = 2,
	APIPROF_LEVEL_SAMPLED = 3,
	APIPROF_LEVEL_FULL = 4,
};

#define APIPROF_SAMPLE_DEFAULT 64u        /* "sampled" without N */
#define APIPROF_SAMPLE_MAX     (1u << 30) /* as APIPROF_SAMPLE allows */

struct apiprof_modeval {
	enum apiprof_level level;
	uint32_t sample; /* N for APIPROF_LEVEL_SAMPLED, else 0 */
};

/* Parses "off", "count", "sampled", "sampled:N" or "full" (the whole
 * string).  0, or -1 with *why (a static sentence) set. */
int apiprof_mode_parse(const char *s, struct apiprof_modeval *m, const char **why);

/* APIPROF_MODE's form: comma-separated items, a mode for the process
 * (at most one) and API=MODE for an api of that name (a spec's "api"),
 * "full,zlib=sampled:64,malloc=off".  proc's level is NONE when no item
 * gives the process's. */
#define APIPROF_MODE_LIST_APIS 8
#define APIPROF_MODE_NAME_MAX  32 /* with its NUL */
struct apiprof_mode_list {
	struct apiprof_modeval proc;
	uint32_t n;
	struct {
		char name[APIPROF_MODE_NAME_MAX];
		struct apiprof_modeval m;
	} api[APIPROF_MODE_LIST_APIS];
};

/* Parses the whole of APIPROF_MODE's form into *l.  0, or -1 with *why
 * (a static sentence) set and *l not to be used. */
int apiprof_mode_list_parse(const char *s, struct apiprof_mode_list *l, const char **why);

/* The canonical text ("sampled:64"), NUL-terminated in buf; the length it
 * needs, as snprintf.  "?" for a value that is not a mode. */
int apiprof_mode_format(struct apiprof_modeval m, char *buf, size_t cap);

/* True for a level of the enum with a sample that fits it. */
bool apiprof_mode_valid(struct apiprof_modeval m);

/* One word for the control block: level in the low byte, N above it. */
uint64_t apiprof_mode_pack(struct apiprof_modeval m);
/* false (and *m untouched) for a word that is not a valid mode. */
bool apiprof_mode_unpack(uint64_t word, struct apiprof_modeval *m);

/* The mode a segment shows (a reader's: the header is untrusted): the
 * process's (api_id 0) or api api_id's own (level NONE: the process's).
 * false for a word that is not a mode or an id out of range. */
struct apiprof_shm_header;
bool apiprof_mode_shown(const struct apiprof_shm_header *h, uint32_t api_id,
                        struct apiprof_modeval *m);

#endif /* APIPROF_MODE_H */
