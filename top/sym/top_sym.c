/* SPDX-License-Identifier: MIT */
/*
 * top_sym.c - a live process's code addresses to names, with libdwfl.
 *
 * One Dwfl per process, reported from /proc/PID/maps by
 * dwfl_linux_proc_report.  Modules are opened lazily, when an address in
 * them is first looked up.  An address no module holds is looked up in
 * the maps: a mapping without a file is "[anon]"; one with a file means
 * the process mapped something since, so the Dwfl is reported again (once
 * per change of its file mappings) and asked again.  The maps are read
 * once per refresh for all such addresses (top_symmaps.c).
 *
 * The target is untrusted, so its files are opened as the kernel shows
 * them to it (under /proc/PID/root, never through a symbolic link, never
 * a " (deleted)" name), with its credentials (a root viewer reads only
 * what the target's user may), only when they are regular files of a
 * bounded size, with the compressed sections that would inflate past the
 * bound hidden from libdw (apiprof_modfile.c), and read with pread, never
 * mapped: a file the target truncates under us is a read error, not a
 * SIGBUS.  Separate debug information is looked
 * for by build ID only, whose path is hex digits under /usr/lib/debug: a
 * .gnu_debuglink name is the target's to choose, and debuginfod would
 * reach out to the network from a viewer's refresh.
 */
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "apiprof_modfile.h"
#include "apiprof_segname.h"
#include "top_proccred.h"
#include "top_shm.h"
#include "top_sym.h"
#include "top_symmaps.h"

/* Files (modules and debug files) one process's Dwfl may open.  libdwfl
 * keeps a module's descriptor until the module goes; the bound keeps a
 * target with call sites in thousands of libraries from taking all of the
 * viewer's descriptors (TOP_SYM_PROCS * SYM_FILES at most). */
#define SYM_FILES 64

struct sym_proc {
	int pid; /* 0: a free slot */
	uint64_t starttime;
	Dwfl *dwfl;
	uint64_t maps_hash;      /* of the file mappings when dwfl was last reported */
	unsigned long used;      /* when last looked up: the least recent goes first */
	int files;               /* opened for dwfl (never decreases until it ends) */
	struct top_symmaps maps; /* as read in refresh maps_gen, if maps_ok */
	unsigned long maps_gen;
	bool maps_ok;
	struct top_sym_cache *c;
};

struct top_sym_cache {
	struct sym_proc procs[TOP_SYM_PROCS];
	unsigned long tick;
	unsigned long gen; /* the refresh: top_sym_cache_next */
	top_sym_warn_fn warn;
	void *warn_ctx;
	bool broken; /* the viewer's credentials could not be restored */
};

/* libdwfl asks for a module's file from inside a lookup, with no way back
 * to the Dwfl: the process being looked up, set around every libdwfl call. */
static struct sym_proc *sym_now;

/* Copies at most cap - 1 bytes, anything unprintable as '?'. */
static void sym_copy(char *dst, size_t cap, const char *src)
{
	top_shm_sanitize(dst, src, cap - 1);
}

const char *top_sym_base(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash != NULL ? slash + 1 : path;
}

/* --- warnings ----------------------------------------------------------- */

static void sym_warn(const struct sym_proc *p, const char *path, const char *why, const char *what)
{
	char clean[TOP_SYM_PATH], msg[TOP_SYM_PATH + 256];

	if (p->c->warn == NULL)
		return;
	sym_copy(clean, sizeof clean, path);
	snprintf(msg, sizeof msg, "process %d: %s: %s, %s", p->pid, clean, why, what);
	p->c->warn(p->c->warn_ctx, msg);
}

/* --- libdwfl's callbacks ------------------------------------------------ */

static const struct apiprof_elf_ops sym_elf_ops = {
        .begin = elf_begin,
        .end = elf_end,
        .nextscn = elf_nextscn,
        .getshdr = gelf_getshdr,
        .update_shdr = gelf_update_shdr,
        .getshdrstrndx = elf_getshdrstrndx,
        .strptr = elf_strptr,
        .getident = elf_getident,
};

