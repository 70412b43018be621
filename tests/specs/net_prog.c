// SPDX-License-Identifier: MIT
/*
 * net_prog.c - calls every function of the net spec a known number of
 * times over TCP on 127.0.0.1, so that net.sh can check each row exactly.
 * Built plain and with -D_FORTIFY_SOURCE=2 -D_FILE_OFFSET_BITS=64 (see
 * meson.build): the second build reaches recv, recvfrom, poll, ppoll and
 * sendfile through __recv_chk, __recvfrom_chk, __poll_chk, __ppoll_chk
 * and sendfile64, and must count the same rows.  Both also call the old
 * exported entry points __connect, __send, __poll and __select by name.
 *
 *   net_prog FILE N
 *
 * FILE holds at least one byte (for sendfile).  The listening socket is
 * made once; each of the N rounds then makes, per row:
 *
 *   socket 2, connect 2 (connect, __connect), accept 1, accept4 1,
 *   send 2 (send, __send), recv 2, sendto 1, recvfrom 1, sendmsg 1,
 *   recvmsg 1, sendmmsg 1, recvmmsg 1, sendfile 1, shutdown 2,
 *   poll 2 (poll, __poll), ppoll 1, epoll_wait 1, epoll_pwait 1,
 *   epoll_pwait2 1, select 2 (select, __select), pselect 1.
 *
 * Every read names the exact byte count (MSG_WAITALL), so TCP's
 * segmentation cannot change the number of calls; every wait has a zero
 * timeout, so nothing blocks.  The result of epoll_pwait2 (ENOSYS before
 * Linux 5.11) is not checked: only that it was called.
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <unistd.h>

/* The old exported entry points: glibc exports them (default versions),
 * no header declares them. */
extern int __connect(int fd, const struct sockaddr *addr, socklen_t len);
extern ssize_t __send(int fd, const void *buf, size_t n, int flags);
extern int __poll(struct pollfd *fds, nfds_t nfds, int timeout);
extern int __select(int nfds, fd_set *r, fd_set *w, fd_set *e, struct timeval *t);

/* Sizes the compiler cannot see through, so that the fortified build
 * takes the checking entry points rather than proving the calls safe. */
static volatile size_t two = 2, one = 1;
static volatile nfds_t one_fd = 1;

struct conn {
	int c1, c2; /* clients: connect, __connect */
	int s1, s2; /* their server ends: accept, accept4 */
};

static int dial(const struct sockaddr_in *sa, int old)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	const struct sockaddr *a = (const struct sockaddr *)sa;

	if (fd < 0 || (old ? __connect(fd, a, sizeof *sa) : connect(fd, a, sizeof *sa)) != 0)
		return -1;
	return fd;
}

static int open_conn(int lfd, const struct sockaddr_in *sa, struct conn *k)
{
	k->c1 = dial(sa, 0);
	k->s1 = accept(lfd, NULL, NULL);
	k->c2 = dial(sa, 1);
	k->s2 = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	return k->c1 < 0 || k->s1 < 0 || k->c2 < 0 || k->s2 < 0 ? -1 : 0;
}

static int plain_io(const struct conn *k)
{
	char buf[64];

	if (send(k->c1, "a", 1, 0) != 1 || __send(k->c1, "b", 1, 0) != 1 ||
	    recv(k->s1, buf, two, MSG_WAITALL) != 2)
		return -1;
	if (sendto(k->c1, "c", 1, 0, NULL, 0) != 1 ||
	    recvfrom(k->s1, buf, one, MSG_WAITALL, NULL, NULL) != 1)
		return -1;
	return 0;
}

static int msg_io(const struct conn *k, int file)
{
	char buf[64];
	struct iovec iov = {.iov_base = buf, .iov_len = 1};
	struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1};
	struct mmsghdr mm = {.msg_hdr = m};
	off_t off = 0;

	memset(buf, 'm', sizeof buf);
	if (sendmsg(k->c1, &m, 0) != 1 || recvmsg(k->s1, &m, MSG_WAITALL) != 1)
		return -1;
	if (sendmmsg(k->c1, &mm, 1, 0) != 1 || recvmmsg(k->s1, &mm, 1, MSG_WAITALL, NULL) != 1)
		return -1;
	if (sendfile(k->c1, file, &off, 1) != 1 || recv(k->s1, buf, one, MSG_WAITALL) != 1)
		return -1;
	return 0;
}

/* s2 has nothing to read: every wait returns 0 at once. */
static int waits(const struct conn *k)
{
	struct pollfd p[1] = {{.fd = k->s2, .events = POLLIN}};
	struct timespec ts = {0, 0};
	struct timeval tv = {0, 0};
	struct epoll_event ev = {.events = EPOLLIN}, out[1];
	fd_set r;
	int ep = epoll_create1(EPOLL_CLOEXEC);

	if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, k->s2, &ev) != 0)
		return -1;
	int n = poll(p, one_fd, 0) + __poll(p, one_fd, 0) + ppoll(p, one_fd, &ts, NULL);
	n += epoll_wait(ep, out, 1, 0) + epoll_pwait(ep, out, 1, 0, NULL);
	(void)epoll_pwait2(ep, out, 1, &ts, NULL);
	FD_ZERO(&r);
	FD_SET(k->s2, &r);
	n += select(k->s2 + 1, &r, NULL, NULL, &tv);
	FD_SET(k->s2, &r);
	n += __select(k->s2 + 1, &r, NULL, NULL, &tv);
	FD_SET(k->s2, &r);
	n += pselect(k->s2 + 1, &r, NULL, NULL, &ts, NULL);
	return close(ep) == 0 && n == 0 ? 0 : -1;
}

static int close_conn(const struct conn *k)
{
	int bad = shutdown(k->c1, SHUT_WR) | shutdown(k->c2, SHUT_RDWR);

	return bad | close(k->c1) | close(k->c2) | close(k->s1) | close(k->s2);
}

static int listener(struct sockaddr_in *sa)
{
	socklen_t len = sizeof *sa;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	memset(sa, 0, sizeof *sa);
	sa->sin_family = AF_INET;
	sa->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || bind(fd, (struct sockaddr *)sa, sizeof *sa) != 0 || listen(fd, 4) != 0 ||
	    getsockname(fd, (struct sockaddr *)sa, &len) != 0)
		return -1;
	return fd;
}

int main(int argc, char **argv)
{
	struct sockaddr_in sa;
	struct conn k;

	if (argc != 3)
		return fprintf(stderr, "usage: net_prog FILE N\n"), 2;
	int file = open(argv[1], O_RDONLY | O_CLOEXEC), rounds = atoi(argv[2]);
	int lfd = listener(&sa);
	if (file < 0 || lfd < 0)
		return perror("net_prog"), 1;
	for (int i = 0; i < rounds; i++)
		if (open_conn(lfd, &sa, &k) || plain_io(&k) || msg_io(&k, file) || waits(&k) ||
		    close_conn(&k))
			return perror("net_prog"), 1;
	printf("%d rounds\n", rounds);
	return close(lfd) | close(file);
}
