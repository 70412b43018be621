/* SPDX-License-Identifier: MIT */
/*
 * rpt_html_groups.c - the sums over the processes of one command
 * (nginx's workers, postgres's backends), as apiprof-top's `g` shows
 * them: per function, its calls, time, bytes and failures over every
 * thread of every process with that comm, when there are two or more.
 * Layout: [comm, [pid...], [[api.function, calls, total_ns, bytes|null,
 * failures|null]...]].
 */
#include <stdio.h>
#include <string.h>

#include "rpt_html.h"

struct sums {
	uint64_t v[4]; /* calls, total_ns, bytes, failures */
	bool has[4];
};

static int add(json_t *by, const struct rpt_func *f)
{
	char key[512];
	uint64_t add[4] = {f->calls, f->total_ns, f->bytes, f->failures};

	snprintf(key, sizeof key, "%s.%s", f->api, f->name);
	json_t *row = json_object_get(by, key);
	if (row == NULL) {
		row = json_pack("[sIIoo]", key, (json_int_t)0, (json_int_t)0, json_null(),
		                json_null());
		if (row == NULL || json_object_set_new(by, key, row) != 0)
			return 0; /* a name cut inside a character: left out */
	}
	for (int k = 0; k < 4; k++) {
		json_t *v = json_array_get(row, (size_t)k + 1);

		if (add[k] == RPT_NONE)
			continue;
		uint64_t sum = (json_is_integer(v) ? (uint64_t)json_integer_value(v) : 0) + add[k];
		if (sum > RPT_VALUE_MAX)
			return -1;
		json_array_set_new(row, (size_t)k + 1, json_integer((json_int_t)sum));
	}
	return 0;
}

static int add_proc(json_t *by, const struct rpt_proc *p)
{
	for (size_t t = 0; t < p->nthreads; t++)
		for (size_t i = 0; i < p->threads[t].nfuncs; i++)
			if (add(by, &p->threads[t].funcs[i]) != 0)
				return -1;
	return 0;
}

static json_t *rows(json_t *by)
{
	json_t *a = json_array();
	const char *key;
	json_t *row;

	json_object_foreach(by, key, row) json_array_append(a, row);
	return a;
}

/* Processes i.. with p[i]'s comm, unless an earlier one had it. */
static int group(const struct rpt_run *run, size_t i, json_t *groups)
{
	const char *comm = run->procs[i].comm;
	json_t *pids = json_array(), *by = json_object();
	int rc = 0;

	for (size_t j = 0; j < i; j++)
		if (strcmp(run->procs[j].comm, comm) == 0)
			goto out;
	for (size_t j = i; j < run->nprocs && rc == 0; j++)
		if (strcmp(run->procs[j].comm, comm) == 0) {
			json_array_append_new(pids, json_integer(run->procs[j].pid));
			rc = add_proc(by, &run->procs[j]);
		}
	if (rc == 0 && json_array_size(pids) > 1)
		json_array_append_new(groups, json_pack("[sOo]", comm, pids, rows(by)));
out:
	json_decref(pids);
	json_decref(by);
	return rc;
}

int rpt_html_groups(const struct rpt_run *run, json_t *data)
{
	json_t *groups = json_array();

	json_object_set_new(data, "groups", groups);
	for (size_t i = 0; i < run->nprocs; i++)
		if (group(run, i, groups) != 0) {
			fprintf(stderr,
			        "apiprof-report: the sums over the processes of %s pass 2^53, "
			        "past what a report shows exactly\n",
			        run->procs[i].comm);
			return -1;
		}
	return 0;
}
