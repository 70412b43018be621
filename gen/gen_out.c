// SPDX-License-Identifier: MIT
/*
 * gen_out.c - line-counting, all-or-nothing file output.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "apiprof_file.h"
#include "spec_buf.h"
#include "gen_out.h"

/* stdio's writes go through apiprof_file_put: a FIFO's descriptor stays
 * non-blocking (apiprof_file.h), and as the FIFO is the user's own (or
 * root's), its reader is waited for as long as it takes (`apiprof-gen -o
 * /dev/stdout | cc -x c -`).  The descriptor is apiprof_file_close's. */
static ssize_t cookie_write(void *cookie, const char *buf, size_t len)
{
	return apiprof_file_put(cookie, buf, len) == 0 ? (ssize_t)len : -1;
}

int gen_out_open(struct gen_out *o, const char *path)
{
	static const cookie_io_functions_t io = {.write = cookie_write};

	o->path = path;
	o->name = path;
	o->line = 1;
	o->err = 0;
	o->file = spec_xmalloc(sizeof(*o->file));
	if (apiprof_file_open(o->file, path, 0666) < 0 ||
	    (o->f = fopencookie(o->file, "w", io)) == NULL) {
		if (o->file->fd >= 0)
			apiprof_file_failed(o->file, errno);
		fprintf(stderr, "apiprof-gen: cannot write %s: %s\n", path,
		        apiprof_file_why(o->file));
		apiprof_file_close(o->file, false);
		free(o->file);
		o->file = NULL;
		return -1;
	}
	o->file->until_ms = LLONG_MAX / 2;
	return 0;
}

void gen_out_puts(struct gen_out *o, const char *s)
{
	for (const char *nl = s; (nl = strchr(nl, '\n')) != NULL; nl++)
		o->line++;
	if (fputs(s, o->f) == EOF && o->err == 0)
		o->err = errno ? errno : EIO;
}

void gen_out_printf(struct gen_out *o, const char *fmt, ...)
{
	struct spec_buf b;
	va_list ap;

	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	spec_buf_init(&b);
	if (n > 0) {
		b.s = spec_xmalloc((size_t)n + 1);
		va_start(ap, fmt);
		vsnprintf(b.s, (size_t)n + 1, fmt, ap);
		va_end(ap);
		gen_out_puts(o, b.s);
	}
	spec_buf_free(&b);
}

void gen_out_abort(struct gen_out *o)
{
	if (o->f != NULL)
		fclose(o->f);
	o->f = NULL;
	if (o->file != NULL)
		apiprof_file_close(o->file, false);
	free(o->file);
	o->file = NULL;
}

/* Every write, the flush and the close checked: on any error the file
 * that was there is kept, and the reason said in one line. */
int gen_out_commit(struct gen_out *o)
{
	int err = o->err;

	if (fflush(o->f) != 0 && err == 0)
		err = errno ? errno : EIO;
	if (fclose(o->f) != 0 && err == 0)
		err = errno ? errno : EIO;
	o->f = NULL;
	if (err != 0 && o->file->why == NULL && o->file->err == 0)
		apiprof_file_failed(o->file, err); /* else the reason put kept */
	if (apiprof_file_close(o->file, err == 0) != 0) {
		fprintf(stderr, "apiprof-gen: cannot write %s: %s\n", o->path,
		        apiprof_file_why(o->file));
		free(o->file);
		o->file = NULL;
		return -1;
	}
	free(o->file);
	o->file = NULL;
	return 0;
}
