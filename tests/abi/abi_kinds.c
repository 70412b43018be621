// SPDX-License-Identifier: MIT
/*
 * abi_kinds.c - argument and result kinds of the differential test: how
 * libffi describes them, how random values are drawn (edge values often),
 * and which bytes of a value count when two results are compared.
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "abi_diff.h"
#include "abilib.h"

uint64_t abi_rand(struct abi_rng *r)
{
	/* splitmix64: any seed, including 0, gives a full-period stream. */
	uint64_t z = (r->s += 0x9e3779b97f4a7c15u);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

/* libffi knows no unions, packed layouts or arrays: each is described
 * by a struct the psABI classifies the same way (union ab_u: one INTEGER
 * eightbyte; the packed struct: 19 bytes of char, so memory; arrays:
 * their elements spelled out). */
static ffi_type *small_el[] = {&ffi_type_sint32, &ffi_type_float, NULL};
static ffi_type t_small = {0, 0, FFI_TYPE_STRUCT, small_el};
static ffi_type *two_el[] = {&ffi_type_double, &ffi_type_sint64, NULL};
static ffi_type t_two = {0, 0, FFI_TYPE_STRUCT, two_el};
static ffi_type *ff_el[] = {&ffi_type_float, &ffi_type_float, &ffi_type_float, NULL};
static ffi_type t_ff = {0, 0, FFI_TYPE_STRUCT, ff_el};
#define C12 &ffi_type_sint8, &ffi_type_sint8, &ffi_type_sint8, &ffi_type_sint8
static ffi_type *arr_el[] = {C12, C12, C12, &ffi_type_sint32, NULL};
static ffi_type t_arr = {0, 0, FFI_TYPE_STRUCT, arr_el};
static ffi_type *u_el[] = {&ffi_type_sint64, NULL};
static ffi_type t_u = {0, 0, FFI_TYPE_STRUCT, u_el};
#define I5 &ffi_type_sint64, &ffi_type_sint64, &ffi_type_sint64, &ffi_type_sint64, &ffi_type_sint64
static ffi_type *big_el[] = {I5, &ffi_type_double, NULL};
static ffi_type t_big = {0, 0, FFI_TYPE_STRUCT, big_el};
static ffi_type *nested_el[] = {&t_small,         &ffi_type_sint8,  &ffi_type_sint16,
                                &ffi_type_sint16, &ffi_type_sint16, NULL};
static ffi_type t_nested = {0, 0, FFI_TYPE_STRUCT, nested_el};
static ffi_type *ldt_el[] = {&ffi_type_longdouble, &ffi_type_sint32, NULL};
static ffi_type t_ldt = {0, 0, FFI_TYPE_STRUCT, ldt_el};
#define U4 &ffi_type_uint8, &ffi_type_uint8, &ffi_type_uint8, &ffi_type_uint8
static ffi_type *packed_el[] = {U4,  U4, U4, U4, &ffi_type_uint8, &ffi_type_uint8, &ffi_type_uint8,
                                NULL};
static ffi_type t_packed = {0, 0, FFI_TYPE_STRUCT, packed_el};

struct abi_kind_info {
	ffi_type *type;
	size_t size;
	/* Value bytes, as [from, to) ranges; {0, 0} ends the list, and an
	 * empty list means all `size` bytes. */
	struct {
		unsigned char from, to;
	} bytes[3];
};

