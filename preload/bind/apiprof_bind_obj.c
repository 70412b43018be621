// SPDX-License-Identifier: MIT
/*
 * apiprof_bind_obj.c - one loaded object's dynamic section, read from the
 * process's memory with <elf.h>/<link.h> types (libelf reads files; these
 * are the loader's own structures, already mapped).
 *
 * The loader adjusts some d_ptr entries by l_addr in place and leaves
 * others (the vDSO's, a read-only dynamic section) as offsets, so each
 * address is taken as it is when it lies in the object's segments, else
 * with l_addr added, else the object is not parsed.  Every table is
 * checked against the segments before it is read: an object that does not
 * add up is skipped whole, never read out of bounds.
 */
#include <string.h>

#include "apiprof_bind_int.h"

bool bind_obj_has(const struct bind_obj *o, uintptr_t p, size_t n, unsigned flag)
{
	for (unsigned i = 0; i < o->phnum; i++) {
		const ElfW(Phdr) *ph = &o->phdr[i];
		uintptr_t lo = o->base + ph->p_vaddr;

		if (ph->p_type != PT_LOAD || (flag && !(ph->p_flags & flag)))
			continue;
		if (p >= lo && n <= ph->p_memsz && p - lo <= ph->p_memsz - n)
			return true;
	}
	return false;
}

/* d_ptr as an address in o, 0 when it is in none of its segments. */
static uintptr_t addr_of(const struct bind_obj *o, uintptr_t v)
{
	if (bind_obj_has(o, v, 1, 0))
		return v;
	if (bind_obj_has(o, v + o->base, 1, 0))
		return v + o->base;
	return 0;
}

struct dyn_vals {
	uintptr_t v[DT_NUM];
	uintptr_t versym, verneed, verdef, gnu_hash;
	bool seen[DT_NUM];
};

static void read_dynamic(const ElfW(Dyn) * d, struct dyn_vals *dv)
{
	for (; d->d_tag != DT_NULL; d++) {
		if (d->d_tag >= 0 && d->d_tag < DT_NUM) {
			dv->v[d->d_tag] = d->d_un.d_val;
			dv->seen[d->d_tag] = true;
		} else if (d->d_tag == DT_VERSYM)
			dv->versym = d->d_un.d_ptr;
		else if (d->d_tag == DT_VERNEED)
			dv->verneed = d->d_un.d_ptr;
		else if (d->d_tag == DT_VERDEF)
			dv->verdef = d->d_un.d_ptr;
		else if (d->d_tag == DT_GNU_HASH)
			dv->gnu_hash = d->d_un.d_ptr;
	}
}

static const void *table(const struct bind_obj *o, uintptr_t v, size_t len)
{
	uintptr_t p = v ? addr_of(o, v) : 0;

	return p && bind_obj_has(o, p, len ? len : 1, 0) ? (const void *)p : NULL;
}

static int relocs(struct bind_obj *o, const struct dyn_vals *dv, const char **why)
{
	if (dv->seen[DT_RELA]) {
		o->rela = table(o, dv->v[DT_RELA], dv->v[DT_RELASZ]);
		o->nrela = dv->v[DT_RELASZ] / sizeof(ElfW(Rela));
		if (o->rela == NULL)
			return *why = "DT_RELA outside the object", -1;
	}
	if (dv->seen[DT_JMPREL]) {
		if (dv->v[DT_PLTREL] != DT_RELA)
			return *why = "DT_PLTREL is not DT_RELA", -1;
		o->jmprel = table(o, dv->v[DT_JMPREL], dv->v[DT_PLTRELSZ]);
		o->njmprel = dv->v[DT_PLTRELSZ] / sizeof(ElfW(Rela));
		if (o->jmprel == NULL)
			return *why = "DT_JMPREL outside the object", -1;
	}
	return 0;
}

static void relro(struct bind_obj *o)
{
	uintptr_t page = 4096;

	for (unsigned i = 0; i < o->phnum; i++) {
		const ElfW(Phdr) *ph = &o->phdr[i];

		if (ph->p_type != PT_GNU_RELRO)
			continue;
		/* as the loader rounds it (_dl_protect_relro): whole pages only */
		o->relro_lo = (o->base + ph->p_vaddr) & ~(page - 1);
		o->relro_hi = (o->base + ph->p_vaddr + ph->p_memsz) & ~(page - 1);
	}
}

