/* SPDX-License-Identifier: MIT */
/*
 * apiprof_modfile.c - module files opened for libelf and libdw without
 * trusting them (apiprof_modfile.h).
 *
 * The path is resolved by openat2 with RESOLVE_NO_SYMLINKS (and
 * RESOLVE_IN_ROOT under the target's root), or where a seccomp filter
 * refuses openat2 by a walk of O_NOFOLLOW opens, into an O_PATH descriptor,
 * which opens nothing: only when fstat says it is a regular file of an
 * allowed size is it opened for reading, through /proc/self/fd, which
 * reopens that very file (no second look-up of the path to race with).
 * The caller's file-system credentials decide whether it may be read.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/openat2.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "apiprof_modfile.h"

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), t = strlen(tail);

	return n >= t && strcmp(s + n - t, tail) == 0;
}

int apiprof_modfile_check(int fd, char *why, size_t cap)
{
	struct stat st;

	if (fstat(fd, &st) != 0) {
		snprintf(why, cap, "%s", strerror(errno));
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(why, cap, "not a regular file");
		return -1;
	}
	if (st.st_size > APIPROF_MODFILE_MAX) {
		snprintf(why, cap, "%" PRId64 " bytes, more than the %" PRId64 " allowed",
		         (int64_t)st.st_size, APIPROF_MODFILE_MAX);
		return -1;
	}
	return 0;
}

/* The next component of *path into part ("" at the end); -1 if too long. */
static int component(const char **path, char *part, size_t cap)
{
	const char *p = *path + strspn(*path, "/");
	size_t n = strcspn(p, "/");

	if (n >= cap)
		return -1;
	memcpy(part, p, n);
	part[n] = '\0';
	*path = p + n;
	return 0;
}

/* Where openat2 is refused (a seccomp filter of an older container
 * runtime answers ENOSYS or EPERM): the same walk one component at a
 * time from the root, O_PATH and O_NOFOLLOW each, no "..", and a link at
 * the end is ELOOP too. */
/* Not inlined: its name buffer and stat stay out of apiprof_modfile_open's
 * frame, which the runtime runs on a program's thread at exit (at most
 * 512 bytes a frame, robust-stack-usage). */
