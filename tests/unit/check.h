/* SPDX-License-Identifier: MIT */
/*
 * check.h - the unit tests' one assertion: CHECK(cond) reports the failed
 * condition with its place and counts it; main returns failures != 0.
 */
#ifndef APIPROF_TEST_CHECK_H
#define APIPROF_TEST_CHECK_H

#include <stdio.h>

static int failures;

#define CHECK(cond)                                                                                \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);   \
			failures++;                                                                \
		}                                                                                  \
	} while (0)

#endif
