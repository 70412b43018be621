// SPDX-License-Identifier: MIT
/*
 * dyn_types.c - the spec's C types as libffi types, without headers.
 *
 * Pointers of every kind are ffi_type_pointer.  A base type is a
 * combination of builtin keywords, `struct X`/`union X` (their layout comes
 * from the spec's "types"), `enum X` (its integer type from "types", else
 * an int, as GCC lays out every enum without negative or wide values) or a
 * typedef name: the spec's "types" first (the importer records every
 * typedef's canonical type there), then the table below of typedefs
 * common in C APIs, for specs written by hand.  Anything else is refused
 * with the reason, and the function runs unprofiled.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dyn.h"

#define DYN_MAX_DEPTH 8

/* Typedefs whose definition is the same on every x86-64 Linux. */
struct dyn_tdef {
	const char *name;
	ffi_type *type;
	bool array; /* an array type: only usable as a parameter, as a pointer */
};

static const struct dyn_tdef dyn_tdefs[] = {
        {"size_t", &ffi_type_uint64, false},
        {"ssize_t", &ffi_type_sint64, false},
        {"off_t", &ffi_type_sint64, false},
        {"off64_t", &ffi_type_sint64, false},
        {"loff_t", &ffi_type_sint64, false},
        {"ptrdiff_t", &ffi_type_sint64, false},
        {"intptr_t", &ffi_type_sint64, false},
        {"uintptr_t", &ffi_type_uint64, false},
        {"intmax_t", &ffi_type_sint64, false},
        {"uintmax_t", &ffi_type_uint64, false},
        {"int8_t", &ffi_type_sint8, false},
        {"uint8_t", &ffi_type_uint8, false},
        {"int16_t", &ffi_type_sint16, false},
        {"uint16_t", &ffi_type_uint16, false},
        {"int32_t", &ffi_type_sint32, false},
        {"uint32_t", &ffi_type_uint32, false},
        {"int64_t", &ffi_type_sint64, false},
        {"uint64_t", &ffi_type_uint64, false},
        {"pid_t", &ffi_type_sint32, false},
        {"uid_t", &ffi_type_uint32, false},
        {"gid_t", &ffi_type_uint32, false},
        {"id_t", &ffi_type_uint32, false},
        {"mode_t", &ffi_type_uint32, false},
        {"dev_t", &ffi_type_uint64, false},
        {"ino_t", &ffi_type_uint64, false},
        {"ino64_t", &ffi_type_uint64, false},
        {"nlink_t", &ffi_type_uint64, false},
        {"blksize_t", &ffi_type_sint64, false},
        {"blkcnt_t", &ffi_type_sint64, false},
        {"time_t", &ffi_type_sint64, false},
        {"clock_t", &ffi_type_sint64, false},
        {"clockid_t", &ffi_type_sint32, false},
        {"suseconds_t", &ffi_type_sint64, false},
        {"useconds_t", &ffi_type_uint32, false},
        {"socklen_t", &ffi_type_uint32, false},
        {"sa_family_t", &ffi_type_uint16, false},
        {"in_port_t", &ffi_type_uint16, false},
        {"in_addr_t", &ffi_type_uint32, false},
        {"nfds_t", &ffi_type_uint64, false},
        {"rlim_t", &ffi_type_uint64, false},
        {"key_t", &ffi_type_sint32, false},
        {"sig_atomic_t", &ffi_type_sint32, false},
        {"wchar_t", &ffi_type_sint32, false},
        {"wint_t", &ffi_type_uint32, false},
        {"pthread_t", &ffi_type_uint64, false},
        {"pthread_key_t", &ffi_type_uint32, false},
        {"__ssize_t", &ffi_type_sint64, false},
        {"__off_t", &ffi_type_sint64, false},
        {"__off64_t", &ffi_type_sint64, false},
        {"__pid_t", &ffi_type_sint32, false},
        {"va_list", &ffi_type_pointer, true},
        {"__gnuc_va_list", &ffi_type_pointer, true},
        {"jmp_buf", &ffi_type_pointer, true},
        {"sigjmp_buf", &ffi_type_pointer, true},
        {"__clockid_t", &ffi_type_sint32, false},
        {"__time_t", &ffi_type_sint64, false},
        {"__uid_t", &ffi_type_uint32, false},
        {"__gid_t", &ffi_type_uint32, false},
        {"__mode_t", &ffi_type_uint32, false},
        {"__dev_t", &ffi_type_uint64, false},
        {"__ino_t", &ffi_type_uint64, false},
        {"__socklen_t", &ffi_type_uint32, false},
        {"__suseconds_t", &ffi_type_sint64, false},
        {"__useconds_t", &ffi_type_uint32, false},
        /* zlib (zconf.h) */
        {"Byte", &ffi_type_uint8, false},
        {"Bytef", &ffi_type_uint8, false},
        {"charf", &ffi_type_schar, false},
        {"intf", &ffi_type_sint32, false},
        {"uInt", &ffi_type_uint32, false},
        {"uIntf", &ffi_type_uint32, false},
        {"uLong", &ffi_type_uint64, false},
        {"uLongf", &ffi_type_uint64, false},
        {"z_size_t", &ffi_type_uint64, false},
        {"z_off_t", &ffi_type_sint64, false},
        {"z_off64_t", &ffi_type_sint64, false},
        {"z_crc_t", &ffi_type_uint32, false},
        {"voidp", &ffi_type_pointer, false},
        {"voidpf", &ffi_type_pointer, false},
        {"voidpc", &ffi_type_pointer, false},
        {"z_streamp", &ffi_type_pointer, false},
        {"gz_headerp", &ffi_type_pointer, false},
        {"gzFile", &ffi_type_pointer, false},
        {"alloc_func", &ffi_type_pointer, false},
        {"free_func", &ffi_type_pointer, false},
        {"in_func", &ffi_type_pointer, false},
        {"out_func", &ffi_type_pointer, false},
        /* sqlite3 */
        {"sqlite3_filename", &ffi_type_pointer, false},
        {"sqlite3_destructor_type", &ffi_type_pointer, false},
        {"sqlite3_callback", &ffi_type_pointer, false},
        {"sqlite3_int64", &ffi_type_sint64, false},
        {"sqlite3_uint64", &ffi_type_uint64, false},
        {"sqlite_int64", &ffi_type_sint64, false},
        {"sqlite_uint64", &ffi_type_uint64, false},
};