/* A regular file of the target's, as its own root shows it, opened with
 * its credentials; -1 otherwise, with why. */
static int sym_open_file(struct sym_proc *p, const char *path, char *why, size_t cap)
{
	char root[64];
	struct top_proccred as, was;
	int fd = -1;

	why[0] = '\0';
	snprintf(root, sizeof root, "/proc/%d/root", p->pid);
	int rootfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0 || top_proccred_read(p->pid, &as) != 0) {
		if (rootfd >= 0)
			close(rootfd);
		return -1;
	}
	if (top_proccred_enter(&as, &was) != 0)
		snprintf(why, cap, "cannot take the process's credentials to open it");
	else
		fd = apiprof_modfile_open(rootfd, path, why, cap);
	if (top_proccred_leave(&was) != 0) {
		/* Never go on as another user: no file is opened any more. */
		p->c->broken = true;
		snprintf(why, cap, "cannot take the viewer's credentials back");
		if (fd >= 0)
			close(fd);
		fd = -1;
	}
	close(rootfd);
	return fd;
}

static int sym_find_elf(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr base,
                        char **file_name, Elf **elfp)
{
	struct sym_proc *p = sym_now;
	char why[256];

	if (p == NULL || p->files >= SYM_FILES || p->c->broken)
		return -1;
	/* "[vdso: PID]": libdwfl reads it from the process's memory. */
	if (name[0] != '/')
		return dwfl_linux_proc_find_elf(mod, userdata, name, base, file_name, elfp);
	int fd = sym_open_file(p, name, why, sizeof why);
	if (fd < 0) {
		if (why[0] != '\0')
			sym_warn(p, name, why, "not read");
		return -1;
	}
	/* ELF_C_READ reads with pread as it needs, from fd, which libdwfl
	 * keeps and closes when the module goes. */
	*elfp = elf_begin(fd, ELF_C_READ, NULL);
	if (*elfp == NULL) {
		close(fd);
		return -1;
	}
	if (apiprof_modfile_tame(*elfp, fd, &sym_elf_ops, why, sizeof why) > 0)
		sym_warn(p, name, why, "skipped");
	p->files++;
	return fd;
}

/* A debug file found by build ID: refused whole if too big or a bomb
 * (libdwfl reads it itself: nothing can be hidden from it). */
static int sym_debug_ok(struct sym_proc *p, int fd, const char *path)
{
	char why[256];

	if (apiprof_modfile_whole(fd, &sym_elf_ops, why, sizeof why) == 0)
		return 0;
	sym_warn(p, path != NULL ? path : "debug file", why, "not read");
	return -1;
}

static int sym_find_debuginfo(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr base,
                              const char *file_name, const char *link, GElf_Word crc,
                              char **debuginfo_file_name)
{
	struct sym_proc *p = sym_now;

	if (p == NULL || p->files >= SYM_FILES || p->c->broken)
		return -1;
	int fd = dwfl_build_id_find_debuginfo(mod, userdata, name, base, file_name, link, crc,
	                                      debuginfo_file_name);
	if (fd >= 0 && sym_debug_ok(p, fd, *debuginfo_file_name) != 0) {
		close(fd);
		free(*debuginfo_file_name);
		*debuginfo_file_name = NULL;
		return -1;
	}
	if (fd >= 0)
		p->files++;
	return fd;
}

static const Dwfl_Callbacks sym_callbacks = {
        .find_elf = sym_find_elf,
        .find_debuginfo = sym_find_debuginfo,
};

/* --- /proc/PID/maps ----------------------------------------------------- */

/* The maps as this refresh reads them: once for all its addresses. */
static int sym_maps(struct sym_proc *p)
{
	if (p->maps_ok && p->maps_gen == p->c->gen)
		return 0;
	p->maps_ok = top_symmaps_read(&p->maps, p->pid) == 0;
	p->maps_gen = p->c->gen;
	return p->maps_ok ? 0 : -1;
}

/* --- the cache of processes --------------------------------------------- */

static void sym_proc_drop(struct sym_proc *p)
{
	if (p->dwfl != NULL)
		dwfl_end(p->dwfl);
	top_symmaps_free(&p->maps);
	memset(p, 0, sizeof *p);
}

