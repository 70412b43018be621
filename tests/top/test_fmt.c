/* SPDX-License-Identifier: MIT */
/* test_fmt.c - human units, exactly. */
#include <stdio.h>
#include <string.h>

#include "top_fmt.h"
#include "tseg.h"

#define EQ(expr, want)                                                                             \
	do {                                                                                       \
		char b_[TOP_FMT_LEN];                                                              \
		const char *got_ = (expr);                                                         \
		(void)b_;                                                                          \
		if (strcmp(got_, want)) {                                                          \
			fprintf(stderr, "%s: got '%s' want '%s'\n", #expr, got_, want);            \
			CHECK(0);                                                                  \
		}                                                                                  \
	} while (0)

int main(void)
{
	char b[TOP_FMT_LEN];

	EQ(top_fmt_ns(b, sizeof(b), -1), "-");
	EQ(top_fmt_ns(b, sizeof(b), 0), "0ns");
	EQ(top_fmt_ns(b, sizeof(b), 999), "999ns");
	EQ(top_fmt_ns(b, sizeof(b), 1000), "1.00us"); /* ASCII unless told UTF-8 */
	top_fmt_set_utf8(1);
	EQ(top_fmt_ns(b, sizeof(b), 1000), "1.00\xc2\xb5s");
	EQ(top_fmt_ns(b, sizeof(b), 12345), "12.3\xc2\xb5s");
	EQ(top_fmt_ns(b, sizeof(b), 123456), "123\xc2\xb5s");
	EQ(top_fmt_ns(b, sizeof(b), 999999), "1.00ms");
	EQ(top_fmt_ns(b, sizeof(b), 7e6), "7.00ms");
	EQ(top_fmt_ns(b, sizeof(b), 1001e6), "1.00s");
	EQ(top_fmt_ns(b, sizeof(b), 3600e9), "3600s");

	EQ(top_fmt_count(b, sizeof(b), 0), "0");
	EQ(top_fmt_count(b, sizeof(b), 99999), "99999");
	EQ(top_fmt_count(b, sizeof(b), 100000), "100k");
	EQ(top_fmt_count(b, sizeof(b), 6481000), "6.48M");
	EQ(top_fmt_count(b, sizeof(b), 12300000000ull), "12.3G");
	EQ(top_fmt_count(b, sizeof(b), UINT64_MAX), "18.4E");

	EQ(top_fmt_rate(b, sizeof(b), 0), "0");
	EQ(top_fmt_rate(b, sizeof(b), 0.5), "0.5");
	EQ(top_fmt_rate(b, sizeof(b), 6481.4), "6481");
	EQ(top_fmt_rate(b, sizeof(b), 250000), "250k");

	EQ(top_fmt_pct(b, sizeof(b), 0.7), "0.7%");
	EQ(top_fmt_pct(b, sizeof(b), -1), "-");

	EQ(top_fmt_uptime(b, sizeof(b), 5e9), "5s");
	EQ(top_fmt_uptime(b, sizeof(b), 62e9), "1m02s");
	EQ(top_fmt_uptime(b, sizeof(b), 3720e9), "1h02m");
	EQ(top_fmt_uptime(b, sizeof(b), 90000e9), "1d01h");

	CHECK(top_fmt_width("1.00\xc2\xb5s") == 6);
	EQ(top_fmt_pad(b, sizeof(b), "\xc2\xb5s", 4, 1), "  \xc2\xb5s");
	EQ(top_fmt_pad(b, sizeof(b), "ab", 4, 0), "ab  ");
	EQ(top_fmt_pad(b, sizeof(b), "abcdef", 3, 1), "abcdef");
	EQ(top_fmt_pad(b, 4, "abcdef", 3, 1), "abc");
	return 0;
}
