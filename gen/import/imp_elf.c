// SPDX-License-Identifier: MIT
/*
 * imp_elf.c - what a shared library really exports.
 *
 * The file is the one the dynamic loader picks for the soname: it is
 * loaded with dlopen and its path read back with dlinfo(RTLD_DI_LINKMAP),
 * so LD_LIBRARY_PATH, RUNPATH-less defaults and ld.so.cache all count
 * exactly as they will for the profiled program (parsing `ldconfig -p`
 * would miss LD_LIBRARY_PATH and the multiarch order).  The exports are
 * then read from the file itself: .dynsym, with .gnu.version telling the
 * default version (foo@@V) from old ones (foo@V), whose names come from
 * .gnu.version_d.  Only defined, global or weak, default- or
 * protected-visibility functions (and GNU ifuncs) count.
 */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "spec_buf.h"
#include "imp.h"

/* .gnu.version entries: the version index, and the bit of an old version. */
#define IMP_VERSYM_INDEX  0x7fff
#define IMP_VERSYM_HIDDEN 0x8000

int imp_find_library(const char *soname, char **path)
{
	struct link_map *lm = NULL;

	if (strchr(soname, '/') != NULL) {
		*path = spec_xstrdup(soname);
		return 0;
	}
	void *h = dlopen(soname, RTLD_LAZY | RTLD_LOCAL);
	if (h == NULL) {
		fprintf(stderr, "apiprof-gen: import: cannot load %s: %s\n", soname, dlerror());
		return -1;
	}
	if (dlinfo(h, RTLD_DI_LINKMAP, &lm) != 0 || lm == NULL || lm->l_name[0] == '\0') {
		fprintf(stderr, "apiprof-gen: import: cannot tell which file %s is\n", soname);
		return -1;
	}
	*path = spec_xstrdup(lm->l_name);
	/* Left loaded: the importer exits soon, and unloading runs the
	 * library's destructors for nothing. */
	return 0;
}

/* A mapped ELF file and the sections the exports need. */
struct imp_elf {
	const unsigned char *base;
	size_t size;
	const Elf64_Sym *syms;
	size_t nsyms;
	const char *strs;
	size_t strsize;
	const Elf64_Half *versym;    /* NULL: no symbol versions */
	const unsigned char *verdef; /* NULL: no version definitions */
	size_t verdefsize;
};

static const void *imp_at(const struct imp_elf *e, Elf64_Off off, Elf64_Xword size)
{
	if (off > e->size || size > e->size - off)
		return NULL;
	return e->base + off;
}

static const Elf64_Shdr *imp_section(const struct imp_elf *e, Elf64_Word type)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)e->base;
	const Elf64_Shdr *sh = imp_at(e, eh->e_shoff, (Elf64_Xword)eh->e_shnum * sizeof *sh);

	for (size_t i = 0; sh != NULL && i < eh->e_shnum; i++)
		if (sh[i].sh_type == type)
			return &sh[i];
	return NULL;
}

static const Elf64_Shdr *imp_linked(const struct imp_elf *e, const Elf64_Shdr *s)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)e->base;
	const Elf64_Shdr *sh = imp_at(e, eh->e_shoff, (Elf64_Xword)eh->e_shnum * sizeof *sh);

	return sh != NULL && s->sh_link < eh->e_shnum ? &sh[s->sh_link] : NULL;
}

static int imp_elf_sections(struct imp_elf *e)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)e->base;
	const Elf64_Shdr *dynstr;

	if (e->size < sizeof *eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_shentsize != sizeof(Elf64_Shdr))
		return -1;
	const Elf64_Shdr *dynsym = imp_section(e, SHT_DYNSYM);
	if (dynsym == NULL || (dynstr = imp_linked(e, dynsym)) == NULL)
		return -1;
	e->nsyms = dynsym->sh_size / sizeof *e->syms;
	e->syms = imp_at(e, dynsym->sh_offset, dynsym->sh_size);
	e->strs = imp_at(e, dynstr->sh_offset, dynstr->sh_size);
	e->strsize = dynstr->sh_size;
	if (e->syms == NULL || e->strs == NULL || e->strsize == 0 || e->strs[e->strsize - 1])
		return -1;
	const Elf64_Shdr *vs = imp_section(e, SHT_GNU_versym);
	if (vs != NULL && vs->sh_size >= e->nsyms * sizeof *e->versym)
		e->versym = imp_at(e, vs->sh_offset, vs->sh_size);
	const Elf64_Shdr *vd = imp_section(e, SHT_GNU_verdef);
	if (vd != NULL && (e->verdef = imp_at(e, vd->sh_offset, vd->sh_size)) != NULL)
		e->verdefsize = vd->sh_size;
	return 0;
}

