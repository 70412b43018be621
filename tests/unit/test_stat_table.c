/* SPDX-License-Identifier: MIT */
/*
 * test_stat_table - the figures the runtime's summary and apiprof-top share
 * (ring/apiprof_stat.h): the estimated time of a sampled function, in exact
 * integers, and the per-thread text table, byte for byte as APIPROF_SUMMARY
 * prints it.
 */
#include <stdio.h>
#include <string.h>

#include "apiprof_stat.h"
#include "check.h"


/* CHECK that buf holds want, saying what it holds when not. */
static void check_text(int line, int n, const char *buf, const char *want)
{
	if (strcmp(buf, want) != 0 || n != (int)strlen(want)) {
		fprintf(stderr, "%s:%d: got (%d) '%s'\n  want '%s'\n", __FILE__, line, n, buf,
		        want);
		failures++;
	}
}

static void test_estimate(void)
{
	/* 4 of 10 calls timed, 1000 ticks: 250 a call, 2500 for the 10. */
	CHECK(apiprof_stat_total_ticks(true, 1000, 10, 4) == 2500);
	CHECK(apiprof_stat_total_ticks(false, 1000, 10, 4) == 1000);
	/* No timed call: nothing to scale by. */
	CHECK(apiprof_stat_total_ticks(true, 1000, 10, 0) == 1000);
	CHECK(apiprof_stat_total_ticks(true, 0, 10, 0) == 0);
	/* Every call timed: measured. */
	CHECK(apiprof_stat_total_ticks(true, 1000, 10, 10) == 1000);
	/* Exact in integers where a double is not: (2^53 + 1) x 3 / 2. */
	CHECK(apiprof_stat_total_ticks(true, (1ull << 53) + 1, 3, 2) ==
	      ((1ull << 53) + 1) / 2 * 3 + 1);
	/* Beyond 64 bits: saturated, not wrapped. */
	CHECK(apiprof_stat_total_ticks(true, UINT64_MAX / 2, 10, 1) == UINT64_MAX);

	CHECK(apiprof_stat_estimated(true, 10, 4));
	CHECK(apiprof_stat_estimated(true, 10, 0));
	CHECK(!apiprof_stat_estimated(true, 10, 10));
	CHECK(!apiprof_stat_estimated(false, 10, 4));
}

static void test_table(void)
{
	struct apiprof_stat_row r = {"zlib", "deflate", 400, 18.5e6, false, 46.4, 41, 120.5};
	char buf[256];
	int n;

	n = apiprof_stat_thread_line(buf, sizeof(buf), 4243, "python3-but-longer-than-comm");
	check_text(__LINE__, n, buf, "TID 4243 (python3-but-long)\n");
	n = apiprof_stat_api_line(buf, sizeof(buf), "zlib", 61.2e6, 402.7e6, 3200);
	check_text(__LINE__, n, buf, "  time spent in \"zlib\": 61.2/402.7 ms 15.2% 3200x\n");
	n = apiprof_stat_api_line(buf, sizeof(buf), "zlib", 0.0123e6, 0.08e6, 7);
	check_text(__LINE__, n, buf, "  time spent in \"zlib\": 0.012/0.080 ms 15.4% 7x\n");
	n = apiprof_stat_api_line(buf, sizeof(buf), "zlib", 0, 0, 7);
	check_text(__LINE__, n, buf, "  time spent in \"zlib\": 0.000/0.000 ms 0.0% 7x\n");
	n = apiprof_stat_header(buf, sizeof(buf));
	check_text(__LINE__, n, buf,
	           "         calls      total ms     avg ns     min ns     max ns  function\n");
	n = apiprof_stat_row_line(buf, sizeof(buf), &r);
	check_text(__LINE__, n, buf,
	           "           400       18.500          46         41        120  zlib.deflate\n");
	r.estimated = true;
	n = apiprof_stat_row_line(buf, sizeof(buf), &r);
	check_text(__LINE__, n, buf,
	           "           400       18.500~         46         41        120  zlib.deflate\n");
	/* A short buffer: truncated, NUL-terminated, the full length returned. */
	n = apiprof_stat_header(buf, 8);
	CHECK(n == 72 && !strcmp(buf, "       "));
}

int main(void)
{
	test_estimate();
	test_table();
	if (failures)
		return 1;
	printf("ok: estimate in exact integers; per-thread table lines byte for byte\n");
	return 0;
}
