/* SPDX-License-Identifier: MIT */
/*
 * top_http.c - the exporter's HTTP server (top_http.h), on libmicrohttpd.
 *
 * The socket is made here (a Unix one by top_http_unix.c), so that a
 * failure to where says why; parsing requests is libmicrohttpd's.  It
 * runs in "external" epoll mode: the exporter's one thread waits on the
 * daemon's epoll descriptor, its own refresh deadline and the request
 * headers' deadlines (top_http_guard.c) at once, then lets the daemon
 * work.  On a Unix socket each scraper is answered from the view of its
 * uid; everyone's text is shared by its scrapes, a user's is made for each.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netdb.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "top_http.h"
#include "top_http_guard.h"
#include "top_http_unix.h"
#include "top_prom_text.h"

struct top_http {
	struct MHD_Daemon *d;
	int fd;    /* the listening socket */
	int epoll; /* the daemon's */
	top_http_body_fn body;
	void *ctx;
	struct MHD_Response *metrics; /* the current text, shared by its scrapes */
	uint64_t version;
	struct top_http_guard guard;
	const char *path; /* the Unix socket's; NULL: TCP */
	struct stat made;
};

/* --- answers ------------------------------------------------------------- */

static enum MHD_Result reply_text(struct MHD_Connection *c, unsigned status, const char *msg)
{
	struct MHD_Response *r =
	        MHD_create_response_from_buffer(strlen(msg), (void *)msg, MHD_RESPMEM_PERSISTENT);

	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain; charset=utf-8");
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	enum MHD_Result ok = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ok;
}

static struct MHD_Response *text_response(const char *body, size_t len)
{
	struct MHD_Response *r =
	        MHD_create_response_from_buffer(len, (void *)body, MHD_RESPMEM_MUST_COPY);

	if (r)
		MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, TOP_PROM_CONTENT_TYPE);
	return r;
}

/* The response of the current text for everyone's view: made once per
 * version; the daemon counts the scrapes that still send the previous
 * one, and frees it after the last. */
static struct MHD_Response *metrics(struct top_http *h)
{
	const char *body;
	size_t len;
	uint64_t version;

	if (h->body(h->ctx, TOP_HTTP_ALL, &body, &len, &version) != 0)
		return NULL;
	if (h->metrics && version == h->version)
		return h->metrics;
	struct MHD_Response *r = text_response(body, len);
	if (!r)
		return NULL;
	if (h->metrics)
		MHD_destroy_response(h->metrics);
	h->metrics = r;
	h->version = version;
	return r;
}

/* Whose view a scraper gets: on the Unix socket, its uid's (root's:
 * everyone's); -1 when the kernel cannot say. */
static int view_of(struct top_http *h, struct MHD_Connection *c, uint32_t *uid)
{
	*uid = TOP_HTTP_ALL;
	if (!h->path)
		return 0;
	const union MHD_ConnectionInfo *fd = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
	if (!fd || top_http_unix_peer(fd->connect_fd, uid) != 0)
		return -1;
	if (*uid == 0)
		*uid = TOP_HTTP_ALL;
	return 0;
}

/* One user's view: a response of its own, freed once sent. */
static enum MHD_Result answer_user(struct top_http *h, struct MHD_Connection *c, uint32_t uid)
{
	const char *body;
	size_t len;
	uint64_t version;
	struct MHD_Response *r =
	        h->body(h->ctx, uid, &body, &len, &version) == 0 ? text_response(body, len) : NULL;

