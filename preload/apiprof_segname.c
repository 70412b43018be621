/* SPDX-License-Identifier: MIT */
/* apiprof_segname.c - the segment's name, written and parsed (see the .h). */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "apiprof_abi.h"
#include "apiprof_segname.h"

int apiprof_segname_format(char *buf, size_t len, const struct apiprof_segid *id)
{
	int n = snprintf(buf, len, APIPROF_SHM_PREFIX "%u-%d-%llu-%llu-%016llx", id->uid,
	                 (int)id->pid, (unsigned long long)id->starttime,
	                 (unsigned long long)id->pidns, (unsigned long long)id->nonce);

	return n < 0 || (size_t)n >= len ? -1 : 0;
}

/* A decimal number, digits only, no sign, no leading zero, no overflow;
 * *end gets the first character after it. */
static int parse_dec(const char *s, uint64_t *v, const char **end)
{
	uint64_t n = 0;
	const char *p = s;

	if (*p < '0' || *p > '9' || (p[0] == '0' && p[1] >= '0' && p[1] <= '9'))
		return -1;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (n > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
			return -1;
		n = n * 10 + (uint64_t)(*p - '0');
	}
	*v = n;
	*end = p;
	return 0;
}

/* Exactly 16 lower-case hex digits, then the end of the name. */
static int parse_nonce(const char *p, uint64_t *v)
{
	uint64_t n = 0;
	int i;

	for (i = 0; i < 16; i++) {
		char c = p[i];

		if (c >= '0' && c <= '9')
			n = n << 4 | (uint64_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			n = n << 4 | (uint64_t)(c - 'a' + 10);
		else
			return -1;
	}
	*v = n;
	return p[i] ? -1 : 0;
}

/* "<uid>-<pid>-<starttime>": the fields both forms begin with. */
static int parse_head(const char *p, struct apiprof_segid *id, const char **end)
{
	uint64_t uid, pid;

	if (parse_dec(p, &uid, &p) || *p++ != '-' || uid > UINT32_MAX)
		return -1;
	if (parse_dec(p, &pid, &p) || *p++ != '-' || pid == 0 || pid > INT32_MAX)
		return -1;
	if (parse_dec(p, &id->starttime, &p))
		return -1;
	id->uid = (uint32_t)uid;
	id->pid = (int32_t)pid;
	*end = p;
	return 0;
}

int apiprof_segname_parse(const char *name, struct apiprof_segid *id)
{
	const size_t plen = strlen(APIPROF_SHM_PREFIX);
	const char *p = name;

	memset(id, 0, sizeof(*id));
	if (strncmp(p, APIPROF_SHM_PREFIX, plen) || parse_head(p + plen, id, &p))
		return -1;
	if (*p == '\0') {
		id->legacy = true;
		return 0;
	}
	if (*p++ != '-' || parse_dec(p, &id->pidns, &p) || *p++ != '-')
		return -1;
	return parse_nonce(p, &id->nonce);
}
