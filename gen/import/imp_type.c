// SPDX-License-Identifier: MIT
/*
 * imp_type.c - libclang types as spec type strings, and the layouts of
 * structs and unions passed by value.
 *
 * A type is written as the header spells it (clang keeps typedef names:
 * `z_streamp`, not `struct z_stream_s *`), so the generated shim checks
 * it against the same header.  Every spelling is then parsed with the
 * generator's own type grammar: what the grammar refuses (`__int128`, an
 * anonymous struct's "(unnamed at ...)") makes the function unsupported
 * instead of making the spec invalid.
 */
#include <clang-c/Index.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spec_buf.h"
#include "spec_ctype.h"
#include "imp_clang.h"

char *imp_string(CXString s)
{
	char *r = spec_xstrdup(clang_getCString(s) ? clang_getCString(s) : "");

	clang_disposeString(s);
	return r;
}

char *imp_type_spell(CXType t)
{
	return imp_string(clang_getTypeSpelling(t));
}

bool imp_type_ok(const char *spelling)
{
	struct spec_ctype_err err;
	struct spec_ctype *t = spec_ctype_parse(spelling, &err);

	spec_ctype_free(t);
	return t != NULL;
}

/* x86-64's va_list is `struct __va_list_tag[1]`, a pointer once it is a
 * parameter; the typedef may be spelled va_list, __gnuc_va_list, ... */
bool imp_is_va_list(CXType t)
{
	char *s = imp_type_spell(clang_getCanonicalType(t));
	bool r = strstr(s, "__va_list_tag") != NULL;

	free(s);
	return r;
}

static struct imp_record *imp_record_find(struct imp_header *h, const char *name)
{
	for (size_t i = 0; i < h->nrecords; i++)
		if (strcmp(h->records[i].name, name) == 0)
			return &h->records[i];
	return NULL;
}

struct imp_fields {
	struct imp_header *h;
	size_t idx;    /* the record in h->records, which may move */
	CXType *types; /* the members' types, for their own layouts */
	size_t ntypes;
	bool bad;
};

static void imp_add_member(struct imp_fields *f, CXCursor c)
{
	struct imp_record *r = &f->h->records[f->idx];
	char *name = imp_string(clang_getCursorSpelling(c));

	r->members = spec_xrealloc(r->members, r->nmembers + 1, sizeof *r->members);
	struct imp_member *m = &r->members[r->nmembers++];
	m->type = imp_type_spell(clang_getCursorType(c));
	m->bits = clang_Cursor_isBitField(c) ? clang_getFieldDeclBitWidth(c) : 0;
	m->name = name[0] != '\0' ? name : NULL;
	if (m->name == NULL)
		free(name);
	if (!imp_type_ok(m->type))
		f->bad = true;
}

static enum CXVisitorResult imp_field(CXCursor c, CXClientData data)
{
	struct imp_fields *f = data;

	imp_add_member(f, c);
	f->types = spec_xrealloc(f->types, f->ntypes + 1, sizeof *f->types);
	f->types[f->ntypes++] = clang_getCursorType(c);
	return CXVisit_Continue;
}

/* The record under typedefs and, for a member, under arrays (an array
 * parameter is a pointer), or a type of another kind. */
static CXType imp_record_of(CXType t, bool member)
{
	CXType c = clang_getCanonicalType(t);

	while (member && c.kind == CXType_ConstantArray)
		c = clang_getCanonicalType(clang_getArrayElementType(c));
	return c;
}

/* A layout the spec grammar cannot write (an anonymous member's type) is
 * left empty: the writer leaves it out and says so. */
static void imp_drop_members(struct imp_record *r)
{
	for (size_t i = 0; i < r->nmembers; i++) {
		free(r->members[i].type);
		free(r->members[i].name);
	}
	free(r->members);
	r->members = NULL;
	r->nmembers = 0;
}

