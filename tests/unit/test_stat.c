/* SPDX-License-Identifier: MIT */
/*
 * test_stat - the start time read from a stat file in small pieces
 * (apiprof_segname.c): the comm may hold ')' and spaces, the text may be
 * cut anywhere, and the runtime's reader agrees with a whole-line parse of
 * this process's own /proc/self/stat under a hostile thread name.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "apiprof_segname.h"
#include "check.h"


/* Fields 3..21 of a stat line, then 22 = start, then a few more. */
static void make_line(char *buf, size_t cap, const char *comm, const char *start)
{
	snprintf(buf, cap,
	         "4242 (%s) S 1 4242 4242 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 %s 1000 "
	         "200 18446744073709551615 1 1 0 0 0 0 0 4096 0 0 0 17 3 0 0 0 0 0\n",
	         comm, start);
}

/* Feeds line in pieces of `step` bytes. */
static int scan(const char *line, size_t step, uint64_t *v)
{
	struct apiprof_stat_scan st = {0};
	size_t n = strlen(line);

	for (size_t off = 0; off < n; off += step)
		apiprof_stat_scan_feed(&st, line + off, n - off < step ? n - off : step);
	*v = st.value;
	return apiprof_stat_scan_done(&st);
}

static void test_pieces(void)
{
	static const char *const comms[] = {"cat", "a b", ") 1 2 3 4 5", "x) (y",
	                                    "))))))))))))))) "};
	char line[512];
	uint64_t v;

	for (size_t c = 0; c < sizeof(comms) / sizeof(comms[0]); c++)
		for (size_t step = 1; step <= 200; step++) {
			make_line(line, sizeof(line), comms[c], "987654321");
			CHECK(scan(line, step, &v) && v == 987654321u);
		}
}

static void test_bad(void)
{
	char line[512];
	uint64_t v;

	CHECK(!scan("4242 cat S 1 2 3", 7, &v));   /* no ')' at all */
	CHECK(!scan("4242 (cat) S 1 2 3", 7, &v)); /* ends before field 22 */
	make_line(line, sizeof(line), "cat", "12a3");
	CHECK(!scan(line, 5, &v));
	make_line(line, sizeof(line), "cat", "123456789012345678901"); /* 21 digits */
	CHECK(!scan(line, 5, &v));
	make_line(line, sizeof(line), "cat", "18446744073709551");
	CHECK(scan(line, 3, &v) && v == 18446744073709551ull);
}

/* The reference: the whole line, field 22 after the last ')'. */
static uint64_t whole_line_starttime(void)
{
	char buf[4096];
	int fd = open("/proc/self/stat", O_RDONLY);
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	char *p;
	int field = 2;

	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	p = strrchr(buf, ')');
	while (p && *p && field < 22)
		if (*p++ == ' ')
			field++;
	return p ? strtoull(p, NULL, 10) : 0;
}

static void test_self(void)
{
	int fd;
	uint64_t t, st;

	CHECK(prctl(PR_SET_NAME, ") 9 9 ) 7 (x", 0, 0, 0) == 0);
	fd = open("/proc/self/stat", O_RDONLY);
	CHECK(fd >= 0);
	t = apiprof_stat_starttime(fd);
	close(fd);
	CHECK(t != 0 && t == whole_line_starttime());
	CHECK(apiprof_proc_starttime("/proc", getpid(), &st) == 0 && st == t);
	CHECK(apiprof_stat_starttime(-1) == 0);
}

int main(void)
{
	test_pieces();
	test_bad();
	test_self();
	if (failures)
		return 1;
	printf("ok\n");
	return 0;
}
