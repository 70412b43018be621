/* SPDX-License-Identifier: MIT */
/* top_opts.h - command-line options of apiprof-top. */
#ifndef TOP_OPTS_H
#define TOP_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "top_model.h"
#include "top_select.h"

#define TOP_MAX_PIDS  64
#define TOP_MAX_USERS 64
#define TOP_MAX_COMMS 64

enum top_folded_kind { TOP_FOLDED_OFF = 0, TOP_FOLDED_CALLS, TOP_FOLDED_NS };

struct top_opts {
	bool batch;
	bool json;
	enum top_folded_kind folded; /* --folded[=ns] (top_folded.h) */
	bool clean;
	double delay_s;
	long count; /* 0: until interrupted */
	int pids[TOP_MAX_PIDS];
	size_t npids;
	bool children;                /* --children: and what the -p processes fork */
	uint32_t uids[TOP_MAX_USERS]; /* --user NAME,...: only these users' segments */
	size_t nuids;
	char comms[TOP_MAX_COMMS][TOP_SELECT_COMM_LEN]; /* --comm NAME,... */
	size_t ncomms;
	double linger_s;
	const char *shm_dir;
	struct top_view view;
	const char *listen;      /* --listen [ADDR:]PORT: serve /metrics (top_export.c) */
	const char *textfile;    /* --textfile DIR: write DIR/apiprof.prom */
	bool per_process;        /* the exporter's series per pid, not per comm */
	bool per_thread;         /* ... and per thread */
	bool all_users;          /* root may export every user's processes on TCP or a file */
	unsigned http_timeout_s; /* --http-timeout: a request header's deadline; 0 default */
};

int top_opts_parse(struct top_opts *o, int argc, char **argv);
void top_opts_usage(FILE *out);

#endif /* TOP_OPTS_H */
