/* SPDX-License-Identifier: MIT */
/*
 * apiprof_addr.c - call sites' return addresses to names in the exit JSON
 * (issue 23): the module and the offset from the loader (dladdr1), the
 * function and the line of the call from elfutils' libdwfl, which the
 * runtime does not link: it is opened here, at the end of the image, and
 * only when the image ends by exit() (or a return from main), where
 * loading a library and allocating is what any destructor may do, and
 * on a stack with 512 kB left.  An end
 * in a signal handler, by _exit or by an exec may have interrupted the
 * loader or malloc on this very thread: there no name is looked up at
 * all.  Without libdw.so.1 (or when it fails) the symbol is the dynamic
 * one dladdr finds, if any, and there is no line.  Debug information only
 * from the files themselves or by build ID (no debuginfod: no network at
 * exit).  The module files are opened as apiprof_modfile.c opens them:
 * never through a symbolic link or by a " (deleted)" name, only regular
 * files of a bounded size, with the compressed sections that would
 * inflate past the bound hidden from libdw (one line each file).
 * Everything runs under the runtime's busy guard (apiprof_finish), so the
 * allocations and files of libdw are not counted as the program's.
 */
#include <dlfcn.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "apiprof_internal.h"
#include "apiprof_modfile.h"
#include "apiprof_output.h"

/* libdw's functions, found in the handle (never linked). */
#define DW_FUNCS(X)                                                                                \
	X(dwfl_begin)                                                                              \
	X(dwfl_end)                                                                                \
	X(dwfl_report_begin)                                                                       \
	X(dwfl_linux_proc_report)                                                                  \
	X(dwfl_report_end)                                                                         \
	X(dwfl_addrmodule)                                                                         \
	X(dwfl_module_addrinfo)                                                                    \
	X(dwfl_module_getsrc)                                                                      \
	X(dwfl_lineinfo)                                                                           \
	X(dwfl_linux_proc_find_elf)                                                                \
	X(dwfl_build_id_find_debuginfo)

/* libelf's (libdw's dependency, found through its handle). */
#define ELF_FUNCS(X)                                                                               \
	X(begin, elf_begin)                                                                        \
	X(end, elf_end)                                                                            \
	X(nextscn, elf_nextscn)                                                                    \
	X(getshdr, gelf_getshdr)                                                                   \
	X(update_shdr, gelf_update_shdr)                                                           \
	X(getshdrstrndx, elf_getshdrstrndx)                                                        \
	X(strptr, elf_strptr)                                                                      \
	X(getident, elf_getident)

/* The state of one output's look-ups: the handle and the session. */
static struct {
	bool names;
	bool tried; /* libdw opened, or found missing, once per output */
	void *lib;
	Dwfl *dwfl;
	Dwfl_Callbacks cb;
#define DW_PTR(f) __typeof__(&f) f;
	DW_FUNCS(DW_PTR)
#undef DW_PTR
	struct apiprof_elf_ops elf;
	char exe[4096]; /* the executable's name, for the loader's "" */
} ad;

/* The loader and libdw need tens of kB of stack: a thread may call exit()
 * with a PTHREAD_STACK_MIN stack (tests/robust/small_stack.sh).  Names
 * only with this much left below this frame. */
#define ADDR_STACK_NEED (512 * 1024)

static bool stack_room(void)
{
	pthread_attr_t attr;
	void *lo;
	size_t size;

	if (pthread_getattr_np(pthread_self(), &attr) != 0)
		return false;
	int rc = pthread_attr_getstack(&attr, &lo, &size);
	pthread_attr_destroy(&attr);
	uintptr_t here = (uintptr_t)__builtin_frame_address(0);
	return rc == 0 && here > (uintptr_t)lo && here - (uintptr_t)lo >= ADDR_STACK_NEED;
}

void apiprof_addr_begin(bool names)
{
	ad.names = names && stack_room();
	ad.tried = false;
	ad.exe[0] = '\0';
}

