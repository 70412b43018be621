/* SPDX-License-Identifier: MIT */
/*
 * keys_dump.c - prints the live view's keys as its table names them
 * (top_ui.h top_keys[]), one key a line, for test_keys_docs.py: each
 * label's words but "or" ("s or >" is s and >).
 */
#include <stdio.h>
#include <string.h>

#include "top_ui.h"

int main(void)
{
	for (size_t i = 0; i < top_nkeys; i++) {
		char buf[128];

		snprintf(buf, sizeof(buf), "%s", top_keys[i].label);
		for (char *save, *w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save))
			if (strcmp(w, "or"))
				printf("%s\n", w);
	}
	return ferror(stdout) ? 1 : 0;
}
