#!/usr/bin/env python3
"""Joins a ctensor benchmark output with its PyTorch twin's output by case name.

usage: compare.py CT.tsv [TORCH.tsv] [--markdown] [--title TEXT] [--note TEXT ...] [--target 'GLOB>=R' ...]
       compare.py --best RUN1.tsv RUN2.tsv ...   (one output: per case, the run with the lowest median)

Lines are `name<TAB>params<TAB>median_us<TAB>min_us<TAB>reps[<TAB>rate]` (bench/bench.h);
lines starting with '#' are comments. TORCH.tsv may be missing or '-' (ctensor only).
Columns: both medians, the ratio PyTorch / ctensor of the medians (above 1: ctensor
is faster) and of the minimums (less sensitive to other load on the machine), and the
rates (GB/s, GFLOP/s) when the cases print them. Rows follow the ctensor file; cases
only PyTorch has are listed after them.

--target 'GLOB>=R' (repeatable) checks that the median ratio of every case whose name
matches GLOB (fnmatch) is at least R, and prints one line per target: met / not met
and by how much. Two more forms:
  'PRE{a,b,c}POST>=R'   the cases that differ only in the braces form a group, timed by
                        its fastest case on each side (PyTorch's fastest / ctensor's
                        fastest >= R, for every group)
  'GLOB:REF>=R'         ctensor alone: REF's median / the case's (or group's fastest)
                        median >= R, where REF is a case name in which {1}, {2}, ...
                        stand for what the GLOB's first, second, ... '*' matched
                        (e.g. 'layer_*_pad*_{a,b}:gemm_pad{2}>=0.9').
Needs the stdlib only (runs with any python3)."""
import fnmatch
import os
import re
import sys


def load(path):
    rows, notes = {}, []
    if not path or path == "-" or not os.path.exists(path):
        return rows, notes
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("#"):
                notes.append(line[1:].strip())
                continue
            p = line.split("\t")
            if len(p) < 5:
                continue
            try:
                rows[p[0]] = {"params": p[1], "med": float(p[2]), "min": float(p[3]),
                              "reps": p[4], "rate": p[5] if len(p) > 5 else ""}
            except ValueError:
                pass
    return rows, notes


def fmt_us(v):
    if v is None:
        return "—"
    return "%.0f" % v if v >= 1000 else "%.1f" % v if v >= 10 else "%.3f" % v


def ratio(t, c):
    return t / c if t is not None and c else None


def best(paths):
    """Merges several runs of one program: per case, the line with the lowest median
    (the run least disturbed by other load); comments of the first run are kept."""
    lines, order, first = {}, [], True
    for path in paths:
        if not os.path.exists(path):
            continue
        for line in open(path):
            line = line.rstrip("\n")
            if line.startswith("#"):
                if first:
                    print(line)
                continue
            p = line.split("\t")
            try:
                med = float(p[2])
            except (IndexError, ValueError):
                continue
            if p[0] not in lines:
                order.append(p[0])
            if p[0] not in lines or med < lines[p[0]][0]:
                lines[p[0]] = (med, line)
        first = False
    if len(paths) > 1:
        print("# best of %d runs per case (lowest median)" % len(paths))
    for n in order:
        print(lines[n][1])


