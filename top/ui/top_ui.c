/* SPDX-License-Identifier: MIT */
/*
 * top_ui.c - the live ncurses view, a sink of the refresh loop
 * (top_loop.h): it draws each refresh, and its wait is the key poll.
 * The lines drawn are the frame that top_ui_frame.c builds.
 *
 * The keys (top/htop habits) are one table, top_keys[] (top_ui_keys.c):
 * the help screen and the status line's hint are drawn from it here (the
 * help's column part from top_columns[].help).
 *
 * Colours by a row's share of the interval's wall time:
 *   >= 10 %  red (hot),  >= 1 %  yellow (warm),  < 0.1 %  dim (negligible).
 *
 * The terminal is restored on every way out: q, SIGINT/SIGTERM (the
 * handler only sets a flag; the loop sees it because the handler is
 * installed without SA_RESTART, so getch() returns), and top_ui_fatal(),
 * the single fatal path, which calls endwin() before printing.
 */
#include <curses.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "top_batch.h"
#include "top_clock.h"
#include "top_cols.h"
#include "top_label.h"
#include "top_loop.h"
#include "top_ptree.h"
#include "top_shm.h"
#include "top_sitesym.h"
#include "top_ui.h"
#include "top_ui_int.h"

#define HOT_PCT        10.0
#define WARM_PCT       1.0
#define NEGLIGIBLE_PCT 0.1

enum { PAIR_HOT = 1, PAIR_WARM, PAIR_ALERT, PAIR_TITLE };
static volatile sig_atomic_t ui_stop;
static bool ui_active;

static void restore_terminal(void)
{
	if (ui_active) {
		endwin();
		ui_active = false;
	}
}

