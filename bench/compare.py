#!/usr/bin/env python3
"""Joins a ctensor benchmark output with its PyTorch twin's output by case name.

usage: compare.py CT.tsv TORCH.tsv [--markdown]
Lines are `name<TAB>params<TAB>median_us<TAB>min_us<TAB>reps`; the ratio column is
PyTorch's median over ctensor's (above 1: ctensor is faster)."""
import sys


def load(path):
    rows = {}
    for line in open(path):
        f = line.rstrip("\n").split("\t")
        if len(f) >= 5 and not line.startswith("#"):
            try:
                rows[f[0]] = (f[1], float(f[2]), float(f[3]))
            except ValueError:
                pass
    return rows


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    ours, theirs = load(sys.argv[1]), load(sys.argv[2])
    md = "--markdown" in sys.argv
    if md:
        print("| case | params | ctensor median µs | PyTorch median µs | PyTorch / ctensor |")
        print("|---|---|---:|---:|---:|")
    for name, (params, med, _) in ours.items():
        if name not in theirs:
            continue
        t = theirs[name][1]
        r = t / med if med > 0 else float("inf")
        if md:
            print("| %s | %s | %.2f | %.2f | %.2fx |" % (name, params, med, t, r))
        else:
            print("%-36s %-22s %12.2f %12.2f %8.2fx" % (name, params, med, t, r))
    only = sorted(set(ours) ^ set(theirs))
    if only:
        print("(in one side only: %s)" % ", ".join(only), file=sys.stderr)


if __name__ == "__main__":
    main()
