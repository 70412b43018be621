// SPDX-License-Identifier: MIT
/*
 * imp_elf.c - what a shared library really exports.
 *
 * The file is the one the dynamic loader picks for the soname: it is
 * loaded with dlopen and its path read back with dlinfo(RTLD_DI_LINKMAP),
 * so LD_LIBRARY_PATH, RUNPATH-less defaults and ld.so.cache all count
 * exactly as they will for the profiled program (parsing `ldconfig -p`
 * would miss LD_LIBRARY_PATH and the multiarch order).  The exports are
 * then read from the file itself with elfutils' libelf: .dynsym, with
 * .gnu.version telling the default version (foo@@V) from old ones (foo@V),
 * whose names come from .gnu.version_d.  Only defined, global or weak, default- or
 * protected-visibility functions (and GNU ifuncs) count.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* An ELF file opened with libelf and the sections the exports need. */
struct imp_elf {
	Elf *elf;
	Elf_Data *syms; /* .dynsym */
	size_t nsyms;
	size_t strndx;    /* .dynstr: the section index of the names */
	Elf_Data *versym; /* NULL: no symbol versions */
	Elf_Data *verdef; /* NULL: no version definitions */
};

/* The first section of `type`, as the loader's view of the file has one. */
static Elf_Scn *imp_section(Elf *elf, Elf64_Word type, GElf_Shdr *sh)
{
	for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn != NULL; scn = elf_nextscn(elf, scn))
		if (gelf_getshdr(scn, sh) != NULL && sh->sh_type == type)
			return scn;
	return NULL;
}

static int imp_elf_sections(struct imp_elf *e)
{
	GElf_Shdr sh;

	if (elf_kind(e->elf) != ELF_K_ELF || gelf_getclass(e->elf) != ELFCLASS64)
		return -1;
	Elf_Scn *dynsym = imp_section(e->elf, SHT_DYNSYM, &sh);
	if (dynsym == NULL || (e->syms = elf_getdata(dynsym, NULL)) == NULL)
		return -1;
	e->strndx = sh.sh_link;
	e->nsyms = e->syms->d_size / sizeof(Elf64_Sym);
	Elf_Scn *vs = imp_section(e->elf, SHT_GNU_versym, &sh);
	/* A table shorter than .dynsym is ignored whole, as if absent. */
	if (vs != NULL && (e->versym = elf_getdata(vs, NULL)) != NULL &&
	    e->versym->d_size < e->nsyms * sizeof(GElf_Versym))
		e->versym = NULL;
	Elf_Scn *vd = imp_section(e->elf, SHT_GNU_verdef, &sh);
	if (vd != NULL)
		e->verdef = elf_getdata(vd, NULL);
	return 0;
}

static bool imp_is_export(const GElf_Sym *s)
{
	int type = GELF_ST_TYPE(s->st_info), bind = GELF_ST_BIND(s->st_info);
	int vis = GELF_ST_VISIBILITY(s->st_other);

	return s->st_shndx != SHN_UNDEF && (type == STT_FUNC || type == STT_GNU_IFUNC) &&
	       (bind == STB_GLOBAL || bind == STB_WEAK) &&
	       (vis == STV_DEFAULT || vis == STV_PROTECTED);
}

/* The name of version index `ndx`, from .gnu.version_d (whose strings are
 * .dynstr's); NULL when the chain does not name it. */
static const char *imp_version_name(const struct imp_elf *e, GElf_Versym ndx)
{
	size_t off = 0;
	GElf_Verdef vd;
	GElf_Verdaux va;

	while (e->verdef != NULL && gelf_getverdef(e->verdef, (int)off, &vd) != NULL) {
		if (vd.vd_ndx == ndx && off + vd.vd_aux <= (size_t)INT_MAX &&
		    gelf_getverdaux(e->verdef, (int)(off + vd.vd_aux), &va) != NULL)
			return elf_strptr(e->elf, e->strndx, va.vda_name);
		if (vd.vd_next == 0 || off + vd.vd_next > (size_t)INT_MAX)
			break;
		off += vd.vd_next;
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
static void imp_add_sym(const struct imp_elf *e, size_t i, const char *name, struct imp_exports *x)
{
	struct imp_export *s = imp_export_add(x, name);
	GElf_Versym v = 1;

	if (e->versym != NULL)
		gelf_getversym(e->versym, (int)i, &v);
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
	GElf_Sym sym;

	for (size_t i = 1; i < e->nsyms && i <= INT_MAX; i++) {
		if (gelf_getsym(e->syms, (int)i, &sym) == NULL || !imp_is_export(&sym))
			continue;
		const char *name = elf_strptr(e->elf, e->strndx, sym.st_name);
		if (name != NULL)
			imp_add_sym(e, i, name, x);
	}
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
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		fprintf(stderr, "apiprof-gen: import: cannot open %s: %s\n", path, strerror(errno));
		return -1;
	}
	elf_version(EV_CURRENT);
	e.elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (e.elf == NULL) {
		fprintf(stderr, "apiprof-gen: import: cannot read %s: %s\n", path, elf_errmsg(-1));
		close(fd);
		return -1;
	}
	int rc = imp_elf_sections(&e);
	if (rc < 0)
		fprintf(stderr,
		        "apiprof-gen: import: %s: not an ELF64 shared library with .dynsym\n",
		        path);
	else
		imp_collect(&e, x);
	x->path = spec_xstrdup(path);
	elf_end(e.elf);
	close(fd);
	return rc;
}

const struct imp_export *imp_export_find(const struct imp_exports *x, const char *name)
{
	struct imp_export key = {.name = (char *)name};

	return bsearch(&key, x->syms, x->nsyms, sizeof *x->syms, imp_cmp_export);
}
