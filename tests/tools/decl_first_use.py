#!/usr/bin/env python3
"""Declarations at first use (docs/design/style.md).

Finds a variable declared without an initializer at the top of a block when
it could be declared where it gets its value:
  - "one value": its first mention is the statement `NAME = ...;` in a block
    that holds every mention, it is assigned nowhere else and its address is
    never taken;
  - "loop counter": every mention is inside `for (NAME = ...; ...)` loops.
Anything this cannot prove (a label before the assignment, a declarator it
does not parse, `&NAME`, ++/--, compound assignment) is not reported, so a
report is always a real case.  Works on clang-formatted C with comments,
strings and preprocessor lines removed; an unbalanced file is an error.

usage: decl_first_use.py SRCROOT   (exit 1 and one line per case if any)
"""
import os
import re
import sys

DIRS = ["common", "gen", "run", "preload", "top", "report"]
# The hot path is hand-tuned: its declarations stay as written.
SKIP = {os.path.join("preload", "apiprof_shim.h")}

TOKEN = re.compile(
    r"[A-Za-z_]\w*|\d[\w.]*|->|\+\+|--|<<=|>>=|<<|>>|<=|>=|==|!=|&&|\|\||"
    r"[-+*/%&|^]=|\.\.\.|\S"
)
ASSIGN = {"=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>="}
TYPE_WORDS = {
    "int", "char", "unsigned", "signed", "long", "short", "const",
    "volatile", "struct", "union", "enum", "bool", "double", "float",
    "void", "static", "register", "_Bool", "extern",
}
KEYWORDS = {
    "return", "if", "else", "for", "while", "do", "switch", "case",
    "default", "goto", "break", "continue", "sizeof",
}


def strip(text):
    """Comments, strings, chars and preprocessor lines become blanks;
    line breaks are kept so that token lines stay true."""
    out = []
    i, n = 0, len(text)
    bol = True
    while i < n:
        c = text[i]
        if bol and c in " \t":
            out.append(c)
            i += 1
            continue
        if bol and c == "#":
            while i < n and text[i] != "\n":
                if text[i] == "\\" and i + 1 < n and text[i + 1] == "\n":
                    out.append(" \n")
                    i += 2
                    continue
                out.append(" ")
                i += 1
            continue
        bol = False
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("".join(ch if ch == "\n" else " " for ch in text[i:j]))
            i = j
        elif text.startswith("//", i):
            while i < n and text[i] != "\n":
                out.append(" ")
                i += 1
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append("0")
            out.append("".join(ch if ch == "\n" else " " for ch in text[i + 1 : j + 1]))
            i = j + 1
        else:
            if c == "\n":
                bol = True
            out.append(c)
            i += 1
    return "".join(out)


def tokens(text):
    toks = []
    for lno, line in enumerate(text.split("\n"), 1):
        for m in TOKEN.finditer(line):
            toks.append((m.group(), lno, m.start()))
    return toks


