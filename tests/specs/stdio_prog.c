// SPDX-License-Identifier: MIT
/*
 * stdio_prog FILE N - a known number of stdio calls.  Built twice: plain
 * at -O0 -fno-builtin (the calls stay as written), and at -O2 with
 * _FORTIFY_SOURCE=2 and 64-bit off_t, where the same source calls
 * fopen64, __fprintf_chk, __sprintf_chk, __snprintf_chk, __fgets_chk,
 * __fread_chk and __printf_chk instead.  Both must give the same rows:
 *
 *   fopen 3, fclose 3, fwrite 1, fflush 1, fprintf N, sprintf N,
 *   snprintf N, fputs N, fgets N + 2 (N lines and a header, then EOF),
 *   fread 2 (the file, then 0 at EOF), printf 1.
 *
 * Strings passed to fputs are built at run time, so the compiler cannot
 * turn fputs into fwrite; the formats have conversions, so printf stays
 * printf rather than becoming puts.
 */
#include <stdio.h>
#include <stdlib.h>

static int write_file(const char *path, int n)
{
	char line[32], tail[64];
	FILE *f = fopen(path, "w");

	if (f == NULL)
		return -1;
	fwrite("# lines\n", 1, 8, f);
	for (int i = 0; i < n; i++) {
		sprintf(line, "%d:", i);
		snprintf(tail, sizeof tail, "%s%d\n", line, i * 2);
		fprintf(f, "line %d ", i);
		fputs(tail, f);
	}
	fflush(f);
	return fclose(f);
}

static int count_lines(const char *path)
{
	char buf[128];
	int lines = 0;
	FILE *f = fopen(path, "r");

	if (f == NULL)
		return -1;
	while (fgets(buf, sizeof buf, f) != NULL)
		lines++;
	fclose(f);
	return lines;
}

static long count_bytes(const char *path)
{
	static char buf[1 << 20];
	size_t got;
	long total = 0;
	FILE *f = fopen(path, "r");

	if (f == NULL)
		return -1;
	while ((got = fread(buf, 1, sizeof buf, f)) > 0)
		total += (long)got;
	fclose(f);
	return total;
}

int main(int argc, char **argv)
{
	int n = argc > 2 ? atoi(argv[2]) : 0;

	if (argc != 3 || write_file(argv[1], n) != 0)
		return 2;
	printf("%d lines, %ld bytes\n", count_lines(argv[1]), count_bytes(argv[1]));
	return 0;
}
