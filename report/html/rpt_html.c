/* SPDX-License-Identifier: MIT */
/*
 * rpt_html.c - the page: report.html with its markers replaced by
 * report.css, Chart.js (Debian's libjs-chart.js), report.js and the run's
 * data, all inlined, so the file opens offline and fetches nothing.
 *
 * The data is JSON in a <script type="application/json"> block; every
 * '<' in it is written as \u003c (a '<' appears only inside a JSON
 * string), so neither "</script" nor "<!--" can end or bend the block.
 * Inlined code must not hold either: it is refused otherwise.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "rpt_html.h"

#ifndef RPT_SHARE_REL
#define RPT_SHARE_REL "../share/apiprof"
#endif
#define RPT_CHARTJS "/usr/share/javascript/chart.js/chart.min.js"

/* Where the templates are: APIPROF_REPORT_SHARE; else RPT_SHARE_REL from
 * the program's directory (installed; an absolute RPT_SHARE_REL as it
 * is), or that directory itself (the build tree's copies). */
static void share_dir(char *dir, size_t cap)
{
	const char *env = getenv("APIPROF_REPORT_SHARE");
	char exe[4096], probe[4400];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	char *slash = n > 0 ? memrchr(exe, '/', (size_t)n) : NULL;

	if (env && *env) {
		snprintf(dir, cap, "%s", env);
		return;
	}
	if (slash == NULL || RPT_SHARE_REL[0] == '/') {
		snprintf(dir, cap, "%s", RPT_SHARE_REL);
		return;
	}
	*slash = '\0';
	snprintf(probe, sizeof probe, "%s/report.html", exe);
	if (access(probe, R_OK) == 0)
		snprintf(dir, cap, "%s", exe);
	else if ((size_t)snprintf(dir, cap, "%s/%s", exe, RPT_SHARE_REL) >= cap)
		snprintf(dir, cap, "%s", RPT_SHARE_REL); /* and the open says what failed */
}

/* A whole file, NUL-terminated; NULL after one line on stderr. */
static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0;

	if (f == NULL) {
		fprintf(stderr, "apiprof-report: cannot read %s: %m\n", path);
		return NULL;
	}
	FILE *m = open_memstream(&buf, &len);
	char chunk[8192];
	size_t n;
	while (m && (n = fread(chunk, 1, sizeof chunk, f)) > 0)
		fwrite(chunk, 1, n, m);
	bool bad = ferror(f) || m == NULL;
	fclose(f);
	if (m)
		fclose(m);
	if (!bad)
		return buf;
	fprintf(stderr, "apiprof-report: cannot read %s\n", path);
	free(buf);
	return NULL;
}

static char *asset(const char *name)
{
	char dir[4096], path[4200];

	share_dir(dir, sizeof dir);
	snprintf(path, sizeof path, "%s/%s", dir, name);
	return slurp(path);
}

/* Code that a <script> block can hold as it is. */
static char *code(const char *path)
{
	char *s = slurp(path);

	for (char *p = s; p && (p = strchr(p, '<')) != NULL; p++)
		if (strncasecmp(p, "</script", 8) == 0 || strncmp(p, "<!--", 4) == 0) {
			fprintf(stderr, "apiprof-report: %s holds \"%.8s\": it cannot be inlined\n",
			        path, p);
			free(s);
			return NULL;
		}
	return s;
}

static void put_data(struct rpt_out *o, const char *json)
{
	for (const char *p = json; *p;) {
		size_t n = strcspn(p, "<");

		rpt_out_put(o, p, n);
		p += n;
		if (*p == '<') {
			rpt_out_str(o, "\\u003c");
			p++;
		}
	}
}

struct parts {
	char *page, *css, *js, *chart, *data;
};

/* The text for marker name, "" for one not known. */
static void put_marker(struct rpt_out *o, const struct parts *p, const char *name, size_t n)
{
	if (n == 3 && memcmp(name, "CSS", 3) == 0)
		rpt_out_str(o, p->css);
	else if (n == 2 && memcmp(name, "JS", 2) == 0)
		rpt_out_str(o, p->js);
	else if (n == 7 && memcmp(name, "CHARTJS", 7) == 0)
		rpt_out_str(o, p->chart);
	else if (n == 4 && memcmp(name, "DATA", 4) == 0)
		put_data(o, p->data);
}

/* The template with each "@@APIPROF:NAME@@" replaced. */
static void put_page(struct rpt_out *o, const struct parts *p)
{
	const char *s = p->page;
	const char *m;

	while ((m = strstr(s, "@@APIPROF:")) != NULL) {
		const char *end = strstr(m + 10, "@@");

		if (end == NULL)
			break;
		rpt_out_put(o, s, (size_t)(m - s));
		put_marker(o, p, m + 10, (size_t)(end - m - 10));
		s = end + 2;
	}
	rpt_out_str(o, s);
}

static int load_parts(struct parts *p, const struct rpt_run *run)
{
	const char *chart = getenv("APIPROF_REPORT_CHARTJS");
	char dir[4096], js[4200];

	share_dir(dir, sizeof dir);
	snprintf(js, sizeof js, "%s/report.js", dir);
	p->page = asset("report.html");
	p->css = p->page ? asset("report.css") : NULL;
	p->js = p->css ? code(js) : NULL;
	p->chart = p->js ? code(chart && *chart ? chart : RPT_CHARTJS) : NULL;
	if (p->chart == NULL)
		return -1;
	json_t *data = rpt_html_data(run);
	p->data = data ? json_dumps(data, JSON_COMPACT) : NULL;
	json_decref(data);
	if (data != NULL && p->data == NULL)
		fprintf(stderr, "apiprof-report: out of memory\n");
	return p->data ? 0 : -1;
}

int rpt_html_write(const struct rpt_run *run, struct rpt_out *out)
{
	struct parts p = {0};
	int rc = load_parts(&p, run);

	if (rc == 0)
		put_page(out, &p);
	free(p.page);
	free(p.css);
	free(p.js);
	free(p.chart);
	free(p.data);
	return rc;
}
