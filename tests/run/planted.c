/* SPDX-License-Identifier: MIT */
/*
 * planted.c - what another user leaves where a cached shim would be.
 * Loaded into a program, it says so: the launcher's tests fail on it.
 */
#include <unistd.h>

__attribute__((constructor)) static void planted(void)
{
	static const char msg[] = "PLANTED\n";

	(void)!write(2, msg, sizeof(msg) - 1);
}