static int parse_dyn(struct bind_obj *o, const ElfW(Dyn) * d, const char **why)
{
	struct dyn_vals dv = {{0}, 0, 0, 0, 0, {0}};

	read_dynamic(d, &dv);
	o->strsz = dv.v[DT_STRSZ];
	o->strtab = table(o, dv.v[DT_STRTAB], o->strsz);
	o->symtab = table(o, dv.v[DT_SYMTAB], sizeof(ElfW(Sym)));
	if (o->strtab == NULL || o->symtab == NULL || o->strsz == 0)
		return dv.seen[DT_RELA] || dv.seen[DT_JMPREL]
		               ? (*why = "no symbol or string table in its segments", -1)
		               : 0;
	o->versym = table(o, dv.versym, sizeof(ElfW(Half)));
	o->verneed = table(o, dv.verneed, sizeof(ElfW(Verneed)));
	o->verdef = table(o, dv.verdef, sizeof(ElfW(Verdef)));
	o->gnu_hash = table(o, dv.gnu_hash, 16);
	return relocs(o, &dv, why);
}

int bind_obj_parse(const struct dl_phdr_info *info, struct bind_obj *o, const char **why)
{
	const ElfW(Dyn) *d = NULL;

	memset(o, 0, sizeof(*o));
	o->name = info->dlpi_name && info->dlpi_name[0] ? info->dlpi_name : "(main program)";
	o->base = info->dlpi_addr;
	o->phdr = info->dlpi_phdr;
	o->phnum = info->dlpi_phnum;
	for (unsigned i = 0; i < o->phnum; i++)
		if (o->phdr[i].p_type == PT_DYNAMIC)
			d = (const ElfW(Dyn) *)(o->base + o->phdr[i].p_vaddr);
	if (d == NULL)
		return *why = "no dynamic section", -1;
	o->dyn = (uintptr_t)d;
	if (!bind_obj_has(o, o->dyn, sizeof(*d), 0))
		return *why = "its dynamic section is outside its segments", -1;
	relro(o);
	return parse_dyn(o, d, why);
}

const char *bind_obj_sym_name(const struct bind_obj *o, size_t i)
{
	const ElfW(Sym) *s = o->symtab + i;

	if (!bind_obj_has(o, (uintptr_t)s, sizeof(*s), 0) || s->st_name >= o->strsz)
		return NULL;
	return o->strtab + s->st_name;
}

static unsigned ver_index(const struct bind_obj *o, size_t i)
{
	const ElfW(Half) *v = o->versym ? o->versym + i : NULL;

	if (v == NULL || !bind_obj_has(o, (uintptr_t)v, sizeof(*v), 0))
		return 0;
	return *v & 0x7fff;
}

static const char *str_at(const struct bind_obj *o, size_t off)
{
	return off < o->strsz ? o->strtab + off : NULL;
}

/* Walks a chain of version records: next is the byte offset of the next
 * one, 0 at the end; each is checked against the segments.  At most 4096
 * steps: a loop in a corrupt chain ends. */
#define VER_STEP(p, T, off) ((p) = (off) ? (const T *)((const char *)(p) + (off)) : NULL)

const char *bind_obj_ref_version(const struct bind_obj *o, size_t i)
{
	unsigned ndx = ver_index(o, i);
	const ElfW(Verneed) *vn = o->verneed;

	if (ndx < 2)
		return NULL;
	for (int n = 0; vn && n < 4096 && bind_obj_has(o, (uintptr_t)vn, sizeof(*vn), 0); n++) {
		const ElfW(Vernaux) *va = (const ElfW(Vernaux) *)((const char *)vn + vn->vn_aux);

		for (unsigned k = 0;
		     k < vn->vn_cnt && bind_obj_has(o, (uintptr_t)va, sizeof(*va), 0); k++) {
			if ((va->vna_other & 0x7fff) == ndx)
				return str_at(o, va->vna_name);
			VER_STEP(va, ElfW(Vernaux), va->vna_next);
			if (va == NULL)
				break;
		}
		VER_STEP(vn, ElfW(Verneed), vn->vn_next);
	}
	return NULL;
}

