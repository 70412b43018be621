/* SPDX-License-Identifier: MIT */
/*
 * test_stat_table - the figures the runtime's summary and apiprof-top share
 * (common/stat/apiprof_stat.h): the estimated time of a sampled function, in exact
 * integers, the quantiles of a histogram inside the observed extremes, and
 * the per-thread text table, byte for byte as APIPROF_SUMMARY prints it.
 */
#include <errno.h>
#include <math.h>
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

#define NEAR(a, b) (fabs((double)(a) - (double)(b)) < 1e-6 * (fabs((double)(b)) + 1))
#define NONE       UINT64_MAX, 0 /* extremes unknown */

static void test_quantile_empty_and_one(void)
{
	uint64_t h[APIPROF_HIST_BUCKETS] = {0};

	CHECK(apiprof_stat_quantile(h, 0.5, NONE) == -1);
	CHECK(apiprof_stat_quantile(h, 0.5, 10, 20) == -1);
	/* One call of 1500 ticks, in [1024, 2048): its own value, any q. */
	h[10] = 1;
	CHECK(NEAR(apiprof_stat_quantile(h, 0.0, 1500, 1500), 1500));
	CHECK(NEAR(apiprof_stat_quantile(h, 0.5, 1500, 1500), 1500));
	CHECK(NEAR(apiprof_stat_quantile(h, 0.99, 1500, 1500), 1500));
	CHECK(NEAR(apiprof_stat_quantile(h, 1.0, 1500, 1500), 1500));
	/* Extremes unknown: the middle of the bucket's integers, 1024..2047. */
	CHECK(NEAR(apiprof_stat_quantile(h, 0.5, NONE), 1535.5));
}

static void test_quantile_two(void)
{
	uint64_t h[APIPROF_HIST_BUCKETS] = {0};

	/* 1100 and 1900, one bucket: spread over [1100, 1900], not [1024, 2048). */
	h[10] = 2;
	CHECK(NEAR(apiprof_stat_quantile(h, 0.0, 1100, 1900), 1100));
	CHECK(NEAR(apiprof_stat_quantile(h, 0.5, 1100, 1900), 1500));
	CHECK(NEAR(apiprof_stat_quantile(h, 1.0, 1100, 1900), 1900));
	/* 1100 and 3000, two buckets: p50 in the first, p99 in the second cut
	 * at the max. */
	h[10] = 1;
	h[11] = 1;
	CHECK(NEAR(apiprof_stat_quantile(h, 0.5, 1100, 3000), 2047));
	CHECK(NEAR(apiprof_stat_quantile(h, 0.99, 1100, 3000), 2048 + 952 * 0.98));
	/* Extremes that miss the bucket (counters read at different moments):
	 * still inside them. */
	CHECK(NEAR(apiprof_stat_quantile(h, 0.5, 5000, 6000), 5000));
	/* Buckets 0 ([0, 1]) and 4 ([16, 31]), unknown extremes: the plain
	 * interpolation. */
	memset(h, 0, sizeof(h));
	h[0] = 50;
	h[4] = 50;
	CHECK(NEAR(apiprof_stat_quantile(h, 0.5, NONE), 1));
	CHECK(NEAR(apiprof_stat_quantile(h, 0.25, NONE), 0.5));
	CHECK(NEAR(apiprof_stat_quantile(h, 0.99, NONE), 16 + 15 * 0.98));
	h[47] = 1;
	CHECK(apiprof_stat_quantile(h, 1.0, NONE) <= (double)(1ull << 48));
}

/* q of sizes: hist (nb buckets) summing to bytes, as the runtime and
 * apiprof-top take it. */
static double size_q(const uint64_t *hist, int nb, uint64_t bytes, double q)
{
	uint64_t lo, hi;

	apiprof_stat_size_bounds(hist, nb, bytes, &lo, &hi);
	return apiprof_stat_quantile_n(hist, nb, q, lo, hi);
}

