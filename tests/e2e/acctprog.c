// SPDX-License-Identifier: MIT
/*
 * acctprog FILE MISSING [wait] - known bytes and failures through acctlib:
 * FILE read in 4096-byte chunks to its end, MISSING opened 17 times
 * (ENOENT), acct_check failing 3 times with EACCES and succeeding 5 times,
 * calloc of known sizes, and status codes of which 2 are failures.  It
 * checks that errno comes back as the library left it and prints what it
 * read, so the run under the shim can be compared with the bare one.
 * With "wait" it then prints "ready" and lives until its stdin closes.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "acctlib.h"

static int errors;

static void expect_errno(int got, int want, const char *what)
{
	if (got != want) {
		printf("%s: errno %d, want %d\n", what, got, want);
		errors++;
	}
}

static long read_all(const char *path)
{
	static char buf[4096];
	long total = 0;
	ssize_t n;
	int fd = acct_open(path);

	if (fd < 0)
		return -1;
	while ((n = acct_read(fd, buf, sizeof buf)) > 0)
		total += n;
	errno = 0;
	if (acct_read(-1, buf, sizeof buf) != -1) /* one failure: EBADF */
		errors++;
	expect_errno(errno, EBADF, "acct_read(-1)");
	close(fd);
	return total;
}

static void failures(const char *missing)
{
	for (int i = 0; i < 17; i++) {
		errno = 0;
		if (acct_open(missing) != -1)
			errors++;
		expect_errno(errno, ENOENT, "acct_open");
	}
	for (int i = 0; i < 8; i++) {
		errno = 0;
		acct_check(i < 3 ? EACCES : 0);
		expect_errno(errno, i < 3 ? EACCES : 0, "acct_check");
	}
	static const int codes[] = {0, 100, 101, 5, 21, 0};
	for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++)
		if (acct_status(codes[i]) != codes[i])
			errors++;
}

/* 4 x 1000 + 10 x 16 x 2 + 1 x 65536 = 69856 bytes */
static void allocations(void)
{
	static const size_t sizes[][3] = {{1000, 1, 4}, {16, 2, 10}, {65536, 1, 1}};
	for (size_t k = 0; k < 3; k++)
		for (size_t i = 0; i < sizes[k][2]; i++)
			free(acct_alloc(sizes[k][0], sizes[k][1]));
}

int main(int argc, char **argv)
{
	if (argc != 3 && argc != 4)
		return 2;
	long total = read_all(argv[1]);
	failures(argv[2]);
	allocations();
	int x = 0;
	for (int i = 0; i < 10; i++)
		x = acct_plain(x);
	printf("read %ld plain %d errors %d\n", total, x, errors);
	if (argc == 4) { /* "wait": a viewer reads the numbers while it lives */
		printf("ready\n");
		fflush(stdout);
		while (getchar() != EOF)
			;
	}
	return errors != 0;
}
