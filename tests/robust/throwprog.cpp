// SPDX-License-Identifier: MIT
// throwprog - C++ exceptions thrown by a callback through a profiled call
// (tl_apply, a C function of libtestlib) and caught above it.
//
//   throwprog calls N    2N+1 rounds
//   throwprog threads N  2N+1 rounds on each of 4 threads at once
//   throwprog cases      the other cases, once each
//   throwprog terminate  a throw through tl_apply that nothing catches
//   throwprog noexcept   the same out of a noexcept function
//
// Each round calls tl_apply from main's loop; in every odd round its
// callback throws, and the exception is caught above tl_apply.  Then the
// round calls tl_add once from a deeper frame than tl_apply's (a frame
// that an abandoned tl_apply would otherwise take as its own).  So 2N+1
// calls of each are outermost; N of the tl_apply calls are abandoned.
// The cases are, each a tl_apply and a tl_add from main's frame: what
// must change nothing (the tl_apply counted and timed, its callback's own
// tl_add nested): an exception caught inside the callback, and one that
// crosses no profiled call; and what abandons the tl_apply: catch (...)
// and rethrow, and a foreign (non-C++) exception caught by catch (...);
// and last a coroutine's own exception (below), which changes nothing.
// Prints the sum of the results.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sys/mman.h>
#include <thread>
#include <ucontext.h>
#include <unwind.h>

// testlib.h is C (it has _Bool): the two functions used, as it declares them.
extern "C" {
int tl_add(int a, int b);
int tl_apply(int (*cb)(int), int x);
}

static int thrower(int x)
{
	throw x;
}

static int plain(int x)
{
	return x + 1;
}

// The pad puts the call a few hundred bytes below main's frames.
static __attribute__((noinline)) long deeper(int x)
{
	volatile char pad[512];

	pad[0] = 1;
	return tl_add(x, pad[0]);
}

static __attribute__((noinline)) long round_of(int i)
{
	long r;

	try {
		r = tl_apply(i % 2 ? thrower : plain, i);
	} catch (int e) {
		r = -e;
	}
	return r + deeper(i);
}

// Caught inside the callback: tl_apply goes on, and its tl_add is nested.
static int catch_inside(int x)
{
	try {
		throw x;
	} catch (int e) {
		return tl_add(e, 1);
	}
}

static __attribute__((noinline)) long rethrown(int x)
{
	try {
		try {
			return tl_apply(thrower, x);
		} catch (...) {
			throw;
		}
	} catch (int e) {
		return e;
	}
}

static void foreign_cleanup(_Unwind_Reason_Code, _Unwind_Exception *)
{
}

static _Unwind_Exception foreign;

static int foreign_thrower(int x)
{
	memset(&foreign, 0, sizeof(foreign));
	memcpy(&foreign.exception_class, "NOTC++\0\0", 8);
	foreign.exception_cleanup = foreign_cleanup;
	_Unwind_RaiseException(&foreign);
	return x; // not caught anywhere: never here
}

static __attribute__((noinline)) long foreign_caught(int x)
{
	try {
		return tl_apply(foreign_thrower, x);
	} catch (...) {
		return 3;
	}
}

static __attribute__((noinline)) long no_profiled_call(int x)
{
	try {
		if (x > 0)
			throw x;
	} catch (int e) {
		return e;
	}
	return 0;
}

// A coroutine's exception, thrown and caught on its own stack (the higher
// of two), while the tl_apply whose callback switched to it is in progress
// on the lower one: tl_apply goes on, and its callback's tl_add after the
// switch back is nested.
static ucontext_t main_ctx, lo_ctx, hi_ctx;
static long coro_result;

static void hi_fn()
{
	try {
		throw 1;
	} catch (int) {
	}
	swapcontext(&hi_ctx, &lo_ctx); // never resumed
}

static int switch_away(int x)
{
	swapcontext(&lo_ctx, &hi_ctx);
	return tl_add(x, 1);
}

static void lo_fn()
{
	coro_result = tl_apply(switch_away, 8);
}

static long coroutine()
{
	const size_t size = 256 * 1024;
	void *a = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	void *b = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (a == MAP_FAILED || b == MAP_FAILED)
		std::abort();
	getcontext(&hi_ctx);
	hi_ctx.uc_stack.ss_sp = a > b ? a : b;
	hi_ctx.uc_stack.ss_size = size;
	makecontext(&hi_ctx, hi_fn, 0);
	getcontext(&lo_ctx);
	lo_ctx.uc_stack.ss_sp = a > b ? b : a;
	lo_ctx.uc_stack.ss_size = size;
	lo_ctx.uc_link = &main_ctx;
	makecontext(&lo_ctx, lo_fn, 0);
	swapcontext(&main_ctx, &lo_ctx);
	munmap(a, size);
	munmap(b, size);
	return coro_result;
}

static void run_noexcept(int x) noexcept
{
	tl_apply(thrower, x);
}

static long rounds(long n)
{
	long sum = 0;

	for (long i = 0; i < 2 * n + 1; i++)
		sum += round_of((int)i);
	return sum;
}

static long threads(long n)
{
	long sums[4];
	std::thread t[4];

	for (int k = 0; k < 4; k++)
		t[k] = std::thread([&sums, k, n] { sums[k] = rounds(n); });
	for (int k = 0; k < 4; k++)
		t[k].join();
	return sums[0] + sums[1] + sums[2] + sums[3];
}

static long cases()
{
	long sum = tl_apply(catch_inside, 5) + tl_add(1, 1);

	sum += no_profiled_call(4) + tl_apply(plain, 1) + tl_add(2, 2);
	sum += rethrown(6) + tl_add(3, 3);
	sum += foreign_caught(7) + tl_add(4, 4);
	return sum + coroutine();
}

// main, or the entry point of the same code built as a plugin that a C
// program dlopen()s with RTLD_LOCAL (throwhost.c).
#ifdef THROW_PLUGIN
extern "C" __attribute__((visibility("default"))) int throw_main(int argc, char **argv)
#else
int main(int argc, char **argv)
#endif
{
	long n = 0, sum = 0;

	if (argc == 2 && strcmp(argv[1], "terminate") == 0)
		return tl_apply(thrower, 1);
	if (argc == 2 && strcmp(argv[1], "noexcept") == 0)
		run_noexcept(1);
	else if (argc == 2 && strcmp(argv[1], "cases") == 0)
		sum = cases();
	else if (argc == 3 && strcmp(argv[1], "calls") == 0 && (n = atol(argv[2])) > 0)
		sum = rounds(n);
	else if (argc == 3 && strcmp(argv[1], "threads") == 0 && (n = atol(argv[2])) > 0)
		sum = threads(n);
	else
		return 2;
	std::printf("sum %ld\n", sum);
	return 0;
}
