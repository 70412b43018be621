/* SPDX-License-Identifier: MIT */
/*
 * top_http_guard.c - the exporter's deadline for a request header
 * (top_http_guard.h).
 *
 * A slot per connection, found again through the connection's socket
 * context.  An expired connection's socket is shut down rather than
 * closed: the descriptor stays the daemon's, which sees the end of the
 * stream at once and closes it as any other.
 */
#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>

#include "top_clock.h"
#include "top_http_guard.h"

void top_http_guard_init(struct top_http_guard *g, unsigned timeout_s)
{
	memset(g, 0, sizeof(*g));
	g->limit_ns = (uint64_t)timeout_s * 1000000000u;
}

static struct top_http_slot *slot_of(struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *i =
	        MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

	return i ? i->socket_context : NULL;
}

/* A connection the guard has no slot for (never more than the daemon's
 * limit) keeps the daemon's inactivity timeout only. */
void top_http_guard_notify(void *cls, struct MHD_Connection *c, void **sock,
                           enum MHD_ConnectionNotificationCode code)
{
	struct top_http_guard *g = cls;
	struct top_http_slot *s = *sock;

	if (code == MHD_CONNECTION_NOTIFY_CLOSED) {
		if (s)
			memset(s, 0, sizeof(*s));
		*sock = NULL;
		return;
	}
	for (size_t i = 0; i < TOP_HTTP_MAX_CONN; i++) {
		if (g->slot[i].c)
			continue;
		g->slot[i].c = c;
		g->slot[i].deadline_ns = top_now_ns(CLOCK_MONOTONIC) + g->limit_ns;
		g->slot[i].answering = false;
		*sock = &g->slot[i];
		return;
	}
}

void top_http_guard_completed(void *cls, struct MHD_Connection *c, void **state,
                              enum MHD_RequestTerminationCode why)
{
	struct top_http_guard *g = cls;
	struct top_http_slot *s = slot_of(c);

	(void)state, (void)why;
	if (!s)
		return;
	s->answering = false;
	s->deadline_ns = top_now_ns(CLOCK_MONOTONIC) + g->limit_ns;
}

void top_http_guard_answering(struct MHD_Connection *c)
{
	struct top_http_slot *s = slot_of(c);

	if (s)
		s->answering = true;
}

uint64_t top_http_guard_wait_ms(const struct top_http_guard *g, uint64_t max_ms)
{
	uint64_t now = top_now_ns(CLOCK_MONOTONIC);

	for (size_t i = 0; i < TOP_HTTP_MAX_CONN; i++) {
		const struct top_http_slot *s = &g->slot[i];

		if (!s->c || s->answering)
			continue;
		uint64_t ms = s->deadline_ns > now ? (s->deadline_ns - now + 999999) / 1000000 : 0;
		if (ms < max_ms)
			max_ms = ms;
	}
	return max_ms;
}

void top_http_guard_expire(struct top_http_guard *g)
{
	uint64_t now = top_now_ns(CLOCK_MONOTONIC);

	for (size_t i = 0; i < TOP_HTTP_MAX_CONN; i++) {
		struct top_http_slot *s = &g->slot[i];

		if (!s->c || s->answering || s->deadline_ns > now)
			continue;
		const union MHD_ConnectionInfo *fd = MHD_get_connection_info(s->c, MHD_CONNECTION_INFO_CONNECTION_FD);
		if (fd)
			shutdown(fd->connect_fd, SHUT_RDWR);
		s->answering = true; /* once: the daemon closes it */
	}
}
