/* SPDX-License-Identifier: MIT */
/*
 * lzcnt_check.c - prints what the bytes of LZCNT do on this CPU, as the
 * shims' histogram buckets execute them (apiprof_hist_bucket_lz):
 * "lzcnt" (the leading zeros of 1000, 54) or "bsr" (the index of its
 * highest set bit, 9: a CPU without LZCNT ignores the F3 prefix).
 */
#include <stdint.h>
#include <stdio.h>

int main(void)
{
	uint64_t x = 1000, r;

	__asm__ volatile("lzcnt %1, %0" : "=r"(r) : "rm"(x));
	puts(r == 54 ? "lzcnt" : r == 9 ? "bsr" : "other");
	return 0;
}
