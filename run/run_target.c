/* SPDX-License-Identifier: MIT */
/*
 * run_target.c - can the dynamic loader interpose on this program at all?
 *
 * LD_PRELOAD is honoured by ld.so only: a static binary has no loader, and
 * for a setuid/setgid program the loader ignores LD_PRELOAD (secure mode).
 * Nor can a library of one word size or machine go into a program of
 * another ("wrong ELF class"), a script's interpreter included.  All of
 * these still run, unprofiled, unless --strict is given.
 */
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "run.h"

/* Looks cmd up like execvp does. */
int run_find_in_path(const char *cmd, char *out, size_t cap)
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

/* The launcher's own ELF header: the runtime and shims are built as it is. */
extern const ElfW(Ehdr) __ehdr_start;

/* The fields every ELF header starts with, at the same offsets in both
 * classes (Elf32_Ehdr is the shorter header: any ELF file holds one). */
static int read_ident(int fd, Elf32_Ehdr *eh)
{
	if (pread(fd, eh, sizeof(*eh), 0) != (ssize_t)sizeof(*eh))
		return -1;
	return memcmp(eh->e_ident, ELFMAG, SELFMAG) == 0 ? 0 : -1;
}

/* Built for the machine and word size ld.so and the runtime are? */
static int same_machine(const Elf32_Ehdr *eh)
{
	return eh->e_ident[EI_CLASS] == __ehdr_start.e_ident[EI_CLASS] &&
	       eh->e_ident[EI_DATA] == __ehdr_start.e_ident[EI_DATA] &&
	       eh->e_machine == __ehdr_start.e_machine;
}

static const char *machine_name(unsigned m)
{
	switch (m) {
	case EM_386:
		return "i386";
	case EM_X86_64:
		return "x86-64";
	case EM_ARM:
		return "arm";
	case EM_AARCH64:
		return "aarch64";
	case EM_RISCV:
		return "riscv";
	case EM_PPC64:
		return "ppc64";
	case EM_S390:
		return "s390";
	default:
		return NULL;
	}
}

/* "a 32-bit i386 program" (machine numbers in the file's byte order). */
static void describe(char *out, size_t cap, const unsigned char *id, unsigned m)
{
	if (id[EI_DATA] != __ehdr_start.e_ident[EI_DATA])
		m = ((m & 0xff) << 8) | (m >> 8);
	const char *name = machine_name(m);
	if (name)
		snprintf(out, cap, "%s-bit %s", id[EI_CLASS] == ELFCLASS32 ? "32" : "64", name);
	else
		snprintf(out, cap, "%s-bit (machine %u)", id[EI_CLASS] == ELFCLASS32 ? "32" : "64",
		         m);
}

/* 1 when the ELF file (of our class) has a PT_INTERP (is run by ld.so),
 * 0 when not. */
static int elf_is_dynamic(int fd)
{
	ElfW(Ehdr) eh;
	ElfW(Phdr) ph;

	if (pread(fd, &eh, sizeof(eh), 0) != sizeof(eh) || eh.e_phentsize != sizeof(ph))
		return 1; /* not ours to judge: ld.so will */
	for (unsigned i = 0; i < eh.e_phnum; i++) {
		if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + (ElfW(Off))i * sizeof(ph))) !=
		    sizeof(ph))
			return 1;
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

/* A script's interpreter, from its "#!" line (the kernel reads at most
 * 256 bytes of it): -1 when the file is no script. */
static int shebang(int fd, char *out, size_t cap)
{
	char line[256];
	ssize_t n = pread(fd, line, sizeof(line) - 1, 0);

	if (n < 3 || line[0] != '#' || line[1] != '!')
		return -1;
	line[n] = '\0';
	char *p = line + 2 + strspn(line + 2, " \t");
	size_t len = strcspn(p, " \t\n");
	if (len == 0 || len >= cap)
		return -1;
	memcpy(out, p, len);
	out[len] = '\0';
	return 0;
}

/* The ELF file that ld.so would run: path itself, or (depth > 0) the
 * interpreter of the script at path, file. */
static int check_elf(struct run_opts *o, const char *path, const char *file, int depth, int fd,
                     const Elf32_Ehdr *eh)
{
	char what[64], ours[64], why[RUN_PATH_MAX + 160];
	struct stat st;

	if (!same_machine(eh)) {
		describe(what, sizeof(what), eh->e_ident, eh->e_machine);
		describe(ours, sizeof(ours), __ehdr_start.e_ident, __ehdr_start.e_machine);
		if (depth == 0)
			snprintf(why, sizeof(why), "a %s program, the profiler is %s", what, ours);
		else
			snprintf(why, sizeof(why),
			         "its interpreter %s is a %s program, the profiler is %s", file,
			         what, ours);
		o->can_profile = 0;
		return refuse(o, path, why);
	}
	if (depth > 0)
		return 0;
	if (elf_is_dynamic(fd) == 0) {
		o->can_profile = 0;
		return refuse(o, path, "not dynamically linked");
	}
	if (fstat(fd, &st) == 0 && ((st.st_mode & S_ISUID && st.st_uid != geteuid()) ||
	                            (st.st_mode & S_ISGID && st.st_gid != getegid()))) {
		o->can_profile = 0;
		return refuse(o, path, "setuid/setgid (the loader ignores LD_PRELOAD)");
	}
	return 0;
}

/* Follows "#!" lines as the kernel does (at most 4 deep) to the ELF file
 * ld.so runs; what cannot be opened or read is left to execvp to report. */
int run_check_target(struct run_opts *o)
{
	char path[RUN_PATH_MAX], file[RUN_PATH_MAX];
	Elf32_Ehdr eh;

	o->can_profile = 1;
	if (run_find_in_path(o->argv[0], path, sizeof(path)) != 0)
		return 0; /* execvp will report it */
	memcpy(file, path, sizeof(file));
	for (int depth = 0; depth < 5; depth++) {
		int fd = open(file, O_RDONLY | O_CLOEXEC), rc;

		if (fd < 0)
			return 0;
		if (read_ident(fd, &eh) == 0) {
			rc = check_elf(o, path, file, depth, fd, &eh);
			close(fd);
			return rc;
		}
		rc = shebang(fd, file, sizeof(file));
		close(fd);
		if (rc != 0)
			return 0;
	}
	return 0;
}