	if (!r)
		return reply_text(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n");
	enum MHD_Result ok = MHD_queue_response(c, MHD_HTTP_OK, r);
	MHD_destroy_response(r);
	return ok;
}

static enum MHD_Result answer(void *cls, struct MHD_Connection *c, const char *url,
                              const char *method, const char *version, const char *upload,
                              size_t *upload_size, void **state)
{
	struct top_http *h = cls;

	(void)version, (void)upload, (void)upload_size, (void)state;
	top_http_guard_answering(c);
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
		return reply_text(c, MHD_HTTP_METHOD_NOT_ALLOWED, "only GET /metrics\n");
	if (strcmp(url, "/metrics"))
		return reply_text(c, MHD_HTTP_NOT_FOUND, "apiprof-top serves /metrics\n");
	uint32_t uid;
	if (view_of(h, c, &uid) != 0)
		return reply_text(c, MHD_HTTP_FORBIDDEN, "who is asking?\n");
	if (uid != TOP_HTTP_ALL)
		return answer_user(h, c, uid);
	struct MHD_Response *r = metrics(h);
	if (!r)
		return reply_text(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n");
	return MHD_queue_response(c, MHD_HTTP_OK, r);
}

/* --- the socket ------------------------------------------------------------ */

/* host and port of "PORT", "ADDR:PORT" or "[ADDR6]:PORT" into buffers. */
static int split(const char *where, char *host, size_t hcap, char *port, size_t pcap)
{
	const char *colon = strrchr(where, ':');
	const char *h = where, *hend = colon;

	if (!colon) {
		snprintf(host, hcap, "127.0.0.1");
		return snprintf(port, pcap, "%s", where) < (int)pcap ? 0 : -1;
	}
	if (*h == '[' && hend > h && hend[-1] == ']')
		h++, hend--;
	if ((size_t)(hend - h) >= hcap || hend == h)
		return -1;
	memcpy(host, h, (size_t)(hend - h));
	host[hend - h] = '\0';
	return snprintf(port, pcap, "%s", colon + 1) < (int)pcap ? 0 : -1;
}

/* 0 to 65535 in decimal digits: getaddrinfo would take 99999 modulo 2^16. */
static bool port_ok(const char *port)
{
	size_t n = strspn(port, "0123456789");

	return n > 0 && n <= 5 && !port[n] && atol(port) <= 65535;
}

static int bind_to(const struct addrinfo *ai, const char *where)
{
	int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0), one = 1;

	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0 ||
	    bind(fd, ai->ai_addr, ai->ai_addrlen) != 0 || listen(fd, TOP_HTTP_MAX_CONN) != 0) {
		fprintf(stderr, "apiprof-top: cannot listen on %s: %s\n", where, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/* A listening socket on where's numeric address; -1 (said) when none. */
static int open_listener(const char *where)
{
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM,
	                         .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV | AI_PASSIVE};
	struct addrinfo *ai;
	char host[64], port[16];
	int rc;

	if (split(where, host, sizeof(host), port, sizeof(port)) != 0 || !port_ok(port)) {
		fprintf(stderr, "apiprof-top: bad --listen %s: want [ADDR:]PORT\n", where);
		return -1;
	}
	if ((rc = getaddrinfo(host, port, &hints, &ai)) != 0) {
		fprintf(stderr, "apiprof-top: bad --listen %s: %s\n", where, gai_strerror(rc));
		return -1;
	}
	int fd = bind_to(ai, where);
	freeaddrinfo(ai);
	return fd;
}

static void say_where(int fd)
{
	struct sockaddr_storage sa;
	socklen_t len = sizeof(sa);
	char host[INET6_ADDRSTRLEN + 2], port[8];

	if (getsockname(fd, (struct sockaddr *)&sa, &len) != 0 ||
	    getnameinfo((struct sockaddr *)&sa, len, host, sizeof(host), port, sizeof(port),
	                NI_NUMERICHOST | NI_NUMERICSERV) != 0)
		return;
	fprintf(stderr,
	        sa.ss_family == AF_INET6 ? "apiprof-top: serving http://[%s]:%s/metrics\n"
	                                 : "apiprof-top: serving http://%s:%s/metrics\n",
	        host, port);
}

static struct MHD_Daemon *daemon_on(struct top_http *h)
{
	return MHD_start_daemon(
	        MHD_USE_EPOLL, 0, NULL, NULL, answer, h, MHD_OPTION_LISTEN_SOCKET, h->fd,
	        MHD_OPTION_CONNECTION_LIMIT, (unsigned)TOP_HTTP_MAX_CONN,
	        MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)TOP_HTTP_PER_ADDR,
	        MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)(h->guard.limit_ns / 1000000000u),
	        MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)TOP_HTTP_CONN_BYTES,
	        MHD_OPTION_NOTIFY_CONNECTION, top_http_guard_notify, &h->guard,
	        MHD_OPTION_NOTIFY_COMPLETED, top_http_guard_completed, &h->guard, MHD_OPTION_END);
}

/* The listening socket of where, TCP or Unix (h->path set). */
static int listener(struct top_http *h, const char *where)
{
	size_t n = strlen(TOP_HTTP_UNIX_PREFIX);

	if (strncmp(where, TOP_HTTP_UNIX_PREFIX, n) != 0)
		return open_listener(where);
	int fd = top_http_unix_listen(where + n, &h->made);
	if (fd >= 0)
		h->path = where + n;
	return fd;
}

struct top_http *top_http_start(const struct top_http_conf *conf)
{
	struct top_http *h = calloc(1, sizeof(*h));
	int fd = h ? listener(h, conf->where) : -1;

	if (fd < 0) {
		if (!h)
			fprintf(stderr, "apiprof-top: out of memory\n");
		free(h);
		return NULL;
	}
	h->fd = fd;
	h->body = conf->body;
	h->ctx = conf->ctx;
	top_http_guard_init(&h->guard, conf->timeout_s ? conf->timeout_s : TOP_HTTP_TIMEOUT_S);
	h->d = daemon_on(h);
	const union MHD_DaemonInfo *info =
	        h->d ? MHD_get_daemon_info(h->d, MHD_DAEMON_INFO_EPOLL_FD) : NULL;
	if (!info) {
		fprintf(stderr, "apiprof-top: libmicrohttpd could not start on %s\n", conf->where);
		top_http_stop(h);
		return NULL;
	}
	h->epoll = info->epoll_fd;
	if (h->path)
		fprintf(stderr, "apiprof-top: serving /metrics on unix:%s\n", h->path);
	else
		say_where(fd);
	return h;
}

int top_http_wait(struct top_http *h, uint64_t timeout_ms, const sigset_t *mask)
{
	MHD_UNSIGNED_LONG_LONG t;
	struct pollfd p = {.fd = h->epoll, .events = POLLIN};

	if (MHD_get_timeout(h->d, &t) == MHD_YES && t < timeout_ms)
		timeout_ms = t;
	timeout_ms = top_http_guard_wait_ms(&h->guard, timeout_ms);
	struct timespec ts = {(time_t)(timeout_ms / 1000), (long)(timeout_ms % 1000) * 1000000};
	if (ppoll(&p, 1, &ts, mask) < 0 && errno != EINTR) {
		fprintf(stderr, "apiprof-top: waiting for HTTP clients: %s\n", strerror(errno));
		return -1;
	}
	MHD_run(h->d);
	top_http_guard_expire(&h->guard);
	return 0;
}

void top_http_stop(struct top_http *h)
{
	if (!h)
		return;
	if (h->d)
		MHD_stop_daemon(h->d);
	if (h->metrics)
		MHD_destroy_response(h->metrics);
	if (!h->d) /* a daemon closes its listening socket itself */
		close(h->fd);
	if (h->path)
		top_http_unix_remove(h->path, &h->made);
	free(h);
}
