/* SPDX-License-Identifier: MIT */
/*
 * test_cols.c - the column table is complete, and each column sorts, titles
 * and prints by its own value: four hand-made rows, every column ordering
 * them differently, so that a missing or crossed table entry fails.
 */
#include <stdio.h>
#include <string.h>

#include "top_cols.h"
#include "tseg.h"

#define NROWS 4

/* Rows A B C D: each column's values, in that order.  No column shows
 * `calls` (cumulative), so it holds the row's name. */
static void rows_init(struct top_row *r)
{
	static const uint32_t tid[] = {30, 10, 20, 40};
	static const char *const thread[] = {"b", "d", "a", "c"};
	static const char *const api[] = {"x", "z", "y", "w"};
	static const char *const func[] = {"w", "u", "v", "t"};
	static const uint64_t calls_iv[] = {5, 50, 1, 20}, calls_base[] = {10, 20, 30, 40};
	static const double rate[] = {9, 1, 3, 0.2}, iv[] = {100, 10, -1, 50};
	static const double pct[] = {2, 0.5, 7, 4}, avg[] = {10, 25, 30, -1};
	static const double p50[] = {-1, 20, 40, 30}, p99[] = {900, 800, 700, 1000};
	static const double max[] = {9000, 8000, 6000, 7000};
	static const double inside[] = {-1, 3e9, 5e6, 7e8};
	static const double self[] = {300, 100, 400, 200};
	static const double brate[] = {100, 400, 300, 200}, bp50[] = {4096, 16, 512, 65536};
	static const double frate[] = {0.5, 3, 0, 9};
	static const int err[] = {8 /* EACCES */, 2 /* ENOENT */, 12 /* EINVAL */, 6 /* EAGAIN */};

	for (int i = 0; i < NROWS; i++)
		r[i] = (struct top_row){
		        .tid = tid[i],
		        .thread = thread[i],
		        .api = api[i],
		        .func = func[i],
		        .calls = (uint64_t)('A' + i),
		        .calls_iv = calls_iv[i],
		        .calls_base = calls_base[i],
		        .rate = rate[i],
		        .iv_ns = iv[i],
		        .pct = pct[i],
		        .avg_ns = avg[i],
		        .p50_ns = p50[i],
		        .p99_ns = p99[i],
		        .max_ns = max[i],
		        .inflight_ns = inside[i],
		        .inflight_bound = i == 1,
		        .self_ns = self[i],
		        .fflags = APIPROF_FUNC_ACCT,
		        .bytes_rate = brate[i],
		        .bytes_p50 = bp50[i],
		        .fail_rate = frate[i],
		        .top_errno = err[i],
		};
}

/* Each column's natural order of A B C D: all different. */
static const char *const want[TOP_COL_COUNT] = {
        [TOP_COL_TID] = "BCAD",        [TOP_COL_THREAD] = "CADB",    [TOP_COL_API] = "DACB",
        [TOP_COL_FUNC] = "DBCA",       [TOP_COL_CALLS_IV] = "BDAC",  [TOP_COL_RATE] = "ACBD",
        [TOP_COL_TIME_IV] = "ADBC",    [TOP_COL_PCT] = "CDAB",       [TOP_COL_AVG] = "CBAD",
        [TOP_COL_P50] = "CDBA",        [TOP_COL_P99] = "DABC",       [TOP_COL_MAX] = "ABDC",
        [TOP_COL_CALLS] = "DCBA",      [TOP_COL_INSIDE] = "BDCA",    [TOP_COL_SELF] = "CADB",
        [TOP_COL_BYTES_RATE] = "BCDA", [TOP_COL_BYTES_P50] = "DACB", [TOP_COL_FAIL_RATE] = "DBAC",
        [TOP_COL_ERRNO] = "ADCB",
};

static void test_complete(void)
{
	for (int c = 0; c < TOP_COL_COUNT; c++) {
		const struct top_column *k = &top_columns[c];

		printf("column %d: %s\n", c, k->title ? k->title : "(missing)");
		CHECK(k->title && *k->title && k->help && *k->help && k->cell);
		CHECK((k->num == NULL) != (k->text == NULL));
		CHECK(k->width >= (int)strlen(k->title));
		CHECK(want[c] != NULL);
	}
}

static void sorted_names(struct top_row *rows, enum top_col c, bool rev, char *out)
{
	rows_init(rows);
	top_rows_sort(rows, NROWS, c, rev);
	for (int i = 0; i < NROWS; i++)
		out[i] = (char)rows[i].calls;
	out[NROWS] = '\0';
}

