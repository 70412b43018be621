/* SPDX-License-Identifier: MIT */
/*
 * regrace_shim.c - linked into the testlib shim of robust-register-race,
 * whose generated source is built with -Dapiprof_register=regrace_later:
 * the shim's constructor registers nothing, so that the api is registered
 * by the first calls of the program's threads (apiprof_thread_attach), as
 * when a constructor runs before the runtime is ready.  It keeps the api,
 * for regrace to look at its id.
 */
struct apiprof_api;

static struct apiprof_api *later;

void regrace_later(struct apiprof_api *api);

void regrace_later(struct apiprof_api *api)
{
	later = api;
}

__attribute__((visibility("default"))) struct apiprof_api *regrace_api(void);

struct apiprof_api *regrace_api(void)
{
	return later;
}
