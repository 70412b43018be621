/* SPDX-License-Identifier: MIT */
/*
 * apiprof_mode.c - the modes' one parser, printer and control word
 * (apiprof_mode.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apiprof_abi.h"
#include "apiprof_mode.h"

static const char *const level_names[] = {
        [APIPROF_LEVEL_OFF] = "off",
        [APIPROF_LEVEL_COUNT] = "count",
        [APIPROF_LEVEL_SAMPLED] = "sampled",
        [APIPROF_LEVEL_FULL] = "full",
};

bool apiprof_mode_valid(struct apiprof_modeval m)
{
	if (m.level == APIPROF_LEVEL_SAMPLED)
		return m.sample >= 2 && m.sample <= APIPROF_SAMPLE_MAX;
	return m.level >= APIPROF_LEVEL_OFF && m.level <= APIPROF_LEVEL_FULL && m.sample == 0;
}

static int parse_sample(const char *s, uint32_t *n, const char **why)
{
	char *end;
	errno = 0;
	unsigned long v = strtoul(s, &end, 10);
	if (*s < '0' || *s > '9' || *end != '\0' || errno != 0 || v < 2 || v > APIPROF_SAMPLE_MAX) {
		*why = "sampled:N needs N from 2 to 1073741824";
		return -1;
	}
	*n = (uint32_t)v;
	return 0;
}

int apiprof_mode_parse(const char *s, struct apiprof_modeval *m, const char **why)
{
	static const char usage[] = "a mode is off, count, sampled, sampled:N or full";
	if (s == NULL) {
		*why = usage;
		return -1;
	}
	struct apiprof_modeval v = {APIPROF_LEVEL_NONE, 0};
	const char *colon = strchr(s, ':');
	size_t len = colon ? (size_t)(colon - s) : strlen(s);
	for (int l = APIPROF_LEVEL_OFF; l <= APIPROF_LEVEL_FULL; l++)
		if (strlen(level_names[l]) == len && memcmp(s, level_names[l], len) == 0)
			v.level = (enum apiprof_level)l;
	if (v.level == APIPROF_LEVEL_NONE || (colon && v.level != APIPROF_LEVEL_SAMPLED)) {
		*why = usage;
		return -1;
	}
	if (v.level == APIPROF_LEVEL_SAMPLED) {
		v.sample = APIPROF_SAMPLE_DEFAULT;
		if (colon && parse_sample(colon + 1, &v.sample, why) != 0)
			return -1;
	}
	*m = v;
	return 0;
}

/* One item of a list, [s, end): MODE, or NAME=MODE into l's next api. */
static int list_item(const char *s, const char *end, struct apiprof_mode_list *l, const char **why)
{
	const char *eq = memchr(s, '=', (size_t)(end - s));
	const char *mode = eq ? eq + 1 : s;
	char buf[24];

	if ((size_t)(end - mode) >= sizeof(buf)) {
		*why = "a mode is off, count, sampled, sampled:N or full";
		return -1;
	}
	memcpy(buf, mode, (size_t)(end - mode));
	buf[end - mode] = '\0';
	struct apiprof_modeval m;
	if (apiprof_mode_parse(buf, &m, why) != 0)
		return -1;
	if (eq == NULL) {
		*why = "more than one mode for the process";
		if (l->proc.level != APIPROF_LEVEL_NONE)
			return -1;
		l->proc = m;
		return 0;
	}
	size_t len = (size_t)(eq - s);
	*why = "API=MODE needs an api name of 1 to 31 bytes";
	if (len == 0 || len >= APIPROF_MODE_NAME_MAX)
		return -1;
	*why = "at most 8 apis with a mode of their own";
	if (l->n >= APIPROF_MODE_LIST_APIS)
		return -1;
	*why = "an api named twice";
	for (uint32_t i = 0; i < l->n; i++)
		if (strlen(l->api[i].name) == len && memcmp(l->api[i].name, s, len) == 0)
			return -1;
	memcpy(l->api[l->n].name, s, len);
	l->api[l->n].name[len] = '\0';
	l->api[l->n++].m = m;
	return 0;
}

int apiprof_mode_list_parse(const char *s, struct apiprof_mode_list *l, const char **why)
{
	*l = (struct apiprof_mode_list){.proc = {APIPROF_LEVEL_NONE, 0}};
	if (s == NULL || *s == '\0') {
		*why = "a mode is off, count, sampled, sampled:N or full";
		return -1;
	}
	for (;;) {
		const char *comma = strchr(s, ',');
		const char *end = comma ? comma : s + strlen(s);
		if (list_item(s, end, l, why) != 0)
			return -1;
		if (comma == NULL)
			return 0;
		s = comma + 1;
	}
}

int apiprof_mode_format(struct apiprof_modeval m, char *buf, size_t cap)
{
	if (!apiprof_mode_valid(m))
		return snprintf(buf, cap, "?");
	if (m.level == APIPROF_LEVEL_SAMPLED)
		return snprintf(buf, cap, "sampled:%u", m.sample);
	return snprintf(buf, cap, "%s", level_names[m.level]);
}

uint64_t apiprof_mode_pack(struct apiprof_modeval m)
{
	return (uint64_t)(m.level & 0xffu) | (uint64_t)m.sample << 8;
}

bool apiprof_mode_unpack(uint64_t word, struct apiprof_modeval *m)
{
	if (word >> 40 != 0)
		return false;
	struct apiprof_modeval v = {(enum apiprof_level)(word & 0xffu), (uint32_t)(word >> 8)};
	if (!apiprof_mode_valid(v))
		return false;
	*m = v;
	return true;
}

bool apiprof_mode_shown(const struct apiprof_shm_header *h, uint32_t api_id,
                        struct apiprof_modeval *m)
{
	if (api_id >= APIPROF_SHM_APIS)
		return false;
	uint64_t w =
	        __atomic_load_n(api_id ? &h->api_mode[api_id] : &h->proc_mode, __ATOMIC_RELAXED);
	if (api_id != 0 && w == 0) {
		*m = (struct apiprof_modeval){APIPROF_LEVEL_NONE, 0};
		return true;
	}
	return apiprof_mode_unpack(w, m);
}