def main(argv):
    if len(argv) > 1 and argv[1] == "--best":
        return best(argv[2:])
    args, targets, notes, title = [], [], [], None
    md = False
    i = 1
    while i < len(argv):
        a = argv[i]
        if a == "--markdown":
            md = True
        elif a == "--target" and i + 1 < len(argv):
            targets.append(argv[i + 1])
            i += 1
        elif a == "--note" and i + 1 < len(argv):
            notes.append(argv[i + 1])
            i += 1
        elif a == "--title" and i + 1 < len(argv):
            title = argv[i + 1]
            i += 1
        else:
            args.append(a)
        i += 1
    if not args:
        sys.exit(__doc__)
    ours, ct_notes = load(args[0])
    theirs, pt_notes = load(args[1] if len(args) > 1 else None)
    have_pt = bool(theirs)
    names = list(ours) + [n for n in theirs if n not in ours]
    has_rate = any(r["rate"] for r in ours.values()) or any(r["rate"] for r in theirs.values())

    out = []
    if md:
        if title:
            out.append("### " + title + "\n")
        for n in notes + ct_notes + pt_notes:
            out.append("*%s*  " % n)
        out.append("")
        head = ["case", "params", "ctensor median µs"]
        if have_pt:
            head += ["PyTorch median µs", "PyTorch / ctensor", "ratio of mins"]
        if has_rate:
            head += ["ctensor rate"] + (["PyTorch rate"] if have_pt else [])
        out.append("| " + " | ".join(head) + " |")
        out.append("|" + "|".join("---" if k < 2 else "---:" for k in range(len(head))) + "|")
    else:
        if title:
            out.append(title)
        head = "%-34s %-30s %12s" % ("case", "params", "ctensor us")
        if have_pt:
            head += " %12s %9s %9s" % ("PyTorch us", "PT/ct", "mins")
        if has_rate:
            head += "  %-12s" % "ct rate" + ("  %-12s" % "PT rate" if have_pt else "")
        out.append(head)
    for n in names:
        c, t = ours.get(n), theirs.get(n)
        params = (c or t)["params"]
        cm = c["med"] if c else None
        tm = t["med"] if t else None
        r = ratio(tm, cm)
        rmin = ratio(t["min"] if t else None, c["min"] if c else None)
        rs = "%.2fx" % r if r is not None else "—"
        rmins = "%.2fx" % rmin if rmin is not None else "—"
        if md:
            row = [n, params, fmt_us(cm)]
            if have_pt:
                row += [fmt_us(tm), "**%s**" % rs if r is not None else rs, rmins]
            if has_rate:
                row += [c["rate"] if c and c["rate"] else "—"]
                if have_pt:
                    row += [t["rate"] if t and t["rate"] else "—"]
            out.append("| " + " | ".join(row) + " |")
        else:
            line = "%-34s %-30s %12s" % (n, params[:30], fmt_us(cm))
            if have_pt:
                line += " %12s %9s %9s" % (fmt_us(tm), rs, rmins)
            if has_rate:
                line += "  %-12s" % (c["rate"] if c and c["rate"] else "—")
                if have_pt:
                    line += "  %-12s" % (t["rate"] if t and t["rate"] else "—")
            out.append(line)
    if targets:
        out.append("")
        for spec in targets:
            out.append(("- " if md else "") + check_target(spec, ours, theirs))
    print("\n".join(out))


def check_target(spec, ours, theirs):
    """'GLOB>=R': every matching case has PyTorch/ctensor >= R (median)."""
    if ">=" not in spec:
        return "target %r: not understood (want GLOB>=RATIO)" % spec
    glob, want = spec.rsplit(">=", 1)
    want = float(want)
    if "{" in glob or ":" in glob:
        return check_group_target(spec, glob, want, ours, theirs)
    cases = [n for n in ours if fnmatch.fnmatchcase(n, glob)]
    rs = [(n, ratio(theirs[n]["med"], ours[n]["med"])) for n in cases if n in theirs]
    rs = [(n, r) for n, r in rs if r is not None]
    if not rs:
        return "target %s: PyTorch / ctensor >= %g: no measurement (ctensor or PyTorch missing)" % (glob, want)
    worst_n, worst = min(rs, key=lambda x: x[1])
    met = sum(1 for _, r in rs if r >= want)
    what = "%s: PyTorch / ctensor >= %g" % (glob, want)
    if len(rs) == 1:
        if worst >= want:
            return "target %s: **met** (%.2fx, %.0f%% above the target)" % (what, worst, (worst / want - 1) * 100)
        return ("target %s: **not met** (%.2fx: ctensor needs to be %.2fx faster, %.3f -> %.3f us)"
                % (what, worst, want / worst, ours[worst_n]["med"], theirs[worst_n]["med"] / want))
    if met == len(rs):
        return "target %s: **met** by all %d cases (worst %s at %.2fx)" % (what, len(rs), worst_n, worst)
    return ("target %s: **not met**: %d of %d cases meet it; worst %s at %.2fx (needs %.2fx faster)"
            % (what, met, len(rs), worst_n, worst, want / worst))