/* (Re)reports the process's modules; modules reported as before keep
 * what libdwfl has loaded for them.  A Dwfl that has used up its files
 * starts afresh, which also closes those of modules gone since. */
static int sym_report(struct sym_proc *p)
{
	if (p->files >= SYM_FILES) {
		dwfl_end(p->dwfl);
		p->files = 0;
		p->dwfl = dwfl_begin(&sym_callbacks);
	}
	if (p->dwfl == NULL)
		return -1;
	dwfl_report_begin(p->dwfl);
	int rc = dwfl_linux_proc_report(p->dwfl, p->pid);
	if (dwfl_report_end(p->dwfl, NULL, NULL) != 0 || rc != 0 || sym_maps(p) != 0)
		return -1;
	p->maps_hash = p->maps.hash;
	return 0;
}

/* The start time is checked after the report: a pid reused before or
 * during it is noticed. */
static int sym_proc_start(struct sym_proc *p, int pid, uint64_t starttime)
{
	uint64_t now;

	p->pid = pid;
	p->starttime = starttime;
	p->dwfl = dwfl_begin(&sym_callbacks);
	sym_now = p;
	if (sym_report(p) != 0)
		return -1;
	if (starttime != 0 && (apiprof_proc_starttime("/proc", pid, &now) != 0 || now != starttime))
		return -1;
	return 0;
}

/* A process that cannot be reported (gone, not ours) takes no slot: it
 * does not push out one that works. */
static struct sym_proc *sym_proc_get(struct top_sym_cache *c, int pid, uint64_t starttime)
{
	struct sym_proc *slot = &c->procs[0], fresh = {.c = c};

	for (size_t i = 0; i < TOP_SYM_PROCS; i++) {
		struct sym_proc *p = &c->procs[i];
		if (p->pid == pid && (starttime == 0 || p->starttime == starttime)) {
			p->used = ++c->tick;
			return p;
		}
		if (p->used < slot->used)
			slot = p;
	}
	int rc = sym_proc_start(&fresh, pid, starttime);
	sym_now = NULL;
	if (rc != 0) {
		sym_proc_drop(&fresh);
		return NULL;
	}
	sym_proc_drop(slot);
	*slot = fresh;
	slot->used = ++c->tick;
	return slot;
}

/* --- answers ------------------------------------------------------------ */

/* Files that are memory under a name: a memfd (where JITs double-map
 * their code), shared anonymous memory, System V shared memory. */
static bool sym_anon_file(const char *path)
{
	static const char *const anon[] = {"/memfd:", "/dev/zero", "/SYSV", "/[aio]"};

	for (size_t i = 0; i < sizeof anon / sizeof anon[0]; i++)
		if (strncmp(path, anon[i], strlen(anon[i])) == 0)
			return true;
	return false;
}

/* A module libdwfl knows: its file, the offset, the function and line. */
static void sym_module(Dwfl_Module *mod, uint64_t addr, struct top_sym *out)
{
	Dwarf_Addr start, bias;
	GElf_Off off;
	GElf_Sym sym;
	int line = 0;

	const char *name = dwfl_module_info(mod, NULL, &start, NULL, NULL, NULL, NULL, NULL);
	if (name != NULL && sym_anon_file(name)) {
		out->kind = TOP_SYM_ANON;
		return;
	}
	out->kind = TOP_SYM_MODULE;
	sym_copy(out->module, sizeof out->module,
	         name == NULL || strncmp(name, "[vdso", 5) == 0 ? "[vdso]" : name);
	out->offset = dwfl_module_getelf(mod, &bias) != NULL ? addr - bias : addr - start;
	const char *fn = dwfl_module_addrinfo(mod, addr, &off, &sym, NULL, NULL, NULL);
	/* A symbol that ends before addr is a neighbour, not the function
	 * (a stripped file keeps only its dynamic symbols). */
	if (fn != NULL && (sym.st_size == 0 || off < sym.st_size)) {
		sym_copy(out->symbol, sizeof out->symbol, fn);
		out->symoff = off;
	}
	Dwfl_Line *l = dwfl_module_getsrc(mod, addr);
	const char *file = l != NULL ? dwfl_lineinfo(l, NULL, &line, NULL, NULL, NULL) : NULL;
	if (file != NULL && line > 0) {
		sym_copy(out->file, sizeof out->file, file);
		out->line = line;
	}
}

