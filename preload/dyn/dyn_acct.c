// SPDX-License-Identifier: MIT
/*
 * dyn_acct.c - "bytes", "fails" and "errno" in dynamic mode: what a
 * generated wrapper emits for a declaring function (gen_emit_func.c),
 * judged here on the libffi values of the call.
 *
 * libffi hands a small integer result over widened to ffi_arg and each
 * argument at its own size; both are read at the size of their type and
 * extended by its signedness, so the values are the ones C would see.
 */
#include <errno.h>
#include <string.h>

#include "dyn.h"

static bool ffi_signed(const ffi_type *t)
{
	return t->type == FFI_TYPE_SINT8 || t->type == FFI_TYPE_SINT16 ||
	       t->type == FFI_TYPE_SINT32 || t->type == FFI_TYPE_SINT64 || t->type == FFI_TYPE_INT;
}

/* An integer of type t at p, as C converts it to int64_t (for a signed
 * type) or uint64_t (for an unsigned one, or a pointer). */
static uint64_t ffi_int_at(const void *p, const ffi_type *t)
{
	uint64_t v = 0;
	size_t n = t->size < sizeof(v) ? t->size : sizeof(v);

	memcpy(&v, p, n);
	if (n < sizeof(v) && ffi_signed(t) && (v >> (8 * n - 1)) & 1)
		v |= ~(uint64_t)0 << (8 * n);
	else if (n < sizeof(v))
		v &= ((uint64_t)1 << (8 * n)) - 1;
	return v;
}

void dyn_acct_prep(struct dyn_fn *f, const struct spec_func *g, ffi_type *rtype, ffi_type **atypes)
{
	enum spec_bytes b = g->acct.bytes;

	f->acct = g->acct;
	f->rtype = rtype;
	f->btype[0] =
	        b == SPEC_BYTES_PARAM || b == SPEC_BYTES_PRODUCT ? atypes[g->acct.bparam[0]] : NULL;
	f->btype[1] = b == SPEC_BYTES_PRODUCT ? atypes[g->acct.bparam[1]] : NULL;
}

/* Whether r, of type t, says the call failed: C's comparisons, the
 * values of "minus_one" and "not" converted to t as a cast would. */
static bool failed(const struct spec_acct *a, uint64_t r, const ffi_type *t)
{
	bool is_signed = ffi_signed(t);
	uint64_t minus_one = ~(uint64_t)0;

	switch (a->fails) {
	case SPEC_FAILS_NEGATIVE:
		return is_signed && (int64_t)r < 0;
	case SPEC_FAILS_NONPOSITIVE:
		return is_signed ? (int64_t)r <= 0 : r == 0;
	case SPEC_FAILS_MINUS_ONE:
		return r == ffi_int_at(&minus_one, t);
	case SPEC_FAILS_NULL:
	case SPEC_FAILS_ZERO:
		return r == 0;
	case SPEC_FAILS_NONZERO:
		return r != 0;
	case SPEC_FAILS_NOT:
		for (size_t i = 0; i < a->nok; i++)
			if (r == ffi_int_at(&a->ok[i], t))
				return false;
		return true;
	default:
		return false;
	}
}

/* After a call that counted (not a forwarded one).  Nothing here changes
 * errno before apiprof_acct_after reads it, only when the call failed. */
void dyn_acct_record(const struct dyn_fn *f, const void *ret, void **args)
{
	const struct spec_acct *a = &f->acct;
	bool is_signed = ffi_signed(f->rtype);
	uint64_t r = f->rtype->type == FFI_TYPE_VOID ? 0 : ffi_int_at(ret, f->rtype);

	if (a->fails != SPEC_FAILS_NONE && failed(a, r, f->rtype)) {
		apiprof_acct_after(f->api, f->row,
		                   (struct apiprof_outcome){.failed = 1, .err = a->err_no});
		return;
	}
	if (a->bytes == SPEC_BYTES_RETURN)
		apiprof_acct_after(
		        f->api, f->row,
		        (struct apiprof_outcome){.n = r, .sized = apiprof_ret_sized(r, is_signed)});
	else if (a->bytes == SPEC_BYTES_PARAM)
		apiprof_acct_after(
		        f->api, f->row,
		        (struct apiprof_outcome){.n = ffi_int_at(args[a->bparam[0]], f->btype[0]),
		                                 .sized = 1});
	else if (a->bytes == SPEC_BYTES_PRODUCT)
		apiprof_acct_after(
		        f->api, f->row,
		        (struct apiprof_outcome){.n = ffi_int_at(args[a->bparam[0]], f->btype[0]) *
		                                      ffi_int_at(args[a->bparam[1]], f->btype[1]),
		                                 .sized = 1});
}