def glob_groups(glob, names):
    """The names matching glob ('*' captures, one optional {a,b,...}), grouped by the
    name with the braces' alternative left out: {key: (captures, [names])}."""
    parts, alt = [], False
    for tok in re.split(r"(\*|\{[^}]*\})", glob):
        if tok == "*":
            parts.append("(.*)")
        elif tok.startswith("{") and tok.endswith("}") and not alt:
            parts.append("(?P<alt>%s)" % "|".join(re.escape(a) for a in tok[1:-1].split(",")))
            alt = True
        else:
            parts.append(re.escape(tok))
    rx = re.compile("^" + "".join(parts) + "$")
    groups = {}
    for n in names:
        m = rx.match(n)
        if not m:
            continue
        key = n[:m.start("alt")] + "{}" + n[m.end("alt"):] if alt else n
        caps = [g for i, g in enumerate(m.groups(), 1) if not alt or i != rx.groupindex["alt"]]
        groups.setdefault(key, (caps, []))[1].append(n)
    return groups


def fastest(rows, names):
    """(name, median) of the fastest of names in rows, or None."""
    have = [(n, rows[n]["med"]) for n in names if n in rows and rows[n]["med"] > 0]
    return min(have, key=lambda x: x[1]) if have else None


def alt_of(key, name):
    """The part of name that stands where key (from glob_groups) has "{}"."""
    i = key.find("{}")
    return name if i < 0 else name[i:len(name) - (len(key) - i - 2)]


def check_group_target(spec, glob, want, ours, theirs):
    """The braces and GLOB:REF forms of --target (see the module's doc)."""
    ref = None
    if ":" in glob:
        glob, ref = glob.split(":", 1)
    groups = glob_groups(glob, list(ours))
    rs = []   # (ratio, text naming the group and what was compared)
    for key, (caps, names) in groups.items():
        c = fastest(ours, names)
        if not c:
            continue
        if ref is None:
            t = fastest(theirs, names)
            if t:
                rs.append((t[1] / c[1], "%s (ctensor %s %s us, PyTorch %s %s us)"
                           % (key, alt_of(key, c[0]), fmt_us(c[1]), alt_of(key, t[0]), fmt_us(t[1]))))
        else:
            rn = re.sub(r"\{(\d+)\}", lambda m: caps[int(m.group(1)) - 1] if 0 < int(m.group(1)) <= len(caps) else m.group(0), ref)
            if rn in ours and ours[rn]["med"] > 0:
                rs.append((ours[rn]["med"] / c[1], "%s (%s %s us, %s %s us)"
                           % (key, alt_of(key, c[0]), fmt_us(c[1]), rn, fmt_us(ours[rn]["med"]))))
    what = ("%s: PyTorch's fastest / ctensor's fastest >= %g" % (glob, want) if ref is None
            else "%s: ctensor's %s / ctensor's %s >= %g" % (glob, ref, "fastest" if "{" in glob else "time", want))
    if not rs:
        return "target %s: no measurement (ctensor%s missing)" % (what, " or PyTorch" if ref is None else " case or " + ref)
    worst, wtext = min(rs, key=lambda x: x[0])
    met = sum(1 for r, _ in rs if r >= want)
    if met == len(rs):
        return "target %s: **met** by all %d (worst %s at %.2fx)" % (what, len(rs), wtext, worst)
    return ("target %s: **not met**: %d of %d meet it; worst %s at %.2fx (needs %.2fx faster)"
            % (what, met, len(rs), wtext, worst, want / worst))


if __name__ == "__main__":
    main(sys.argv)