class Src:
    def __init__(self, path, text):
        self.path = path
        self.t = tokens(strip(text))
        self.v = [x[0] for x in self.t]
        self.match = {}
        stack = []
        for i, s in enumerate(self.v):
            if s in "({[":
                stack.append(i)
            elif s in ")}]":
                if not stack:
                    raise ValueError(f"{path}:{self.t[i][1]}: unbalanced {s}")
                j = stack.pop()
                self.match[j] = i
        if stack:
            raise ValueError(f"{path}:{self.t[stack[-1]][1]}: unbalanced")

    def stmt(self, i):
        """End (exclusive) of the statement starting at token i."""
        v = self.v
        s = v[i]
        if s == "{":
            return self.match[i] + 1
        if s == "if":
            e = self.stmt(self.match[i + 1] + 1)
            if e < len(v) and v[e] == "else":
                e = self.stmt(e + 1)
            return e
        if s in ("for", "while", "switch"):
            return self.stmt(self.match[i + 1] + 1)
        if s == "do":
            e = self.stmt(i + 1)  # at `while`
            return self.match[e + 1] + 2
        if s in ("case", "default"):
            j = i
            while v[j] != ":":
                j += 1
            return self.stmt(j + 1)
        if re.match(r"[A-Za-z_]", s) and v[i + 1] == ":" and s not in KEYWORDS:
            return self.stmt(i + 2)  # a label
        j = i
        while v[j] != ";":
            j = self.match[j] + 1 if v[j] in "({[" else j + 1
        return j + 1

    def block(self, i):
        """Statements (start, end) of the block opened at token i."""
        out = []
        j, end = i + 1, self.match[i]
        while j < end:
            e = self.stmt(j)
            out.append((j, e))
            j = e
        return out

    def is_decl(self, a, e):
        v = self.v
        s = v[a]
        if s in TYPE_WORDS or s.endswith("_t"):
            return True
        if not re.match(r"[A-Za-z_]\w*$", s) or s in KEYWORDS:
            return False
        k = a + 1
        while v[k] == "*":
            k += 1
        return re.match(r"[A-Za-z_]\w*$", v[k]) is not None and k + 1 < e and v[k + 1] in ";,=["

    def plain_names(self, a, e):
        """Names declared without initializer by the declaration [a, e)."""
        v = self.v
        if "static" in v[a:e] or "extern" in v[a:e] or "typedef" in v[a:e]:
            return []
        parts, j, start = [], a, a
        while j < e - 1:
            if v[j] in "({[":
                j = self.match[j] + 1
                continue
            if v[j] == ",":
                parts.append((start, j))
                start = j + 1
            j += 1
        parts.append((start, e - 1))
        names = []
        for p, q in parts:
            seg = v[p:q]
            if any(x in ("=", "(", "[", ":") for x in seg):
                continue
            if seg and re.match(r"[A-Za-z_]\w*$", seg[-1]):
                names.append((seg[-1], p + len(seg) - 1))
        return names

    def mentions(self, name, a, e):
        v = self.v
        return [k for k in range(a, e) if v[k] == name and v[k - 1] not in (".", "->")]

    def writes(self, k):
        v = self.v
        if v[k - 1] in ("++", "--") or v[k + 1] in ("++", "--"):
            return True
        # `*NAME = x` writes where NAME points, not NAME.
        return v[k + 1] in ASSIGN and v[k - 1] != "*"

    def owner(self, k, blk_open):
        """Innermost block (its `{` index) holding token k, below blk_open."""
        best = blk_open
        for o, c in self.match.items():
            if self.v[o] == "{" and o > best and o < k < c:
                best = o
        return best

    def loops(self, name, a, e):
        """Extents of `for (NAME = ...; ...)` loops in [a, e)."""
        v = self.v
        out = []
        for k in range(a, e):
            if v[k] == "for" and v[k + 1] == "(" and v[k + 2] == name and v[k + 3] == "=":
                out.append((k, self.stmt(k)))
        return out

    def check_block(self, i, found):
        stmts = self.block(i)
        n = 0
        while n < len(stmts) and self.is_decl(*stmts[n]):
            n += 1
        rest_a = stmts[n][0] if n < len(stmts) else self.match[i]
        rest_e = self.match[i]
        for a, e in stmts[:n]:
            for name, at in self.plain_names(a, e):
                self.check_name(name, at, i, rest_a, rest_e, found, (a, e))
        for o in range(i + 1, rest_e):
            if self.v[o] == "{" and self.owner(o, i) == i and not self.is_initializer(o):
                self.check_block(o, found)

    def match_back(self, c):
        for o, x in self.match.items():
            if x == c:
                return o
        return c

    def is_initializer(self, o):
        """A `{` of an initializer or compound literal, not a block."""
        p = self.v[o - 1]
        if p in ("=", ",", "(", "{", "return"):
            return True
        if p == ")":  # a compound literal's (type){...}
            q = self.match_back(o - 1)
            return self.v[q - 1] not in ("if", "for", "while", "switch")
        return False

    def check_name(self, name, at, blk, a, e, found, a_decl):
        ms = self.mentions(name, a, e)
        if not ms:
            return
        v = self.v
        # &NAME may be written through; &NAME[i] and &NAME->f cannot change it.
        if any(v[k - 1] == "&" and v[k + 1] not in ("[", "->") for k in ms):
            return
        loops = self.loops(name, a, e)
        if loops and all(any(s <= k < t for s, t in loops) for k in ms):
            found.append((self.t[at][1], name, "loop counter: declare it in its for", (blk, a_decl, at, None, loops)))
            return
        first = ms[0]
        home = self.owner(first, blk)
        if not all(home < k < self.match[home] for k in ms):
            return
        if not (v[first + 1] == "=" and v[first - 1] in (";", "{", "}")):
            return
        if v[first - 1] == "}" and self.is_initializer(self.match_back(first - 1)):
            return
        if any(self.writes(k) for k in ms[1:]):
            return
        # After a label or case a declaration is not allowed (before C23):
        # there v[first - 1] is ':' and nothing is reported.
        where = "here" if home == blk else "in the inner block"
        found.append((self.t[at][1], name, f"one value at line {self.t[first][1]}: declare it there ({where})", (blk, a_decl, at, first, None)))

    def run(self):
        found = []
        v = self.v
        depth_open = [o for o, c in self.match.items() if v[o] == "{"]
        tops = []
        for o in sorted(depth_open):
            if any(p < o < self.match[p] for p in tops):
                continue
            tops.append(o)
        for o in tops:
            if v[o - 1] == ")":
                self.check_block(o, found)
        return found


