/* apiprof_rsym.c: where a symbol lies in another process (apiprof_rsym.h). */
#include "apiprof_rsym.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

static int fail(struct apiprof_rsym_err *e, int err, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));

static int fail(struct apiprof_rsym_err *e, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(e->text, sizeof e->text, fmt, ap);
	va_end(ap);
	return -err;
}

/* Whether the basename of path is name, or name then '.' or '-'. */
static _Bool base_is(const char *path, const char *name)
{
	const char *b = strrchr(path, '/');
	size_t n = strlen(name);

	b = b != NULL ? b + 1 : path;
	return strncmp(b, name, n) == 0 && (b[n] == '\0' || b[n] == '.' || b[n] == '-');
}

/* One line of /proc/PID/maps. */
struct map_line {
	uint64_t start, off, ino;
	unsigned maj, min;
	const char *path;
};

static _Bool map_parse(char *line, struct map_line *m)
{
	unsigned long long start, end, off, ino;
	char perms[8];
	int at = -1;

	if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &start, &end, perms, &off, &m->maj,
	           &m->min, &ino, &at) < 7 ||
	    at < 0 || line[at] != '/')
		return 0;
	line[strcspn(line, "\n")] = '\0';
	m->start = start;
	m->off = off;
	m->ino = ino;
	m->path = line + at;
	return 1;
}

/* The first mapping of the object (file offset 0) gives its start. */
static int maps_find(pid_t pid, const char *name, struct apiprof_rsym_obj *o, uint64_t *start,
                     struct apiprof_rsym_err *e)
{
	char fn[64], line[1024];
	struct map_line m;
	int r = fail(e, ENOENT, "process %d has no %s loaded", (int)pid, name);

	snprintf(fn, sizeof fn, "/proc/%d/maps", (int)pid);
	FILE *f = fopen(fn, "re");
	if (f == NULL)
		return fail(e, errno, "cannot read %s: %s", fn, strerror(errno));
	while (fgets(line, sizeof line, f) != NULL) {
		if (!map_parse(line, &m) || m.off != 0 || !base_is(m.path, name))
			continue;
		if (strlen(m.path) >= sizeof o->path) {
			r = fail(e, ENAMETOOLONG, "process %d: the path of %s is too long",
			         (int)pid, name);
			break;
		}
		snprintf(o->path, sizeof o->path, "%s", m.path);
		o->dev = makedev(m.maj, m.min);
		o->ino = m.ino;
		*start = m.start;
		r = 0;
		break;
	}
	fclose(f);
	return r;
}

/* The object's file as the process sees it, checked to be the one mapped. */
static int obj_open(const struct apiprof_rsym_obj *o, struct apiprof_rsym_err *e)
{
	char fn[sizeof o->path + 32];
	struct stat st;

	if (strstr(o->path, " (deleted)") != NULL)
		return fail(e, ENOENT, "process %d maps %s, which was deleted", (int)o->pid,
		            o->path);
	snprintf(fn, sizeof fn, "/proc/%d/root%s", (int)o->pid, o->path);
	int fd = open(fn, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return fail(e, errno, "cannot open %s: %s", fn, strerror(errno));
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_dev != o->dev ||
	    (uint64_t)st.st_ino != o->ino) {
		close(fd);
		return fail(e, ESTALE, "%s is not the file process %d maps", fn, (int)o->pid);
	}
	return fd;
}

/* The bias: where the object's first loadable page lies less its address. */
static int obj_bias(Elf *elf, uint64_t start, uint64_t *bias)
{
	size_t n;
	GElf_Phdr ph;
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);

	if (elf_getphdrnum(elf, &n) != 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (gelf_getphdr(elf, (int)i, &ph) == NULL || ph.p_type != PT_LOAD)
			continue;
		if (ph.p_offset >= page)
			return -1;
		*bias = start - (ph.p_vaddr & ~(page - 1));
		return 0;
	}
	return -1;
}

static Elf *elf_of(int fd)
{
	if (elf_version(EV_CURRENT) == EV_NONE)
		return NULL;
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf != NULL && elf_kind(elf) != ELF_K_ELF) {
		elf_end(elf);
		return NULL;
	}
	return elf;
}

int apiprof_rsym_find_obj(pid_t pid, const char *name, struct apiprof_rsym_obj *o,
                          struct apiprof_rsym_err *e)
{
	uint64_t start = 0;

	memset(o, 0, sizeof *o);
	o->pid = pid;
	int r = maps_find(pid, name, o, &start, e);
	if (r != 0)
		return r;
	int fd = obj_open(o, e);
	if (fd < 0)
		return fd;
	Elf *elf = elf_of(fd);
	r = elf != NULL && obj_bias(elf, start, &o->bias) == 0
	            ? 0
	            : fail(e, ENOEXEC, "%s (process %d): not an ELF object apiprof can read",
	                   o->path, (int)pid);
	if (elf != NULL)
		elf_end(elf);
	close(fd);
	return r;
}

/* The dynamic symbol table and its version table, if any. */
struct dynsym {
	Elf_Data *sym, *ver;
	size_t strtab, count;
};

static int dynsym_of(Elf *elf, struct dynsym *d)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	memset(d, 0, sizeof *d);
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		if (gelf_getshdr(scn, &sh) == NULL)
			return -1;
		if (sh.sh_type == SHT_DYNSYM && sh.sh_entsize != 0) {
			d->sym = elf_getdata(scn, NULL);
			d->strtab = sh.sh_link;
			d->count = sh.sh_size / sh.sh_entsize;
		} else if (sh.sh_type == SHT_GNU_versym) {
			d->ver = elf_getdata(scn, NULL);
		}
	}
	if (d->sym == NULL)
		return -1;
	if (d->sym->d_size / sizeof(Elf64_Sym) < d->count)
		d->count = d->sym->d_size / sizeof(Elf64_Sym);
	return 0;
}

/* Whether entry i is a hidden (non-default) version. */
static _Bool ver_hidden(const struct dynsym *d, size_t i)
{
	GElf_Versym v;

	if (d->ver == NULL || gelf_getversym(d->ver, (int)i, &v) == NULL)
		return 0;
	return (v & 0x8000) != 0;
}

/* The value of sym: the default version's if there are several.  0 when
 * not defined. */
static uint64_t dynsym_find(Elf *elf, const struct dynsym *d, const char *sym)
{
	uint64_t hidden = 0;
	GElf_Sym s;

	for (size_t i = 1; i < d->count; i++) {
		if (gelf_getsym(d->sym, (int)i, &s) == NULL || s.st_shndx == SHN_UNDEF ||
		    s.st_value == 0)
			continue;
		const char *n = elf_strptr(elf, d->strtab, s.st_name);
		if (n == NULL || strcmp(n, sym) != 0)
			continue;
		if (!ver_hidden(d, i))
			return s.st_value;
		hidden = s.st_value;
	}
	return hidden;
}

int apiprof_rsym_lookup(const struct apiprof_rsym_obj *o, const char *sym, uint64_t *addr,
                        struct apiprof_rsym_err *e)
{
	struct dynsym d;
	uint64_t v = 0;
	int fd = obj_open(o, e);

	if (fd < 0)
		return fd;
	Elf *elf = elf_of(fd);
	if (elf != NULL && dynsym_of(elf, &d) == 0)
		v = dynsym_find(elf, &d, sym);
	int r = v != 0 ? 0
	               : fail(e, ENOENT, "%s (process %d) does not define %s", o->path, (int)o->pid,
	                      sym);
	*addr = v != 0 ? o->bias + v : 0;
	if (elf != NULL)
		elf_end(elf);
	close(fd);
	return r;
}