/* The one fatal path: terminal first, then the message. */
void top_ui_fatal(const char *fmt, ...)
{
	va_list ap;

	restore_terminal();
	va_start(ap, fmt);
	fputs("apiprof-top: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

static void on_signal(int sig)
{
	(void)sig;
	ui_stop = 1;
}

static void install_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal; /* no SA_RESTART: getch() must return */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

static void ui_warn(void *ctx, const char *msg)
{
	struct ui *u = ctx;

	snprintf(u->status, sizeof(u->status), "%s", msg);
}

static void start_curses(void)
{
	if (!newterm(NULL, stdout, stdin))
		top_ui_fatal("cannot initialise the terminal (TERM=%s)",
		             getenv("TERM") ? getenv("TERM") : "");
	ui_active = true;
	atexit(restore_terminal);
	cbreak();
	noecho();
	keypad(stdscr, TRUE);
	curs_set(0);
	set_escdelay(25);
	if (has_colors()) {
		start_color();
		use_default_colors();
		init_pair(PAIR_HOT, COLOR_RED, -1);
		init_pair(PAIR_WARM, COLOR_YELLOW, -1);
		init_pair(PAIR_ALERT, COLOR_WHITE, COLOR_RED);
		init_pair(PAIR_TITLE, COLOR_BLACK, COLOR_CYAN);
	}
}

/* --- drawing ---------------------------------------------------------------- */

/* Writes s from the cursor, clipped at the right edge: a long line must
 * not wrap onto the next one.  Counts columns, not bytes ("µ" is two). */
static void put(const char *s)
{
	int y, x;
	size_t bytes = 0;

	getyx(stdscr, y, x);
	(void)y;
	for (int cols = 0; s[bytes] && cols < COLS - x; cols++) {
		bytes++;
		while (((unsigned char)s[bytes] & 0xc0) == 0x80)
			bytes++;
	}
	addnstr(s, (int)bytes);
}

static void putf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void putf(const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	put(buf);
}

static const char *clock_summary(const struct top_watch *w)
{
	const char *name = NULL;

	for (size_t i = 0; i < w->n; i++) {
		const char *c = top_clock_name(w->v[i]->proc.clock);

		if (!top_entry_visible(w->v[i]))
			continue;
		if (name && strcmp(name, c))
			return "mixed";
		name = c;
	}
	return name ? name : "-";
}

static void draw_header(struct ui *u)
{
	uint64_t dropped = top_watch_dropped(u->w);
	time_t t = time(NULL);
	char stamp[16], line[256];
	struct tm tm;

	localtime_r(&t, &tm);
	strftime(stamp, sizeof(stamp), "%H:%M:%S", &tm);
	snprintf(line, sizeof(line),
	         "apiprof-top - %s  %zu processes  refresh %.2fs  clock %s  %s  ", stamp,
	         top_watch_visible(u->w), u->loop->delay_s, clock_summary(u->w),
	         u->view.group == TOP_GROUP_TREE   ? "per function, by tree"
	         : u->view.group == TOP_GROUP_COMM ? "per function, by command"
	         : u->view.aggregate               ? "per function"
	                                           : "per thread");
	move(0, 0);
	clrtoeol();
	put(line);
	if (dropped)
		attron(COLOR_PAIR(PAIR_ALERT) | A_BOLD);
	putf("dropped %llu", (unsigned long long)dropped);
	attroff(COLOR_PAIR(PAIR_ALERT) | A_BOLD);
	if (u->loop->paused) {
		attron(A_REVERSE | A_BOLD);
		put("  PAUSED");
		attroff(A_REVERSE | A_BOLD);
	}
}

/* The status line's hint, from the keys that have one: "h: help". */
static void put_hints(void)
{
	const char *sep = "";

	for (size_t i = 0; i < top_nkeys; i++) {
		const struct top_key *k = &top_keys[i];

		if (k->hint) {
			putf("%s%.*s: %s", sep, (int)strcspn(k->label, " "), k->label, k->hint);
			sep = "  ";
		}
	}
}

static void draw_status(struct ui *u)
{
	move(1, 0);
	clrtoeol();
	if (u->prompt == PROMPT_FILTER)
		putf("filter: %s", u->input);
	else if (u->prompt == PROMPT_DELAY)
		putf("delay (seconds): %s", u->input);
	else if (u->status[0])
		putf("%s", u->status);
	else if (u->filter[0])
		putf("filter: %s  (Esc clears)", u->filter);
	else
		put_hints();
}

static void draw_proc_title(const struct top_pnode *node)
{
	const struct top_proc *p = node->proc;
	char up[TOP_FMT_LEN], mode[TOP_FMT_LEN], name[TOP_NAME_BUF], indent[64], unl[256],
	        steer[TOP_STEER_BUF];
	uint64_t real = top_now_ns(CLOCK_REALTIME);

	top_fmt_uptime(up, sizeof(up),
	               real > p->start_realtime_ns ? real - p->start_realtime_ns : 0);
	top_tree_indent(indent, sizeof(indent), node->depth);
	top_unloaded_note(p, unl, sizeof(unl));
	put(indent);
	attron(A_BOLD);
	putf("PID %d  %s  up %s  %s", p->pid, top_proc_name(p, name, sizeof(name)), up,
	     top_state_name(p->state));
	attroff(A_BOLD);
	putf("  %s  mode %s  clock %s  dropped %llu  lost %llu%s%s",
	     top_mode_name(p->mode, mode, sizeof(mode)), top_steer_text(p, steer, sizeof(steer)),
	     top_clock_name(p->clock), (unsigned long long)p->dropped, (unsigned long long)p->lost,
	     p->sample > 1 ? "  sampled: ~ = estimate"
	     : p->untimed  ? "  not all timed: ~ = estimate"
	                   : "",
	     top_ring_note(p));
	if (unl[0]) {
		attron(COLOR_PAIR(PAIR_ALERT) | A_BOLD);
		put(unl);
		attroff(COLOR_PAIR(PAIR_ALERT) | A_BOLD);
	}
}

static attr_t row_attr(const struct top_row *r)
{
	if (r->pct >= HOT_PCT)
		return COLOR_PAIR(PAIR_HOT) | A_BOLD;
	if (r->pct >= WARM_PCT)
		return COLOR_PAIR(PAIR_WARM);
	if (r->pct < NEGLIGIBLE_PCT)
		return A_DIM;
	return A_NORMAL;
}

static void draw_line(struct ui *u, const struct vline *l, int cols, bool selected)
{
	char buf[512];

	switch (l->kind) {
	case V_PROC:
		draw_proc_title(l->node);
		break;
	case V_GROUP:
		top_group_title(l->group, u->view.group, buf, sizeof(buf));
		attron(A_BOLD);
		put(buf);
		attroff(A_BOLD);
		break;
	case V_COLS:
		top_cols_header(buf, sizeof(buf), u->view.sort, u->view.reverse, l->acct);
		attron(COLOR_PAIR(PAIR_TITLE));
		putf("%-*s", cols, buf);
		attroff(COLOR_PAIR(PAIR_TITLE));
		break;
	case V_ROW:
		top_cols_line(l->row, buf, sizeof(buf), l->acct);
		attron(row_attr(l->row) | (selected ? A_REVERSE : 0));
		put(buf);
		attroff(row_attr(l->row) | (selected ? A_REVERSE : 0));
		break;
	case V_TEXT:
		put(l->text);
		break;
	case V_BLANK:
		break;
	}
}

/* The cursor stays on a line, and on a row when it can (the first of
 * the frame to start with); the view scrolls to show it. */
void top_ui_clamp(struct ui *u)
{
	int max = (int)u->nlines - top_ui_body_height();

	if (u->cursor >= (int)u->nlines)
		u->cursor = (int)u->nlines - 1;
	if (u->cursor < 0)
		u->cursor = 0;
	for (int i = u->cursor;
	     u->nlines && u->lines[u->cursor].kind != V_ROW && i < (int)u->nlines; i++)
		if (u->lines[i].kind == V_ROW)
			u->cursor = i;
	if (u->cursor < u->scroll)
		u->scroll = u->cursor;
	if (u->cursor >= u->scroll + top_ui_body_height())
		u->scroll = u->cursor - top_ui_body_height() + 1;
	if (u->scroll > max)
		u->scroll = max;
	if (u->scroll < 0)
		u->scroll = 0;
}

static void draw_body(struct ui *u)
{
	top_ui_clamp(u);
	for (int y = 0; y < top_ui_body_height(); y++) {
		size_t i = (size_t)(u->scroll + y);

		move(HEADER_LINES + y, 0);
		clrtoeol();
		if (i < u->nlines)
			draw_line(u, &u->lines[i], COLS, (int)i == u->cursor);
	}
	if (!u->nlines)
		mvaddstr(HEADER_LINES, 0, "no profiled process (waiting for new ones)");
}

static const char *const help_notes[] = {
        "",
        "  red: >= 10% of the interval   yellow: >= 1%   dim: < 0.1%",
        "  ~: estimated from sampled timing",
        "",
        "  BYTES/S B/CALL FAIL/S ERRNO are shown when a function of the view",
        "  declares them in its spec (\"bytes\", \"fails\", \"errno\").",
        "",
        "  columns",
};

/* Line i of the help: the keys (top_keys[]), the notes, the columns
 * (top_columns[]); false past its end. */
static bool help_line(size_t i, char *buf, size_t cap)
{
	size_t nnotes = sizeof(help_notes) / sizeof(help_notes[0]);

	if (i == 0)
		snprintf(buf, cap, "apiprof-top keys");
	else if (i == 1)
		buf[0] = '\0';
	else if ((i -= 2) < top_nkeys)
		snprintf(buf, cap, "  %-14s %s", top_keys[i].label, top_keys[i].help);
	else if ((i -= top_nkeys) < nnotes)
		snprintf(buf, cap, "%s", help_notes[i]);
	else if ((i -= nnotes) < TOP_COL_COUNT)
		snprintf(buf, cap, "  %-14s %s", top_columns[i].title, top_columns[i].help);
	else
		return false;
	return true;
}

static void draw_help(void)
{
	char buf[256];
	int y = HEADER_LINES;

	for (size_t i = 0; y < LINES && help_line(i, buf, sizeof(buf)); i++, y++) {
		move(y, 0);
		clrtoeol();
		move(y, 2);
		put(buf);
	}
	for (; y < LINES; y++) {
		move(y, 0);
		clrtoeol();
	}
}

static void draw(struct ui *u)
{
	erase();
	draw_header(u);
	draw_status(u);
	if (u->help) {
		draw_help();
	} else {
		top_ui_frame_build(u);
		top_ui_sel_find(u);
		draw_body(u);
		top_ui_sel_note(u);
	}
	refresh();
}

/* --- the sink ---------------------------------------------------------------------- */

static int ui_refresh(void *ctx, struct top_loop *l)
{
	(void)l;
	top_sitesym_refresh();
	draw(ctx);
	return 0;
}

/* A key ncurses already holds (the rest of what one read brought), or
 * ERR; it does not wait. */
static int buffered_key(void)
{
	timeout(0);
	return getch();
}

/* Waits for a key until the next refresh is due (at most 1 s when paused,
 * so that the clock in the header moves on).  The wait is poll()'s, not
 * getch()'s: at end of input (stdin from /dev/null, a terminal whose other
 * side is gone) getch() returns ERR at once, every time, and the loop
 * would spin.  Input that poll() finds ready but that yields no key is
 * that end: from then on the view runs without keys. */
static int wait_key(struct ui *u)
{
	uint64_t now = top_now_ns(CLOCK_MONOTONIC), next = u->loop->next_ns;
	uint64_t ms = u->loop->paused || next <= now ? 1000 : (next - now) / 1000000 + 1;
	struct pollfd in = {.fd = STDIN_FILENO, .events = POLLIN};
	int ch;

	if (u->had_key && !u->input_eof && (ch = buffered_key()) != ERR)
		return ch;
	u->had_key = false;
	int n = poll(&in, u->input_eof ? 0 : 1, ms > 1000 ? 1000 : (int)ms);
	if (n < 0) /* a signal: SIGWINCH leaves KEY_RESIZE to collect */
		return buffered_key();
	if (n == 0)
		return ERR;
	ch = buffered_key();
	if (ch == ERR) {
		u->input_eof = true;
		snprintf(u->status, sizeof(u->status), "end of input: keys off (Ctrl-C quits)");
	}
	u->had_key = ch != ERR;
	return ch;
}

/* The key poll: a key is handled and the screen drawn again, unless a
 * refresh is due now (which draws it).  q or a stop signal end the loop. */
static int ui_wait(void *ctx, struct top_loop *l)
{
	struct ui *u = ctx;
	int ch = wait_key(u);

	if (ch != ERR)
		top_ui_key(u, ch);
	if (u->quit || ui_stop)
		return TOP_LOOP_STOP;
	if (!top_loop_due(l, top_now_ns(CLOCK_MONOTONIC)))
		draw(u);
	return 0;
}

static void ui_close(void *ctx)
{
	top_ui_frame_free(ctx);
	restore_terminal();
}

int top_ui_start(struct top_sink *s, struct top_loop *l, const struct top_opts *o)
{
	static struct ui one; /* one terminal; the watch's warnings point here */
	struct ui *u = &one;

	memset(u, 0, sizeof(*u));
	u->w = l->w;
	u->loop = l;
	u->view = o->view;
	if (o->view.filter)
		snprintf(u->filter, sizeof(u->filter), "%s", o->view.filter);
	u->view.filter = u->filter[0] ? u->filter : NULL;
	l->w->warn = ui_warn;
	l->w->warn_ctx = u;
	top_sitesym_warn(ui_warn, u);
	install_signals();
	start_curses();
	*s = (struct top_sink){ui_refresh, ui_wait, ui_close, u};
	return 0;
}
