#!/usr/bin/env python3
"""symbols_leak.py SPEC SHIM [SPEC SHIM]... - each shim's dynamic symbol
table (nm -D --defined-only) must be exactly what its spec exports: every
function's and alias's symbol, SYMBOL@@VERSION or SYMBOL@VERSION for a
versioned export, and the version nodes those need.  Anything more would
interpose on the program too (the libinput symbols-leak-test idea).

The expected list is computed here from the JSON, independently of the
generator."""
import json
import subprocess
import sys


def exported(entry):
    sym = entry.get("symbol", entry.get("name"))
    kind = entry.get("symver")
    if kind == "default":
        return sym + "@@" + entry["version"], entry["version"]
    if kind == "old":
        return sym + "@" + entry["version"], entry["version"]
    return sym, None


def expected(spec):
    want = set()
    for f in json.load(open(spec))["functions"]:
        if "unsupported" in f:  # the generator skips it: no wrapper
            continue
        entries = [f] + [a if isinstance(a, dict) else {"symbol": a}
                         for a in f.get("aliases", [])]
        for e in entries:
            sym, node = exported(e)
            want.add(sym)
            if node:
                want.add(node)
    return want


def defined(shim):
    out = subprocess.run(["nm", "-D", "--defined-only", shim], check=True,
                         capture_output=True, text=True).stdout
    return {line.split()[-1] for line in out.splitlines() if line.strip()}


def main(args):
    if len(args) == 0 or len(args) % 2:
        print(__doc__, file=sys.stderr)
        return 2
    bad = 0
    for spec, shim in zip(args[::2], args[1::2]):
        want, got = expected(spec), defined(shim)
        if want != got:
            bad += 1
            print("FAIL: %s (from %s)" % (shim, spec))
            for s in sorted(got - want):
                print("  leaked:  " + s)
            for s in sorted(want - got):
                print("  missing: " + s)
        else:
            print("ok: %s exports exactly its %d symbols" % (shim, len(want)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