static bool imp_is_fnptr(CXType c)
{
	CXType p = clang_getCanonicalType(clang_getPointeeType(c));

	return p.kind == CXType_FunctionProto || p.kind == CXType_FunctionNoProto;
}

/* What dynamic mode maps a canonical type by: an enum is its integer
 * type, a function pointer or a pointer the grammar cannot write (to an
 * anonymous struct) is "void *".  NULL: nothing the grammar can write. */
static char *imp_canon(CXType c)
{
	if (c.kind == CXType_Enum)
		c = clang_getCanonicalType(
		        clang_getEnumDeclIntegerType(clang_getTypeDeclaration(c)));
	if (c.kind == CXType_Pointer && imp_is_fnptr(c))
		return spec_xstrdup("void *");
	char *s = imp_type_spell(c);
	if (imp_type_ok(s))
		return s;
	free(s);
	return c.kind == CXType_Pointer ? spec_xstrdup("void *") : NULL;
}

/* The name a spec's types are keyed by: a typedef's name, "enum X". */
static char *imp_tdef_key(CXType t, bool *is_enum)
{
	if (t.kind == CXType_Elaborated)
		t = clang_Type_getNamedType(t);
	*is_enum = t.kind == CXType_Enum;
	if (t.kind == CXType_Typedef)
		return imp_string(clang_getTypedefName(t));
	if (!*is_enum)
		return NULL;
	char *tag = imp_string(clang_getCursorSpelling(clang_getTypeDeclaration(t)));
	struct spec_buf b;
	spec_buf_init(&b);
	spec_buf_printf(&b, "enum %s", tag);
	free(tag);
	return spec_buf_steal(&b);
}

static bool imp_tdef_known(const struct imp_header *h, const char *name)
{
	for (size_t i = 0; i < h->ntdefs; i++)
		if (strcmp(h->tdefs[i].name, name) == 0)
			return true;
	return false;
}

/* A typedef (not of a struct or union: those get a layout) or an enum. */
static void imp_note_tdef(struct imp_header *h, CXType t, CXType c)
{
	bool is_enum;
	char *name = imp_tdef_key(t, &is_enum), *type = NULL;

	if (name != NULL && imp_type_ok(name) && !imp_tdef_known(h, name))
		type = imp_canon(c);
	if (type == NULL) {
		free(name);
		return;
	}
	h->tdefs = spec_xrealloc(h->tdefs, h->ntdefs + 1, sizeof *h->tdefs);
	h->tdefs[h->ntdefs++] = (struct imp_tdef){.name = name, .type = type, .is_enum = is_enum};
}

static void imp_note(struct imp_header *h, CXType t, bool member)
{
	CXType c = imp_record_of(t, member);
	struct imp_fields f = {.h = h};

	while (member && t.kind == CXType_ConstantArray)
		t = clang_getArrayElementType(t);
	if (c.kind != CXType_Record) {
		imp_note_tdef(h, t, c);
		return;
	}
	char *name = imp_type_spell(t);
	if (!imp_type_ok(name) || imp_record_find(h, name) != NULL) {
		free(name);
		return;
	}
	h->records = spec_xrealloc(h->records, h->nrecords + 1, sizeof *h->records);
	struct imp_record *r = &h->records[h->nrecords];
	memset(r, 0, sizeof *r);
	r->name = name;
	r->is_union = clang_getCursorKind(clang_getTypeDeclaration(c)) == CXCursor_UnionDecl;
	f.idx = h->nrecords++;
	clang_Type_visitFields(c, imp_field, &f);
	if (f.bad)
		imp_drop_members(&h->records[f.idx]);
	/* Members by value need their own layouts (after the visit: adding
	 * records moves the array). */
	for (size_t i = 0; i < f.ntypes && !f.bad; i++)
		imp_note(h, f.types[i], true);
	free(f.types);
}

void imp_note_type(struct imp_header *h, CXType t)
{
	imp_note(h, t, false);
}
