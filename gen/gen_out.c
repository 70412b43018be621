// SPDX-License-Identifier: MIT
/*
 * gen_out.c - line-counting, all-or-nothing file output.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gen_buf.h"
#include "gen_out.h"

int gen_out_open(struct gen_out *o, const char *path)
{
	mode_t mask = umask(0);
	int fd;

	umask(mask);
	o->path = path;
	o->line = 1;
	o->tmp = gen_xmalloc(strlen(path) + 16);
	/* Same directory, so the final rename cannot cross file systems. */
	sprintf(o->tmp, "%s.tmp.XXXXXX", path);
	fd = mkstemp(o->tmp);
	if (fd < 0 || fchmod(fd, 0666 & ~mask) < 0 || (o->f = fdopen(fd, "w")) == NULL) {
		fprintf(stderr, "apiprof-gen: cannot create %s: %s\n", o->tmp, strerror(errno));
		if (fd >= 0) {
			close(fd);
			unlink(o->tmp);
		}
		free(o->tmp);
		o->tmp = NULL;
		return -1;
	}
	return 0;
}

void gen_out_puts(struct gen_out *o, const char *s)
{
	const char *nl;

	for (nl = s; (nl = strchr(nl, '\n')) != NULL; nl++)
		o->line++;
	fputs(s, o->f);
}

void gen_out_printf(struct gen_out *o, const char *fmt, ...)
{
	struct gen_buf b;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	gen_buf_init(&b);
	if (n > 0) {
		b.s = gen_xmalloc((size_t)n + 1);
		va_start(ap, fmt);
		vsnprintf(b.s, (size_t)n + 1, fmt, ap);
		va_end(ap);
		gen_out_puts(o, b.s);
	}
	gen_buf_free(&b);
}

void gen_out_abort(struct gen_out *o)
{
	if (o->f != NULL)
		fclose(o->f);
	o->f = NULL;
	if (o->tmp != NULL)
		unlink(o->tmp);
	free(o->tmp);
	o->tmp = NULL;
}

int gen_out_commit(struct gen_out *o)
{
	int bad = ferror(o->f);

	bad |= fclose(o->f) != 0;
	o->f = NULL;
	if (bad || rename(o->tmp, o->path) < 0) {
		fprintf(stderr, "apiprof-gen: cannot write %s: %s\n", o->path,
		        bad ? "write error" : strerror(errno));
		gen_out_abort(o);
		return -1;
	}
	free(o->tmp);
	o->tmp = NULL;
	return 0;
}
