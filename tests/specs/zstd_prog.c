// SPDX-License-Identifier: MIT
/*
 * zstd_prog.c - calls libzstd's API declared only with
 * ZSTD_STATIC_LINKING_ONLY (a struct by value each way), for
 * import_zstd.sh: 3 ZSTD_compress, 1 ZSTD_getCParams,
 * 1 ZSTD_estimateCCtxSize_usingCParams.
 */
#define ZSTD_STATIC_LINKING_ONLY
#include <stdio.h>
#include <string.h>
#include <zstd.h>

int main(void)
{
	static char src[4096], dst[8192];
	size_t total = 0;

	memset(src, 'a', sizeof src);
	for (int i = 0; i < 3; i++)
		total += ZSTD_compress(dst, sizeof dst, src, sizeof src, i + 1);
	ZSTD_compressionParameters p = ZSTD_getCParams(3, sizeof src, 0);
	size_t est = ZSTD_estimateCCtxSize_usingCParams(p);
	printf("compressed %zu windowLog %u estimate>0 %d\n", total, p.windowLog, est > 0);
	return 0;
}
