/* SPDX-License-Identifier: MIT */
/*
 * plantdel.c - preloaded into a host for test_sites_exit.py's "deleted"
 * case (issue 34): once the host's libraries are mapped, its constructor
 * removes $PLANT_LIB and puts a symbolic link "$PLANT_LIB (deleted)" to
 * $PLANT_TO in its place, the name /proc/self/maps now gives the
 * mapping: what someone who can write the library's directory could plant
 * for the exit-time naming of call sites to follow.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

__attribute__((constructor)) static void plant(void)
{
	const char *lib = getenv("PLANT_LIB"), *to = getenv("PLANT_TO");
	char name[4096];

	if (lib == NULL || to == NULL)
		return;
	snprintf(name, sizeof name, "%s (deleted)", lib);
	if (unlink(lib) != 0 || symlink(to, name) != 0) {
		perror("plantdel");
		_exit(3);
	}
}
