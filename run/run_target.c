/* SPDX-License-Identifier: MIT */
/*
 * run_target.c - can the dynamic loader interpose on this program at all?
 *
 * LD_PRELOAD is honoured by ld.so only: a static binary has no loader, and
 * for a setuid/setgid program the loader ignores LD_PRELOAD (secure mode).
 * Both still run, unprofiled, unless --strict is given.
 */
#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "run.h"

/* Looks cmd up like execvp does. */
static int find_in_path(const char *cmd, char *out, size_t cap)
{
	const char *path = getenv("PATH");

	if (strchr(cmd, '/'))
		return snprintf(out, cap, "%s", cmd) < (int)cap ? 0 : -1;
	if (path == NULL)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		size_t n = strcspn(path, ":");

		if (snprintf(out, cap, "%.*s/%s", (int)n, n ? path : ".", cmd) < (int)cap &&
		    access(out, X_OK) == 0)
			return 0;
		path += n + (path[n] == ':');
	}
	return -1;
}

/* 1 when the ELF file has a PT_INTERP (is run by ld.so), 0 when not, -1
 * when it is not an ELF file at all (a script: its interpreter is). */
static int elf_is_dynamic(int fd)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;

	if (pread(fd, &eh, sizeof(eh), 0) != sizeof(eh) || memcmp(eh.e_ident, ELFMAG, SELFMAG))
		return -1;
	if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_phentsize != sizeof(ph))
		return -1;
	for (unsigned i = 0; i < eh.e_phnum; i++) {
		if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + (Elf64_Off)i * sizeof(ph))) !=
		    sizeof(ph))
			return -1;
		if (ph.p_type == PT_INTERP)
			return 1;
	}
	return 0;
}

static int refuse(const struct run_opts *o, const char *path, const char *why)
{
	fprintf(stderr, "apiprof-run: %s: %s: cannot interpose%s\n", path, why,
	        o->strict ? "" : "; running it unprofiled");
	return o->strict ? -1 : 0;
}

int run_check_target(struct run_opts *o)
{
	char path[RUN_PATH_MAX];
	struct stat st;
	int fd, dyn;

	o->can_profile = 1;
	if (find_in_path(o->argv[0], path, sizeof(path)) != 0)
		return 0; /* execvp will report it */
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	dyn = elf_is_dynamic(fd);
	if (fstat(fd, &st) != 0)
		st.st_mode = 0;
	close(fd);
	if (dyn == 0) {
		o->can_profile = 0;
		return refuse(o, path, "not dynamically linked");
	}
	if ((st.st_mode & S_ISUID && st.st_uid != geteuid()) ||
	    (st.st_mode & S_ISGID && st.st_gid != getegid())) {
		o->can_profile = 0;
		return refuse(o, path, "setuid/setgid (the loader ignores LD_PRELOAD)");
	}
	return 0;
}