/* The keywords and names of a base type, counted as C counts them. */
struct dyn_base {
	int n_void, n_char, n_short, n_int, n_long, n_float, n_double;
	int n_signed, n_unsigned, n_bool, n_complex;
	const struct spec_tok *tag_kw, *name;
};

void *dyn_alloc(size_t n)
{
	void *p = calloc(1, n ? n : 1);

	if (p == NULL)
		abort();
	return p;
}

static bool tok_is(const struct spec_tok *t, const char *w)
{
	return t->kind == SPEC_TOK_WORD && t->n == strlen(w) && memcmp(t->s, w, t->n) == 0;
}

static int *keyword_counter(struct dyn_base *b, const struct spec_tok *t)
{
	static const char *const words[] = {"void",     "char",  "short",  "int",
	                                    "long",     "float", "double", "signed",
	                                    "unsigned", "_Bool", "bool",   "_Complex"};
	int *const counters[] = {&b->n_void,     &b->n_char,  &b->n_short,  &b->n_int,
	                         &b->n_long,     &b->n_float, &b->n_double, &b->n_signed,
	                         &b->n_unsigned, &b->n_bool,  &b->n_bool,   &b->n_complex};

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (tok_is(t, words[i]))
			return counters[i];
	return NULL;
}

/* The parser already checked the combination; this only collects it. */
static void scan_base(const struct spec_ctype *t, struct dyn_base *b)
{
	memset(b, 0, sizeof(*b));
	for (size_t i = 0; i < t->ntoks; i++) {
		const struct spec_tok *k = &t->toks[i];
		int *c = keyword_counter(b, k);

		if (c != NULL)
			(*c)++;
		else if (tok_is(k, "struct") || tok_is(k, "union") || tok_is(k, "enum"))
			b->tag_kw = k;
		else if (!tok_is(k, "const") && !tok_is(k, "volatile") && !tok_is(k, "restrict"))
			b->name = k;
	}
}

static ffi_type *int_type(const struct dyn_base *b)
{
	bool u = b->n_unsigned > 0;

	if (b->n_char)
		return u ? &ffi_type_uchar : &ffi_type_schar; /* plain char is signed here */
	if (b->n_short)
		return u ? &ffi_type_ushort : &ffi_type_sshort;
	if (b->n_long)
		return u ? &ffi_type_uint64 : &ffi_type_sint64;
	return u ? &ffi_type_uint32 : &ffi_type_sint32;
}

