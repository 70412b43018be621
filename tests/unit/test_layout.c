/* SPDX-License-Identifier: MIT */
/*
 * test_layout - the segment layout's two halves against each other
 * (common/abi/apiprof_layout.h): every header the writer formats, up to
 * the largest tables the runtime makes, passes the reader's check, and
 * one table beyond the limits is refused with one line naming the field.
 */
#include <stdio.h>
#include <string.h>

#include "apiprof_layout.h"
#include "check.h"

/* A header as the runtime leaves it once published: the layout from the
 * writer's half, the process fields, the magic, a clock rate. */
static void formatted(struct apiprof_shm_header *h, uint32_t func_cap, uint32_t order)
{
	struct apiprof_ring_geom g = {func_cap, order};

	memset(h, 0, sizeof(*h));
	apiprof_layout_format(h, apiprof_ring_size(&g), &g);
	h->state = APIPROF_PROC_RUNNING;
	h->mode = APIPROF_PROC_MODE_SHIM;
	h->clock = APIPROF_CLOCK_TSC;
	h->tick_hz = 3000000000ull;
	h->magic = APIPROF_SHM_MAGIC;
}

static int check(const struct apiprof_shm_header *h, char *err, size_t errlen)
{
	err[0] = '\0';
	return apiprof_layout_check(h, h->segment_size, err, errlen);
}

/* The writer's every geometry, from the smallest the runtime makes
 * (APIPROF_RING_RECORDS 2, APIPROF_MAX_FUNCS 1) to the largest. */
static void test_writer_passes_reader(void)
{
	static const uint32_t caps[] = {1, 2048, APIPROF_PARENT_MAX, APIPROF_FUNC_CAP_MAX};
	struct apiprof_shm_header h;
	char err[160];

	for (size_t i = 0; i < sizeof(caps) / sizeof(caps[0]); i++)
		for (uint32_t order = 1; order <= APIPROF_RING_ORDER_MAX; order++) {
			formatted(&h, caps[i], order);
			int rc = check(&h, err, sizeof(err));
			if (rc != APIPROF_LAYOUT_OK)
				fprintf(stderr, "func_cap %u ring_order %u: %d %s\n", caps[i],
				        order, rc, err);
			CHECK(rc == APIPROF_LAYOUT_OK);
		}
}

/* One beyond each limit, in a header otherwise the writer's: refused,
 * the field named. */
static void test_beyond_limits(void)
{
	struct apiprof_shm_header h;
	char err[160];

	formatted(&h, 1, APIPROF_RING_ORDER_MAX);
	h.ring_order = APIPROF_RING_ORDER_MAX + 1;
	CHECK(check(&h, err, sizeof(err)) == APIPROF_LAYOUT_INVALID);
	CHECK(strstr(err, "bad ring_order 23") != NULL);

	formatted(&h, APIPROF_FUNC_CAP_MAX, 1);
	h.func_cap = APIPROF_FUNC_CAP_MAX + 1;
	CHECK(check(&h, err, sizeof(err)) == APIPROF_LAYOUT_INVALID);
	CHECK(strstr(err, "bad func_cap 1048577") != NULL);

	formatted(&h, 1, 1);
	h.tick_hz = APIPROF_TICK_HZ_MAX + 1;
	CHECK(check(&h, err, sizeof(err)) == APIPROF_LAYOUT_INVALID);
	CHECK(strstr(err, "bad tick_hz") != NULL);
}

/* Not ready, not bad: no magic yet, or no clock rate yet. */
static void test_not_ready(void)
{
	struct apiprof_shm_header h;
	char err[160];

	formatted(&h, 1, 1);
	h.magic = 0;
	CHECK(check(&h, err, sizeof(err)) == APIPROF_LAYOUT_NOTREADY);
	formatted(&h, 1, 1);
	h.tick_hz = 0;
	CHECK(check(&h, err, sizeof(err)) == APIPROF_LAYOUT_NOTREADY);
}

int main(void)
{
	test_writer_passes_reader();
	test_beyond_limits();
	test_not_ready();
	return failures != 0;
}
