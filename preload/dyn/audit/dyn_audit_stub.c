// SPDX-License-Identifier: MIT
/*
 * dyn_audit_stub.c - one 16-byte stub per slot: `lea slot(%rip), %r11;
 * jmp *target(%rip)` (the profiler's gate finds the slot in %r11,
 * dyn_link.h).
 *
 * The stubs are what objects bind to, so their addresses must exist
 * before the profiler's closures do (a -z now program binds everything
 * before any constructor runs).  Code and slots share one mapping, code
 * first, so every stub reaches its slot with a 32-bit displacement; the
 * code pages are then made read-only and executable (never both writable
 * and executable).
 */
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "dyn_audit.h"

#define STUB_SIZE 16

static size_t round_page(size_t n)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);

	return (n + pg - 1) / pg * pg;
}

/* disp32 at code + at, relative to the end of the instruction (`end`). */
static void put_disp(unsigned char *code, size_t at, size_t end, const void *to)
{
	int32_t disp = (int32_t)((uintptr_t)to - ((uintptr_t)code + end));

	memcpy(code + at, &disp, sizeof(disp));
}

static void write_stub(unsigned char *code, struct dyn_slot *s)
{
	code[0] = 0x4c; /* lea disp32(%rip), %r11 */
	code[1] = 0x8d;
	code[2] = 0x1d;
	put_disp(code, 3, 7, s);
	code[7] = 0xff; /* jmp *disp32(%rip) */
	code[8] = 0x25;
	put_disp(code, 9, 13, &s->target);
	memset(code + 13, 0xcc, STUB_SIZE - 13); /* int3 */
	s->stub = (uintptr_t)code;
}

struct dyn_slot *dyn_audit_stubs(size_t n)
{
	size_t code = round_page(n * STUB_SIZE), data = round_page(n * sizeof(struct dyn_slot));
	unsigned char *mem =
	        mmap(NULL, code + data, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (mem == MAP_FAILED)
		return NULL;
	struct dyn_slot *slots = (struct dyn_slot *)(mem + code);
	for (size_t i = 0; i < n; i++)
		write_stub(mem + i * STUB_SIZE, &slots[i]);
	if (mprotect(mem, code, PROT_READ | PROT_EXEC) != 0) {
		munmap(mem, code + data);
		return NULL;
	}
	return slots;
}
