/* SPDX-License-Identifier: MIT */
/* apiprof_env.c - the runtime's settings, all from the environment. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "apiprof_internal.h"

struct apiprof_config apiprof_cfg;

/* One line on stderr, written with a single write(2) so that lines of
 * several processes do not interleave; never allocates. */
void apiprof_warn(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;
	int saved = errno;
	uint64_t busy = apiprof_busy_enter(); /* our write(2) is not the program's */

	memcpy(buf, "apiprof: ", 9);
	va_start(ap, fmt);
	n = vsnprintf(buf + 9, sizeof(buf) - 10, fmt, ap);
	va_end(ap);
	if (n < 0)
		n = 0;
	n += 9;
	if (n > (int)sizeof(buf) - 2)
		n = (int)sizeof(buf) - 2;
	buf[n++] = '\n';
	if (write(STDERR_FILENO, buf, (size_t)n) < 0) {
		/* nothing sensible to do: stderr is gone */
	}
	apiprof_busy_leave(busy);
	errno = saved;
}

/* Parses an unsigned decimal setting; a malformed or out-of-range value is
 * reported once and the default kept, so a typo never stops the program. */
static uint32_t env_u32(const char *name, uint32_t def, uint32_t lo, uint32_t hi)
{
	const char *s = getenv(name);
	char *end;
	unsigned long v;

	if (s == NULL || *s == '\0')
		return def;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno != 0 || *end != '\0' || v < lo || v > hi) {
		apiprof_warn("%s=%s is not a number in [%u, %u]; using %u", name, s, lo, hi, def);
		return def;
	}
	return (uint32_t)v;
}

static bool env_bool(const char *name, bool def)
{
	const char *s = getenv(name);

	if (s == NULL || *s == '\0')
		return def;
	return !(strcmp(s, "0") == 0 || strcmp(s, "no") == 0 || strcmp(s, "off") == 0);
}

static int env_clock(void)
{
	const char *s = getenv("APIPROF_CLOCK");

	if (s == NULL || *s == '\0' || strcmp(s, "auto") == 0)
		return 0;
	if (strcmp(s, "tsc") == 0)
		return APIPROF_CLOCK_TSC;
	if (strcmp(s, "monotonic") == 0)
		return APIPROF_CLOCK_MONOTONIC;
	apiprof_warn("APIPROF_CLOCK=%s is not tsc, monotonic or auto; using auto", s);
	return 0;
}

/* Rounds a record count down to a power of two and returns its log2. */
static uint32_t log2_floor(uint32_t v)
{
	return 31u - (uint32_t)__builtin_clz(v | 1u);
}

void apiprof_env_load(struct apiprof_config *cfg)
{
	const char *out = getenv("APIPROF_OUTPUT");

	cfg->interval_ms = env_u32("APIPROF_INTERVAL_MS", 200, 0, 1000);
	cfg->keyframe = env_u32("APIPROF_KEYFRAME", 10, 1, 1000000);
	cfg->ring_order = log2_floor(env_u32("APIPROF_RING_RECORDS", 4096, 2, 1u << 22));
	cfg->func_cap = env_u32("APIPROF_MAX_FUNCS", 2048, 1, 1u << 20);
	cfg->keep_exited = env_u32("APIPROF_KEEP_EXITED", 256, 0, 1u << 20);
	cfg->clock = env_clock();
	cfg->sample = env_u32("APIPROF_SAMPLE", 0, 0, 1u << 30);
	cfg->summary = env_bool("APIPROF_SUMMARY", false);
	cfg->shm = env_bool("APIPROF_SHM", true);
	cfg->keep_shm = env_bool("APIPROF_KEEP_SHM", false);
	cfg->output[0] = '\0';
	if (out != NULL && strlen(out) < sizeof(cfg->output))
		memcpy(cfg->output, out, strlen(out) + 1);
	else if (out != NULL)
		apiprof_warn("APIPROF_OUTPUT is longer than %zu bytes; ignored",
		             sizeof(cfg->output) - 1);
}