/* dwfl_addrmodule also answers the last module for an address above all
 * of them (the stack, [vsyscall]): only a module that holds addr counts. */
static Dwfl_Module *sym_addrmodule(Dwfl *dwfl, uint64_t addr)
{
	Dwarf_Addr start, end;
	Dwfl_Module *mod = dwfl_addrmodule(dwfl, addr);

	if (mod == NULL ||
	    dwfl_module_info(mod, NULL, &start, &end, NULL, NULL, NULL, NULL) == NULL)
		return NULL;
	return addr >= start && addr < end ? mod : NULL;
}

/* An address no module holds: anonymous, or mapped since the last report. */
static Dwfl_Module *sym_miss(struct sym_proc *p, uint64_t addr, struct top_sym *out)
{
	if (sym_maps(p) != 0)
		return NULL;
	const struct top_symmap *m = top_symmaps_find(&p->maps, addr);
	if (m == NULL)
		return NULL;
	const char *path = top_symmaps_path(&p->maps, m);
	if (path[0] == '\0' || sym_anon_file(path)) {
		out->kind = TOP_SYM_ANON;
		return NULL;
	}
	if (p->maps.hash != p->maps_hash && sym_report(p) == 0) {
		Dwfl_Module *mod = sym_addrmodule(p->dwfl, addr);
		if (mod != NULL)
			return mod;
	}
	out->kind = TOP_SYM_MODULE;
	sym_copy(out->module, sizeof out->module, path);
	out->offset = addr - m->start + m->pgoff;
	return NULL;
}

static void sym_lookup(struct sym_proc *p, uint64_t addr, struct top_sym *out)
{
	if (p->dwfl == NULL) { /* its fresh start failed: try again next time */
		sym_proc_drop(p);
		return;
	}
	sym_now = p;
	Dwfl_Module *mod = sym_addrmodule(p->dwfl, addr);
	if (mod == NULL)
		mod = sym_miss(p, addr, out);
	if (mod != NULL)
		sym_module(mod, addr, out);
	sym_now = NULL;
}

int top_sym_resolve(struct top_sym_cache *c, int pid, uint64_t starttime, uint64_t addr,
                    struct top_sym *out)
{
	memset(out, 0, sizeof *out);
	if (c == NULL || pid <= 0)
		return -1;
	struct sym_proc *p = sym_proc_get(c, pid, starttime);
	if (p != NULL)
		sym_lookup(p, addr, out);
	return out->kind == TOP_SYM_UNKNOWN ? -1 : 0;
}

struct top_sym_cache *top_sym_cache_new(void)
{
	return calloc(1, sizeof(struct top_sym_cache));
}

void top_sym_cache_warn(struct top_sym_cache *c, top_sym_warn_fn fn, void *ctx)
{
	c->warn = fn;
	c->warn_ctx = ctx;
}

void top_sym_cache_next(struct top_sym_cache *c)
{
	c->gen++;
}

void top_sym_cache_free(struct top_sym_cache *c)
{
	if (c == NULL)
		return;
	for (size_t i = 0; i < TOP_SYM_PROCS; i++)
		sym_proc_drop(&c->procs[i]);
	free(c);
}

char *top_sym_label(const struct top_sym *s, char *buf, size_t cap)
{
	if (s->kind == TOP_SYM_MODULE && s->symbol[0] != '\0')
		snprintf(buf, cap, "%s", s->symbol);
	else if (s->kind == TOP_SYM_MODULE)
		snprintf(buf, cap, "%s+0x%" PRIx64, top_sym_base(s->module), s->offset);
	else
		snprintf(buf, cap, "%s", s->kind == TOP_SYM_ANON ? "[anon]" : "[unknown]");
	return buf;
}
