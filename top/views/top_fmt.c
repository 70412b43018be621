/* SPDX-License-Identifier: MIT */
/*
 * top_fmt.c - human-readable units.
 *
 * Every figure is printed with about three significant digits so that the
 * columns stay narrow and the eye compares magnitudes by unit first.
 * Negative times mean "not available" and print as "-".
 */
#include <stdio.h>
#include <string.h>

#include "apiprof_stat.h" /* the one format of a time, shared with the summary */
#include "top_fmt.h"

/* "µs" needs a UTF-8 terminal; elsewhere the ASCII spelling "us". */
static const char *micro = "us";

void top_fmt_set_utf8(int utf8)
{
	micro = utf8 ? "\xc2\xb5s" : "us";
}

char *top_fmt_ns(char *buf, size_t cap, double ns)
{
	return apiprof_stat_fmt_ns(buf, cap, ns, micro);
}

/* Exact below 100000, then k/M/G/T with three significant digits. */
char *top_fmt_count(char *buf, size_t cap, uint64_t v)
{
	static const char *const units[] = {"k", "M", "G", "T", "P", "E"};
	double d = (double)v;
	int u = -1;

	if (v < 100000) {
		snprintf(buf, cap, "%llu", (unsigned long long)v);
		return buf;
	}
	while (d >= 999.5 && u < 5) {
		d /= 1000;
		u++;
	}
	return apiprof_stat_fmt3(buf, cap, d, units[u]);
}

/* Rates below 10/s keep a decimal so that slow callers do not read as 0. */
char *top_fmt_rate(char *buf, size_t cap, double per_s)
{
	if (per_s <= 0)
		snprintf(buf, cap, "0");
	else if (per_s < 9.95)
		snprintf(buf, cap, "%.1f", per_s);
	else
		top_fmt_count(buf, cap, (uint64_t)(per_s + 0.5));
	return buf;
}

char *top_fmt_pct(char *buf, size_t cap, double pct)
{
	if (pct < 0)
		snprintf(buf, cap, "-");
	else
		snprintf(buf, cap, "%.1f%%", pct);
	return buf;
}

/* Like ps(1) ETIME but coarser: the two most significant units. */
char *top_fmt_uptime(char *buf, size_t cap, uint64_t ns)
{
	uint64_t s = ns / 1000000000u;

	if (s < 60)
		snprintf(buf, cap, "%llus", (unsigned long long)s);
	else if (s < 3600)
		snprintf(buf, cap, "%llum%02llus", (unsigned long long)(s / 60),
		         (unsigned long long)(s % 60));
	else if (s < 86400)
		snprintf(buf, cap, "%lluh%02llum", (unsigned long long)(s / 3600),
		         (unsigned long long)(s / 60 % 60));
	else
		snprintf(buf, cap, "%llud%02lluh", (unsigned long long)(s / 86400),
		         (unsigned long long)(s / 3600 % 24));
	return buf;
}

/* Terminal columns of a UTF-8 string: continuation bytes take none ("µ"
 * is two bytes, one column), which printf's field widths get wrong. */
size_t top_fmt_width(const char *s)
{
	size_t w = 0;

	for (; *s; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			w++;
	return w;
}

/* Pads (never truncates) s to width columns, right- or left-aligned. */
char *top_fmt_pad(char *buf, size_t cap, const char *s, int width, int right)
{
	size_t w = top_fmt_width(s), len = strlen(s);
	size_t pad = (size_t)width > w ? (size_t)width - w : 0;

	if (pad + len + 1 > cap)
		pad = cap > len + 1 ? cap - len - 1 : 0;
	if (len + 1 > cap)
		len = cap ? cap - 1 : 0;
	if (!cap)
		return buf;
	if (right) {
		memset(buf, ' ', pad);
		memcpy(buf + pad, s, len);
	} else {
		memcpy(buf, s, len);
		memset(buf + len, ' ', pad);
	}
	buf[pad + len] = '\0';
	return buf;
}