__attribute__((noinline)) static int walk_fd(int rootfd, const char *path)
{
	char part[256];
	struct stat st;
	int dir = rootfd == AT_FDCWD ? open("/", O_PATH | O_DIRECTORY | O_CLOEXEC)
	                             : fcntl(rootfd, F_DUPFD_CLOEXEC, 0);

	while (dir >= 0) {
		if (component(&path, part, sizeof part) != 0) {
			close(dir);
			errno = ENAMETOOLONG;
			return -1;
		}
		if (part[0] == '\0')
			break;
		int next = strcmp(part, "..") == 0
		                   ? (errno = ELOOP, -1)
		                   : openat(dir, part, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		int saved = errno;
		close(dir);
		errno = saved;
		if (next >= 0 && fstat(next, &st) == 0 && S_ISLNK(st.st_mode)) {
			close(next);
			errno = ELOOP;
			next = -1;
		}
		dir = next;
	}
	return dir;
}

static int path_fd(int rootfd, const char *path, char *why, size_t cap)
{
	/* No O_NOFOLLOW: with it O_PATH would open a final symbolic link
	 * itself; RESOLVE_NO_SYMLINKS refuses it, and every other, ELOOP. */
	struct open_how how = {
	        .flags = O_PATH | O_CLOEXEC,
	        .resolve = RESOLVE_NO_SYMLINKS | (rootfd == AT_FDCWD ? 0 : RESOLVE_IN_ROOT),
	};
	int fd = (int)syscall(SYS_openat2, rootfd, path, &how, sizeof how);

	if (fd < 0 && (errno == ENOSYS || errno == EPERM))
		fd = walk_fd(rootfd, path);
	if (fd < 0 && errno == ELOOP)
		snprintf(why, cap, "a symbolic link on its path");
	else if (fd < 0 && errno != ENOENT && errno != ENOTDIR)
		snprintf(why, cap, "%s", strerror(errno));
	return fd;
}

int apiprof_modfile_open(int rootfd, const char *path, char *why, size_t cap)
{
	char self[64];

	why[0] = '\0';
	if (path[0] != '/' || ends_with(path, " (deleted)"))
		return -1;
	int pfd = path_fd(rootfd, path, why, cap);
	if (pfd < 0)
		return -1;
	int fd = -1;
	if (apiprof_modfile_check(pfd, why, cap) == 0) {
		snprintf(self, sizeof self, "/proc/self/fd/%d", pfd);
		fd = open(self, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
		if (fd < 0)
			snprintf(why, cap, "%s", strerror(errno));
	}
	close(pfd);
	return fd;
}

/* --- compressed sections ------------------------------------------------ */

static uint64_t bytes_to_u64(const unsigned char *b, size_t n, bool big)
{
	uint64_t v = 0;

	for (size_t i = 0; i < n; i++)
		v = (v << 8) | b[big ? i : n - 1 - i];
	return v;
}

/* The inflated size a zlib section's header gives, UINT64_MAX when it
 * cannot be read. */
static uint64_t inflated_size(int fd, const char *ident, const GElf_Shdr *sh, bool gnu)
{
	unsigned char b[24];
	bool is64 = ident[EI_CLASS] == ELFCLASS64, big = ident[EI_DATA] == ELFDATA2MSB;
	/* .zdebug: "ZLIB" and the size, big-endian; Elf64_Chdr: the size at
	 * 8; Elf32_Chdr: at 4. */
	size_t at = gnu ? 4 : is64 ? 8 : 4, n = gnu || is64 ? 8 : 4;

	if (sh->sh_offset > (uint64_t)INT64_MAX ||
	    pread(fd, b, at + n, (off_t)sh->sh_offset) != (ssize_t)(at + n) ||
	    (gnu && memcmp(b, "ZLIB", 4) != 0))
		return UINT64_MAX;
	return bytes_to_u64(b + at, n, big || gnu);
}

static void hide(Elf_Scn *scn, GElf_Shdr *sh, const struct apiprof_elf_ops *ops)
{
	sh->sh_name = 0; /* "": a name no reader looks for */
	sh->sh_type = SHT_NOBITS;
	sh->sh_flags &= ~(GElf_Xword)SHF_COMPRESSED;
	sh->sh_size = 0;
	ops->update_shdr(scn, sh);
}

/* The state of one file's walk over its sections. */
struct tame {
	int fd;
	const char *ident;
	uint64_t total;
	int hidden;
	char *why;
	size_t cap;
};

static void tame_section(struct tame *t, Elf_Scn *scn, GElf_Shdr *sh, const char *name,
                         const struct apiprof_elf_ops *ops)
{
	bool gnu = strncmp(name, ".zdebug", 7) == 0 && !(sh->sh_flags & SHF_COMPRESSED);

	if (strcmp(name, ".gnu_debugdata") == 0) {
		hide(scn, sh, ops);
		return;
	}
	if (sh->sh_type == SHT_NOBITS || (!gnu && !(sh->sh_flags & SHF_COMPRESSED)))
		return;
	uint64_t size = inflated_size(t->fd, t->ident, sh, gnu);
	if (size <= APIPROF_INFLATE_MAX - t->total) {
		t->total += size;
		return;
	}
	if (t->hidden++ == 0)
		snprintf(t->why, t->cap,
		         "section %s inflates to %" PRIu64 " bytes, more than the %" PRIu64
		         " allowed",
		         name, size, APIPROF_INFLATE_MAX - t->total);
	hide(scn, sh, ops);
}

int apiprof_modfile_tame(Elf *elf, int fd, const struct apiprof_elf_ops *ops, char *why, size_t cap)
{
	struct tame t = {.fd = fd, .why = why, .cap = cap};
	size_t shstrndx;
	GElf_Shdr sh;

	why[0] = '\0';
	t.ident = ops->getident(elf, NULL);
	if (t.ident == NULL || ops->getshdrstrndx(elf, &shstrndx) != 0)
		return 0; /* no sections libdw could read either */
	for (Elf_Scn *scn = ops->nextscn(elf, NULL); scn != NULL; scn = ops->nextscn(elf, scn)) {
		if (ops->getshdr(scn, &sh) == NULL)
			continue;
		const char *name = ops->strptr(elf, shstrndx, sh.sh_name);
		tame_section(&t, scn, &sh, name ? name : "", ops);
	}
	return t.hidden;
}

int apiprof_modfile_whole(int fd, const struct apiprof_elf_ops *ops, char *why, size_t cap)
{
	if (apiprof_modfile_check(fd, why, cap) != 0)
		return -1;
	Elf *elf = ops->begin(fd, ELF_C_READ, NULL);
	int hidden = elf != NULL ? apiprof_modfile_tame(elf, fd, ops, why, cap) : 0;
	if (elf != NULL)
		ops->end(elf);
	return hidden == 0 ? 0 : -1;
}
