/* SPDX-License-Identifier: MIT */
/*
 * test_mode.c - the modes' parser, printer and control word
 * (common/ctl/apiprof_mode.h), as a table of cases.
 */
#include <stdio.h>
#include <string.h>

#include "apiprof_abi.h"
#include "apiprof_mode.h"

struct mode_case {
	const char *text;
	int rc;
	enum apiprof_level level;
	uint32_t sample;
	const char *canonical; /* what format prints back; NULL when rc < 0 */
};

static const struct mode_case cases[] = {
        {"off", 0, APIPROF_LEVEL_OFF, 0, "off"},
        {"count", 0, APIPROF_LEVEL_COUNT, 0, "count"},
        {"full", 0, APIPROF_LEVEL_FULL, 0, "full"},
        {"sampled", 0, APIPROF_LEVEL_SAMPLED, 64, "sampled:64"},
        {"sampled:2", 0, APIPROF_LEVEL_SAMPLED, 2, "sampled:2"},
        {"sampled:1073741824", 0, APIPROF_LEVEL_SAMPLED, 1u << 30, "sampled:1073741824"},
        {"sampled:1", -1, 0, 0, NULL},
        {"sampled:0", -1, 0, 0, NULL},
        {"sampled:1073741825", -1, 0, 0, NULL},
        {"sampled:", -1, 0, 0, NULL},
        {"sampled:+5", -1, 0, 0, NULL},
        {"sampled:64x", -1, 0, 0, NULL},
        {"sampled:99999999999999999999", -1, 0, 0, NULL},
        {"full:3", -1, 0, 0, NULL},
        {"of", -1, 0, 0, NULL},
        {"offf", -1, 0, 0, NULL},
        {"OFF", -1, 0, 0, NULL},
        {"", -1, 0, 0, NULL},
        {NULL, -1, 0, 0, NULL},
};

static int check_case(const struct mode_case *c)
{
	struct apiprof_modeval m = {APIPROF_LEVEL_NONE, 77};
	const char *why = NULL;
	int rc = apiprof_mode_parse(c->text, &m, &why);
	const char *t = c->text ? c->text : "(null)";
	if (rc != c->rc) {
		printf("FAIL: parse(\"%s\") = %d, want %d\n", t, rc, c->rc);
		return 1;
	}
	if (rc < 0) {
		if (why == NULL || m.level != APIPROF_LEVEL_NONE || m.sample != 77) {
			printf("FAIL: parse(\"%s\") failed without a reason or wrote *m\n", t);
			return 1;
		}
		return 0;
	}
	char buf[32];
	apiprof_mode_format(m, buf, sizeof(buf));
	struct apiprof_modeval back = {APIPROF_LEVEL_NONE, 0};
	bool ok = apiprof_mode_unpack(apiprof_mode_pack(m), &back);
	if (m.level != c->level || m.sample != c->sample || strcmp(buf, c->canonical) != 0 || !ok ||
	    back.level != m.level || back.sample != m.sample) {
		printf("FAIL: \"%s\" -> level %d sample %u \"%s\" (round trip %d)\n", t, m.level,
		       m.sample, buf, ok);
		return 1;
	}
	return 0;
}

/* Control words another process wrote: none of these is a mode. */
static int check_bad_words(void)
{
	static const uint64_t words[] = {
	        0,                                 /* no level */
	        5,                                 /* a level past full */
	        0xff,                              /* the byte's top */
	        APIPROF_LEVEL_OFF | (3u << 8),     /* off with a sample */
	        APIPROF_LEVEL_SAMPLED | (1u << 8), /* N = 1 */
	        APIPROF_LEVEL_SAMPLED,             /* N = 0 */
	        APIPROF_LEVEL_FULL | (1ull << 40), /* bits past N */
	        ~0ull,
	};
	int bad = 0;
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		struct apiprof_modeval m = {APIPROF_LEVEL_NONE, 77};
		if (apiprof_mode_unpack(words[i], &m) || m.level != APIPROF_LEVEL_NONE ||
		    m.sample != 77) {
			printf("FAIL: the word %#llx unpacked as a mode\n",
			       (unsigned long long)words[i]);
			bad = 1;
		}
	}
	char buf[8];
	struct apiprof_modeval junk = {(enum apiprof_level)9, 0};
	apiprof_mode_format(junk, buf, sizeof(buf));
	if (strcmp(buf, "?") != 0) {
		printf("FAIL: a level past full printed as \"%s\"\n", buf);
		bad = 1;
	}
	return bad;
}

/* What a segment shows (version 12): the process's mode, an api's own,
 * none (0: the process's), and words a hostile writer left. */
