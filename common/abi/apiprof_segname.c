/* SPDX-License-Identifier: MIT */
/* apiprof_segname.c - the segment's name, written and parsed (see the .h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "apiprof_abi.h"
#include "apiprof_segname.h"

int apiprof_segname_format(char *buf, size_t len, const struct apiprof_segid *id)
{
	int n = snprintf(buf, len, APIPROF_SHM_PREFIX "%u-%d-%llu-%llu-%016llx", id->uid,
	                 (int)id->pid, (unsigned long long)id->starttime,
	                 (unsigned long long)id->pidns, (unsigned long long)id->nonce);

	return n < 0 || (size_t)n >= len ? -1 : 0;
}

int apiprof_watchname_format(char *buf, size_t len, uint32_t uid)
{
	int n = snprintf(buf, len, APIPROF_WATCH_PREFIX "%u", uid);

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

/* Every ')' starts the count again at field 2 (the comm), so when the text
 * ends the count is the one after the last ')': the comm is the only field
 * that may hold one, the later fields are numbers and a state letter. */
void apiprof_stat_scan_feed(struct apiprof_stat_scan *st, const char *p, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		char c = p[k];

		if (c == ')') {
			st->field = 2;
			st->digits = 0;
			st->bad = false;
			st->value = 0;
		} else if (c == ' ' && st->field != 0) {
			st->field++;
		} else if (st->field == 22 && c >= '0' && c <= '9') {
			st->bad |= ++st->digits > 19; /* 19 digits always fit */
			st->value = st->value * 10 + (uint64_t)(c - '0');
		} else if (st->field == 22) {
			st->bad = true;
		}
	}
}

bool apiprof_stat_scan_done(const struct apiprof_stat_scan *st)
{
	return st->field >= 22 && st->digits != 0 && !st->bad;
}

/* A stat file is a few hundred bytes; more than STAT_MAX is not one. */
#define STAT_WINDOW 128
#define STAT_MAX    8192

/* Scans fd to its end (or STAT_MAX) in small pieces: 0, or -1 with errno. */
static int scan_fd(int fd, struct apiprof_stat_scan *st)
{
	char win[STAT_WINDOW];
	size_t total = 0;

	while (total < STAT_MAX) {
		ssize_t n = read(fd, win, sizeof(win));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			break;
		apiprof_stat_scan_feed(st, win, (size_t)n);
		total += (size_t)n;
	}
	return 0;
}

uint64_t apiprof_stat_starttime(int fd)
{
	struct apiprof_stat_scan st = {0};

	return scan_fd(fd, &st) == 0 && apiprof_stat_scan_done(&st) ? st.value : 0;
}

/* Opened relative to procdir, so the path needs no buffer of PATH_MAX. */
static int open_stat(const char *procdir, int pid)
{
	char rel[32];
	int dfd = open(procdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (dfd < 0)
		return -1;
	snprintf(rel, sizeof(rel), "%d/stat", pid);
	int fd = openat(dfd, rel, O_RDONLY | O_CLOEXEC);
	int saved = errno;
	close(dfd);
	errno = saved;
	return fd;
}

int apiprof_proc_starttime(const char *procdir, int pid, uint64_t *st)
{
	struct apiprof_stat_scan sc = {0};
	int fd = open_stat(procdir, pid);

	if (fd < 0)
		return -1;
	int rc = scan_fd(fd, &sc);
	int saved = errno;
	close(fd);
	errno = saved;
	if (rc != 0)
		return -1;
	if (!apiprof_stat_scan_done(&sc))
		return errno = EINVAL, -1;
	*st = sc.value;
	return 0;
}
