/* SPDX-License-Identifier: MIT */
/*
 * top_apis.c - the apis of a process, from its function table, and the
 * note its title carries for those whose library was never loaded (the
 * runtime marks every function of such an api APIPROF_FUNC_UNLOADED: a
 * static program, or a spec naming another library).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "top_model.h"

static struct top_api *api_find(struct top_api *a, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(a[i].name, name))
			return &a[i];
	return NULL;
}

/* An api is loaded unless every one of its functions says otherwise: the
 * runtime sets and clears the flag api by api. */
int top_proc_apis(const struct top_proc *p, struct top_api **out)
{
	struct top_api *a = calloc(p->nfuncs ? p->nfuncs : 1, sizeof(*a));
	size_t n = 0;

	*out = a;
	if (!a)
		return -1;
	for (uint32_t i = 0; i < p->nfuncs; i++) {
		const struct top_func *f = &p->funcs[i];
		struct top_api *x = api_find(a, n, f->api);

		if (!x) {
			x = &a[n++];
			*x = (struct top_api){f->api, 0, false, f->api_id};
		}
		x->nfuncs++;
		if (!(f->flags & APIPROF_FUNC_UNLOADED))
			x->loaded = true;
	}
	return (int)n;
}

void top_unloaded_note(const struct top_proc *p, char *buf, size_t cap)
{
	struct top_api *a;
	int n = top_proc_apis(p, &a);
	size_t len = 0;

	buf[0] = '\0';
	for (int i = 0; i < n && len < cap; i++) {
		if (a[i].loaded)
			continue;
		int w = snprintf(buf + len, cap - len, "  %s: library never loaded", a[i].name);
		len += w > 0 ? (size_t)w : 0;
	}
	free(a);
}