static ffi_type *float_type(const struct dyn_base *b)
{
	if (b->n_complex)
		return b->n_float  ? &ffi_type_complex_float
		       : b->n_long ? &ffi_type_complex_longdouble
		                   : &ffi_type_complex_double;
	if (b->n_float)
		return &ffi_type_float;
	return b->n_long ? &ffi_type_longdouble : &ffi_type_double;
}

static ffi_type *keyword_type(const struct dyn_base *b, enum dyn_use use, struct dyn_why *why)
{
	if (b->n_void) {
		if (use == DYN_RETURN)
			return &ffi_type_void;
		snprintf(why->msg, sizeof(why->msg), "void here");
		return NULL;
	}
	if (b->n_bool)
		return &ffi_type_uint8;
	if (b->n_float || b->n_double || b->n_complex)
		return float_type(b);
	return int_type(b);
}

static ffi_type *table_type(const char *name, enum dyn_use use, struct dyn_why *why)
{
	for (size_t i = 0; i < sizeof(dyn_tdefs) / sizeof(dyn_tdefs[0]); i++) {
		if (strcmp(dyn_tdefs[i].name, name) != 0)
			continue;
		if (dyn_tdefs[i].array && use != DYN_PARAM) {
			snprintf(why->msg, sizeof(why->msg),
			         "%s is an array type, only usable as a parameter", name);
			return NULL;
		}
		return dyn_tdefs[i].type;
	}
	snprintf(why->msg, sizeof(why->msg),
	         "unknown typedef %s (describe it in \"types\" if it is a struct or union)", name);
	return NULL;
}

/* An entry of the spec's "types": a layout, or the canonical type of a
 * typedef or the integer type of an enum, which the importer records. */
static ffi_type *spec_named(const struct spec *s, const struct spec_typedef *td, enum dyn_use use,
                            int depth, struct dyn_why *why)
{
	if (td->kind == SPEC_TYPE_STRUCT || td->kind == SPEC_TYPE_UNION)
		return dyn_record(s, td, depth + 1, why);
	return dyn_type_depth(s, td->type, use, depth + 1, why);
}

/* struct X / union X / enum X / a typedef: the spec's "types", then an
 * enum is an int and a typedef is looked up in the table. */
static ffi_type *named_type(const struct spec *s, const struct dyn_base *b, enum dyn_use use,
                            int depth, struct dyn_why *why)
{
	char key[140];
	bool is_enum = b->tag_kw != NULL && b->tag_kw->n == 4;

	if (b->tag_kw != NULL)
		snprintf(key, sizeof(key), "%.*s %.*s", (int)b->tag_kw->n, b->tag_kw->s,
		         (int)b->name->n, b->name->s);
	else
		snprintf(key, sizeof(key), "%.*s", (int)b->name->n, b->name->s);
	const struct spec_typedef *td = dyn_record_find(s, key);
	if (td != NULL)
		return spec_named(s, td, use, depth, why);
	if (is_enum)
		return &ffi_type_sint32;
	if (b->tag_kw != NULL) {
		snprintf(why->msg, sizeof(why->msg), "%s by value has no layout in \"types\"", key);
		return NULL;
	}
	return table_type(key, use, why);
}

ffi_type *dyn_type_depth(const struct spec *s, const struct spec_ctype *t, enum dyn_use use,
                         int depth, struct dyn_why *why)
{
	struct dyn_base b;

	if (depth > DYN_MAX_DEPTH) {
		snprintf(why->msg, sizeof(why->msg), "types nested too deeply");
		return NULL;
	}
	if (t->kind == SPEC_CT_POINTER || t->kind == SPEC_CT_FUNCTION ||
	    (t->kind == SPEC_CT_ARRAY && use == DYN_PARAM))
		return &ffi_type_pointer; /* arrays and functions decay to pointers */
	if (t->kind == SPEC_CT_ARRAY) {
		snprintf(why->msg, sizeof(why->msg), "an array here");
		return NULL;
	}
	scan_base(t, &b);
	if (b.tag_kw != NULL || b.name != NULL)
		return named_type(s, &b, use, depth, why);
	return keyword_type(&b, use, why);
}

ffi_type *dyn_type(const struct spec *s, const struct spec_ctype *t, enum dyn_use use,
                   struct dyn_why *why)
{
	return dyn_type_depth(s, t, use, 0, why);
}