static const struct abi_kind_info kinds[K_COUNT] = {
        [K_VOID] = {&ffi_type_void, 0, {{0, 0}}},
        [K_I8] = {&ffi_type_sint8, 1, {{0, 0}}},
        [K_U8] = {&ffi_type_uint8, 1, {{0, 0}}},
        [K_I16] = {&ffi_type_sint16, 2, {{0, 0}}},
        [K_U16] = {&ffi_type_uint16, 2, {{0, 0}}},
        [K_I32] = {&ffi_type_sint32, 4, {{0, 0}}},
        [K_U32] = {&ffi_type_uint32, 4, {{0, 0}}},
        [K_I64] = {&ffi_type_sint64, 8, {{0, 0}}},
        [K_U64] = {&ffi_type_uint64, 8, {{0, 0}}},
        [K_BOOL] = {&ffi_type_uint8, 1, {{0, 0}}},
        [K_FLOAT] = {&ffi_type_float, 4, {{0, 0}}},
        [K_DOUBLE] = {&ffi_type_double, 8, {{0, 0}}},
        [K_LDOUBLE] = {&ffi_type_longdouble, 16, {{0, 10}}},
        [K_CDOUBLE] = {&ffi_type_complex_double, 16, {{0, 0}}},
        [K_PTR] = {&ffi_type_pointer, 8, {{0, 0}}},
        [K_OUTINT] = {&ffi_type_pointer, 8, {{0, 0}}},
        [K_OUTINT_NN] = {&ffi_type_pointer, 8, {{0, 0}}},
        [K_OUTBUF] = {&ffi_type_pointer, 8, {{0, 0}}},
        [K_LEN64] = {&ffi_type_uint64, 8, {{0, 0}}},
        [K_ERRNUM] = {&ffi_type_sint32, 4, {{0, 0}}},
        [K_CB] = {&ffi_type_pointer, 8, {{0, 0}}},
        [K_S_SMALL] = {&t_small, sizeof(struct ab_small), {{0, 0}}},
        [K_S_TWO] = {&t_two, sizeof(struct ab_two), {{0, 0}}},
        [K_S_FF] = {&t_ff, sizeof(struct ab_ff), {{0, 0}}},
        [K_S_ARR] = {&t_arr, sizeof(struct ab_arr), {{0, 0}}},
        [K_U_U] = {&t_u, sizeof(union ab_u), {{0, 0}}},
        [K_S_BIG] = {&t_big, sizeof(struct ab_big), {{0, 0}}},
        [K_S_NESTED] = {&t_nested, sizeof(struct ab_nested), {{0, 9}, {10, 16}}},
        [K_S_LDT] = {&t_ldt, sizeof(struct ab_ldt), {{0, 10}, {16, 20}}},
        [K_S_PACKED] = {&t_packed, sizeof(struct ab_packed), {{0, 0}}},
};

ffi_type *abi_ffi_type(enum abi_kind k)
{
	return kinds[k].type;
}

size_t abi_size(enum abi_kind k)
{
	return kinds[k].size;
}

bool abi_is_outbuf(enum abi_kind k)
{
	return k == K_OUTINT || k == K_OUTINT_NN || k == K_OUTBUF;
}

bool abi_same(enum abi_kind k, const void *a, const void *b)
{
	const struct abi_kind_info *ki = &kinds[k];
	const unsigned char *x = a, *y = b;

	if (ki->bytes[0].to == 0)
		return memcmp(a, b, ki->size) == 0;
	for (int i = 0; i < 3 && ki->bytes[i].to != 0; i++)
		if (memcmp(x + ki->bytes[i].from, y + ki->bytes[i].from,
		           (size_t)(ki->bytes[i].to - ki->bytes[i].from)) != 0)
			return false;
	return true;
}

/* Integers: 0, 1, -1 (all ones), min, max of the width, or random bits. */
static void gen_int(struct abi_rng *r, void *slot, size_t size, bool is_signed)
{
	uint64_t v = abi_rand(r), top = 1ull << (size * 8 - 1);

	switch (abi_rand(r) % 12) {
	case 0:
		v = 0;
		break;
	case 1:
		v = 1;
		break;
	case 2:
		v = ~0ull;
		break;
	case 3:
		v = is_signed ? top : 0;
		break; /* min */
	case 4:
		v = is_signed ? top - 1 : ~0ull;
		break; /* max */
	default:
		break;
	}
	memcpy(slot, &v, size); /* little-endian: the low bytes */
}