static void test_size_quantile(void)
{
	uint64_t h[APIPROF_SIZE_BUCKETS] = {0};

	CHECK(size_q(h, APIPROF_SIZE_BUCKETS, 0, 0.5) == -1);
	/* 24 reads of 4096 bytes: one bucket, the mean in it: exact. */
	h[12] = 24;
	CHECK(NEAR(size_q(h, APIPROF_SIZE_BUCKETS, 24 * 4096, 0.5), 4096));
	CHECK(NEAR(size_q(h, APIPROF_SIZE_BUCKETS, 24 * 4096, 0.99), 4096));
	/* 10 of 100 bytes: exactly 100, not the bucket's floor 64. */
	memset(h, 0, sizeof(h));
	h[6] = 10;
	CHECK(NEAR(size_q(h, APIPROF_SIZE_BUCKETS, 1000, 0.5), 100));
	/* Bucket 0 holds 0 and 1: three calls of 1 byte. */
	memset(h, 0, sizeof(h));
	h[0] = 3;
	CHECK(NEAR(size_q(h, APIPROF_SIZE_BUCKETS, 3, 0.99), 1));
	/* acct_read's sizes (tests/e2e/acct.sh): one of 0, one of 1696, 24 of
	 * 4096, 100000 bytes: rank 13 of 26 is 11/24 into [4096, 8191]. */
	memset(h, 0, sizeof(h));
	h[0] = 1;
	h[10] = 1;
	h[12] = 24;
	CHECK(NEAR(size_q(h, APIPROF_SIZE_BUCKETS, 100000, 0.5), 4096 + 4095 * 11.0 / 24));
	CHECK(NEAR(size_q(h, APIPROF_SIZE_BUCKETS, 100000, 0.99), 4096 + 4095 * 23.74 / 24));
	/* Never above the bytes in all: one call of 5 bytes, one of 9. */
	memset(h, 0, sizeof(h));
	h[2] = 1;
	h[3] = 1;
	CHECK(NEAR(size_q(h, APIPROF_SIZE_BUCKETS, 14, 1.0), 14));
	CHECK(NEAR(size_q(h, APIPROF_SIZE_BUCKETS, 14, 0.5), 7));
	/* The last of 64 buckets: its top is 2^64 - 1, no overflow. */
	uint64_t big[APIPROF_HIST_BUCKETS] = {0};
	big[63] = 2;
	CHECK(size_q(big, APIPROF_HIST_BUCKETS, UINT64_MAX, 0.5) >= 9.2e18);
}

static void test_bounds(void)
{
	uint64_t lo = 100, hi = 500000;

	/* One call of an interval: exactly its sum. */
	apiprof_stat_bounds(1, 403000, &lo, &hi);
	CHECK(lo == 403000 && hi == 403000);
	/* Three calls, 1000 in all, each in [100, 900]: none took more than
	 * 1000 - 2 x 100. */
	lo = 100, hi = 900;
	apiprof_stat_bounds(3, 1000, &lo, &hi);
	CHECK(lo == 100 && hi == 800);
	/* Two calls, 1000 in all, each in [100, 600]: none took less than
	 * 1000 - 600. */
	lo = 100, hi = 600;
	apiprof_stat_bounds(2, 1000, &lo, &hi);
	CHECK(lo == 400 && hi == 600);
	/* Figures that disagree (sum below n x min) leave them alone. */
	lo = 100, hi = 600;
	apiprof_stat_bounds(3, 250, &lo, &hi);
	CHECK(lo == 100 && hi == 600);
	apiprof_stat_bounds(0, 250, &lo, &hi);
	CHECK(lo == 100 && hi == 600);
	lo = UINT64_MAX, hi = 0;
	apiprof_stat_bounds(1, 77, &lo, &hi);
	CHECK(lo == 77 && hi == 77);
	/* No overflow near 2^64. */
	lo = UINT64_MAX / 2, hi = UINT64_MAX / 2;
	apiprof_stat_bounds(3, 1000, &lo, &hi);
	CHECK(lo == UINT64_MAX / 2 && hi == UINT64_MAX / 2);
}

/* The slot of errno value e (apiprof_abi.h). */
static int slot_of(int e)
{
	for (int k = 1; k < APIPROF_ERRNO_SLOTS; k++)
		if (apiprof_errno_values[k] == e)
			return k;
	return 0;
}

