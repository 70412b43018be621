// SPDX-License-Identifier: MIT
/*
 * dyn_record.c - structs and unions by value, from the spec's "types".
 *
 * A struct is an FFI_TYPE_STRUCT of its members in order; an array member
 * `T [N]` is N elements of T, which lays out and classifies exactly as the
 * array does.  libffi has no unions, so a union becomes a struct with the
 * union's size and alignment whose eightbytes have the class the x86-64
 * psABI gives the union: INTEGER where any member puts an integer or a
 * pointer, SSE where members put only floating point.  Bit-fields are
 * refused: their packing is not something a member list can say.
 */
#include <stdio.h>
#include <string.h>

#include "dyn.h"

#define DYN_MAX_ELEMS 4096

struct dyn_cached {
	const struct spec_typedef *td;
	ffi_type *type;
};

static struct dyn_cached cache[256];
static size_t ncache;

const struct spec_typedef *dyn_record_find(const struct spec *s, const char *key)
{
	for (size_t i = 0; i < s->ntypes; i++)
		if (strcmp(s->types[i].name, key) == 0)
			return &s->types[i];
	return NULL;
}

/* The element type and count of an array member: "char [12]" is 12 chars,
 * "int [4][4]" 16 ints; "char *[2]" 2 pointers. */
static ffi_type *array_elem(const struct spec *s, const struct spec_ctype *t, int depth,
                            size_t *count, struct dyn_why *why)
{
	size_t first = t->ntoks, n = 1;
	struct spec_ctype_err err;
	char text[256];

	for (size_t i = 0; i < t->ntoks; i++) {
		const struct spec_tok *k = &t->toks[i];

		if (k->kind == SPEC_TOK_PUNCT && k->s[0] == '[' && first == t->ntoks)
			first = i;
		if (k->kind == SPEC_TOK_PUNCT && k->s[0] == '(') {
			snprintf(why->msg, sizeof(why->msg), "an array member of this shape");
			return NULL;
		}
		if (first < t->ntoks && k->kind == SPEC_TOK_PUNCT && k->s[0] == '[') {
			if (i + 1 >= t->ntoks || t->toks[i + 1].kind != SPEC_TOK_INT) {
				snprintf(why->msg, sizeof(why->msg),
				         "an array member without a size");
				return NULL;
			}
			n *= strtoull(t->toks[i + 1].s, NULL, 0);
		}
	}
	snprintf(text, sizeof(text), "%.*s", (int)(t->toks[first].s - t->text), t->text);
	struct spec_ctype *et = spec_ctype_parse(text, &err);
	if (et == NULL || n == 0 || n > DYN_MAX_ELEMS) {
		spec_ctype_free(et);
		snprintf(why->msg, sizeof(why->msg), "an array member of %zu elements", n);
		return NULL;
	}
	ffi_type *ft = dyn_type_depth(s, et, DYN_MEMBER, depth, why);
	spec_ctype_free(et);
	*count = n;
	return ft;
}

static ffi_type *new_struct(ffi_type **elements, struct dyn_why *why, const char *name);

/* T [N] as a struct of N elements. */
static ffi_type *repeat(ffi_type *t, size_t n, struct dyn_why *why, const char *name)
{
	ffi_type **el = dyn_alloc((n + 1) * sizeof(*el));

	for (size_t i = 0; i < n; i++)
		el[i] = t;
	return new_struct(el, why, name);
}

/* The members' types, NULL-terminated; in a struct an array is expanded
 * into its elements. */
static ffi_type **member_list(const struct spec *s, const struct spec_typedef *td, int depth,
                              struct dyn_why *why)
{
	ffi_type **el = dyn_alloc((DYN_MAX_ELEMS + 1) * sizeof(*el));
	size_t n = 0;

	for (size_t i = 0; i < td->nmembers; i++) {
		const struct spec_member *m = &td->members[i];
		size_t count = 1;
		ffi_type *t;

		if (m->bits) {
			snprintf(why->msg, sizeof(why->msg), "%s has a bit-field", td->name);
			return NULL;
		}
		t = m->type->kind == SPEC_CT_ARRAY
		            ? array_elem(s, m->type, depth, &count, why)
		            : dyn_type_depth(s, m->type, DYN_MEMBER, depth, why);
		if (t == NULL || n + count > DYN_MAX_ELEMS)
			return NULL;
		if (td->kind == SPEC_TYPE_UNION && count > 1) /* one member: the whole array */
			t = repeat(t, count, why, td->name);
		if (t == NULL)
			return NULL;
		for (count = td->kind == SPEC_TYPE_UNION ? 1 : count; count > 0; count--)
			el[n++] = t;
	}
	return el;
}