static void test_sort_each(void)
{
	struct top_row rows[NROWS];
	char got[NROWS + 1], back[NROWS + 1];

	for (int c = 0; c < TOP_COL_COUNT; c++) {
		sorted_names(rows, (enum top_col)c, false, got);
		printf("sort %-8s %s (want %s)\n", top_columns[c].title, got, want[c]);
		CHECK(!strcmp(got, want[c]));
		sorted_names(rows, (enum top_col)c, true, back);
		for (int i = 0; i < NROWS; i++)
			CHECK(back[i] == got[NROWS - 1 - i]);
	}
}

/* The -s names and the s/< keys' cycle: the sort keys, in table order. */
static void test_keys(void)
{
	static const char *const keys[] = {"tid",  "thread", "api",  "func", "calls", "time",
	                                   "avg",  "p50",    "p99",  "max",  "total", "inside",
	                                   "self", "bytes",  "size", "fails"};
	enum top_col c = TOP_COL_TID, got;

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		CHECK(top_col_parse(keys[i], &got) == 0);
		CHECK(got == c && !strcmp(top_columns[c].key, keys[i]));
		CHECK(top_col_step(top_col_step(c, 1), -1) == c);
		c = top_col_step(c, 1);
	}
	CHECK(c == TOP_COL_TID);
	CHECK(top_col_step(TOP_COL_TID, -1) == TOP_COL_FAIL_RATE);
	CHECK(top_col_parse("rate", &got) == -1 && top_col_parse("", &got) == -1);
}

/* The header marks the sort column with its direction; a line is every
 * cell padded to its column, as the batch output and the screen show. */
static void test_text(void)
{
	struct top_row rows[NROWS];
	char buf[512];

	top_cols_header(buf, sizeof(buf), TOP_COL_TIME_IV, false, false);
	CHECK(!strcmp(buf, "    TID THREAD           API        FUNCTION               CALLS/IV "
	                   " CALLS/S TIME/IVv      %      AVG      P50      P99      MAX    CALLS"
	                   "    INSIDE     SELF"));
	top_cols_header(buf, sizeof(buf), TOP_COL_TID, true, false);
	CHECK(!strncmp(buf, "   TIDv ", 8));
	top_cols_header(buf, sizeof(buf), TOP_COL_FUNC, false, false);
	CHECK(strstr(buf, " FUNCTION^ ") != NULL);
	rows_init(rows);
	rows[0].estimated = true;
	top_cols_line(&rows[0], buf, sizeof(buf), false);
	printf("line: [%s]\n", buf);
	CHECK(!strcmp(
	        buf,
	        "     30 b                x          w                             5      9.0 "
	        "  ~100ns   2.0%    ~10ns        -   ~900ns   9.00us       10         -   ~300ns"));
	top_cols_line(&rows[1], buf, sizeof(buf), false);
	CHECK(strlen(buf) > 19 && !strcmp(buf + strlen(buf) - 19, "   >=3.00s    100ns"));
	top_cols_line(&rows[3], buf, sizeof(buf), false);
	CHECK(strlen(buf) > 19 && !strcmp(buf + strlen(buf) - 19, "     700ms    200ns"));
	rows[3].self_ns = -1; /* no call sites known */
	top_cols_line(&rows[3], buf, sizeof(buf), false);
	CHECK(strlen(buf) > 9 && !strcmp(buf + strlen(buf) - 9, "        -"));
	/* Bytes and failures only when the view has a function declaring them. */
	CHECK(!top_cols_acct(rows, 0));
	CHECK(top_cols_acct(rows, NROWS));
	top_cols_header(buf, sizeof(buf), TOP_COL_BYTES_RATE, false, true);
	printf("header: [%s]\n", buf);
	CHECK(strstr(buf, "    INSIDE     SELF BYTES/Sv   B/CALL   FAIL/S ERRNO") != NULL);
	top_cols_line(&rows[1], buf, sizeof(buf), true);
	printf("line: [%s]\n", buf);
	CHECK(strstr(buf, "     400B      16B      3.0 ENOENT") != NULL);
	rows[1].fflags = 0;
	top_cols_line(&rows[1], buf, sizeof(buf), true);
	CHECK(strstr(buf, "        -        - -") != NULL);
}

int main(void)
{
	test_complete();
	test_sort_each();
	test_keys();
	test_text();
	return 0;
}
