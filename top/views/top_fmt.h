/* SPDX-License-Identifier: MIT */
/* top_fmt.h - human-readable units for the viewer's columns. */
#ifndef TOP_FMT_H
#define TOP_FMT_H

#include <stddef.h>
#include <stdint.h>

#define TOP_FMT_LEN 32

/* Whether the output can show "µs" (UTF-8); "us" by default. */
void top_fmt_set_utf8(int utf8);
char *top_fmt_ns(char *buf, size_t cap, double ns);
char *top_fmt_count(char *buf, size_t cap, uint64_t v);
char *top_fmt_rate(char *buf, size_t cap, double per_s);
char *top_fmt_pct(char *buf, size_t cap, double pct);
char *top_fmt_uptime(char *buf, size_t cap, uint64_t ns);
size_t top_fmt_width(const char *s);
char *top_fmt_pad(char *buf, size_t cap, const char *s, int width, int right);

#endif /* TOP_FMT_H */
