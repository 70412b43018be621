/* SPDX-License-Identifier: MIT */
/*
 * apiprof_steer_ctl.c - the flusher's dispatch of a steering request
 * (apiprof_ctl.h): one case per command, answered only once it is
 * applied.  Every word of the request is a reader's: the mode is
 * unpacked as untrusted, the api name looked up, the label copied with
 * its length bounded (apiprof_ctl_take forced its NUL).
 */
#include <string.h>

#include "apiprof_ctl.h"
#include "apiprof_internal.h"
#include "apiprof_steer.h"
#include "apiprof_steer_ctl.h"

/* True when the process has an api of that name. */
static bool api_known(const char *name)
{
	for (uint32_t id = 1; id <= apiprof_api_count(); id++) {
		struct apiprof_api *api = apiprof_api_get(id);

		if (api && strncmp(api->name, name, APIPROF_API_NAME_MAX) == 0)
			return true;
	}
	return false;
}

static int do_mode(const struct apiprof_ctl_request *r)
{
	struct apiprof_modeval m;

	if (!apiprof_mode_unpack(r->arg, &m))
		return APIPROF_CTL_BADMODE;
	if (r->text[0] && !api_known(r->text))
		return APIPROF_CTL_NOAPI;
	return apiprof_steer_mode(r->text[0] ? r->text : NULL, m) == 0 ? APIPROF_CTL_OK
	                                                               : APIPROF_CTL_BADMODE;
}

static int do_dump(uint32_t *n)
{
	if (apiprof_cfg.output[0] == '\0')
		return APIPROF_CTL_NOFILE;
	return apiprof_output_dump(apiprof_cfg.output, n) == 0 ? APIPROF_CTL_OK
	                                                       : APIPROF_CTL_NOFILE;
}

static int dispatch(const struct apiprof_ctl_request *r, uint32_t *n)
{
	switch ((enum apiprof_ctl_cmd)r->cmd) {
	case APIPROF_CTL_MODE:
		return do_mode(r);
	case APIPROF_CTL_RESET:
		return apiprof_steer_reset(n) == 0 ? APIPROF_CTL_OK : APIPROF_CTL_REFUSED;
	case APIPROF_CTL_MARK:
		return apiprof_steer_mark(r->text, n) == 0 ? APIPROF_CTL_OK : APIPROF_CTL_REFUSED;
	case APIPROF_CTL_DUMP:
		return do_dump(n);
	case APIPROF_CTL_WATCH:
	case APIPROF_CTL_NONE:
		break;
	}
	return APIPROF_CTL_REFUSED;
}

bool apiprof_steer_ctl(struct apiprof_shm_header *h)
{
	struct apiprof_ctl_request r;
	struct apiprof_ctl_reply a = {0, 0, 0};

	if (!apiprof_ctl_take(&h->ctl, &r))
		return false;
	a.result = dispatch(&r, &a.n);
	apiprof_ctl_reply(&h->ctl, &r, &a);
	return true;
}