static void gen_double(struct abi_rng *r, void *slot)
{
	static const double edge[] = {0.0,           -0.0,    1.0,     -1.0,    INFINITY,
	                              -INFINITY,     NAN,     -NAN,    DBL_MIN, DBL_TRUE_MIN,
	                              -DBL_TRUE_MIN, DBL_MAX, -DBL_MAX};
	uint64_t v = abi_rand(r), pick = abi_rand(r) % 26;

	if (pick < sizeof edge / sizeof edge[0])
		memcpy(slot, &edge[pick], sizeof(double));
	else if (pick == 25)
		memcpy(slot, &(uint64_t){0x7ff0000000000000u | (v >> 13) | 1}, 8); /* NaN payload */
	else
		memcpy(slot, &v, sizeof v);
}

static void gen_float(struct abi_rng *r, void *slot)
{
	static const float edge[] = {0.0f, -0.0f,   1.0f,         INFINITY, -INFINITY,
	                             NAN,  FLT_MIN, FLT_TRUE_MIN, FLT_MAX,  -FLT_MAX};
	uint64_t v = abi_rand(r), pick = abi_rand(r) % 20;

	if (pick < sizeof edge / sizeof edge[0])
		memcpy(slot, &edge[pick], sizeof(float));
	else
		memcpy(slot, &v, sizeof(float));
}

/* Random long doubles keep the explicit integer bit that x87 wants for
 * normal numbers; the padding bytes get noise, which nothing may read. */
static void gen_ldouble(struct abi_rng *r, void *slot)
{
	static const long double edge[] = {0.0L, -0.0L,    1.0L,     INFINITY,      -INFINITY,
	                                   NAN,  LDBL_MIN, LDBL_MAX, LDBL_TRUE_MIN, -LDBL_MAX};
	uint64_t m = abi_rand(r), se = abi_rand(r), pick = abi_rand(r) % 20;
	unsigned char *p = slot;

	memcpy(p + 8, &se, 8);
	if (pick < sizeof edge / sizeof edge[0]) {
		memcpy(p, &edge[pick], 10);
		return;
	}
	m |= 1ull << 63;
	memcpy(p, &m, 8);
}

static void gen_bytes(struct abi_rng *r, void *slot, size_t size)
{
	uint64_t v, pick = abi_rand(r) % 8;

	for (size_t i = 0; i < size; i += 8) {
		v = pick == 0 ? 0 : pick == 1 ? ~0ull : abi_rand(r);
		memcpy((char *)slot + i, &v, size - i < 8 ? size - i : 8);
	}
}

static const enum abi_kind int_kinds[] = {K_I8, K_U8, K_I16, K_U16, K_I32, K_U32, K_I64, K_U64};

static bool gen_integer(enum abi_kind k, struct abi_rng *r, void *slot)
{
	for (size_t i = 0; i < sizeof int_kinds / sizeof int_kinds[0]; i++)
		if (int_kinds[i] == k) {
			gen_int(r, slot, kinds[k].size, (i & 1) == 0);
			return true;
		}
	return false;
}

void abi_gen(enum abi_kind k, struct abi_rng *r, void *slot)
{
	memset(slot, 0, ABI_SLOT);
	if (gen_integer(k, r, slot))
		return;
	switch (k) {
	case K_BOOL:
		*(unsigned char *)slot = abi_rand(r) & 1;
		break;
	case K_FLOAT:
		gen_float(r, slot);
		break;
	case K_DOUBLE:
		gen_double(r, slot);
		break;
	case K_LDOUBLE:
		gen_ldouble(r, slot);
		break;
	case K_CDOUBLE:
		gen_double(r, slot);
		gen_double(r, (char *)slot + 8);
		break;
	case K_LEN64:
		*(uint64_t *)slot = abi_rand(r) % 65;
		break;
	case K_ERRNUM:
		*(int32_t *)slot = (int32_t)(abi_rand(r) % 200);
		break;
	case K_S_LDT:
		gen_ldouble(r, slot);
		gen_int(r, (char *)slot + 16, 4, true);
		break;
	default:
		gen_bytes(r, slot, kinds[k].size);
		break;
	}
}
