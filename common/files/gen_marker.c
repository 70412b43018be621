// SPDX-License-Identifier: MIT
/*
 * gen_marker.c - the files the preprocessor entered, from the line markers
 * of its output: what `apiprof-gen build` checks (gen_build_trust.c) and
 * what apiprof-run's cache manifest lists (run_manifest.c).
 */
#include <ctype.h>
#include <string.h>

#include "gen_marker.h"

/* The file a line marker `# LINE "NAME" FLAGS` enters (flag 1), in name;
 * false for any other line.  NAME is quoted as a C string. */
bool gen_marker_enters(const char *line, struct spec_buf *name)
{
	const char *p = line + 2;

	if (line[0] != '#' || line[1] != ' ' || !isdigit((unsigned char)*p))
		return false;
	while (isdigit((unsigned char)*p))
		p++;
	if (p[0] != ' ' || p[1] != '"')
		return false;
	name->len = 0;
	spec_buf_putn(name, "", 0);
	for (p += 2; *p != '"' && *p != '\0'; p++) {
		if (*p == '\\' && p[1] >= '0' && p[1] <= '7') {
			char c = 0;
			for (int i = 0; i < 3 && p[1] >= '0' && p[1] <= '7'; i++)
				c = (char)(c * 8 + *++p - '0');
			spec_buf_putc(name, c);
			continue;
		}
		if (*p == '\\' && p[1] != '\0')
			p++;
		spec_buf_putc(name, *p);
	}
	return *p == '"' && strncmp(p + 1, " 1", 2) == 0 && (p[3] == ' ' || p[3] == '\n');
}