const char *bind_obj_def_version(const struct bind_obj *o, size_t i)
{
	unsigned ndx = ver_index(o, i);
	const ElfW(Verdef) *vd = o->verdef;

	if (ndx < 2)
		return NULL;
	for (int n = 0; vd && n < 4096 && bind_obj_has(o, (uintptr_t)vd, sizeof(*vd), 0); n++) {
		const ElfW(Verdaux) *va = (const ElfW(Verdaux) *)((const char *)vd + vd->vd_aux);

		if (vd->vd_ndx == ndx && bind_obj_has(o, (uintptr_t)va, sizeof(*va), 0))
			return str_at(o, va->vda_name);
		VER_STEP(vd, ElfW(Verdef), vd->vd_next);
	}
	return NULL;
}

struct find_arg {
	uintptr_t dyn;
	struct bind_obj *o;
	int found;
};

static int find_one(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct find_arg *a = arg;
	const char *why;

	(void)size;
	for (unsigned i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_DYNAMIC &&
		    info->dlpi_addr + info->dlpi_phdr[i].p_vaddr == a->dyn) {
			a->found = bind_obj_parse(info, a->o, &why) == 0 ? 1 : -1;
			return 1;
		}
	return 0;
}

int bind_obj_find(uintptr_t dyn, struct bind_obj *o)
{
	struct find_arg a = {dyn, o, 0};

	dl_iterate_phdr(find_one, &a);
	return a.found == 1 ? 0 : -1;
}

/* --- definitions: the GNU hash table ------------------------------------ */

static uint32_t gnu_hash(const char *s)
{
	uint32_t h = 5381;

	while (*s)
		h = h * 33 + (unsigned char)*s++;
	return h;
}

static const uint32_t *u32_at(const struct bind_obj *o, const uint32_t *p)
{
	return bind_obj_has(o, (uintptr_t)p, sizeof(*p), 0) ? p : NULL;
}

/* Whether symbol i is a definition of name the loader would bind an
 * unversioned reference to (ver NULL: no version or the default one), or
 * one asking for version ver. */
static bool defines(const struct bind_obj *o, size_t i, const char *name, const char *ver)
{
	const ElfW(Sym) *s = o->symtab + i;
	const char *n = bind_obj_sym_name(o, i);

	if (n == NULL || strcmp(n, name) != 0 || s->st_shndx == SHN_UNDEF || s->st_value == 0 ||
	    ELF64_ST_TYPE(s->st_info) != STT_FUNC ||
	    (ELF64_ST_BIND(s->st_info) != STB_GLOBAL && ELF64_ST_BIND(s->st_info) != STB_WEAK))
		return false;
	const char *v = bind_obj_def_version(o, i);
	const ElfW(Half) *vs = o->versym ? o->versym + i : NULL;
	bool hidden = vs && bind_obj_has(o, (uintptr_t)vs, sizeof(*vs), 0) && (*vs & 0x8000);
	if (ver != NULL)
		return v != NULL && strcmp(v, ver) == 0;
	return !hidden;
}

/* The address o defines name at (version ver, or the default), 0 if none.
 * IFUNCs are not taken: their address is the resolver's. */
uintptr_t bind_obj_lookup(const struct bind_obj *o, const char *name, const char *ver)
{
	const uint32_t *h = o->gnu_hash;

	if (h == NULL || o->symtab == NULL || h[0] == 0)
		return 0;
	uint32_t nb = h[0], off = h[1], hash = gnu_hash(name);
	const uint32_t *buckets = (const uint32_t *)((const uint64_t *)(h + 4) + h[2]);
	const uint32_t *b = u32_at(o, buckets + hash % nb);
	uint32_t i = b ? *b : 0;
	if (i < off)
		return 0;
	for (const uint32_t *c; (c = u32_at(o, buckets + nb + (i - off))) != NULL; i++) {
		if ((*c | 1) == (hash | 1) && defines(o, i, name, ver))
			return o->base + o->symtab[i].st_value;
		if (*c & 1)
			break;
	}
	return 0;
}
