/* SPDX-License-Identifier: MIT */
/*
 * test_validate.c - the reader's header validation, field by field: every
 * field the reader relies on, set to values the runtime never writes, is
 * refused with a line that names that field (issue 20, point 22).  A
 * field whose check went missing, or that another field's check happens to
 * cover, makes its row fail.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "top_shm.h"
#include "tseg.h"

#define HDR      struct apiprof_shm_header
#define FIELD(f) #f, offsetof(HDR, f), sizeof(((HDR *)0)->f)

/* Values relative to the valid segment's own geometry. */
enum rel { ABS, PLUS_SIZE, PLUS_RING_OFF, PLUS_FUNC_CAP, PLUS_ORDER };

struct row {
	const char *field;
	size_t off, width;
	enum rel rel;
	int64_t v;
	const char *want; /* in the message; NULL: TOP_SEG_NOTREADY */
};

static const struct row rows[] = {
        {FIELD(magic), ABS, 0, NULL},
        {FIELD(magic), ABS, 0x1234, "bad magic"},
        {FIELD(version), ABS, 0, "unsupported version 0"},
        {FIELD(version), ABS, APIPROF_SHM_VERSION + 1, "unsupported version"},
        {FIELD(header_size), ABS, 8, "bad header_size 8"},
        {FIELD(header_size), PLUS_SIZE, 1, "bad header_size"},
        {FIELD(segment_size), PLUS_SIZE, -1, "bad segment_size"},
        {FIELD(segment_size), PLUS_SIZE, 4096, "bad segment_size"},
        {FIELD(state), ABS, 0, "bad state 0"},
        {FIELD(state), ABS, 3, "bad state 3"},
        {FIELD(mode), ABS, 2, "bad mode 2"},
        {FIELD(clock), ABS, 0, "bad clock 0"},
        {FIELD(clock), ABS, 3, "bad clock 3"},
        {FIELD(tick_hz), ABS, 0, NULL},
        {FIELD(tick_hz), ABS, -1, "bad tick_hz"},
        {FIELD(func_off), ABS, 0, "bad func_off 0"},
        {FIELD(func_off), ABS, APIPROF_SHM_HEADER_SIZE + 2, "bad func_off"},
        {FIELD(func_size), ABS, 0, "bad func_size 0"},
        {FIELD(func_size), ABS, sizeof(struct apiprof_shm_func) + 8, "bad func_size"},
        {FIELD(func_cap), ABS, (1 << 20) + 1, "bad func_cap 1048577"},
        {FIELD(func_cap), ABS, 0xffffffff, "bad func_cap"},
        {FIELD(func_cap), ABS, 1 << 16, "bad func_cap 65536: the function table ends"},
        {FIELD(func_count), PLUS_FUNC_CAP, 1, "bad func_count"},
        {FIELD(ring_off), ABS, 0, "bad ring_off 0"},
        {FIELD(ring_off), PLUS_RING_OFF, 4, "bad ring_off"},
        {FIELD(ring_off), ABS, APIPROF_SHM_HEADER_SIZE, "overlaps the function table"},
        {FIELD(rec_size), ABS, 0, "bad rec_size 0"},
        {FIELD(rec_size), ABS, sizeof(struct apiprof_shm_rec) + 8, "bad rec_size"},
        {FIELD(ring_order), ABS, 23, "bad ring_order 23: more than"},
        {FIELD(ring_order), ABS, 25, "bad ring_order 25: more than"},
        {FIELD(ring_order), ABS, 64, "bad ring_order 64: more than"},
        {FIELD(ring_order), ABS, 4096, "bad ring_order 4096: more than"},
        {FIELD(ring_order), ABS, 0xffffffff, "bad ring_order 4294967295: more than"},
        {FIELD(ring_order), PLUS_ORDER, 1, "the ring ends beyond the segment"},
};

static uint64_t value(const struct row *r, const struct apiprof_shm_header *h, size_t size)
{
	switch (r->rel) {
	case PLUS_SIZE:
		return size + (uint64_t)r->v;
	case PLUS_RING_OFF:
		return h->ring_off + (uint64_t)r->v;
	case PLUS_FUNC_CAP:
		return h->func_cap + (uint64_t)r->v;
	case PLUS_ORDER:
		return h->ring_order + (uint64_t)r->v;
	default:
		return (uint64_t)r->v;
	}
}

static int check_row(const struct row *r, const struct apiprof_shm_header *good, size_t size)
{
	struct apiprof_shm_header h = *good;
	uint64_t v = value(r, good, size);
	char err[TOP_ERR_LEN] = "";
	int rc;

	memcpy((unsigned char *)&h + r->off, &v, r->width); /* little-endian */
	rc = top_shm_validate(&h, size, err, sizeof(err));
	if (r->want ? rc == TOP_SEG_INVALID && strstr(err, r->want) : rc == TOP_SEG_NOTREADY)
		return 0;
	fprintf(stderr, "FAIL: %s = %llu: got %d \"%s\", want %s \"%s\"\n", r->field,
	        (unsigned long long)v, rc, err, r->want ? "invalid" : "not ready",
	        r->want ? r->want : "");
	return 1;
}

int main(void)
{
	struct tseg t;
	char err[TOP_ERR_LEN] = "";
	int bad = 0;

	tseg_create(&t, 8, 4);
	CHECK(top_shm_validate(t.h, t.size, err, sizeof(err)) == 0);
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		bad += check_row(&rows[i], t.h, t.size);
	tseg_destroy(&t);
	printf("%zu header fields checked, %d not refused as they should be\n",
	       sizeof(rows) / sizeof(rows[0]), bad);
	return bad != 0;
}