# Cases that must be reported (name, line) and cases that must not.
SELF_TEST = """
int f(int a)
{
	int n, m = 0, i, k, *q;
	char buf[8];

	k = a;
	if (a)
		return 0;
	n = g(a);
	for (i = 0; i < n; i++)
		m += i;
	q = h(buf);
	for (k = 0; k < 2; k++)
		m++;
	return m + *q;
}
int ok(int a)
{
	int r, s, t, u, w, x, y, z;

	g(&r);
	s = 1;
	s += a;
	t = a;
	t = t + 1;
	if (a)
		u = 1;
	else
		u = 2;
	do {
		w = g(a);
	} while (w);
	switch (a) {
	case 1:
		x = 2;
		break;
	}
	for (y = 0; y < a; y++)
		;
	goto out;
out:
	z = y;
	return r + s + t + u + x + z;
}
int ptr(char *a)
{
	char *s, *t;

	s = strchr(a, 'x');
	*s = 0;
	t = a;
	h(&t);
	return h(&s[1]);
}
"""
SELF_WANT = {("n", 4), ("i", 4), ("q", 4), ("s", 48)}


def self_test():
    got = {(name, line) for line, name, _, _ in Src("self-test", SELF_TEST).run()}
    if got != SELF_WANT:
        print(f"decl-first-use: self-test: got {sorted(got)}, want {sorted(SELF_WANT)}")
        return False
    return True


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    if not self_test():
        return 1
    bad = 0
    for d in DIRS:
        for dirpath, _, files in sorted(os.walk(os.path.join(root, d))):
            for f in sorted(files):
                if not f.endswith((".c", ".h")):
                    continue
                path = os.path.join(dirpath, f)
                rel = os.path.relpath(path, root)
                if rel in SKIP:
                    continue
                with open(path, encoding="utf-8") as fh:
                    src = Src(rel, fh.read())
                for line, name, why, _ in src.run():
                    print(f"{rel}:{line}: {name}: {why}")
                    bad += 1
    if bad:
        print(f"decl-first-use: {bad} declaration(s) not at first use", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
