// SPDX-License-Identifier: MIT
/*
 * dyn_audit_stub.c - one 8-byte stub per slot: `jmp *target(%rip)`.
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

#define STUB_SIZE 8

static size_t round_page(size_t n)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);

	return (n + pg - 1) / pg * pg;
}

static void write_stub(unsigned char *code, struct dyn_slot *s)
{
	int32_t disp = (int32_t)((uintptr_t)&s->target - ((uintptr_t)code + 6));

	code[0] = 0xff; /* jmp *disp32(%rip) */
	code[1] = 0x25;
	memcpy(code + 2, &disp, sizeof(disp));
	code[6] = code[7] = 0xcc; /* int3 */
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
