/* SPDX-License-Identifier: MIT */
/*
 * rpt_inputs.c - what the command line names, as a list of exit JSON
 * files read into the run: a file; a directory (its files named *.json,
 * and the *.json.execN that a process wrote before an exec); a pattern
 * with "%p", as APIPROF_OUTPUT was given (the files where %p is a pid,
 * with their .execN).  A dump (.dumpN) is a snapshot of a process that
 * also wrote its final file, so it is never taken from a directory or a
 * pattern: name it as a file.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rpt_read.h"

struct names {
	char **v;
	size_t n, cap;
};

static int add_name(struct names *l, const char *dir, const char *name)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 16;
		char **v = realloc(l->v, cap * sizeof *v);

		if (v == NULL)
			return -1;
		l->v = v;
		l->cap = cap;
	}
	if (asprintf(&l->v[l->n], "%s%s%s", dir ? dir : "", dir ? "/" : "", name) < 0)
		return -1;
	l->n++;
	return 0;
}

/* s ends in ".execN" (N digits) at or after from: its length before. */
static size_t strip_exec(const char *s)
{
	const char *e = strrchr(s, '.');

	if (e == NULL || strncmp(e, ".exec", 5) != 0 || e[5] == '\0')
		return strlen(s);
	for (const char *d = e + 5; *d; d++)
		if (!isdigit((unsigned char)*d))
			return strlen(s);
	return (size_t)(e - s);
}

static bool digits(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]))
			return false;
	return n > 0;
}

/* name matches pre, a pid, post (and perhaps .execN); pattern NULL: a
 * directory's *.json (and .execN). */
static bool matches(const char *name, const char *pre, const char *post)
{
	size_t n = strip_exec(name);
	size_t lp = pre ? strlen(pre) : 0, ls = post ? strlen(post) : 5;

	if (pre == NULL)
		return n > 5 && memcmp(name + n - 5, ".json", 5) == 0;
	return n >= lp + ls && memcmp(name, pre, lp) == 0 && memcmp(name + n - ls, post, ls) == 0 &&
	       digits(name + lp, n - lp - ls);
}

static int list_dir(struct names *l, const char *dir, const char *pre, const char *post)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t first = l->n;

	if (d == NULL) {
		fprintf(stderr, "apiprof-report: %s: %s\n", dir, strerror(errno));
		return -1;
	}
	while ((e = readdir(d)) != NULL)
		if (e->d_name[0] != '.' && matches(e->d_name, pre, post) &&
		    add_name(l, strcmp(dir, ".") ? dir : NULL, e->d_name) != 0)
			break;
	closedir(d);
	if (l->n == first)
		fprintf(stderr, "apiprof-report: %s%s%s%s%s: no exit JSON file there\n", dir,
		        pre ? "/" : "", pre ? pre : "", pre ? "%p" : "", pre ? post : "");
	return l->n == first ? -1 : 0;
}

/* "DIR/PRE%pPOST": the files of DIR that match. */
static int list_pattern(struct names *l, const char *pattern)
{
	char *copy = strdup(pattern);
	char *slash = copy ? strrchr(copy, '/') : NULL;
	char *base = slash ? slash + 1 : copy;

	if (copy == NULL)
		return -1;
	char *p = strstr(base, "%p");
	if (p == NULL || strstr(p + 2, "%p") || strchr(base, '/')) {
		fprintf(stderr, "apiprof-report: %s: %%p only once, in the file's name\n", pattern);
		free(copy);
		return -1;
	}
	*p = '\0';
	if (slash)
		*slash = '\0';
	int rc = list_dir(l, slash ? (copy[0] ? copy : "/") : ".", base, p + 2);
	free(copy);
	return rc;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int list_input(struct names *l, const char *in)
{
	struct stat st;

	if (strstr(in, "%p"))
		return list_pattern(l, in);
	if (stat(in, &st) == 0 && S_ISDIR(st.st_mode))
		return list_dir(l, in, NULL, NULL);
	return add_name(l, NULL, in);
}

static int read_all(struct rpt_run *run, struct names *l)
{
	qsort(l->v, l->n, sizeof *l->v, cmp_names);
	run->procs = calloc(l->n + 1, sizeof *run->procs);
	if (run->procs == NULL)
		return -1;
	for (size_t i = 0; i < l->n; i++) {
		if (run->nprocs > 0 && strcmp(l->v[i], run->procs[run->nprocs - 1].file) == 0)
			continue; /* named twice */
		if (rpt_read_file(l->v[i], &run->procs[run->nprocs]) != 0) {
			rpt_proc_free(&run->procs[run->nprocs]);
			return -1;
		}
		run->procs[run->nprocs].file = l->v[i];
		l->v[i] = NULL; /* the run's now */
		run->nprocs++;
	}
	return 0;
}

int rpt_read_inputs(struct rpt_run *run, char *const *inputs, int n)
{
	struct names l = {0};
	int rc = 0;

	for (int i = 0; i < n && rc == 0; i++)
		rc = list_input(&l, inputs[i]);
	if (rc == 0)
		rc = read_all(run, &l);
	for (size_t i = 0; i < l.n; i++)
		free(l.v[i]);
	free(l.v);
	return rc;
}

void rpt_run_free(struct rpt_run *run)
{
	for (size_t i = 0; i < run->nprocs; i++) {
		free((char *)run->procs[i].file);
		rpt_proc_free(&run->procs[i]);
	}
	free(run->procs);
	run->procs = NULL;
	run->nprocs = 0;
}

const struct rpt_func *rpt_thread_func(const struct rpt_thread *t, const char *qualified)
{
	for (size_t i = 0; i < t->nfuncs; i++) {
		size_t la = strlen(t->funcs[i].api);

		if (strncmp(qualified, t->funcs[i].api, la) == 0 && qualified[la] == '.' &&
		    strcmp(qualified + la + 1, t->funcs[i].name) == 0)
			return &t->funcs[i];
	}
	return NULL;
}
