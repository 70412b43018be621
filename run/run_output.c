/* SPDX-License-Identifier: MIT */
/*
 * run_output.c - the output file the launcher hands to the runtime.
 *
 * APIPROF_OUTPUT (from -o, or inherited) is written by each process at its
 * exit, relative to the directory it is in then: a server that changes to
 * its data directory (postgres) would write there.  So a relative path is
 * made absolute here, against the launcher's working directory, which is
 * the one the user typed it in.
 *
 * A program run as root may become another user (nginx's workers): such
 * a process cannot write into a directory only root can.  The runtime
 * says so when it exits; the launcher says it once at start, before
 * anything is lost, when the program may change its uid: it calls a
 * set*id function or initgroups (libelf: its undefined dynamic symbols),
 * or is not an ELF file that can be read (a script: its interpreter may).
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "run.h"

/* out = cwd + "/" + path; -1 (one line said) when it cannot be made. */
static int absolute(const char *path, char *out, size_t cap)
{
	char cwd[RUN_PATH_MAX];

	if (getcwd(cwd, sizeof(cwd)) == NULL) {
		fprintf(stderr, "apiprof-run: cannot make the output %s absolute: %s\n", path,
		        strerror(errno));
		return -1;
	}
	size_t n = (size_t)snprintf(out, cap, "%s%s%s", cwd, strcmp(cwd, "/") ? "/" : "", path);
	if (n >= cap) {
		fprintf(stderr, "apiprof-run: the output %s/%s is too long a path\n", cwd, path);
		return -1;
	}
	return 0;
}

/* The first directory on the way to dir (dir included) that users other
 * than its owner cannot pass through, in stop; false when there is none. */
static bool closed_on_the_way(const char *dir, char *stop, size_t cap)
{
	struct stat st;

	for (size_t i = 1;; i++) {
		if (dir[i] != '/' && dir[i] != '\0')
			continue;
		if (i >= cap)
			return false;
		memcpy(stop, dir, i);
		stop[i] = '\0';
		if (stat(stop, &st) == 0 && !(st.st_mode & S_IXOTH))
			return true;
		if (dir[i] == '\0')
			return false;
	}
}

/* dir is writable by root and some users, not by all: which, in line. */
static void writers(const char *dir, const struct stat *st, char *line, size_t cap)
{
	char who[64] = "";

	if (st->st_uid != 0)
		snprintf(who, sizeof(who), " and uid %u", (unsigned)st->st_uid);
	if (st->st_mode & S_IWGRP)
		snprintf(who + strlen(who), sizeof(who) - strlen(who), " and group %u",
		         (unsigned)st->st_gid);
	snprintf(line, cap,
	         "apiprof-run: %s is writable only by root%s: processes that drop privileges to"
	         " another user cannot write their output there\n",
	         dir, who);
}

/* The line to say when users other than root may not write into dir, in
 * line; false when they may, or dir cannot be looked at (the runtime says
 * why at exit). */
static bool unwritable(const char *dir, char *line, size_t cap)
{
	char real[PATH_MAX], stop[PATH_MAX];
	struct stat st;

	if (realpath(dir, real) == NULL || stat(real, &st) != 0 || !S_ISDIR(st.st_mode))
		return false;
	if (closed_on_the_way(real, stop, sizeof(stop)))
		snprintf(line, cap,
		         "apiprof-run: %s is not writable by users other than root (%s is closed to"
		         " them): processes that drop privileges cannot write their output there\n",
		         dir, stop);
	else if ((st.st_mode & S_IWOTH) == 0 && st.st_uid == 0 && (st.st_mode & S_IWGRP) == 0)
		snprintf(line, cap,
		         "apiprof-run: %s is not writable by users other than root: processes that"
		         " drop privileges cannot write their output there\n",
		         dir);
	else if ((st.st_mode & S_IWOTH) == 0)
		writers(dir, &st, line, cap);
	else
		return false;
	return true;
}

static bool changes_uid(const char *name)
{
	static const char *const calls[] = {"setuid",    "seteuid",   "setreuid", "setresuid",
	                                    "setgid",    "setegid",   "setregid", "setresgid",
	                                    "setgroups", "initgroups"};

	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++)
		if (strcmp(name, calls[i]) == 0)
			return true;
	return false;
}

/* Whether the dynamic symbol table scn imports a call that changes ids. */
static bool imports_setid(Elf *e, Elf_Scn *scn, const GElf_Shdr *sh)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;
	GElf_Sym sym;

	for (size_t i = 1; d != NULL && i < n; i++)
		if (gelf_getsym(d, (int)i, &sym) != NULL && sym.st_shndx == SHN_UNDEF &&
		    changes_uid(elf_strptr(e, sh->sh_link, sym.st_name) ?: ""))
			return true;
	return false;
}

/* Whether the program may change its uid: true unless it is an ELF file
 * whose dynamic symbols were read and import no such call. */
static bool may_change_uid(const char *cmd)
{
	char path[RUN_PATH_MAX];
	bool may = true;

	if (run_find_in_path(cmd, path, sizeof(path)) != 0 || elf_version(EV_CURRENT) == EV_NONE)
		return true;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *e = fd >= 0 ? elf_begin(fd, ELF_C_READ_MMAP, NULL) : NULL;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while (e != NULL && elf_kind(e) == ELF_K_ELF && (scn = elf_nextscn(e, scn)) != NULL)
		if (gelf_getshdr(scn, &sh) != NULL && sh.sh_type == SHT_DYNSYM)
			may = imports_setid(e, scn, &sh);
	if (e != NULL)
		elf_end(e);
	if (fd >= 0)
		close(fd);
	return may;
}

/* Run as root: is the directory of path one that any user may write? */
static void check_dir(const char *path, const char *cmd)
{
	char dir[RUN_PATH_MAX], line[RUN_PATH_MAX + PATH_MAX + 160];
	struct stat st;

	if (geteuid() != 0 || (stat(path, &st) == 0 && !S_ISREG(st.st_mode)))
		return; /* a device, FIFO or terminal is written as it is */
	size_t n = (size_t)(strrchr(path, '/') - path);
	memcpy(dir, path, n);
	dir[n ? n : 1] = '\0';
	if (n == 0)
		dir[0] = '/';
	if (unwritable(dir, line, sizeof(line)) && may_change_uid(cmd))
		fputs(line, stderr);
}

int run_output_env(const struct run_opts *o)
{
	static char path[RUN_PATH_MAX];
	const char *out = o->output ? o->output : getenv("APIPROF_OUTPUT");

	if (out == NULL || out[0] == '\0')
		return 0;
	if (out[0] != '/' && absolute(out, path, sizeof(path)) != 0)
		return -1;
	if (out[0] == '/' && (size_t)snprintf(path, sizeof(path), "%s", out) >= sizeof(path)) {
		fprintf(stderr, "apiprof-run: the output %s is too long a path\n", out);
		return -1;
	}
	if (!o->quiet && o->argv != NULL) /* -p: no command to look at */
		check_dir(path, o->argv[0]);
	return setenv("APIPROF_OUTPUT", path, 1);
}