static int check_shown(void)
{
	static struct apiprof_shm_header h;
	struct apiprof_modeval m;
	int bad = 0;

	h.proc_mode = apiprof_mode_pack((struct apiprof_modeval){APIPROF_LEVEL_SAMPLED, 64});
	h.api_mode[3] = apiprof_mode_pack((struct apiprof_modeval){APIPROF_LEVEL_OFF, 0});
	h.api_mode[4] = 0xff;
	h.api_mode[5] = 1ull << 50;
	bad |= !apiprof_mode_shown(&h, 0, &m) || m.level != APIPROF_LEVEL_SAMPLED || m.sample != 64;
	bad |= !apiprof_mode_shown(&h, 3, &m) || m.level != APIPROF_LEVEL_OFF;
	bad |= !apiprof_mode_shown(&h, 2, &m) || m.level != APIPROF_LEVEL_NONE;
	bad |= apiprof_mode_shown(&h, 4, &m) || apiprof_mode_shown(&h, 5, &m);
	bad |= apiprof_mode_shown(&h, APIPROF_SHM_APIS, &m);
	if (bad)
		printf("FAIL: apiprof_mode_shown\n");
	return bad;
}

/* APIPROF_MODE's lists: the text, rc, the process's level, the apis
 * (name=level:N, comma-separated) as they come out. */
struct list_case {
	const char *text;
	int rc;
	enum apiprof_level proc;
	const char *apis;
};

static const struct list_case list_cases[] = {
        {"full", 0, APIPROF_LEVEL_FULL, ""},
        {"full,zlib=sampled:64", 0, APIPROF_LEVEL_FULL, "zlib=3:64,"},
        {"zlib=sampled,malloc=off", 0, APIPROF_LEVEL_NONE, "zlib=3:64,malloc=1:0,"},
        {"malloc=full,sampled:8", 0, APIPROF_LEVEL_SAMPLED, "malloc=4:0,"},
        {"a=off,b=off,c=off,d=off,e=off,f=off,g=off,h=off", 0, APIPROF_LEVEL_NONE,
         "a=1:0,b=1:0,c=1:0,d=1:0,e=1:0,f=1:0,g=1:0,h=1:0,"},
        {"a=off,b=off,c=off,d=off,e=off,f=off,g=off,h=off,i=off", -1, 0, NULL}, /* 9 */
        {"full,count", -1, 0, NULL},         /* two for the process */
        {"zlib=off,zlib=full", -1, 0, NULL}, /* one api twice */
        {"=off", -1, 0, NULL},               /* no name */
        {"zlib=", -1, 0, NULL},              /* no mode */
        {"zlib=sampled:1", -1, 0, NULL},     /* a bad N */
        {"full,", -1, 0, NULL},              /* an empty item */
        {",full", -1, 0, NULL},
        {"zlib=sampled:1073741824000000", -1, 0, NULL},        /* longer than any mode */
        {"abcdefghijabcdefghijabcdefghij12=off", -1, 0, NULL}, /* a name of 32 */
        {"abcdefghijabcdefghijabcdefghij1=off", 0, APIPROF_LEVEL_NONE,
         "abcdefghijabcdefghijabcdefghij1=1:0,"},
        {"", -1, 0, NULL},
        {NULL, -1, 0, NULL},
};

static int check_list(const struct list_case *c)
{
	struct apiprof_mode_list l;
	const char *why = NULL;
	int rc = apiprof_mode_list_parse(c->text, &l, &why);
	const char *t = c->text ? c->text : "(null)";
	if (rc != c->rc || (rc < 0 && why == NULL)) {
		printf("FAIL: list \"%s\" = %d, want %d (why %s)\n", t, rc, c->rc, why ? why : "-");
		return 1;
	}
	if (rc < 0)
		return 0;
	char got[512] = "";
	for (uint32_t i = 0; i < l.n; i++)
		snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s=%d:%u,", l.api[i].name,
		         l.api[i].m.level, l.api[i].m.sample);
	if (l.proc.level != c->proc || strcmp(got, c->apis) != 0) {
		printf("FAIL: list \"%s\": process %d, apis \"%s\"; want %d, \"%s\"\n", t,
		       l.proc.level, got, c->proc, c->apis);
		return 1;
	}
	return 0;
}

int main(void)
{
	int bad = 0;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		bad |= check_case(&cases[i]);
	for (size_t i = 0; i < sizeof(list_cases) / sizeof(list_cases[0]); i++)
		bad |= check_list(&list_cases[i]);
	bad |= check_bad_words();
	bad |= check_shown();
	if (!bad)
		printf("ok: %zu texts, %zu lists, 8 hostile words\n",
		       sizeof(cases) / sizeof(cases[0]),
		       sizeof(list_cases) / sizeof(list_cases[0]));
	return bad;
}
