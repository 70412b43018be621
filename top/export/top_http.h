/* SPDX-License-Identifier: MIT */
/*
 * top_http.h - the exporter's HTTP server: GET /metrics, served by
 * libmicrohttpd from the thread that calls top_http_wait (no thread of its
 * own, so the body callback needs no lock).
 *
 * Bounds: 128 connections at once, 16 from one address; a request header
 * must be in within 10 s of the accept (or of the connection's previous
 * answer: top_http_guard.h), and 10 s without progress closes a
 * connection; 32 kB of memory each (a longer request header gets 431 and
 * the connection is closed), and every scrape between two changes of the
 * text shares one copy of it.
 */
#ifndef TOP_HTTP_H
#define TOP_HTTP_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#define TOP_HTTP_MAX_CONN   128
#define TOP_HTTP_TIMEOUT_S  10
#define TOP_HTTP_CONN_BYTES 32768
#define TOP_HTTP_PER_ADDR   16

/* The view of a scraper that may see every user's processes. */
#define TOP_HTTP_ALL UINT32_MAX

/* The body of /metrics for a scraper of uid (TOP_HTTP_ALL: everyone's
 * processes): *body stays valid until the next call; *version changes
 * whenever the text does.  0, or -1 (the answer is then 500). */
typedef int (*top_http_body_fn)(void *ctx, uint32_t uid, const char **body, size_t *len,
                                uint64_t *version);

struct top_http;

struct top_http_conf {
	const char *where;  /* "PORT", "ADDR:PORT", "[ADDR6]:PORT" or "unix:PATH" */
	unsigned timeout_s; /* the request header's deadline; 0: TOP_HTTP_TIMEOUT_S */
	top_http_body_fn body;
	void *ctx;
};

/* Listens on where (numeric only, 127.0.0.1 when no ADDR; port 0 picks a
 * free one) and says where on stderr: "apiprof-top: serving
 * http://ADDR:PORT/metrics".  On "unix:PATH" (a new socket file, mode
 * 0666, removed at top_http_stop) each scraper gets the view of its uid
 * (root: TOP_HTTP_ALL), and it says "apiprof-top: serving /metrics on
 * unix:PATH"; on TCP every scraper gets TOP_HTTP_ALL.  NULL when it cannot
 * (the message printed). */
struct top_http *top_http_start(const struct top_http_conf *conf);

/* Serves until there is nothing more to do for now, waiting at most
 * timeout_ms for something to happen, with mask as the signal mask while
 * it waits (ppoll).  0, or -1 on failure (the message printed). */
int top_http_wait(struct top_http *h, uint64_t timeout_ms, const sigset_t *mask);

void top_http_stop(struct top_http *h);

#endif /* TOP_HTTP_H */
