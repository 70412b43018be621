/* SPDX-License-Identifier: MIT */
/*
 * outdump - prints an APIPROF_OUTPUT document as sorted, diffable lines:
 *
 *   THREADNAME API.FUNCTION CALLS
 *
 * one per thread and function, then "dropped N", after checking that every
 * required field is present and of the right type.  Exit 1 on a malformed
 * document.
 *
 *   outdump [-t] [-x | -s N] OUT.json
 *
 *   -t: print the tid before the name
 *   -x: also require every row's `timed` to equal its `calls`: a run of
 *       full timing that ended with no call in flight, where every call
 *       counted was timed and each timed call is in the histogram
 *   -s: a run in sampled mode, APIPROF_SAMPLE=N: every row's `timed` is at
 *       most its `calls`, `estimated` is true exactly where it is less, and
 *       a row of 1000 N calls or more has about one timed in N (the mean
 *       distance of sampled mode's draws), within 20%: many times the
 *       spread of the countdown's random draws
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int fail(const char *what)
{
	fprintf(stderr, "outdump: %s\n", what);
	return 1;
}

#define USAGE "usage: outdump [-t] [-x | -s N] OUT.json"

static int exact_timed;
static long sample_n;

static long long ival(json_t *f, const char *key)
{
	return json_integer_value(json_object_get(f, key));
}

/* -s: the sampled-mode checks of one row. */
static int check_sampled(json_t *f)
{
	long long calls = ival(f, "calls"), timed = ival(f, "timed");
	json_t *est = json_object_get(f, "estimated");
	double per = (double)sample_n;

	if (timed > calls || !json_is_boolean(est) || json_is_true(est) != (timed < calls)) {
		fprintf(stderr, "outdump: %s: timed %lld of %lld calls, estimated %s\n",
		        json_string_value(json_object_get(f, "name")), timed, calls,
		        json_is_true(est) ? "true" : "false or missing");
		return -1;
	}
	if (calls >= 1000 * sample_n && (timed * per < 0.8 * calls || timed * per > 1.2 * calls)) {
		fprintf(stderr, "outdump: %s: timed %lld of %lld calls, about %.0f expected\n",
		        json_string_value(json_object_get(f, "name")), timed, calls, calls / per);
		return -1;
	}
	return 0;
}

static int check_func(json_t *f)
{
	static const char *const ints[] = {"calls", "timed", "total_ns", "min_ns", "max_ns"};

	if (!json_is_string(json_object_get(f, "api")) ||
	    !json_is_string(json_object_get(f, "name")))
		return -1;
	for (size_t i = 0; i < sizeof(ints) / sizeof(ints[0]); i++)
		if (!json_is_integer(json_object_get(f, ints[i])))
			return -1;
	if (exact_timed && ival(f, "timed") != ival(f, "calls")) {
		fprintf(stderr, "outdump: %s: timed %lld of %lld calls\n",
		        json_string_value(json_object_get(f, "name")), ival(f, "timed"),
		        ival(f, "calls"));
		return -1;
	}
	return sample_n > 1 ? check_sampled(f) : 0;
}

static int dump_thread(json_t *t, int with_tid)
{
	json_t *funcs = json_object_get(t, "functions"), *f;
	const char *name = json_string_value(json_object_get(t, "name"));
	size_t i;

	if (!json_is_integer(json_object_get(t, "tid")) || !name || !json_is_array(funcs))
		return -1;
	json_array_foreach(funcs, i, f)
	{
		if (check_func(f) != 0)
			return -1;
		if (with_tid)
			printf("%lld ", json_integer_value(json_object_get(t, "tid")));
		printf("%s %s.%s %lld\n", name, json_string_value(json_object_get(f, "api")),
		       json_string_value(json_object_get(f, "name")),
		       json_integer_value(json_object_get(f, "calls")));
	}
	return 0;
}

int main(int argc, char **argv)
{
	json_error_t err;
	json_t *doc, *threads, *t;
	int with_tid = 0, c;
	size_t i;

	while ((c = getopt(argc, argv, "txs:")) != -1) {
		if (c == 't')
			with_tid = 1;
		else if (c == 'x')
			exact_timed = 1;
		else if (c == 's' && (sample_n = atol(optarg)) > 1)
			continue;
		else
			return fail(USAGE);
	}
	if (optind != argc - 1 || (exact_timed && sample_n))
		return fail(USAGE);
	doc = json_load_file(argv[optind], JSON_REJECT_DUPLICATES, &err);
	if (!doc) {
		fprintf(stderr, "outdump: %s:%d:%d: %s\n", argv[optind], err.line, err.column,
		        err.text);
		return 1;
	}
	threads = json_object_get(doc, "threads");
	if (!json_is_integer(json_object_get(doc, "pid")) ||
	    !json_is_integer(json_object_get(doc, "dropped")) || !json_is_array(threads))
		return fail("missing pid, dropped or threads");
	json_array_foreach(threads, i, t)
	{
		if (dump_thread(t, with_tid) != 0)
			return fail("malformed thread or function entry");
	}
	printf("dropped %lld\n", json_integer_value(json_object_get(doc, "dropped")));
	json_decref(doc);
	return 0;
}