static ffi_type *new_struct(ffi_type **elements, struct dyn_why *why, const char *name)
{
	ffi_type *t = dyn_alloc(sizeof(*t));

	t->type = FFI_TYPE_STRUCT;
	t->elements = elements;
	if (ffi_get_struct_offsets(FFI_DEFAULT_ABI, t, NULL) != FFI_OK) {
		snprintf(why->msg, sizeof(why->msg), "libffi cannot lay out %s", name);
		return NULL;
	}
	return t;
}

enum { CL_NONE, CL_SSE, CL_INT, CL_X87 };

/* Marks the class of every byte a scalar leaf of t covers. */
static void classify(const ffi_type *t, size_t off, unsigned char *cls, size_t cap)
{
	size_t offs[DYN_MAX_ELEMS];

	if (t->type == FFI_TYPE_STRUCT) {
		if (ffi_get_struct_offsets(FFI_DEFAULT_ABI, (ffi_type *)t, offs) != FFI_OK)
			return;
		for (size_t i = 0; t->elements[i] != NULL; i++)
			classify(t->elements[i], off + offs[i], cls, cap);
		return;
	}
	int c = t->type == FFI_TYPE_FLOAT || t->type == FFI_TYPE_DOUBLE ||
	                        t->type == FFI_TYPE_COMPLEX
	                ? CL_SSE
	        : t->type == FFI_TYPE_LONGDOUBLE ? CL_X87
	                                         : CL_INT;
	for (size_t i = off; i < off + t->size && i < cap; i++)
		if (c > cls[i])
			cls[i] = (unsigned char)c;
}

static ffi_type *filler(int cls, size_t unit)
{
	if (cls == CL_SSE)
		return unit >= 8 ? &ffi_type_double : &ffi_type_float;
	return unit >= 8   ? &ffi_type_uint64
	       : unit == 4 ? &ffi_type_uint32
	       : unit == 2 ? &ffi_type_uint16
	                   : &ffi_type_uint8;
}

/* Eightbyte by eightbyte, fillers of the union's alignment in the class
 * its members give that eightbyte. */
static ffi_type *union_struct(ffi_type **members, size_t size, size_t align, struct dyn_why *why,
                              const char *name)
{
	unsigned char cls[16] = {0};
	size_t unit = align > 8 ? 8 : align, n = 0;
	ffi_type **el = dyn_alloc((size / unit + 1) * sizeof(*el));

	for (size_t i = 0; members[i] != NULL; i++)
		classify(members[i], 0, cls, sizeof(cls));
	for (size_t e = 0; e * 8 < size; e++) {
		int c = CL_NONE;

		for (size_t b = e * 8; b < e * 8 + 8 && b < size; b++)
			c = cls[b] > c ? cls[b] : c;
		if (c == CL_X87 || (c == CL_SSE && unit < 4)) {
			snprintf(why->msg, sizeof(why->msg), "%s: a union of this kind", name);
			return NULL;
		}
		for (size_t b = e * 8; b < e * 8 + 8 && b < size; b += unit)
			el[n++] = filler(c == CL_SSE ? CL_SSE : CL_INT, unit);
	}
	return new_struct(el, why, name);
}

/* A union larger than 16 bytes goes in memory whatever its members. */
static ffi_type *make_union(ffi_type **members, struct dyn_why *why, const char *name)
{
	size_t size = 0, align = 1;

	for (size_t i = 0; members[i] != NULL; i++) {
		size = members[i]->size > size ? members[i]->size : size;
		align = members[i]->alignment > align ? members[i]->alignment : align;
	}
	size = (size + align - 1) / align * align;
	if (size > 16 && align <= 8) {
		ffi_type **el = dyn_alloc((size / align + 1) * sizeof(*el));

		for (size_t i = 0; i < size / align; i++)
			el[i] = filler(CL_INT, align);
		return new_struct(el, why, name);
	}
	return union_struct(members, size, align, why, name);
}

ffi_type *dyn_record(const struct spec *s, const struct spec_typedef *td, int depth,
                     struct dyn_why *why)
{
	ffi_type *t;

	for (size_t i = 0; i < ncache; i++)
		if (cache[i].td == td)
			return cache[i].type;
	ffi_type **members = member_list(s, td, depth, why);
	if (members == NULL)
		return NULL;
	if (td->kind == SPEC_TYPE_UNION) {
		/* Each member laid out on its own first, for its size and classes. */
		for (size_t i = 0; members[i] != NULL; i++)
			if (members[i]->type == FFI_TYPE_STRUCT && members[i]->size == 0 &&
			    ffi_get_struct_offsets(FFI_DEFAULT_ABI, members[i], NULL) != FFI_OK)
				return NULL;
		t = make_union(members, why, td->name);
	} else {
		t = new_struct(members, why, td->name);
	}
	if (t != NULL && ncache < sizeof(cache) / sizeof(cache[0]))
		cache[ncache++] = (struct dyn_cached){td, t};
	return t;
}