static bool dw_syms(void)
{
#define DW_SYM(f)                                                                                  \
	if ((*(void **)&ad.f = dlsym(ad.lib, #f)) == NULL)                                         \
		return false;
	DW_FUNCS(DW_SYM)
#undef DW_SYM
#define ELF_SYM(field, f)                                                                          \
	if ((*(void **)&ad.elf.field = dlsym(ad.lib, #f)) == NULL)                                 \
		return false;
	ELF_FUNCS(ELF_SYM)
#undef ELF_SYM
	return true;
}

/* libdwfl's find_elf: a module file of this process (apiprof_modfile.c),
 * or the vDSO from memory. */
static int dw_find_elf(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr base,
                       char **file_name, Elf **elfp)
{
	char why[256];

	if (name[0] != '/')
		return ad.dwfl_linux_proc_find_elf(mod, userdata, name, base, file_name, elfp);
	int fd = apiprof_modfile_open(AT_FDCWD, name, why, sizeof why);
	if (fd < 0) {
		if (why[0] != '\0')
			apiprof_warn("call-site names: %s: %s, not read", name, why);
		return -1;
	}
	*elfp = ad.elf.begin(fd, ELF_C_READ, NULL);
	if (*elfp == NULL) {
		close(fd);
		return -1;
	}
	if (apiprof_modfile_tame(*elfp, fd, &ad.elf, why, sizeof why) > 0)
		apiprof_warn("call-site names: %s: %s, skipped", name, why);
	return fd;
}

/* A debug file by build ID, refused whole if too big or a bomb. */
static int dw_find_debuginfo(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr base,
                             const char *file_name, const char *link, GElf_Word crc,
                             char **debuginfo_file_name)
{
	char why[256];
	int fd = ad.dwfl_build_id_find_debuginfo(mod, userdata, name, base, file_name, link, crc,
	                                         debuginfo_file_name);

	if (fd < 0 || apiprof_modfile_whole(fd, &ad.elf, why, sizeof why) == 0)
		return fd;
	apiprof_warn("call-site names: %s: %s, not read",
	             *debuginfo_file_name ? *debuginfo_file_name : name, why);
	close(fd);
	free(*debuginfo_file_name);
	*debuginfo_file_name = NULL;
	return -1;
}

/* A libdwfl session of this process's modules, or none. */
static void dw_open(void)
{
	ad.tried = true;
	ad.lib = dlopen("libdw.so.1", RTLD_LAZY | RTLD_LOCAL);
	if (ad.lib == NULL)
		return;
	if (!dw_syms()) {
		apiprof_addr_end();
		return;
	}
	ad.cb = (Dwfl_Callbacks){.find_elf = dw_find_elf, .find_debuginfo = dw_find_debuginfo};
	ad.dwfl = ad.dwfl_begin(&ad.cb);
	if (ad.dwfl == NULL) {
		apiprof_addr_end();
		return;
	}
	ad.dwfl_report_begin(ad.dwfl);
	int rc = ad.dwfl_linux_proc_report(ad.dwfl, getpid());
	if (ad.dwfl_report_end(ad.dwfl, NULL, NULL) != 0 || rc != 0)
		apiprof_addr_end();
}

/* The function and the line of the call instruction, which ends just
 * before ret. */
static void dw_names(uint64_t ret, struct apiprof_addr *a)
{
	Dwfl_Module *mod = ad.dwfl ? ad.dwfl_addrmodule(ad.dwfl, ret - 1) : NULL;
	GElf_Off off;
	GElf_Sym sym;

	if (mod == NULL)
		return;
	const char *fn = ad.dwfl_module_addrinfo(mod, ret - 1, &off, &sym, NULL, NULL, NULL);
	if (fn != NULL)
		a->symbol = fn;
	Dwfl_Line *l = ad.dwfl_module_getsrc(mod, ret - 1);
	int line = 0;
	const char *file = l ? ad.dwfl_lineinfo(l, NULL, &line, NULL, NULL, NULL) : NULL;
	if (file != NULL && line > 0) {
		a->file = file;
		a->line = line;
	}
}

static const char *last_part(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* The loader names the executable "": its name from /proc. */
static const char *exe_name(void)
{
	if (ad.exe[0] == '\0') {
		ssize_t n = readlink("/proc/self/exe", ad.exe, sizeof(ad.exe) - 1);
		ad.exe[n > 0 ? n : 0] = '\0';
	}
	return ad.exe[0] ? last_part(ad.exe) : NULL;
}

bool apiprof_addr_resolve(uint64_t ret, struct apiprof_addr *a)
{
	Dl_info info;
	struct link_map *lm = NULL;

	*a = (struct apiprof_addr){0};
	if (!ad.names || ret == 0 ||
	    !dladdr1((void *)(uintptr_t)(ret - 1), &info, (void **)&lm, RTLD_DL_LINKMAP) ||
	    lm == NULL)
		return false;
	a->module = lm->l_name && lm->l_name[0] ? last_part(lm->l_name) : exe_name();
	a->offset = ret - 1 - lm->l_addr; /* inside the call instruction, as apiprof-top says */
	a->symbol = info.dli_sname;
	if (!ad.tried)
		dw_open();
	dw_names(ret, a);
	return true;
}

/* Names found are valid until here. */
void apiprof_addr_end(void)
{
	if (ad.dwfl != NULL && ad.dwfl_end != NULL)
		ad.dwfl_end(ad.dwfl);
	ad.dwfl = NULL;
	if (ad.lib != NULL)
		dlclose(ad.lib);
	ad.lib = NULL;
}
