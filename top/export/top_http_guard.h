/* SPDX-License-Identifier: MIT */
/*
 * top_http_guard.h - the exporter's deadline for a request header.
 *
 * libmicrohttpd's timeout counts inactivity: a client that sends one
 * header line now and then (slowloris) keeps its connection for ever.
 * The guard gives each request a deadline from the accept (or from the
 * end of the connection's previous request): a connection whose request
 * has not reached the handler by then is shut down, and the daemon closes
 * it at its next run.
 */
#ifndef TOP_HTTP_GUARD_H
#define TOP_HTTP_GUARD_H

#include <microhttpd.h>
#include <stdint.h>

#include "top_http.h"

struct top_http_slot {
	struct MHD_Connection *c; /* NULL: free */
	uint64_t deadline_ns;     /* the request header's, on CLOCK_MONOTONIC */
	bool answering;           /* the header is in: a response is on its way */
};

struct top_http_guard {
	uint64_t limit_ns; /* how long a request header may take */
	struct top_http_slot slot[TOP_HTTP_MAX_CONN];
};

void top_http_guard_init(struct top_http_guard *g, unsigned timeout_s);
/* MHD_OPTION_NOTIFY_CONNECTION's callback, cls the guard. */
void top_http_guard_notify(void *cls, struct MHD_Connection *c, void **sock,
                           enum MHD_ConnectionNotificationCode code);
/* MHD_OPTION_NOTIFY_COMPLETED's callback, cls the guard: the next request
 * of the connection has a new deadline. */
void top_http_guard_completed(void *cls, struct MHD_Connection *c, void **state,
                              enum MHD_RequestTerminationCode why);
/* The request header of c is in. */
void top_http_guard_answering(struct MHD_Connection *c);
/* Milliseconds until the next deadline (at most max_ms). */
uint64_t top_http_guard_wait_ms(const struct top_http_guard *g, uint64_t max_ms);
/* Shuts down the connections past their deadline. */
void top_http_guard_expire(struct top_http_guard *g);

#endif /* TOP_HTTP_GUARD_H */
