// SPDX-License-Identifier: MIT
/*
 * dyn_audit_ver.c - the symbol version of a definition, from the defining
 * object's DT_VERSYM and DT_VERDEF.
 *
 * la_symbind64 gives the definition's index in its object's symbol table;
 * the version tells ab_ver@AB_1 from ab_ver@@AB_2, which have one name.
 * glibc rewrites some d_ptr entries of a loaded object's dynamic section
 * to absolute addresses and leaves others as offsets; an address below the
 * load base is an offset.
 */
#include <elf.h>

#include "dyn_audit.h"

struct dyn_vinfo {
	const Elf64_Half *versym;
	const char *verdef;
	const char *strtab;
};

static const char *addr(const struct link_map *m, Elf64_Addr p)
{
	return (const char *)(m->l_addr != 0 && p < m->l_addr ? p + m->l_addr : p);
}

static void read_dynamic(const struct link_map *m, struct dyn_vinfo *v)
{
	for (const Elf64_Dyn *d = m->l_ld; d != NULL && d->d_tag != DT_NULL; d++) {
		if (d->d_tag == DT_VERSYM)
			v->versym = (const Elf64_Half *)addr(m, d->d_un.d_ptr);
		else if (d->d_tag == DT_VERDEF)
			v->verdef = addr(m, d->d_un.d_ptr);
		else if (d->d_tag == DT_STRTAB)
			v->strtab = addr(m, d->d_un.d_ptr);
	}
}

static const char *verdef_name(const struct dyn_vinfo *v, unsigned idx)
{
	const char *p = v->verdef;

	for (;;) {
		const Elf64_Verdef *vd = (const Elf64_Verdef *)p;

		if (vd->vd_ndx == idx && !(vd->vd_flags & VER_FLG_BASE)) {
			const Elf64_Verdaux *aux = (const Elf64_Verdaux *)(p + vd->vd_aux);

			return v->strtab + aux->vda_name;
		}
		if (vd->vd_next == 0)
			return NULL;
		p += vd->vd_next;
	}
}

const char *dyn_audit_version(struct link_map *m, unsigned ndx, bool *hidden)
{
	struct dyn_vinfo v = {0};

	*hidden = false;
	if (m == NULL)
		return NULL;
	read_dynamic(m, &v);
	if (v.versym == NULL || v.verdef == NULL || v.strtab == NULL)
		return NULL;
	Elf64_Half vs = v.versym[ndx];
	*hidden = (vs & 0x8000) != 0;
	return (vs & 0x7fff) > 1 ? verdef_name(&v, vs & 0x7fff) : NULL;
}
