/* SPDX-License-Identifier: MIT */
/*
 * top_symmaps.c - /proc/PID/maps read once (top_symmaps.h).
 *
 * A line is "start-end perms offset dev inode   path"; one longer than
 * the buffer (a path is at most PATH_MAX) was cut by fgets, and its rest
 * is skipped.  The kernel prints mappings in address order; a line out of
 * order is ignored, so the array stays sorted for the binary search.
 * Adjacent mappings of one file share its path.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "top_symmaps.h"

#define MAPS_LINE 4352

/* FNV-1a: only to notice that the file mappings changed. */
static uint64_t maps_hash(uint64_t h, const char *s)
{
	for (; *s != '\0'; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

static int grow(void **p, size_t *room, size_t need, size_t size)
{
	if (need <= *room)
		return 0;
	size_t n = *room ? *room : 256;
	while (n < need)
		n *= 2;
	void *q = realloc(*p, n * size);
	if (q == NULL)
		return -1;
	*p = q;
	*room = n;
	return 0;
}

/* The offset of path in names, stored unless the last one is the same. */
static int add_path(struct top_symmaps *m, const char *path, uint32_t *at)
{
	size_t n = strlen(path) + 1;

	if (m->n > 0 && m->v[m->n - 1].path != TOP_SYMMAPS_NOPATH &&
	    strcmp(m->names + m->v[m->n - 1].path, path) == 0) {
		*at = m->v[m->n - 1].path;
		return 0;
	}
	if (m->len + n >= TOP_SYMMAPS_NOPATH || grow((void **)&m->names, &m->room, m->len + n, 1))
		return -1;
	memcpy(m->names + m->len, path, n);
	*at = (uint32_t)m->len;
	m->len += n;
	return 0;
}

static int add_line(struct top_symmaps *m, char *line)
{
	struct top_symmap e;
	int pathat = 0;

	line[strcspn(line, "\n")] = '\0';
	if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %*s %" SCNx64 " %*s %*s %n", &e.start, &e.end,
	           &e.pgoff, &pathat) != 3 ||
	    pathat == 0 || e.end <= e.start || (m->n > 0 && e.start < m->v[m->n - 1].end))
		return 0;
	const char *path = line + pathat;
	e.path = TOP_SYMMAPS_NOPATH;
	if (path[0] == '/') {
		m->hash = maps_hash(m->hash, line);
		if (add_path(m, path, &e.path) != 0)
			return -1;
	}
	if (grow((void **)&m->v, &m->cap, m->n + 1, sizeof *m->v) != 0)
		return -1;
	m->v[m->n++] = e;
	return 0;
}

int top_symmaps_read(struct top_symmaps *m, int pid)
{
	char name[64], line[MAPS_LINE];
	int rc = 0;

	m->n = 0;
	m->len = 0;
	m->hash = 0xcbf29ce484222325ull;
	snprintf(name, sizeof name, "/proc/%d/maps", pid);
	FILE *f = fopen(name, "re");
	if (f == NULL)
		return -1;
	while (rc == 0 && fgets(line, sizeof line, f) != NULL) {
		if (strchr(line, '\n') == NULL)
			for (int c = fgetc(f); c != EOF && c != '\n'; c = fgetc(f))
				;
		rc = add_line(m, line);
	}
	if (ferror(f))
		rc = -1;
	fclose(f);
	if (rc != 0)
		m->n = 0;
	return rc;
}

const struct top_symmap *top_symmaps_find(const struct top_symmaps *m, uint64_t addr)
{
	size_t lo = 0, hi = m->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (addr < m->v[mid].start)
			hi = mid;
		else if (addr >= m->v[mid].end)
			lo = mid + 1;
		else
			return &m->v[mid];
	}
	return NULL;
}

const char *top_symmaps_path(const struct top_symmaps *m, const struct top_symmap *e)
{
	return e->path == TOP_SYMMAPS_NOPATH ? "" : m->names + e->path;
}

void top_symmaps_free(struct top_symmaps *m)
{
	free(m->v);
	free(m->names);
	memset(m, 0, sizeof *m);
}
