/* SPDX-License-Identifier: MIT */
/*
 * rpt_html.h - the HTML report: one self-contained page (rpt_html.c)
 * holding the run as JSON (rpt_html_data.c), the page's own CSS and JS
 * from the templates installed in share/apiprof/ (report.html,
 * report.css, report.js) and Debian's Chart.js, inlined.
 */
#ifndef RPT_HTML_H
#define RPT_HTML_H

#include <jansson.h>

#include "rpt_model.h"
#include "rpt_out.h"

/* The run as the page's data (see report.js for its layout). */
json_t *rpt_html_data(const struct rpt_run *run);

/* The sums over the processes of one command, to data's "groups". */
int rpt_html_groups(const struct rpt_run *run, json_t *data);

/* Writes the page to out.  0, or -1 after one line on stderr. */
int rpt_html_write(const struct rpt_run *run, struct rpt_out *out);

#endif /* RPT_HTML_H */
