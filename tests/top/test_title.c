/* SPDX-License-Identifier: MIT */
/* top_title_read: rewritten, padded, unprintable, cut and missing titles,
 * from a fake /proc made in scratch space. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "top_title.h"

static int failures;

static void put(const char *root, int pid, const char *data, size_t n)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%d", root, pid);
	if (mkdir(path, 0700) != 0) {
		perror(path);
		exit(1);
	}
	snprintf(path, sizeof(path), "%s/%d/cmdline", root, pid);
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	if (fd < 0 || write(fd, data, n) != (ssize_t)n || close(fd) != 0) {
		perror(path);
		exit(1);
	}
}

static void expect(const char *root, int pid, size_t len, int rc, const char *want)
{
	char buf[TOP_TITLE_LEN];
	int got = top_title_read(root, pid, buf, len);

	if (got != rc || strcmp(buf, want) != 0) {
		printf("FAIL pid %d: rc %d title \"%s\", want %d \"%s\"\n", pid, got, buf, rc,
		       want);
		failures++;
	}
}

int main(void)
{
	char root[] = "/tmp/apiprof-title-XXXXXX";

	if (!mkdtemp(root)) {
		perror("mkdtemp");
		return 1;
	}
	put(root, 1, "nginx: worker process\0\0\0\0", 25);
	put(root, 2, "/usr/bin/python3\0-c\0pass\0", 25);
	put(root, 3, "postgres: checkpointer   \0\0", 27);
	put(root, 4, "", 0);
	put(root, 5, "a\tb\x01\xff", 5);
	put(root, 6, "abcdefghij", 10);
	expect(root, 1, TOP_TITLE_LEN, 21, "nginx: worker process");
	expect(root, 2, TOP_TITLE_LEN, 24, "/usr/bin/python3 -c pass");
	expect(root, 3, TOP_TITLE_LEN, 22, "postgres: checkpointer");
	expect(root, 4, TOP_TITLE_LEN, 0, "");
	expect(root, 5, TOP_TITLE_LEN, 5, "a?b??");
	expect(root, 6, 5, 4, "abcd");
	expect(root, 7, TOP_TITLE_LEN, -1, "");
	if (errno != ENOENT) {
		printf("FAIL: a missing process gives errno %d, want ENOENT\n", errno);
		failures++;
	}
	expect(root, 0, TOP_TITLE_LEN, -1, "");
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd) != 0)
		failures++;
	printf("%s\n",
	       failures ? "FAIL" : "ok: titles joined, trimmed, cleaned, cut; missing is -1");
	return failures ? 1 : 0;
}