static bool imp_is_export(const Elf64_Sym *s)
{
	int type = ELF64_ST_TYPE(s->st_info), bind = ELF64_ST_BIND(s->st_info);
	int vis = ELF64_ST_VISIBILITY(s->st_other);

	return s->st_shndx != SHN_UNDEF && (type == STT_FUNC || type == STT_GNU_IFUNC) &&
	       (bind == STB_GLOBAL || bind == STB_WEAK) &&
	       (vis == STV_DEFAULT || vis == STV_PROTECTED);
}

/* The name of version index `ndx`, from .gnu.version_d (whose strings are
 * .dynstr's); NULL when the chain does not name it. */
static const char *imp_version_name(const struct imp_elf *e, Elf64_Half ndx)
{
	size_t off = 0;
	const Elf64_Verdef *vd;
	const Elf64_Verdaux *va;

	while (e->verdef != NULL && off + sizeof *vd <= e->verdefsize) {
		vd = (const Elf64_Verdef *)(e->verdef + off);
		if (vd->vd_ndx == ndx && off + vd->vd_aux + sizeof *va <= e->verdefsize) {
			va = (const Elf64_Verdaux *)(e->verdef + off + vd->vd_aux);
			return va->vda_name < e->strsize ? e->strs + va->vda_name : NULL;
		}
		if (vd->vd_next == 0)
			break;
		off += vd->vd_next;
	}
	return NULL;
}

static struct imp_export *imp_export_add(struct imp_exports *x, const char *name)
{
	for (size_t i = 0; i < x->nsyms; i++)
		if (strcmp(x->syms[i].name, name) == 0)
			return &x->syms[i];
	x->syms = spec_xrealloc(x->syms, x->nsyms + 1, sizeof *x->syms);
	struct imp_export *s = &x->syms[x->nsyms++];
	memset(s, 0, sizeof *s);
	s->name = spec_xstrdup(name);
	return s;
}

static int imp_cmp_export(const void *a, const void *b)
{
	return strcmp(((const struct imp_export *)a)->name, ((const struct imp_export *)b)->name);
}

/* Index 0 is local and 1 the unversioned base; the hidden bit marks an
 * old version (foo@V), which only objects linked against it reach. */
static void imp_add_sym(const struct imp_elf *e, size_t i, struct imp_exports *x)
{
	struct imp_export *s = imp_export_add(x, e->strs + e->syms[i].st_name);
	Elf64_Half v = e->versym != NULL ? e->versym[i] : 1;
	const char *vn =
	        (v & IMP_VERSYM_INDEX) >= 2 ? imp_version_name(e, v & IMP_VERSYM_INDEX) : NULL;

	if ((v & IMP_VERSYM_HIDDEN) == 0) {
		s->current = true;
		if (vn != NULL && s->version == NULL)
			s->version = spec_xstrdup(vn);
	} else if (s->old == NULL && vn != NULL) {
		s->old = spec_xstrdup(vn);
	}
}

/* A name with only old versions is not linkable by new programs, so it
 * does not count as exported. */
static void imp_collect(const struct imp_elf *e, struct imp_exports *x)
{
	for (size_t i = 1; i < e->nsyms; i++)
		if (imp_is_export(&e->syms[i]) && e->syms[i].st_name < e->strsize)
			imp_add_sym(e, i, x);
	size_t kept = 0;

	for (size_t i = 0; i < x->nsyms; i++) {
		if (!x->syms[i].current) {
			free(x->syms[i].name);
			free(x->syms[i].version);
			free(x->syms[i].old);
			continue;
		}
		x->syms[kept++] = x->syms[i];
	}
	x->nsyms = kept;
	qsort(x->syms, x->nsyms, sizeof *x->syms, imp_cmp_export);
}

int imp_read_exports(const char *path, struct imp_exports *x)
{
	struct imp_elf e = {0};
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &st) != 0) {
		fprintf(stderr, "apiprof-gen: import: cannot open %s: %s\n", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED) {
		fprintf(stderr, "apiprof-gen: import: cannot map %s: %s\n", path, strerror(errno));
		return -1;
	}
	e.base = map;
	e.size = (size_t)st.st_size;
	int rc = imp_elf_sections(&e);
	if (rc < 0)
		fprintf(stderr,
		        "apiprof-gen: import: %s: not an ELF64 shared library with .dynsym\n",
		        path);
	else
		imp_collect(&e, x);
	x->path = spec_xstrdup(path);
	munmap(map, e.size);
	return rc;
}

const struct imp_export *imp_export_find(const struct imp_exports *x, const char *name)
{
	struct imp_export key = {.name = (char *)name};

	return bsearch(&key, x->syms, x->nsyms, sizeof *x->syms, imp_cmp_export);
}
