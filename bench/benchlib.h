/* SPDX-License-Identifier: MIT */
/* benchlib.h - the benchmark's target library (see benchlib.c). */
#ifndef BENCHLIB_H
#define BENCHLIB_H

/* The cheapest call there is: about 3 ns including the PLT jump. */
int bench_f(int a, int b);

/* bench_f's twin, with the same body: a shim can treat the two alike or
 * not, and the driver's -t fg times them in turn in one process. */
int bench_g(int a, int b);

/* The third twin, which the driver's -t fgh times with the other two: a
 * tool left off it gives the bare call in the same process. */
int bench_h(int a, int b);

/* A fixed amount of dependent arithmetic, about 100 ns, with a latency
 * that does not depend on its arguments or on any memory. */
int bench_work(int a, int b);

#endif /* BENCHLIB_H */