static void test_table(void)
{
	struct apiprof_stat_row r = {.api = "zlib",
	                             .func = "deflate",
	                             .calls = 400,
	                             .total_ns = 18.5e6,
	                             .self_ns = 18.1e6,
	                             .avg_ns = 46.4,
	                             .min_ns = 41,
	                             .max_ns = 120.5,
	                             .p50_ns = 45,
	                             .p99_ns = 110.2};
	char buf[256];
	int n;

	n = apiprof_stat_thread_line(buf, sizeof(buf), 4243, "python3-but-longer-than-comm");
	check_text(__LINE__, n, buf, "TID 4243 (python3-but-long)\n");
	n = apiprof_stat_api_line(buf, sizeof(buf), "zlib", 61.2e6, 402.7e6, 3200);
	check_text(__LINE__, n, buf, "  time spent in \"zlib\": 61.2ms/403ms 15.2% 3200x\n");
	n = apiprof_stat_api_line(buf, sizeof(buf), "zlib", 0.0123e6, 0.08e6, 7);
	check_text(__LINE__, n, buf, "  time spent in \"zlib\": 12.3us/80.0us 15.4% 7x\n");
	/* The figures of the issue: 0.029/58.581 ms and 0.1/116.9 ms before. */
	n = apiprof_stat_api_line(buf, sizeof(buf), "zlib", 0.029e6, 58.581e6, 1);
	check_text(__LINE__, n, buf, "  time spent in \"zlib\": 29.0us/58.6ms 0.0% 1x\n");
	n = apiprof_stat_api_line(buf, sizeof(buf), "zlib", 0.1e6, 116.9e6, 1);
	check_text(__LINE__, n, buf, "  time spent in \"zlib\": 100us/117ms 0.1% 1x\n");
	n = apiprof_stat_api_line(buf, sizeof(buf), "zlib", 1.5e9, 62e9, 1);
	check_text(__LINE__, n, buf, "  time spent in \"zlib\": 1.50s/62.0s 2.4% 1x\n");
	n = apiprof_stat_api_line(buf, sizeof(buf), "zlib", 0, 0, 7);
	check_text(__LINE__, n, buf, "  time spent in \"zlib\": 0ns/0ns 0.0% 7x\n");
	n = apiprof_stat_header(buf, sizeof(buf));
	check_text(__LINE__, n, buf,
	           "         calls      total       self        avg        min        p50        "
	           "p99        max"
	           "  function\n");
	n = apiprof_stat_row_line(buf, sizeof(buf), &r);
	check_text(__LINE__, n, buf,
	           "           400     18.5ms     18.1ms       46ns       41ns       45ns      "
	           "110ns      120ns"
	           "  zlib.deflate\n");
	r.estimated = true;
	n = apiprof_stat_row_line(buf, sizeof(buf), &r);
	check_text(__LINE__, n, buf,
	           "           400    ~18.5ms    ~18.1ms       46ns       41ns       45ns      "
	           "110ns      120ns"
	           "  zlib.deflate\n");
	/* Nothing declared, no call in progress: no note. */
	n = apiprof_stat_note_line(buf, sizeof(buf), &r);
	check_text(__LINE__, n, buf, "");
	/* No timed call (sampled, or never returned): "-", as apiprof-top. */
	r = (struct apiprof_stat_row){.api = "zlib",
	                              .func = "deflate",
	                              .calls = 3,
	                              .total_ns = -1,
	                              .self_ns = -1,
	                              .avg_ns = -1,
	                              .min_ns = -1,
	                              .max_ns = -1,
	                              .p50_ns = -1,
	                              .p99_ns = -1};
	n = apiprof_stat_row_line(buf, sizeof(buf), &r);
	check_text(__LINE__, n, buf,
	           "             3          -          -          -          -          -          "
	           "-          -"
	           "  zlib.deflate\n");
	/* A short buffer: truncated, NUL-terminated, the full length returned. */
	n = apiprof_stat_header(buf, 8);
	CHECK(n == 102 && !strcmp(buf, "       "));
}

static void test_note(void)
{
	uint64_t errnos[APIPROF_ERRNO_SLOTS] = {0};
	struct apiprof_stat_row r = {.api = "posix_io", .func = "read", .calls = 20};
	char buf[256];
	int n;

	errnos[slot_of(ENOENT)] = 17;
	errnos[slot_of(EACCES)] = 3;
	r.flags = APIPROF_FUNC_BYTES | APIPROF_FUNC_FAILS | APIPROF_FUNC_ERRNO;
	r.bytes = 1048576;
	r.bytes_p50 = 4096;
	r.failures = 20;
	r.errnos = errnos;
	n = apiprof_stat_note_line(buf, sizeof(buf), &r);
	check_text(__LINE__, n, buf,
	           "                   bytes 1048576 (p50 4096)  failures 20 (ENOENT 17, "
	           "EACCES 3)\n");
	/* No sized call; a call in progress (apiprof-top), known to have run
	 * at least 1.5 s. */
	r.flags = APIPROF_FUNC_BYTES;
	r.bytes = 0;
	r.bytes_p50 = -1;
	r.inflight_ns = 1.5e9;
	r.inflight_bound = true;
	n = apiprof_stat_note_line(buf, sizeof(buf), &r);
	check_text(__LINE__, n, buf, "                   bytes 0 (p50 -)  inside >=1.50s\n");
	/* No failure is no news: no "failures 0" (issue 41); a row that
	 * declares only failures and had none has no note at all. */
	memset(errnos, 0, sizeof(errnos));
	r = (struct apiprof_stat_row){.api = "posix_io", .func = "close", .calls = 5};
	r.flags = APIPROF_FUNC_FAILS | APIPROF_FUNC_ERRNO;
	r.errnos = errnos;
	n = apiprof_stat_note_line(buf, sizeof(buf), &r);
	check_text(__LINE__, n, buf, "");
	r.flags |= APIPROF_FUNC_BYTES;
	r.bytes = 10;
	r.bytes_p50 = 2;
	n = apiprof_stat_note_line(buf, sizeof(buf), &r);
	check_text(__LINE__, n, buf, "                   bytes 10 (p50 2)\n");
}

int main(void)
{
	test_estimate();
	test_quantile_empty_and_one();
	test_quantile_two();
	test_bounds();
	test_size_quantile();
	test_table();
	test_note();
	if (failures)
		return 1;
	printf("ok: estimate in exact integers; quantiles inside the extremes; per-thread table "
	       "lines byte for byte\n");
	return 0;
}
