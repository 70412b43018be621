/* SPDX-License-Identifier: MIT */
/*
 * test_slots.c - the collectors' slots of the watching marker (issue 35.4,
 * common/abi/apiprof_watch.h): each collector holds its own from its first
 * refresh, the 17th of a uid finds none and says so once, takes the first
 * one freed at its next refresh, and a viewer's last refresh gives its
 * slot back.  A marker another user could write is not held at all.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "apiprof_watch.h"
#include "top_watch.h"
#include "tseg.h"

#define S 1000000000ull
#define N (APIPROF_WATCH_SLOTS + 1)

static int warnings;
static char last_warning[512];

static void count_warn(void *ctx, const char *msg)
{
	(void)ctx;
	warnings++;
	snprintf(last_warning, sizeof(last_warning), "%s", msg);
}

static void collector(struct top_watch *w, const char *dir)
{
	top_watch_init(w);
	w->dir = dir;
	w->collect = true;
	w->promise = true;
	w->warn = count_warn;
}

/* Whether a process ending now would see a promise (the runtime's
 * question, asked as preload/publish/apiprof_final.c asks it). */
static bool promised(const char *dir)
{
	int dfd = open(dir, O_RDONLY | O_DIRECTORY);
	int fd = apiprof_watch_open(dfd, (uint32_t)geteuid(), false);
	bool yes = fd >= 0 && apiprof_watch_held(fd, -1);

	if (fd >= 0)
		close(fd);
	close(dfd);
	return yes;
}

int main(void)
{
	char dir[] = "/tmp/apiprof-slots-XXXXXX", marker[64];
	struct top_watch w[N];
	uint32_t seen = 0;

	CHECK(mkdtemp(dir));
	snprintf(marker, sizeof(marker), "%s/" APIPROF_WATCH_PREFIX "%u", dir, (unsigned)geteuid());
	CHECK(!promised(dir));
	for (int i = 0; i < N; i++) {
		collector(&w[i], dir);
		top_watch_refresh(&w[i], 1 * S, 1 * S);
	}
	for (int i = 0; i < N - 1; i++) {
		CHECK(w[i].slot >= 0 && !(seen & (1u << w[i].slot)));
		seen |= 1u << w[i].slot;
	}
	CHECK(promised(dir));
	if (w[N - 1].slot != -1 || warnings != 1 || !strstr(last_warning, "every slot held")) {
		fprintf(stderr, "FAIL: the 17th collector: slot %d, %d warnings, last: %s\n",
		        w[N - 1].slot, warnings, last_warning);
		return 1;
	}
	top_watch_refresh(&w[N - 1], 2 * S, 2 * S); /* not said again */
	CHECK(w[N - 1].slot == -1 && warnings == 1);
	int freed = w[3].slot;
	w[3].last = true; /* its last refresh: it promises nothing */
	top_watch_refresh(&w[3], 2 * S, 2 * S);
	CHECK(w[3].slot == -1);
	top_watch_refresh(&w[N - 1], 3 * S, 3 * S);
	if (w[N - 1].slot != freed) {
		fprintf(stderr, "FAIL: slot %d freed, the 17th collector then holds %d\n", freed,
		        w[N - 1].slot);
		return 1;
	}
	for (int i = 0; i < N; i++)
		top_watch_free(&w[i]);
	CHECK(!promised(dir));
	/* A marker another user may write is neither held nor trusted. */
	CHECK(chmod(marker, 0666) == 0);
	collector(&w[0], dir);
	top_watch_refresh(&w[0], 1 * S, 1 * S);
	CHECK(w[0].slot == -1 && strstr(last_warning, "not a regular file of ours"));
	top_watch_free(&w[0]);
	CHECK(unlink(marker) == 0 && rmdir(dir) == 0);
	printf("ok: 16 collectors hold 16 slots; the 17th says so once and takes the slot freed "
	       "by a last refresh; a marker others may write is not held\n");
	return 0;
}
