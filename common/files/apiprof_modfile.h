/* SPDX-License-Identifier: MIT */
/*
 * apiprof_modfile.h - a process's module files (the paths its maps name)
 * opened for libelf and libdw, by the viewer (top_sym.c) and by the
 * runtime's exit-time naming of call sites (apiprof_addr.c).
 *
 * A module file is the target's to choose: its path, what lies there, its
 * size and its contents.  So a name ending in " (deleted)" is never opened
 * (the file is gone; what has that name now is someone's plant), a path is
 * resolved without following any symbolic link, only a regular file no
 * larger than APIPROF_MODFILE_MAX is opened (nothing else is ever opened
 * for reading: no FIFO to hang on, no device to wake), and compressed
 * sections that would inflate past APIPROF_INFLATE_MAX in all are hidden
 * from libelf and libdw before they see the file.
 */
#ifndef APIPROF_MODFILE_H
#define APIPROF_MODFILE_H

#include <gelf.h>
#include <stddef.h>
#include <stdint.h>

#define APIPROF_MODFILE_MAX ((int64_t)512 << 20)  /* bytes of a module or debug file */
#define APIPROF_INFLATE_MAX ((uint64_t)256 << 20) /* its compressed sections, inflated */

/* The libelf functions the check uses: the viewer links libelf, the
 * runtime finds them through libdw's handle (it never links elfutils). */
struct apiprof_elf_ops {
	Elf *(*begin)(int, Elf_Cmd, Elf *);
	int (*end)(Elf *);
	Elf_Scn *(*nextscn)(Elf *, Elf_Scn *);
	GElf_Shdr *(*getshdr)(Elf_Scn *, GElf_Shdr *);
	int (*update_shdr)(Elf_Scn *, GElf_Shdr *);
	int (*getshdrstrndx)(Elf *, size_t *);
	char *(*strptr)(Elf *, size_t, size_t);
	char *(*getident)(Elf *, size_t *);
};

/* The file at path (absolute), resolved under rootfd as the root
 * (AT_FDCWD: the caller's own root), for reading: a descriptor, or -1
 * with why set to the reason ("" when there is nothing to say: no such
 * file, or a deleted one). */
int apiprof_modfile_open(int rootfd, const char *path, char *why, size_t cap);

/* A regular file no larger than APIPROF_MODFILE_MAX: 0, or -1 with why. */
int apiprof_modfile_check(int fd, char *why, size_t cap);

/* Hides the compressed sections of elf (read from fd) that would take
 * their inflated total past APIPROF_INFLATE_MAX (zlib sections, SHF_COMPRESSED
 * or .zdebug, whose size is in their header) and every .gnu_debugdata
 * (xz, whose size is known only by inflating it): such a section becomes
 * a nameless SHT_NOBITS one, which libdw and libdwfl skip.  The number of
 * sections hidden that are not .gnu_debugdata, why naming the first. */
int apiprof_modfile_tame(Elf *elf, int fd, const struct apiprof_elf_ops *ops, char *why,
                         size_t cap);

/* A file libdw opens itself (a debug file found by build ID), so nothing
 * can be hidden from it: 0 when it passes apiprof_modfile_check and has
 * nothing to hide, else -1 with why (the file is to be refused whole). */
int apiprof_modfile_whole(int fd, const struct apiprof_elf_ops *ops, char *why, size_t cap);

#endif /* APIPROF_MODFILE_H */
