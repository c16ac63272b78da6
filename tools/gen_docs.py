#!/usr/bin/env python3
"""Reference pages for ctensor's headers, made from the headers themselves.

    python3 tools/gen_docs.py                 write docs/reference/*.md (make docs)
    python3 tools/gen_docs.py --out DIR       write them into DIR instead
    python3 tools/gen_docs.py --check         regenerate into a temporary folder and
                                              compare with docs/reference/; fail on a
                                              public function without a description or
                                              a PyTorch counterpart, or on stale pages
    python3 tools/gen_docs.py --stats         per header: public functions, and how
                                              many have no comment in the header
    --root DIR                                the checkout to read and write (default: this one)

Standard library only. For each header it reads the declaration part (everything
before the implementation), in the order of the header's banners, and collects:
  - the public functions: CTENSOR_API declarations (those a declaring macro makes
    from a table, as the unary ops, are expanded) and public static inline helpers;
  - public macros (#define of a lower-case ct_ name, or CT_ names users write);
  - public types (typedefs, structs, enums).
A function's description is its comment: the one on its own line(s) or the
comment block just above a run of declarations (a blank line ends the run). A
function with no comment gets its description from DESC below; one with neither
is an error in --check.

A function's PyTorch counterpart is, in order: an entry of OVERRIDES (or a
pattern of PATTERNS); the op its body dispatches, when it dispatches exactly one
op of the op table (aten::name.overload -> torch.name, torch.Tensor.name,
torch.nn.functional.name, ...); the naming rules (ct_X, ct_X_ in place,
ct_linalg_X, ct_nn_X modules, ct_cuda_X, suffixes _n, _on, _scalar, _dim ...).
Names are resolved against tools/torch_names.txt, the public names of the torch
namespaces in PyTorch 1.13 (--update-torch-names rewrites it from an installed
torch), so the pages are the same with or without torch. When torch can be
imported (TORCH_PY, default /usr/bin/python3), --check also imports each named
counterpart and fails on one that does not exist.
"""
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HEADERS = [
    ("ctensor.h", "ctensor.h: tensors, autograd, the op table"),
    ("ctensor_nn.h", "ctensor_nn.h: modules, losses, optimizers, data, transformers, profiler"),
    ("ctensor_linalg.h", "ctensor_linalg.h: torch.linalg on LAPACKE"),
    ("ctensor_quant.h", "ctensor_quant.h: int8 quantization"),
    ("ctensor_named.h", "ctensor_named.h: named tensors"),
    ("ctensor_jit.h", "ctensor_jit.h: tracing JIT, graph passes, save/load, export to C"),
    ("ctensor_special.h", "ctensor_special.h: torch.special"),
    ("ctensor_fft.h", "ctensor_fft.h: torch.fft"),
    ("ctensor_composite.h", "ctensor_composite.h: torch functions composed of other ops"),
    ("ctensor_cuda.h", "ctensor_cuda.h: CUDA devices, streams, memory, kernels"),
    ("ctensor_dist.h", "ctensor_dist.h: process groups, collectives, DDP, ZeRO"),
]
NAMES_FILE = os.path.join(ROOT, "tools", "torch_names.txt")
# the torch namespaces whose public names tools/torch_names.txt lists
TORCH_NAMESPACES = [
    "torch", "torch.Tensor", "torch.nn", "torch.nn.Module", "torch.nn.functional", "torch.nn.init",
    "torch.nn.utils", "torch.nn.utils.rnn", "torch.linalg", "torch.special", "torch.fft", "torch.autograd",
    "torch.autograd.graph", "torch.autograd.Function", "torch.autograd.profiler", "torch.optim",
    "torch.optim.Optimizer", "torch.optim.lr_scheduler", "torch.utils.data", "torch.utils.dlpack",
    "torch.cuda", "torch.cuda.Stream", "torch.cuda.Event", "torch.backends.cuda.matmul",
    "torch.profiler", "torch.random", "torch.Generator", "torch.testing", "torch.nested",
    "torch.ao.quantization", "torch.ao.quantization.observer", "torch.ao.quantization.fake_quantize",
    "torch.ao.quantization.qconfig", "torch.ao.nn.quantized", "torch.ao.nn.quantized.dynamic",
    "torch.ao.nn.quantized.functional", "torch.ao.ns._numeric_suite", "torch.ops.quantized",
]

# ---------------------------------------------------------------------------
# Scanning a header: comments, code, blank lines
# ---------------------------------------------------------------------------


def decl_part(text):
    """The declarations: the text before the top-level implementation switch."""
    m = re.search(r"^#if(?:def)?\s+(?:defined\s*\(\s*)?CTENSOR_IMPLEMENTATION\b", text, re.M)
    return text[: m.start()] if m else text


def clean_comment(raw):
    """/* ... */ or // ... -> its text, common indentation removed."""
    if raw.startswith("//"):
        return raw[2:].strip()
    body = raw[2:-2]
    lines = body.split("\n")
    first = lines[0].strip()
    rest = lines[1:]
    ind = [len(l) - len(l.lstrip()) for l in rest if l.strip()]
    cut = min(ind) if ind else 0
    out = [first] + [l[cut:].rstrip() for l in rest]
    while out and not out[0].strip():
        out.pop(0)
    while out and not out[-1].strip():
        out.pop()
    return "\n".join(out)


def logical_lines(text):
    """Yields (lineno, code, comments, starts_with_comment) per physical line group.
    A comment spanning lines is attached to the line where it starts; its text
    lines are consumed. Backslash-continued preprocessor lines are joined."""
    i, n, line = 0, len(text), 1
    code, comments, first_tok = [], [], None
    start_line = 1
    in_pp = False
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            raw = text[i:j]
            if first_tok is None:
                first_tok = "comment"
            comments.append(raw)
            line += raw.count("\n")
            i = j
            continue
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            if first_tok is None:
                first_tok = "comment"
            comments.append(text[i:j])
            i = j
            continue
        if c == '"' or c == "'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            code.append(text[i:j + 1])
            if first_tok is None:
                first_tok = "code"
            i = j + 1
            continue
        if c == "\\" and i + 1 < n and text[i + 1] == "\n":
            code.append(" ")
            line += 1
            i += 2
            continue
        if c == "\n":
            yield start_line, line, "".join(code).strip(), comments, first_tok == "comment"
            code, comments, first_tok = [], [], None
            line += 1
            start_line = line
            i += 1
            continue
        if not c.isspace() and first_tok is None:
            first_tok = "code"
        code.append(c)
        i += 1
    if code or comments:
        yield start_line, line, "".join(code).strip(), comments, first_tok == "comment"


def split_args(s):
    """'a, f(b, c), d' -> ['a', 'f(b, c)', 'd'] (top-level commas)."""
    out, depth, cur = [], 0, []
    for ch in s:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0:
            out.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    if "".join(cur).strip():
        out.append("".join(cur).strip())
    return out


def calls_of(body, name):
    """Argument lists of every call name(...) in body."""
    res = []
    for m in re.finditer(r"\b%s\s*\(" % re.escape(name), body):
        j, depth = m.end(), 1
        while j < len(body) and depth:
            if body[j] == "(":
                depth += 1
            elif body[j] == ")":
                depth -= 1
            j += 1
        res.append(split_args(body[m.end():j - 1]))
    return res


def norm_space(s):
    s = re.sub(r"\s+", " ", s).strip()
    s = re.sub(r"\(\s+", "(", s)
    s = re.sub(r"\s+\)", ")", s)
    s = re.sub(r"\s*;$", ";", s)
    return s


def func_name(sig):
    s = re.sub(r"__attribute__\s*\(\(.*?\)\)", "", sig)
    m = re.search(r"(\w+)\s*\(", s.replace("CTENSOR_API", ""))
    return m.group(1) if m else None


def is_public(name):
    return bool(name) and not name.startswith(("ct__", "CT__", "_"))


PUBLIC_MACRO = re.compile(r"^(ct_[a-z0-9_A-Z]+|CT_[A-Z0-9_]+)$")
SKIP_MACROS = {"CT_RESTRICT", "CT_STATIC_ASSERT", "CT_NORETURN", "CT_MAX_DIMS"}


def parse_header(path):
    text = decl_part(open(path, encoding="utf-8").read())
    sections = []
    cur = {"title": "Overview", "intro": "", "items": []}
    sections.append(cur)
    macros = {}           # name -> (params, body) for every #define with parameters
    pending = None        # the comment block that documents the run of lines below it
    ended = None          # the run's comment after a declaration with its own comment ended it
    cxx = []              # the #if stack: True where only C++ compiles the lines
    stmt, stmt_comments, stmt_line = [], [], 0
    depth = 0
    header_doc = None
    raw_lines = text.split("\n")
    for lineno, endline, code, comments, starts_comment in logical_lines(text):
        texts = [clean_comment(c) for c in comments]
        if not code and not comments:
            if not stmt:
                pending = ended = None
            continue
        if not code:
            # a comment alone: a banner opens a section, anything else documents below
            t = "\n".join(texts)
            if stmt:
                stmt_comments.extend(texts)
                continue
            if comments[0].startswith("/*") and re.match(r"^=+$", texts[0].split("\n")[0].strip()):
                lines = [l.strip() for l in t.split("\n") if not re.match(r"^\s*=+\s*$", l)]
                first = lines[0] if lines else "?"
                intro = "\n".join(lines[1:]).strip()
                title = first
                m = re.match(r"^(.*?[^.])\. (.*)$", first)
                if m:                       # "Reductions. dims lists: ..." -> "Reductions"
                    title = m.group(1)
                    intro = "\n".join(lines).strip()
                else:                       # a title line that runs on into the next
                    nxt = lines[1] if len(lines) > 1 else ""
                    runs_on = first.endswith((",", ".", ":")) or (nxt[:1].islower() and not first.endswith(")"))
                    if first.count("(") > first.count(")"):
                        title = first[: first.rindex("(")].strip()
                    elif runs_on and ": " in first:
                        title = first.split(": ")[0]
                    title = title.rstrip(":").strip()
                    if title != first:
                        intro = "\n".join(lines).strip()
                cur = {"title": title, "intro": intro, "items": []}
                sections.append(cur)
                pending = ended = None
            elif header_doc is None and lineno == 1:
                header_doc = t
            else:
                pending, ended = t, None
            continue
        if code.startswith("#"):
            m = re.match(r"#\s*(if|ifdef|ifndef|elif|else|endif)\b(.*)$", code)
            if m:   # which declarations only C++ sees (its overloads, its form of a macro)
                d, cond = m.group(1), m.group(2)
                if d in ("if", "ifdef", "ifndef"):
                    cxx.append(d != "ifndef" and "__cplusplus" in cond and "!" not in cond)
                elif d in ("else", "elif") and cxx:
                    cxx[-1] = False
                elif d == "endif" and cxx:
                    cxx.pop()
            m = re.match(r"#\s*define\s+(\w+)(\(([^)]*)\))?\s*(.*)$", code)
            if m:
                name, params, body = m.group(1), m.group(3), m.group(4)
                if params is not None:
                    macros[name] = ([p.strip() for p in params.split(",")], body)
                if is_public(name) and PUBLIC_MACRO.match(name) and name not in SKIP_MACROS and not name.endswith("_INCLUDED") \
                        and not name.startswith("CTENSOR_"):
                    shown = "#define %s%s" % (name, "(%s)" % params if params is not None else "")
                    doc = " ".join(texts) if texts else (pending or "")
                    cur["items"].append({"kind": "macro", "cxx": any(cxx), "name": name, "sig": shown, "body": body.strip(),
                                         "doc": doc, "own": bool(texts), "line": lineno})
                elif not is_public(name):
                    pending = None if "CTENSOR_API" not in body else pending
            continue
        # a declaring macro applied to a table: CT__TABLE(CT__DECL_M, ~) or CT__LIST(CT__DECL)
        m = re.match(r"^(\w+)\((\w+)(?:\s*,\s*[^)]*)?\)$", code)
        if not stmt and m and m.group(2) in macros and "CTENSOR_API" in macros[m.group(2)][1] and m.group(1) in macros:
            tparams, tbody = macros[m.group(1)]
            dparams, dbody = macros[m.group(2)]
            for args in calls_of(tbody, tparams[0]):
                sub = {}
                for k, p in enumerate(dparams):
                    if p != "..." and k < len(args):
                        sub[p] = args[k]
                out = re.sub(r"\b\w+\b", lambda mm: sub.get(mm.group(0), mm.group(0)), dbody)
                out = re.sub(r"\s*##\s*", "", out)
                for d in out.split(";"):
                    if "CTENSOR_API" in d:
                        sig = norm_space(d) + ";"
                        name = func_name(sig)
                        extra = {"table": m.group(1), "row": args}
                        cur["items"].append({"kind": "function", "cxx": any(cxx), "name": name, "sig": sig,
                                             "doc": pending or "", "own": False, "line": lineno,
                                             "generated_by": m.group(1), "row": args, **({} if not extra else {})})
            continue
        # ordinary code: accumulate a statement until ';' at depth 0 (or a function body's '}')
        if code in ('extern "C" {', "}") and not stmt:
            continue
        if not stmt:
            stmt_line = lineno
            stmt_comments = []
        stmt.append(code)
        stmt_comments.extend(texts)
        for ch in code:
            if ch in "{":
                depth += 1
            elif ch == "}":
                depth -= 1
        joined = " ".join(stmt)
        done = depth == 0 and (joined.rstrip().endswith(";") or
                               (joined.rstrip().endswith("}") and re.match(r"static\s+inline", joined)))
        if not done:
            continue
        stmt = []
        s = joined.strip()
        own = " ".join(stmt_comments)
        doc = own or pending or ""
        if s.startswith("CTENSOR_API") and "(" in s:
            name = func_name(s)
            if not doc and name in INHERIT:
                doc = ended or ""
            if is_public(name):
                cur["items"].append({"kind": "function", "cxx": any(cxx), "name": name, "sig": norm_space(s), "doc": doc,
                                     "own": bool(own), "line": stmt_line})
            if not is_public(name) or own:
                # a private declaration, or one with a comment of its own, ends the run
                # (the functions in INHERIT take the run's comment anyway)
                ended = pending or ended
                pending = None
        elif re.match(r"static\s+inline\b", s):
            name = func_name(s)
            if is_public(name):
                sig = norm_space(s[: s.index("{")]) + ";"
                cur["items"].append({"kind": "function", "cxx": any(cxx), "name": name, "sig": sig, "doc": doc,
                                     "own": bool(own), "line": stmt_line})
        elif s.startswith(("typedef", "struct", "enum", "union")):
            m2 = re.search(r"\(\s*\*\s*(\w+)\s*\)", s) if s.startswith("typedef") and "(*" in s.replace(" ", "") \
                and "{" not in s else None
            if m2:
                name = m2.group(1)
            else:
                m2 = re.search(r"(\w+)\s*(\[[^\]]*\])?\s*;$", s)
                name = m2.group(1) if m2 else None
                if not s.startswith("typedef"):
                    m3 = re.match(r"(?:struct|enum|union)\s+(\w+)", s)
                    name = m3.group(1) if m3 else name
            if not is_public(name):
                pending = None
            if is_public(name):
                raw = "\n".join(raw_lines[stmt_line - 1:endline]).strip("\n")
                cur["items"].append({"kind": "type", "cxx": any(cxx), "name": name, "sig": s, "raw": raw, "doc": doc,
                                     "own": bool(own), "line": stmt_line})
    return header_doc, [s for s in sections if s["items"] or s["title"] != "Overview"]



def merge_duplicates(sections):
    """A name declared again (a C++ overload under __cplusplus, a table-made
    declaration repeated by hand) is one entry with the other forms beside it."""
    seen = {}
    for s in sections:
        keep = []
        for it in s["items"]:
            key = (it["kind"], it["name"])
            if key in seen:
                first = seen[key]
                if first.get("cxx") and not it.get("cxx"):   # the C form is the main one
                    for k in ("sig", "body", "raw", "cxx"):
                        if k in it:
                            first[k], it[k] = it[k], first.get(k)
                if it["sig"] != first["sig"]:
                    first.setdefault("also", []).append(("/* C++: */ " if it.get("cxx") else "") + it["sig"])
                if not first["doc"] and it["doc"]:
                    first["doc"], first["own"] = it["doc"], it["own"]
                continue
            seen[key] = it
            keep.append(it)
        s["items"] = keep
    return sections


# ---------------------------------------------------------------------------
# The op table: stable names, and which op a function's body dispatches
# ---------------------------------------------------------------------------


def op_table(texts):
    """ENUM -> stable name over the op rows of all headers (X(E, "aten::...", ...)
    and the unary rows OP_(ARG_, name, E, "aten::...", ...))."""
    ops = {}
    for text in texts:
        for m in re.finditer(r'\bX\(\s*([A-Z0-9_]+)\s*,\s*"((?:aten|ct|quantized)::[^"]+)"', text):
            ops.setdefault(m.group(1), m.group(2))
        for m in re.finditer(r'\bOP_\(\s*ARG_\s*,\s*\w+\s*,\s*([A-Z0-9_]+)\s*,\s*"([^"]+)"', text):
            ops.setdefault(m.group(1), m.group(2))
    return ops


def function_bodies(text):
    """name -> body of each CTENSOR_API function defined in the implementation."""
    impl = text[len(decl_part(text)):]
    bodies = {}
    for m in re.finditer(r"^CTENSOR_API[^;{]*?\b(ct_\w+)\s*\([^;{]*\)\s*\{", impl, re.M):
        j, depth = m.end(), 1
        while j < len(impl) and depth:
            c = impl[j]
            if c == "{":
                depth += 1
            elif c == "}":
                depth -= 1
            j += 1
        bodies.setdefault(m.group(1), impl[m.end():j - 1])
    return bodies


def ops_in(body, ops):
    """The op-table enums a body names, as each header spells them: CT__OP_E,
    CT__NN_E, CT__LA_E, CT__Q_E, or through an id macro (CT__NNOP(E), CT__QOP(E))."""
    found = set()
    for m in re.finditer(r"\bCT__(?:OP|NN|LA|Q|CU|CUDA)_([A-Z0-9_]+)\b", body):
        if m.group(1) in ops:
            found.add(m.group(1))
    for m in re.finditer(r"\bCT__[A-Z]*OP\(\s*([A-Z0-9_]+)\s*\)", body):
        if m.group(1) in ops:
            found.add(m.group(1))
    return found


# ---------------------------------------------------------------------------
# PyTorch's names
# ---------------------------------------------------------------------------


def torch_py():
    return os.environ.get("TORCH_PY", "/usr/bin/python3")


# The child python's lookup of a dotted torch name (both scripts below): the longest
# importable module prefix, then attributes. (True, obj), or (False, None) when missing.
RESOLVE_FN = r'''
import importlib
def resolve(name):
    parts = name.split(".")
    for k in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:k]))
        except Exception:
            continue
        try:
            for p in parts[k:]:
                obj = getattr(obj, p)
        except Exception:
            return False, None
        return True, obj
    return False, None
'''
RESOLVE_SRC = r'''
import warnings
warnings.simplefilter("ignore")
import torch
''' + RESOLVE_FN
RESOLVE_SRC_OPTIONAL_TORCH = r'''
import sys, warnings
warnings.simplefilter("ignore")
try:
    import torch
except ImportError:
    print("NOTORCH")
    sys.exit(0)
''' + RESOLVE_FN


def dump_torch_names():
    """The public names of TORCH_NAMESPACES, from an installed torch (a child
    python: TORCH_PY), or None when torch cannot be imported."""
    script = RESOLVE_SRC + r'''
import sys
print("#version", torch.__version__)
for ns in sys.argv[1:]:
    found, obj = resolve(ns)
    if not found:
        continue
    print(ns)
    for n in sorted(dir(obj)):
        if not n.startswith("_"):
            print(ns + "." + n)
'''
    try:
        r = subprocess.run([torch_py(), "-c", script] + TORCH_NAMESPACES, capture_output=True, text=True, timeout=300)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if r.returncode != 0:
        return None
    return r.stdout


def load_torch_names():
    names = set()
    with open(NAMES_FILE, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#"):
                names.add(line)
    return names


# ---------------------------------------------------------------------------
# Counterparts
# ---------------------------------------------------------------------------
SUFFIXES = ["_n", "_on", "_scalar", "_dims", "_dim", "_tensor", "_alpha", "_mode", "_ex", "_opts", "_bias",
            "_padding", "_params", "_named", "_nonblocking", "_decimals", "_all", "_int", "_with_indices",
            "_module", "_mem", "_value", "_"]


def stem_forms(name):
    """name, then name with known suffixes taken off (one or two), longest first."""
    out = [name]
    frontier = [name]
    for _ in range(3):
        nxt = []
        for n in frontier:
            for s in SUFFIXES:
                if n.endswith(s) and len(n) > len(s) + 1:
                    m = n[: -len(s)]
                    if m not in out:
                        out.append(m)
                        nxt.append(m)
        frontier = nxt
    return out


class Resolver:
    def __init__(self, names):
        self.names = names
        self.lower = {}   # namespace -> {lowercase name without underscores: Name}
        for n in names:
            ns, _, last = n.rpartition(".")
            self.lower.setdefault(ns, {}).setdefault(last.lower().replace("_", ""), last)

    def has(self, n):
        return n in self.names

    def first(self, cands):
        for c in cands:
            if c in self.names:
                return c
        return None

    def camel(self, ns, key):
        k = key.lower().replace("_", "")
        last = self.lower.get(ns, {}).get(k)
        return ns + "." + last if last else None

    def plain(self, base, inplace=False, nn=False):
        spaces = ["torch", "torch.Tensor", "torch.nn.functional", "torch.special", "torch.linalg", "torch.fft",
                  "torch.autograd", "torch.nn.utils", "torch.utils.data"]
        if nn:   # ctensor_nn.h's functions are torch.nn.functional's before torch's
            spaces = ["torch.nn.functional"] + [s for s in spaces if s != "torch.nn.functional"]
        if inplace or base.endswith("_"):
            spaces = ["torch.Tensor", "torch.nn.init", "torch.nn.utils", "torch"] + spaces[2:]
        return self.first(["%s.%s" % (ns, base) for ns in spaces])

    def from_op(self, stable):
        """aten::sum.dim_IntList -> torch.sum (or the Tensor method, F., ...)."""
        m = re.match(r"(aten|quantized)::(\w+)", stable)
        if not m or m.group(2).startswith("_"):
            return None
        base = m.group(2)
        if m.group(1) == "quantized":
            return None
        if base.startswith("linalg_"):
            return self.first(["torch.linalg." + base[7:], "torch.linalg." + re.sub(r"_ex$", "", base[7:])])
        return self.plain(base)

    def by_name(self, fname, header=""):
        n = fname[3:] if fname.startswith("ct_") else fname
        inplace = n.endswith("_") and not n.endswith("__")
        nn = header == "ctensor_nn.h"
        prefixes = [
            ("linalg_", lambda r: self.first(["torch.linalg." + f for f in stem_forms(r)])),
            ("special_", lambda r: self.first(["torch.special." + f for f in stem_forms(r)])),
            ("fft_", lambda r: self.first(["torch.fft." + f for f in stem_forms(r)])),
            ("nn_init_", lambda r: self.first(["torch.nn.init." + f for f in stem_forms(r)])),
            ("nn_", lambda r: self.first([self.camel("torch.nn", f) for f in stem_forms(r)])),
            ("nnq_dynamic_", lambda r: self.first([self.camel("torch.ao.nn.quantized.dynamic", f) for f in stem_forms(r)])),
            ("nnq_", lambda r: self.first([self.camel("torch.ao.nn.quantized", f) for f in stem_forms(r)])),
            ("cuda_stream_", lambda r: self.first(["torch.cuda.Stream." + f for f in stem_forms(r)])),
            ("cuda_event_", lambda r: self.first(["torch.cuda.Event." + f for f in stem_forms(r)])),
            ("cuda_", lambda r: self.first(["torch.cuda." + f for f in stem_forms(r)])),
            ("optim_", lambda r: self.first([self.camel("torch.optim", f) for f in stem_forms(r)]
                                            + ["torch.optim.Optimizer." + f for f in stem_forms(r)])),
            ("sched_", lambda r: self.first([self.camel("torch.optim.lr_scheduler", f) for f in stem_forms(r)]
                                            + ["torch.optim.lr_scheduler.LRScheduler." + f for f in stem_forms(r)])),
            ("module_", lambda r: self.first(["torch.nn.Module." + f for f in stem_forms(r)])),
            ("profiler_", lambda r: self.first(["torch.profiler." + f for f in stem_forms(r)]
                                               + ["torch.autograd.profiler." + f for f in stem_forms(r)])),
        ]
        for p, fn in prefixes:
            if n.startswith(p):
                r = fn(n[len(p):])
                if r:
                    return r
        if header == "ctensor_quant.h":
            for ns in ["torch.ao.quantization.observer", "torch.ao.quantization.fake_quantize", "torch.ao.quantization"]:
                r = self.first([self.camel(ns, f) for f in stem_forms(n)])
                if r:
                    return r
        forms = stem_forms(n)
        if inplace:   # add_alpha_ -> add_ before add
            forms = [f if f.endswith("_") else f + "_" for f in forms] + forms
        for f in forms:
            r = self.plain(f, inplace=inplace, nn=nn)
            if r:
                return r
        return None


def none_entry(reason):
    return {"name": None, "text": "none (ctensor-specific: %s)" % reason}


def counterpart(fn, header, resolver, ops, bodies):
    """{"name": torch name to verify or None, "text": what the page shows, "op": stable name, "src": ...}"""
    name = fn["name"]
    op = None
    e = ops_in(bodies.get(name, ""), ops)
    if len(e) == 1:
        op = ops[e.pop()]
    elif fn.get("row") and len(fn["row"]) > 3 and fn["row"][3].startswith('"'):
        op = fn["row"][3].strip('"')   # a unary-table row names its op
    ov = OVERRIDES.get(name)
    if ov is None:
        for pat, val in PATTERNS:
            if re.match(pat, name):
                ov = val
                break
    if ov is not None:
        if ov.startswith("none:"):
            res = none_entry(ov[5:].strip())
        else:
            tname, _, note = ov.partition(" | ")
            res = {"name": tname, "text": "`%s`%s" % (tname, " (%s)" % note if note else "")}
        res["src"] = "table"
    else:
        t = resolver.by_name(name, header)
        src = "name"
        if not t and op:
            t = resolver.from_op(op)
            src = "op"
        res = {"name": t, "text": "`%s`" % t if t else None, "src": src}
    res["op"] = op
    return res


def build(root):
    texts = {h: open(os.path.join(root, h), encoding="utf-8").read() for h, _ in HEADERS}
    ops = op_table(texts.values())
    bodies = {}
    for t in texts.values():
        bodies.update(function_bodies(t))
    resolver = Resolver(load_torch_names())
    model = []
    for h, title in HEADERS:
        doc, secs = parse_header(os.path.join(root, h))
        merge_duplicates(secs)
        for s in secs:
            for it in s["items"]:
                if it["kind"] != "function":
                    continue
                it["commented"] = bool(it["doc"])
                # the description: DESC's entry before a comment shared with a run of
                # declarations; a function's own comment follows DESC's as a note
                d = DESC.get(it["name"])
                if d:
                    it["doc"] = d + ("\n\n" + it["doc"] if it["own"] and it["doc"] else "")
                it["cp"] = counterpart(it, h, resolver, ops, bodies)
        model.append({"header": h, "title": title, "doc": doc, "sections": secs})
    return model


def functions(hm):
    return [it for s in hm["sections"] for it in s["items"] if it["kind"] == "function"]


def anchor(title):
    a = re.sub(r"[^\w\- ]", "", title.lower()).strip().replace(" ", "-")
    return a


def md_escape_cell(s):
    return s.replace("|", "\\|").replace("\n", " ")


def render_page(hm):
    h = hm["header"]
    fns = functions(hm)
    ntypes = sum(1 for s in hm["sections"] for it in s["items"] if it["kind"] == "type")
    nmac = sum(1 for s in hm["sections"] for it in s["items"] if it["kind"] == "macro")
    out = ["# %s reference" % h, "",
           "Generated by `tools/gen_docs.py` from the declarations and comments of "
           "[`%s`](../../%s) (`make docs` regenerates it; do not edit by hand). "
           "%d public functions, %d types, %d macros, in the header's order. "
           "Each function's PyTorch counterpart is beside it; `op` is the op-table row "
           "(stable name) the function dispatches, where it dispatches one." % (h, h, len(fns), ntypes, nmac), ""]
    if hm["doc"]:
        first = hm["doc"].split("\n\n")[0].strip()
        out += ["```", first, "```", ""]
    out += ["## Contents", ""]
    for s in hm["sections"]:
        n = sum(1 for it in s["items"] if it["kind"] == "function")
        out.append("- [%s](#%s)%s" % (s["title"], anchor(s["title"]), " (%d functions)" % n if n else ""))
    out.append("")
    for s in hm["sections"]:
        out += ["## " + s["title"], ""]
        if s["intro"]:
            out += [s["intro"], ""]
        # runs of items that share one description print as one block
        groups = []
        for it in s["items"]:
            if groups and it["kind"] == "function" and groups[-1][0]["kind"] == "function" \
                    and it["doc"] == groups[-1][0]["doc"] and not it["own"] and not groups[-1][-1]["own"] \
                    and it["doc"]:
                groups[-1].append(it)
            else:
                groups.append([it])
        last_doc = None
        for g in groups:
            first = g[0]
            doc = first["doc"]
            show = doc and doc != last_doc   # a comment shared with the block above is not repeated
            if doc:
                last_doc = doc
            if first["kind"] == "type":
                out += ["```c", first["raw"], "```", ""]
                if show and not first["own"]:
                    out += [doc, ""]
                continue
            if first["kind"] == "macro":
                body = first["body"]
                if len(body) > 160:
                    body = body[:157] + "..."
                out += ["```c", "%s %s" % (first["sig"], body), "```", ""]
                if show:
                    out += [doc, ""]
                continue
            sigs = []
            for it in g:
                sigs.append(it["sig"])
                sigs += it.get("also", [])
            out += ["```c"] + sigs + ["```", ""]
            if show:
                out += [doc, ""]
            if len(g) == 1:
                cp = first["cp"]
                out += ["PyTorch: %s%s" % (cp["text"] or "**missing**", " · op `%s`" % cp["op"] if cp.get("op") else ""), ""]
                continue
            out += ["| function | PyTorch | op |", "|---|---|---|"]
            for it in g:
                cp = it["cp"]
                out.append("| `%s` | %s | %s |" % (it["name"], md_escape_cell(cp["text"] or "**missing**"),
                                                 "`%s`" % cp["op"] if cp.get("op") else ""))
            out.append("")
    return "\n".join(out).rstrip("\n") + "\n"


def render_index(model):
    out = ["# API reference", "",
           "One page per header, generated by `tools/gen_docs.py` from the headers' declarations "
           "and comments (`make docs`; `make test` fails when a page is stale or a public function "
           "has no description or no PyTorch counterpart).", "",
           "| header | page | public functions | with a PyTorch counterpart | ctensor-specific |",
           "|---|---|---|---|---|"]
    for hm in model:
        fns = functions(hm)
        withcp = sum(1 for f in fns if f["cp"]["name"])
        page = hm["header"].replace(".h", ".md")
        out.append("| `%s` | [%s](%s) | %d | %d | %d |" % (hm["header"], hm["title"], page, len(fns), withcp,
                                                          len(fns) - withcp))
    out += ["", "A counterpart is PyTorch's function, method, module or class that does what the "
            "ctensor function does (`torch.add`, `torch.Tensor.add_`, `torch.nn.functional.conv2d`, "
            "`torch.nn.Conv2d`, `torch.linalg.cholesky`, `torch.ao.quantization.prepare`), or "
            "\"none (ctensor-specific: ...)\" with the reason (memory scopes, C error handling, the op "
            "table's C API...). Counterparts come from the op each function dispatches, from naming "
            "rules, and from the tables in `tools/gen_docs.py`; every name given exists in PyTorch 1.13 "
            "(the naming rules resolve against `tools/torch_names.txt`, and `make test` imports each one when "
            "torch is installed).", ""]
    return "\n".join(out)


def problems(model):
    errs = []
    for hm in model:
        for f in functions(hm):
            if not f["doc"]:
                errs.append("%s: %s has no comment in the header and no entry in DESC (tools/gen_docs.py)"
                            % (hm["header"], f["name"]))
            if not f["cp"]["text"]:
                errs.append("%s: %s has no PyTorch counterpart: add it to OVERRIDES in tools/gen_docs.py "
                            "(a torch name, or 'none: why')" % (hm["header"], f["name"]))
    return errs


def verify_torch(model):
    """Imports each named counterpart with torch (TORCH_PY). None when torch is absent."""
    names = sorted({f["cp"]["name"] for hm in model for f in functions(hm) if f["cp"]["name"]})
    script = RESOLVE_SRC_OPTIONAL_TORCH + r'''
bad = [n for n in sys.stdin.read().split() if not resolve(n)[0]]
print("\n".join(bad))
'''
    try:
        r = subprocess.run([torch_py(), "-c", script], input="\n".join(names), capture_output=True, text=True,
                           timeout=300)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if r.returncode == 0 and r.stdout.strip() == "NOTORCH":
        return None
    if r.returncode != 0:
        return ["(torch verification failed: %s)" % r.stderr.strip()[-500:]]
    return [n for n in r.stdout.split() if n]


def write_pages(model, out_dir):
    os.makedirs(out_dir, exist_ok=True)
    files = {"README.md": render_index(model)}
    for hm in model:
        files[hm["header"].replace(".h", ".md")] = render_page(hm)
    for name, text in files.items():
        with open(os.path.join(out_dir, name), "w", encoding="utf-8") as f:
            f.write(text)
    return sorted(files)


def main(argv):
    global ROOT
    if "--root" in argv:          # another checkout (the tests of this script use a copy)
        ROOT = os.path.abspath(argv[argv.index("--root") + 1])
    out_dir = os.path.join(ROOT, "docs", "reference")
    if "--update-torch-names" in argv:
        out = dump_torch_names()
        if out is None:
            print("gen_docs: torch cannot be imported with %s" % torch_py())
            return 1
        with open(NAMES_FILE, "w", encoding="utf-8") as f:
            f.write("# The public names of the torch namespaces that tools/gen_docs.py resolves\n"
                    "# counterparts against (python3 tools/gen_docs.py --update-torch-names).\n" + out)
        print("gen_docs: wrote %s" % NAMES_FILE)
        return 0
    model = build(ROOT)
    if "--stats" in argv:
        print("%-18s %9s %11s %13s %13s %17s" % ("header", "functions", "no comment", "DESC entry", "torch name",
                                                "ctensor-specific"))
        for hm in model:
            fns = functions(hm)
            print("%-18s %9d %11d %13d %13d %17d" % (hm["header"], len(fns), sum(1 for f in fns if not f["commented"]),
                                                    sum(1 for f in fns if f["name"] in DESC),
                                                    sum(1 for f in fns if f["cp"]["name"]),
                                                    sum(1 for f in fns if not f["cp"]["name"])))
        return 0
    if "--check" in argv:
        passed, failed = 0, 0
        errs = problems(model)
        for e in errs:
            print("FAIL " + e)
        bad_fns = {e.split(" ")[1] for e in errs}
        n = sum(len(functions(hm)) for hm in model)
        passed += n - len(bad_fns)      # one check per public function: a description and a counterpart
        failed += len(bad_fns)
        if not errs:
            print("ok   %d public functions, each with a description and a PyTorch counterpart" % n)
        # stale pages
        with tempfile.TemporaryDirectory() as tmp:
            for name in write_pages(model, tmp):
                new = open(os.path.join(tmp, name), encoding="utf-8").read()
                path = os.path.join(out_dir, name)
                old = open(path, encoding="utf-8").read() if os.path.exists(path) else None
                if old == new:
                    passed += 1
                    print("ok   docs/reference/%s is up to date" % name)
                else:
                    failed += 1
                    print("FAIL docs/reference/%s is %s: run make docs" % (name, "missing" if old is None else "stale"))
        bad = verify_torch(model)
        if bad is None:
            print("skip torch counterparts: torch cannot be imported with %s" % torch_py())
        else:
            for b in bad:
                print("FAIL the counterpart %s does not exist in this torch" % b)
            failed += len(bad)
            passed += 1 if not bad else 0
            if not bad:
                print("ok   every named counterpart exists in torch")
        print("%d passed, %d failed" % (passed, failed))
        return 1 if failed else 0
    if "--out" in argv:
        out_dir = argv[argv.index("--out") + 1]
    errs = problems(model)
    for name in write_pages(model, out_dir):
        print("gen_docs: wrote %s" % os.path.join(os.path.relpath(out_dir, ROOT) if out_dir.startswith(ROOT) else out_dir, name))
    for e in errs:
        print("gen_docs: " + e)
    return 1 if errs else 0


# ---------------------------------------------------------------------------
# The tables. OVERRIDES: function -> "torch.name", "torch.name | how it is called",
# or "none: why ctensor has it and PyTorch does not". PATTERNS: the same for
# families of names (first match). DESC: descriptions of functions the header
# leaves without a comment of their own (or with only a note, or under a comment
# written for the declarations around them).
# ---------------------------------------------------------------------------
SCOPES = "none: C has no garbage collector; scopes and references are how ctensor frees tensors (Python's reference counting does this in PyTorch)"
ERRORS = "none: errors are values in C (a NULL or a status and a thread-local message); PyTorch raises exceptions"
OPAPI = "none: ctensor's op table and dispatcher as a C API (PyTorch's are C++: the schema registry, c10::Dispatcher, torch.library)"
SAFET = "none: safetensors files; PyTorch users call the safetensors package (safetensors.torch.load / save)"
NPY = "none: .npy files; PyTorch users call numpy.load / numpy.save with torch.from_numpy / Tensor.numpy"
FREE = "none: C frees explicitly; in PyTorch the garbage collector frees the object"
FSDP_NA = ("none: torch.distributed.fsdp.%s; PyTorch 1.13's FSDP cannot be imported on this machine's Python "
           "(a dataclass error in torch.distributed._shard), so it is named here, not imported")
OVERRIDES = {
    "ct_from_blob_on": "none: libtorch's torch::from_blob(data, sizes, deleter, TensorOptions().device(...)) (Python has no from_blob)",
    # ctensor_composite.h: q as a tensor (PyTorch's q takes a float or a tensor)
    "ct_tensor_split_indices": "torch.tensor_split | torch.tensor_split(input, indices, dim)",
    "ct_hsplit_indices": "torch.hsplit | torch.hsplit(input, indices)",
    "ct_histogram_bins": "torch.histogram | torch.histogram(input, bins: Tensor, weight=, density=)",
    "ct_vsplit_indices": "torch.vsplit | torch.vsplit(input, indices)",
    "ct_dsplit_indices": "torch.dsplit | torch.dsplit(input, indices)",
    "ct_float_power_scalar": "torch.float_power | torch.float_power(input, exponent: float)",
    "ct_quantile_t": "torch.quantile | torch.quantile(input, q_tensor, dim, keepdim, interpolation=...)",
    "ct_nanquantile_t": "torch.nanquantile | torch.nanquantile(input, q_tensor, dim, keepdim, interpolation=...)",
    # ctensor.h: complex
    "ct_full_complex_n": "torch.full | torch.full(size, complex(re, im), dtype=dtype)",
    # ctensor.h: memory formats
    "ct_is_contiguous_format": "torch.Tensor.is_contiguous | tensor.is_contiguous(memory_format=...)",
    "ct_suggest_memory_format": "none: PyTorch's internal c10::TensorImpl::suggest_memory_format (what its conv and pooling kernels choose by)",
    # ctensor_jit.h (torch.jit's names are not in tools/torch_names.txt's namespaces: named in the text)
    "ct_trace_begin": "none: torch.jit.trace(fn, example_inputs) in two calls, since C has no closures: begin with the inputs, run the code, end with the outputs",
    "ct_trace_end": "none: the second half of torch.jit.trace (returns the traced graph, as traced_fn.graph)",
    "ct_trace_abort": "none: a Python exception unwinds torch.jit.trace; C code ends the trace explicitly",
    "ct_is_tracing": "none: torch.jit.is_tracing()",
    "ct_trace_module": "none: torch.jit.trace(module, example_inputs)",
    "ct_graph_free": FREE, "ct_graph_new": "none: torch._C.Graph() (building TorchScript IR by hand)",
    "ct_graph_clone": "none: copy.deepcopy of a ScriptModule (constants shared here)",
    "ct_graph_repr": "none: str(traced.graph)", "ct_graph_print": "none: print(traced.graph)",
    "ct_graph_verify": "none: torch._C.Graph.lint()",
    "ct_graph_num_inputs": "none: len(list(graph.inputs()))", "ct_graph_num_outputs": "none: len(list(graph.outputs()))",
    "ct_graph_num_nodes": "none: len(list(graph.nodes()))",
    "ct_graph_count_op": "none: sum(n.kind() == name for n in graph.nodes()) (torch.testing.FileCheck's count)",
    "ct_graph_ops_used": "none: torch.jit.export_opnames(module) (the op list of PyTorch Mobile's selective build)",
    "ct_graph_num_warnings": "none: the TracerWarnings torch.jit.trace emits, kept with the graph",
    "ct_graph_warning": "none: the TracerWarnings torch.jit.trace emits, kept with the graph",
    "ct_graph_set_dynamic_batch": "none: TorchScript types are not shape-specialised; ctensor graphs check the traced shapes unless dimension 0 is declared dynamic",
    "ct_graph_add_input": "none: torch._C.Graph.addInput", "ct_graph_add_constant": "none: torch._C.Graph.insertConstant",
    "ct_graph_add_node": "none: torch._C.Graph.create + insertNode",
    "ct_graph_add_if": "none: a prim::If node, what torch.jit.script makes of a Python if on a tensor",
    "ct_graph_add_loop": "none: a prim::Loop node, what torch.jit.script makes of a Python for/while loop", "ct_graph_set_outputs": "none: torch._C.Graph.registerOutput",
    "ct_graph_infer_shapes": "none: torch._C._jit_pass_complete_shape_analysis",
    "ct_graph_run": "none: calling a traced ScriptModule (traced(x))",
    "ct_jit_eliminate_dead_code": "none: torch._C._jit_pass_dce",
    "ct_jit_eliminate_common_subexpressions": "none: torch._C._jit_pass_cse",
    "ct_jit_constant_propagation": "none: torch._C._jit_pass_constant_propagation",
    "ct_jit_freeze": "none: torch.jit.freeze",
    "ct_jit_fold_conv_bn": "none: torch._C._jit_pass_fold_frozen_conv_bn (run by torch.jit.freeze)",
    "ct_jit_fold_linear_bn": "none: torch._C._jit_pass_fold_frozen_linear_bn (run by torch.jit.freeze; eager: torch.nn.utils.fusion.fuse_linear_bn_eval)",
    "ct_jit_simplify": "none: torch._C._jit_pass_peephole (TorchScript's peephole/algebraic simplification; x * rsqrt is ctensor's)",
    "ct_jit_fuse_elementwise": "none: TorchScript's fusers (NNC / nvFuser); on the CPU PyTorch 1.13 fuses nothing by default",
    "ct_jit_optimize": "none: torch.jit.optimize_for_inference",
    "ct_jit_fuse_activation": "none: torch.jit.optimize_for_inference's conv/linear + activation fusion (done there by oneDNN prepacking, _jit_pass_fuse_frozen_conv_add_relu)",
    "ct_graph_save_mem": "none: torch.jit.save to a BytesIO", "ct_graph_load_mem": "none: torch.jit.load from a BytesIO",
    "ct_graph_save": "none: torch.jit.save", "ct_graph_load": "none: torch.jit.load",
    "ct_jit_export_c": "none: ctensor-specific: PyTorch has no export to standalone C (the nearest is AOTInductor, after 1.13)",
    "ct_jit_export_c_mem": "none: ctensor-specific: PyTorch has no export to standalone C (the nearest is AOTInductor, after 1.13)",
    "ct_jit_export_selected_ops": "none: torch.jit.export_opnames(module) written as the yaml op list of PyTorch Mobile's selective build (here: CTENSOR_OP_* defines)",
    "ct_jit_export_selected_ops_mem": "none: torch.jit.export_opnames(module) written as the yaml op list of PyTorch Mobile's selective build (here: CTENSOR_OP_* defines)",
    "ct_jit_quant_prepare": "torch.ao.quantization.quantize_fx.prepare_fx",
    "ct_jit_quant_convert": "torch.ao.quantization.quantize_fx.convert_fx",
    "ct_jit_quant_dynamic": "torch.ao.quantization.quantize_dynamic",
    "ct_jit_quant_num_observers": "none: the number of observer modules a prepare_fx GraphModule holds",
    "ct_jit_quant_prepare_qat": "torch.ao.quantization.quantize_fx.prepare_qat_fx",
    "ct_jit_quant_qat_parameters": "none: the trainable weights and biases of a prepare_qat_fx GraphModule (its parameters())",
    "ct_jit_quant_qat_buffers": "none: the running statistics of a prepare_qat_fx GraphModule's ConvBn2d modules (their bn's buffers())",
    "ct_jit_quant_qat_train": "none: GraphModule.train(mode) of a prepare_qat_fx model (its ConvBn2d batch norms)",
    # ctensor_named.h
    "ct_rename_map": "torch.Tensor.rename | tensor.rename(N='batch')",
    "ct_dim_name": "torch.Tensor.names | tensor.names[dim]",
    "ct_dim_of": "torch.Tensor.names | tensor.names.index(name); ops take it where PyTorch takes a dimname",
    "ct_transpose_names": "torch.Tensor.transpose | tensor.transpose('N', 'H')",
    "ct_flatten_names": "torch.Tensor.flatten | tensor.flatten(dims, out_dim)",
    "ct_unflatten_names": "torch.Tensor.unflatten | tensor.unflatten('F', (('N', 2), ('C', 3)))",
    "ct_names_repr": "torch.Tensor.names | str(list(tensor.names))",
    # ctensor.h: dtypes, devices, errors
    "ct_cpu": "torch.device | torch.device('cpu')",
    "ct_cuda": "torch.device | torch.device('cuda', index)",
    "ct_device_of": "torch.device | torch.device(type, index)",
    "ct_device_eq": "torch.device | device == other",
    "ct_device_str": "torch.device | str(device)",
    "ct_device_parse": "torch.device | torch.device('cuda:1')",
    "ct_dtype_name": "torch.dtype | str(dtype) without the 'torch.' prefix",
    "ct_dtype_size": "torch.Tensor.element_size | per dtype: torch.tensor([], dtype=dt).element_size()",
    "ct_dtype_is_floating": "torch.is_floating_point | dtype.is_floating_point",
    "ct_dtype_is_integral": "none: PyTorch has no single test; not dtype.is_floating_point and not dtype.is_complex and dtype is not torch.bool",
    "ct_dtype_is_complex": "torch.is_complex | dtype.is_complex",
    "ct_last_error": ERRORS, "ct_last_error_code": ERRORS, "ct_clear_error": ERRORS, "ct_status_name": ERRORS,
    "ct_set_logger": ERRORS, "ct_set_error": ERRORS,
    # tensors
    "ct_ndim": "torch.Tensor.ndim", "ct_size": "torch.Tensor.size", "ct_stride": "torch.Tensor.stride",
    "ct_numel": "torch.Tensor.numel",
    "ct_get_dtype": "torch.Tensor.dtype", "ct_is_contiguous": "torch.Tensor.is_contiguous",
    "ct_is_channels_last": "torch.Tensor.is_contiguous | t.is_contiguous(memory_format=torch.channels_last)",
    "ct_same_shape": "torch.Tensor.shape | a.shape == b.shape",
    "ct_version": "torch.Tensor._version",
    "ct_item_int": "torch.Tensor.item",
    "ct_qparams_per_tensor": "none: quantization parameters as a reference-counted C object; PyTorch keeps them inside the quantized tensor (torch.quantize_per_tensor's scale and zero_point)",
    "ct_qparams_per_channel": "none: quantization parameters as a reference-counted C object; PyTorch keeps them inside the quantized tensor (torch.quantize_per_channel's scales, zero_points, axis)",
    "ct_qparams_retain": SCOPES, "ct_qparams_release": SCOPES,
    "ct_set_qparams": "none: PyTorch sets a quantized tensor's parameters when it makes it (torch._make_per_tensor_quantized_tensor)",
    "ct_get_qparams": "torch.Tensor.qscheme | with q_scale(), q_zero_point(), q_per_channel_scales() ...",
    # memory
    "ct_scope_begin_at": SCOPES, "ct_scope_end": SCOPES, "ct_keep": SCOPES, "ct_retain": SCOPES,
    "ct_release": SCOPES, "ct_scope_depth": SCOPES, "ct_live_tensors": SCOPES,
    "ct_live_bytes": "none: the bytes ctensor holds for CPU tensors (torch.cuda.memory_allocated is the CUDA analogue)",
    "ct_thread_cleanup": "none: per-thread caches in C; Python threads need no cleanup call",
    "ct_free": FREE,
    "ct_set_allocator": "none: a C allocator hook per device type (PyTorch's is C++: c10::SetAllocator; torch.cuda.memory.CUDAPluggableAllocator from 2.0)",
    "ct_set_num_threads": "torch.set_num_threads", "ct_get_num_threads": "torch.get_num_threads",
    # creation, conversion
    "ct_from_data_n": "torch.tensor", "ct_from_data_on_n": "torch.tensor | torch.tensor(data, device=...)",
    "ct_from_blob": "torch.frombuffer | no copy, as torch.from_numpy",
    "ct_to": "torch.Tensor.to | t.to(dtype)",
    "ct_to_device": "torch.Tensor.to | t.to(device)", "ct_to_device_dtype": "torch.Tensor.to | t.to(device, dtype)",
    "ct_to_device_nonblocking": "torch.Tensor.to | t.to(device, non_blocking=True)",
    "ct_get_device": "torch.Tensor.device",
    "ct_to_channels_last": "torch.Tensor.contiguous | t.contiguous(memory_format=torch.channels_last)",
    "ct_contiguous": "torch.Tensor.contiguous",
    # views
    "ct_slice": "torch.Tensor.__getitem__ | t[start:end:step] along dim",
    "ct_alias": "torch.ops.aten.alias",
    "ct_view_n": "torch.Tensor.view", "ct_expand_n": "torch.Tensor.expand",
    # elementwise, reductions, indexing
    "ct_softmax_dtype": "torch.softmax | torch.softmax(x, dim, dtype=dt)",
    "ct_log_softmax_dtype": "torch.log_softmax | torch.log_softmax(x, dim, dtype=dt)",
    "ct_index": "torch.Tensor.__getitem__ | x[indices] (advanced indexing)",
    "ct_nonzero_tuple": "torch.nonzero | torch.nonzero(x, as_tuple=True)",
    "ct_split_sizes": "torch.split | torch.split(x, [sizes], dim)",
    "ct_rdiv_scalar": "torch.Tensor.__rtruediv__ | a / b with a number a",
    "ct_rpow_scalar": "torch.pow | torch.pow(base, x) with a number base",
    "ct_rsub_scalar": "torch.rsub | a - b with a number a",
    # random
    "ct_generator_init": "torch.Generator | torch.Generator().manual_seed(seed)",
    "ct_generator_random": "torch.Generator | one 32-bit draw of its mt19937 (torch.randint draws from it)",
    "ct_generator_random64": "torch.Generator | one 64-bit draw of its mt19937",
    "ct_bernoulli_p": "torch.bernoulli | torch.bernoulli(x, p)",
    "ct_default_generator": "torch.default_generator",
    # autograd
    "ct_requires_grad": "torch.Tensor.requires_grad_",
    "ct_set_requires_grad": "torch.Tensor.requires_grad_", "ct_get_requires_grad": "torch.Tensor.requires_grad",
    "ct_set_grad": "torch.Tensor.grad | t.grad = g",
    "ct_autograd_grad": "torch.autograd.grad",
    "ct_set_inference_mode": "torch.inference_mode",
    "ct_autograd_nodes_run": "none: a diagnostic counter of backward nodes run (tests use it)",
    "ct_grad_fn_name": "torch.Tensor.grad_fn | t.grad_fn.name()",
    "ct_node_num_next": "torch.Tensor.grad_fn | len(t.grad_fn.next_functions)",
    "ct_node_next": "torch.Tensor.grad_fn | t.grad_fn.next_functions[i][0]",
    "ct_node_name": "torch.Tensor.grad_fn | node.name()",
    "ct_remove_hook": "torch.Tensor.register_hook | handle.remove() on what register_hook returned",
    "ct_gradcheck": "torch.autograd.gradcheck", "ct_gradgradcheck": "torch.autograd.gradgradcheck",
    # the op table
    "ct_dispatch": "torch.ops.aten | torch.ops.aten.<op>.<overload>(...): any op by its schema name",
    "ct_register_kernel": "torch.library.Library | Library('aten', 'IMPL').impl(name, fn, dispatch_key)",
    # serialization, interop, printing
    "ct_load_npy": NPY, "ct_load_npy_mem": NPY, "ct_save_npy": NPY, "ct_save_npy_mem": NPY,
    "ct_to_dlpack": "torch.utils.dlpack.to_dlpack", "ct_from_dlpack": "torch.utils.dlpack.from_dlpack",
    "ct_to_dlpack_versioned": "torch.utils.dlpack.to_dlpack | DLPack 1.0's versioned struct (PyTorch 1.13 exports DLPack 0.x)",
    "ct_from_dlpack_versioned": "torch.utils.dlpack.from_dlpack | DLPack 1.0's versioned struct",
    "ct_print": "torch.Tensor.__repr__ | print(t)", "ct_fprint": "torch.Tensor.__repr__ | print(t, file=f)",
    "ct_repr": "torch.Tensor.__repr__ | repr(t)",
    # ctensor_nn.h: modules
    "ct_module_new": "torch.nn.Module | a subclass of nn.Module",
    "ct_module_free": FREE,
    "ct_forward": "torch.nn.Module.__call__ | module(x)", "ct_forward_n": "torch.nn.Module.__call__ | module(*inputs)",
    "ct_module_child": "torch.nn.Module.get_submodule", "ct_module_get": "torch.nn.Module.get_parameter | or get_buffer",
    "ct_module_num_elements": "torch.nn.Module.parameters | sum(p.numel() for p in m.parameters())",
    "ct_state_dict_free": FREE,
    "ct_module_repr": "torch.nn.Module.__repr__ | repr(model)", "ct_module_print": "torch.nn.Module.__repr__ | print(model)",
    "ct_module_to": "torch.nn.Module.to | model.to(device)", "ct_module_to_dtype": "torch.nn.Module.to | model.to(dtype)",
    "ct_nn_module_list_append": "torch.nn.ModuleList.append", "ct_nn_module_list_get": "torch.nn.ModuleList.__getitem__",
    "ct_nn_module_list_len": "torch.nn.ModuleList.__len__",
    "ct_nn_init_generator": "none: the generator nn.init draws from, per thread (PyTorch's nn.init takes generator= only from 2.0 and otherwise draws from the global one)",
    "ct_nn_set_init_generator": "none: the generator nn.init draws from, per thread (PyTorch's nn.init takes generator= only from 2.0 and otherwise draws from the global one)",
    "ct_nn_skip_init_enabled": "torch.nn.utils.skip_init | the setting CT_SKIP_INIT blocks turn on",
    "ct_nn_set_skip_init": "torch.nn.utils.skip_init",
    "ct_nn_init_fan_in": "torch.nn.init._calculate_fan_in_and_fan_out | its fan_in",
    "ct_nn_init_fan_out": "torch.nn.init._calculate_fan_in_and_fan_out | its fan_out",
    "ct_module_save_safetensors_mem": SAFET, "ct_module_load_safetensors_mem": SAFET,
    "ct_module_save_safetensors": SAFET, "ct_module_load_safetensors": SAFET,
    "ct_set_conv_winograd": "none: a switch for ctensor's Winograd 3x3 convolution (PyTorch picks its CPU algorithms itself; torch.backends.cudnn.benchmark is the nearest switch on GPUs)",
    "ct_get_conv_winograd": "none: a switch for ctensor's Winograd 3x3 convolution (PyTorch picks its CPU algorithms itself)",
    "ct_conv2d": "torch.nn.functional.conv2d", "ct_conv1d": "torch.nn.functional.conv1d",
    "ct_conv_transpose2d": "torch.nn.functional.conv_transpose2d", "ct_max_pool2d": "torch.nn.functional.max_pool2d",
    "ct_max_pool1d": "torch.nn.functional.max_pool1d", "ct_avg_pool1d": "torch.nn.functional.avg_pool1d",
    "ct_pixel_shuffle": "torch.nn.functional.pixel_shuffle", "ct_pixel_unshuffle": "torch.nn.functional.pixel_unshuffle",
    "ct_binary_cross_entropy_with_logits": "torch.nn.functional.binary_cross_entropy_with_logits",
    "ct_cosine_similarity": "torch.nn.functional.cosine_similarity", "ct_pairwise_distance": "torch.nn.functional.pairwise_distance",
    "ct_lstm_forward": "torch.nn.LSTM.forward | lstm(x, (h0, c0))", "ct_gru_forward": "torch.nn.GRU.forward | gru(x, h0)",
    # optimizers, schedulers
    "ct_optim_free": FREE, "ct_sched_free": FREE,
    "ct_step": "torch.optim.Optimizer.step", "ct_zero_grad": "torch.optim.Optimizer.zero_grad",
    "ct_optim_name": "torch.optim.Optimizer | type(optimizer).__name__",
    "ct_optim_num_groups": "torch.optim.Optimizer | len(optimizer.param_groups)",
    "ct_optim_group_size": "torch.optim.Optimizer | len(optimizer.param_groups[g]['params'])",
    "ct_optim_param": "torch.optim.Optimizer | optimizer.param_groups[g]['params'][i]",
    "ct_optim_get_lr": "torch.optim.Optimizer | optimizer.param_groups[g]['lr']",
    "ct_optim_set_lr": "torch.optim.Optimizer | optimizer.param_groups[g]['lr'] = lr",
    "ct_optim_get_option": "torch.optim.Optimizer | optimizer.param_groups[g][name]",
    "ct_optim_set_option": "torch.optim.Optimizer | optimizer.param_groups[g][name] = value",
    "ct_sched_step": "torch.optim.lr_scheduler.StepLR.step | scheduler.step() (any scheduler)",
    "ct_sched_get_last_lr": "torch.optim.lr_scheduler.StepLR.get_last_lr | (any scheduler)",
    "ct_sched_last_epoch": "torch.optim.lr_scheduler.StepLR | scheduler.last_epoch",
    "ct_sched_state_dict": "torch.optim.lr_scheduler.StepLR.state_dict | (any scheduler)",
    "ct_sched_load_state_dict": "torch.optim.lr_scheduler.StepLR.load_state_dict | (any scheduler)",
    "ct_clip_grad_norm_ex": "torch.nn.utils.clip_grad_norm_ | with error_if_nonfinite",
    "ct_clip_grad_norm_module_": "torch.nn.utils.clip_grad_norm_ | over model.parameters()",
    "ct_clip_grad_value_module_": "torch.nn.utils.clip_grad_value_ | over model.parameters()",
    # data
    "ct_load_idx": "none: IDX files (the MNIST format; torchvision.datasets.MNIST reads them, not torch)",
    "ct_load_idx_mem": "none: IDX files (the MNIST format; torchvision.datasets.MNIST reads them, not torch)",
    "ct_tensor_dataset": "torch.utils.data.TensorDataset", "ct_dataset_len": "torch.utils.data.TensorDataset.__len__",
    "ct_dataset_free": FREE, "ct_dataloader_free": FREE,
    "ct_dataloader_new": "torch.utils.data.DataLoader",
    "ct_dataloader_next": "torch.utils.data.DataLoader.__iter__ | next(iterator)",
    "ct_dataloader_num_batches": "torch.utils.data.DataLoader.__len__",
    # attention, transformers
    "ct_mha_forward": "torch.nn.MultiheadAttention.forward",
    "ct_scaled_dot_product_attention": "torch.nn.functional._scaled_dot_product_attention | F.scaled_dot_product_attention from PyTorch 2.0; private in 1.13",
    "ct_transformer_encoder_forward": "torch.nn.TransformerEncoder.forward | or TransformerEncoderLayer.forward",
    "ct_transformer_decoder_forward": "torch.nn.TransformerDecoder.forward | or TransformerDecoderLayer.forward",
    "ct_transformer_forward": "torch.nn.Transformer.forward",
    "ct_nn_transformer_square_subsequent_mask": "torch.nn.Transformer.generate_square_subsequent_mask",
    "ct_set_transformer_fastpath": "none: the fastpath switch (torch.backends.mha.set_fastpath_enabled from PyTorch 2.x; 1.13 has none)",
    "ct_get_transformer_fastpath": "none: the fastpath switch (torch.backends.mha.get_fastpath_enabled from PyTorch 2.x; 1.13 has none)",
    "ct_transformer_fastpath_why_not": "none: says why a call left the fastpath (PyTorch decides silently)",
    "ct_nested_from_mask": "torch.nested.nested_tensor | from the unpadded sequences",
    "ct_nested_to_padded": "torch.nested.to_padded_tensor",
    "ct_transformer_encoder_forward_nested": "torch.nn.TransformerEncoder.forward | on a nested tensor (its fastpath)",
    "ct_kv_cache_new": "none: a key/value cache for incremental decoding (PyTorch's nn modules have none; Hugging Face's past_key_values)",
    "ct_kv_cache_reset": "none: a key/value cache for incremental decoding (PyTorch's nn modules have none)",
    "ct_kv_cache_len": "none: a key/value cache for incremental decoding (PyTorch's nn modules have none)",
    "ct_kv_cache_free": FREE,
    "ct_transformer_decode": "none: one step of cached incremental decoding (PyTorch's nn modules have none)",
    # profiler
    "ct_profiler_start": "torch.profiler.profile.start", "ct_profiler_stop": "torch.profiler.profile.stop",
    "ct_profiler_step": "torch.profiler.profile.step",
    "ct_profiler_current_action": "torch.profiler.ProfilerAction | the schedule's current action",
    "ct_profiler_range_push": "torch.autograd.profiler.record_function | entering with record_function(name):",
    "ct_profiler_range_pop": "torch.autograd.profiler.record_function | leaving the with block",
    "ct_profiler_num_events": "torch.profiler.profile.events | len(prof.events())",
    "ct_profiler_get_event": "torch.profiler.profile.events | prof.events()[i]",
    "ct_profiler_event_shapes": "torch.profiler.profile.events | event.input_shapes",
    "ct_profiler_key_averages": "torch.profiler.profile.key_averages",
    "ct_profiler_table": "torch.profiler.profile.key_averages | prof.key_averages().table(...)",
    "ct_profiler_print_table": "torch.profiler.profile.key_averages | print(prof.key_averages().table(...))",
    "ct_profiler_export_chrome_trace": "torch.profiler.profile.export_chrome_trace",
    # ctensor_linalg.h
    "ct_real": "torch.real", "ct_imag": "torch.imag",
    # ctensor_quant.h
    "ct_make_per_tensor_quantized": "torch._make_per_tensor_quantized_tensor",
    "ct_make_per_channel_quantized": "torch._make_per_channel_quantized_tensor",
    "ct_q_scale": "torch.Tensor.q_scale", "ct_q_zero_point": "torch.Tensor.q_zero_point",
    "ct_q_per_channel_scales": "torch.Tensor.q_per_channel_scales",
    "ct_q_per_channel_zero_points": "torch.Tensor.q_per_channel_zero_points",
    "ct_q_per_channel_axis": "torch.Tensor.q_per_channel_axis",
    "ct_q_qscheme": "torch.Tensor.qscheme", "ct_qscheme_name": "torch.Tensor.qscheme | str(t.qscheme())",
    "ct_qdtype_range": "torch.ao.quantization.observer.MinMaxObserver | the quant_min / quant_max an observer derives from its dtype",
    "ct_q_choose_qparams": "torch.ao.quantization.observer.MinMaxObserver.calculate_qparams | PyTorch's C++ ChooseQuantizationParams (quantize_per_tensor_dynamic's choice)",
    "ct_q_sqnr": "torch.ao.ns.fx.utils.compute_sqnr",
    "ct_q_save_safetensors_mem": SAFET, "ct_q_save_safetensors_n": SAFET, "ct_q_safetensors_get": SAFET,
    "ct_fuse_modules_n": "torch.ao.quantization.fuse_modules",
    "ct_fuse_modules_qat_n": "torch.ao.quantization.fuse_modules_qat",
    "ct_observer_new": "torch.ao.quantization.observer.ObserverBase | an observer class by kind",
    "ct_moving_average_per_channel_minmax_observer": "torch.ao.quantization.observer.MovingAveragePerChannelMinMaxObserver",
    "ct_is_observer": "torch.ao.quantization.observer.ObserverBase | isinstance(m, ObserverBase)",
    "ct_observer_calculate_qparams": "torch.ao.quantization.observer.MinMaxObserver.calculate_qparams",
    "ct_observer_calculate_qparams_per_tensor": "torch.ao.quantization.observer.MinMaxObserver.calculate_qparams",
    "ct_observer_qrange": "torch.ao.quantization.observer.MinMaxObserver | observer.quant_min, observer.quant_max",
    "ct_observer_dtype": "torch.ao.quantization.observer.MinMaxObserver | observer.dtype",
    "ct_observer_qscheme": "torch.ao.quantization.observer.MinMaxObserver | observer.qscheme",
    "ct_observer_reset_min_max_vals": "torch.ao.quantization.observer.MinMaxObserver.reset_min_max_vals",
    "ct_fake_quantize": "torch.ao.quantization.fake_quantize.FakeQuantize",
    "ct_is_fake_quantize": "torch.ao.quantization.fake_quantize.FakeQuantize | isinstance(m, FakeQuantize)",
    "ct_fake_quantize_enable_fake_quant": "torch.ao.quantization.fake_quantize.FakeQuantize.enable_fake_quant",
    "ct_fake_quantize_enable_observer": "torch.ao.quantization.fake_quantize.FakeQuantize.enable_observer",
    "ct_fake_quant_module_calculate_qparams": "torch.ao.quantization.fake_quantize.FakeQuantize.calculate_qparams",
    "ct_quant_load_state_dict": "torch.nn.Module.load_state_dict | on a prepared or converted model",
    "ct_observer_factory_make": "torch.ao.quantization.observer.ObserverBase.with_args | calling the factory with_args made",
    "ct_qconfig_default_x86": "torch.ao.quantization.get_default_qconfig | get_default_qconfig('x86')",
    "ct_qconfig_default_arm": "torch.ao.quantization.get_default_qconfig | get_default_qconfig('qnnpack')",
    "ct_qconfig_default": "torch.ao.quantization.default_qconfig",
    "ct_qconfig_default_dynamic": "torch.ao.quantization.default_dynamic_qconfig",
    "ct_qat_qconfig_default_x86": "torch.ao.quantization.get_default_qat_qconfig | get_default_qat_qconfig('x86')",
    "ct_qat_qconfig_default_arm": "torch.ao.quantization.get_default_qat_qconfig | get_default_qat_qconfig('qnnpack')",
    "ct_q_linear_prepack": "torch.ops.quantized.linear_prepack",
    "ct_q_linear_packed_free": FREE,
    "ct_q_linear_packed_weight": "torch.ops.quantized.linear_unpack | its weight",
    "ct_q_linear_packed_bias": "torch.ops.quantized.linear_unpack | its bias",
    "ct_q_linear_packed_in_features": "torch.ops.quantized.linear_unpack | weight.size(1)",
    "ct_q_linear_packed_out_features": "torch.ops.quantized.linear_unpack | weight.size(0)",
    "ct_q_linear": "torch.ops.quantized.linear", "ct_q_linear_relu": "torch.ops.quantized.linear_relu",
    "ct_q_linear_dynamic": "torch.ops.quantized.linear_dynamic",
    "ct_q_gemm_u8s8s32": "none: the raw uint8 x int8 -> int32 product under ctensor's quantized linear (FBGEMM's, in C++, in PyTorch)",
    "ct_q_gemm_path_available": "none: which int8 GEMM kernels (AVX-512 VNNI, AMX, NEON dot product...) this machine has",
    "ct_q_gemm_path_name": "none: which int8 GEMM kernels (AVX-512 VNNI, AMX, NEON dot product...) this machine has",
    "ct_q_gemm_path_used": "none: which int8 GEMM kernels (AVX-512 VNNI, AMX, NEON dot product...) this machine has",
    "ct_q_gemm_force_path": "none: forces an int8 GEMM path, for tests and benchmarks",
    "ct_nnq_dynamic_linear_packed": "torch.ao.nn.quantized.dynamic.Linear | module._packed_params",
    "ct_nnq_lstm_forward": "torch.ao.nn.quantized.dynamic.LSTM.forward",
    "ct_q_add": "torch.ops.quantized.add", "ct_q_add_relu": "torch.ops.quantized.add_relu",
    "ct_q_mul": "torch.ops.quantized.mul", "ct_q_mul_relu": "torch.ops.quantized.mul_relu",
    "ct_q_cat": "torch.ops.quantized.cat",
    "ct_q_conv2d_prepack": "torch.ops.quantized.conv2d_prepack", "ct_q_conv_packed_free": FREE,
    "ct_q_conv2d": "torch.ops.quantized.conv2d", "ct_q_conv2d_relu": "torch.ops.quantized.conv2d_relu",
    "ct_nn_float_functional": "torch.ao.nn.quantized.FloatFunctional",
    "ct_nnq_functional": "torch.ao.nn.quantized.QFunctional",
    "ct_ff_add": "torch.ao.nn.quantized.FloatFunctional.add", "ct_ff_add_relu": "torch.ao.nn.quantized.FloatFunctional.add_relu",
    "ct_ff_mul": "torch.ao.nn.quantized.FloatFunctional.mul", "ct_ff_cat": "torch.ao.nn.quantized.FloatFunctional.cat",
    "ct_ff_add_scalar": "torch.ao.nn.quantized.FloatFunctional.add_scalar",
    "ct_ff_mul_scalar": "torch.ao.nn.quantized.FloatFunctional.mul_scalar",
    "ct_q_add_scalar": "torch.ops.quantized.add_scalar", "ct_q_mul_scalar": "torch.ops.quantized.mul_scalar",
    "ct_q_hardswish": "torch.ao.nn.quantized.functional.hardswish",
    "ct_fixed_qparams_fake_quantize": "torch.ao.quantization.fake_quantize.FixedQParamsFakeQuantize",
    "ct_quantize_dynamic": "torch.ao.quantization.quantize_dynamic",
    "ct_nn_quant_stub": "torch.ao.quantization.QuantStub", "ct_nn_dequant_stub": "torch.ao.quantization.DeQuantStub",
    "ct_quant_prepare": "torch.ao.quantization.prepare", "ct_quant_prepare_qat": "torch.ao.quantization.prepare_qat",
    "ct_quant_convert": "torch.ao.quantization.convert",
    "ct_nn_quant_wrapper": "torch.ao.quantization.QuantWrapper",
    "ct_ns_result_free": FREE,
    "ct_ns_result_get": "torch.ao.ns._numeric_suite.compare_weights | result[name] of the dict it returns",
    "ct_ns_compare_weights": "torch.ao.ns._numeric_suite.compare_weights",
    "ct_ns_compare_model_outputs": "torch.ao.ns._numeric_suite.compare_model_outputs",
    "ct_ns_quantizable_layers": "none: lists the layers one-at-a-time quantization can try (PyTorch's numeric suite leaves this loop to the user)",
    "ct_ns_sensitivity": "none: the per-layer sensitivity table of eager-mode debugging, written out (PyTorch's numeric suite leaves this loop to the user)",
    "ct_nnq_quantize": "torch.ao.nn.quantized.Quantize", "ct_nnq_dequantize": "torch.ao.nn.quantized.DeQuantize",
    # ctensor_cuda.h
    "ct_cuda_device_name": "torch.cuda.get_device_name",
    "ct_cuda_stream_new": "torch.cuda.Stream", "ct_cuda_stream_free": FREE,
    "ct_cuda_stream_device": "torch.cuda.Stream | stream.device",
    "ct_cuda_event_new": "torch.cuda.Event", "ct_cuda_event_free": FREE,
    "ct_cuda_event_elapsed_ms": "torch.cuda.Event.elapsed_time",
    "ct_cuda_record_stream": "torch.Tensor.record_stream",
    "ct_cuda_pin_memory": "torch.Tensor.pin_memory", "ct_cuda_is_pinned": "torch.Tensor.is_pinned",
    "ct_cuda_set_allow_tf32": "torch.backends.cuda.matmul.allow_tf32 | torch.backends.cuda.matmul.allow_tf32 = flag",
    "ct_cuda_get_allow_tf32": "torch.backends.cuda.matmul.allow_tf32",
    "ct_cuda_set_allow_fp16_reduced_precision_reduction": "torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction | = flag",
    "ct_cuda_get_allow_fp16_reduced_precision_reduction": "torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction",
    "ct_cuda_set_allow_bf16_reduced_precision_reduction": "none: PyTorch 1.13 has no switch for bfloat16 (torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction from 2.0)",
    "ct_cuda_get_allow_bf16_reduced_precision_reduction": "none: PyTorch 1.13 has no switch for bfloat16 (torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction from 2.0)",
    "ct_cuda_q_linear_packed_to": "none: moves a packed int8 Linear weight to a GPU for quantized::linear on CUDA; PyTorch 1.13's quantized Linear packs for the CPU engines (fbgemm, qnnpack) only",
    "ct_cuda_q_conv_packed_to": "none: moves a packed int8 conv weight to a GPU for quantized::conv2d on CUDA; PyTorch 1.13's quantized conv packs for the CPU engines (fbgemm, qnnpack) only",
    # ctensor_dist.h
    "ct_dist_init_process_group": "torch.distributed.init_process_group",
    "ct_dist_destroy_process_group": "torch.distributed.destroy_process_group",
    "ct_dist_is_initialized": "torch.distributed.is_initialized",
    "ct_dist_get_rank": "torch.distributed.get_rank",
    "ct_dist_get_world_size": "torch.distributed.get_world_size",
    "ct_dist_get_backend": "torch.distributed.get_backend",
    "ct_dist_register_backend": "torch.distributed.Backend.register_backend",
    "ct_dist_mpi_register": "none: links the MPI backend in; PyTorch's is built into torch.distributed when compiled with MPI",
    "ct_dist_nccl_register": "none: links the NCCL backend in; PyTorch's is built into torch.distributed when compiled with NCCL",
    "ct_dist_all_reduce": "torch.distributed.all_reduce | all_reduce(tensor, op, group, async_op=work is not NULL)",
    "ct_dist_broadcast": "torch.distributed.broadcast",
    "ct_dist_all_gather": "torch.distributed.all_gather",
    "ct_dist_all_gather_into_tensor": "torch.distributed.all_gather_into_tensor",
    "ct_dist_reduce_scatter": "torch.distributed.reduce_scatter",
    "ct_dist_reduce_scatter_tensor": "torch.distributed.reduce_scatter_tensor",
    "ct_dist_barrier": "torch.distributed.barrier",
    "ct_dist_send": "torch.distributed.send | send, or isend when work is not NULL",
    "ct_dist_recv": "torch.distributed.recv | recv, or irecv when work is not NULL",
    "ct_work_wait": "torch.distributed.Work.wait",
    "ct_work_wait_timeout": "torch.distributed.Work.wait | work.wait(timeout)",
    "ct_work_test": "torch.distributed.Work.is_completed",
    "ct_ddp_new": "torch.nn.parallel.DistributedDataParallel",
    "ct_ddp_free": FREE,
    "ct_ddp_module": "torch.nn.parallel.DistributedDataParallel | ddp.module",
    "ct_ddp_forward": "torch.nn.parallel.DistributedDataParallel.forward",
    "ct_ddp_backward": "torch.Tensor.backward | loss.backward() on a DDP model's loss",
    "ct_ddp_finish_gradients": "none: the end of DDP's backward (its reducer's finalize, queued on the autograd engine in PyTorch); ctensor's hooks run before accumulation, so a call finishes it",
    "ct_ddp_set_require_sync": "torch.nn.parallel.DistributedDataParallel.no_sync | ddp.require_backward_grad_sync = flag",
    "CT_DDP_NO_SYNC": "torch.nn.parallel.DistributedDataParallel.no_sync | with ddp.no_sync(): ...",
    "ct_ddp_num_buckets": "none: DDP's bucket layout, for tests and tuning (PyTorch keeps it in its private reducer)",
    "ct_ddp_bucket_params": "none: DDP's bucket layout, for tests and tuning (PyTorch keeps it in its private reducer)",
    "ct_zero_redundancy_optimizer": "torch.distributed.optim.ZeroRedundancyOptimizer",
    "ct_zero_free": FREE,
    "ct_zero_step": "torch.distributed.optim.ZeroRedundancyOptimizer.step",
    "ct_fsdp_new": FSDP_NA % "FullyShardedDataParallel(module, process_group, sharding_strategy, auto_wrap_policy, sync_module_states=True)",
    "ct_fsdp_free": FREE,
    "ct_fsdp_parameters": FSDP_NA % "FullyShardedDataParallel.parameters()",
    "ct_fsdp_num_units": "none: how many units the wrap policy made (PyTorch: count the FullyShardedDataParallel instances in fsdp.modules())",
    "ct_fsdp_forward": FSDP_NA % "FullyShardedDataParallel.forward",
    "ct_fsdp_backward": "torch.Tensor.backward | loss.backward() on an FSDP model's loss",
    "ct_fsdp_finish_gradients": "none: the end of FSDP's backward (its post-backward callback, queued on the autograd engine in PyTorch); ctensor's hooks run before accumulation, so a call finishes it",
    "ct_fsdp_summon_full_params": FSDP_NA % "FullyShardedDataParallel.summon_full_params()",
    "ct_fsdp_memory": "torch.cuda.max_memory_allocated | per kind (parameters, gradients, everything), as FSDP's memory tracking",
    "ct_fsdp_reset_peak_memory": "torch.cuda.reset_peak_memory_stats",
    "ct_fsdp_state_dict": FSDP_NA % "FullyShardedDataParallel.state_dict_type(model, StateDictType.FULL_STATE_DICT / LOCAL_STATE_DICT); model.state_dict()",
    "ct_fsdp_load_state_dict": FSDP_NA % "FullyShardedDataParallel.state_dict_type(model, ...); model.load_state_dict(sd)",
    "ct_fsdp_full_optim_state_dict": FSDP_NA % "FullyShardedDataParallel.full_optim_state_dict(model, optim) with rekey_optim_state_dict(..., OptimStateKeyType.PARAM_ID, model)",
    "ct_fsdp_load_full_optim_state_dict": FSDP_NA % "FullyShardedDataParallel.scatter_full_optim_state_dict(full_osd, model); optim.load_state_dict(...)",
    "ct_zero_param_rank": "none: which rank owns a parameter (PyTorch's ZeroRedundancyOptimizer keeps its partition in private fields)",
}
PATTERNS = [
    (r"ct_(num_ops|op_|attrs_|op_call_|add_dispatch|remove_dispatch|backend_name|register_backend_op)", OPAPI),
    (r"ct_(safetensors_|save_safetensors)", SAFET),
]

# Functions after a declaration with its own comment that still belong to the run
# the comment above documents (In-place variants, Layers and activations, ...).
INHERIT = {
    "ct_clamp_", "ct_relu_", "ct_masked_fill_", "ct_addcmul_", "ct_addcdiv_", "ct_lerp_scalar_",
    "ct_node_num_next", "ct_node_name", "ct_grad_fn", "ct_module_register_buffer", "ct_module_free",
    "ct_module_eval", "ct_nn_flatten_dims", "ct_nn_unflatten", "ct_nn_relu", "ct_nn_relu6", "ct_nn_sigmoid",
    "ct_nn_tanh", "ct_nn_selu", "ct_nn_silu", "ct_nn_mish", "ct_nn_hardsigmoid", "ct_nn_hardswish",
    "ct_nn_logsigmoid", "ct_nn_leaky_relu", "ct_nn_elu", "ct_nn_celu", "ct_nn_gelu", "ct_nn_softplus",
    "ct_nn_hardtanh", "ct_nn_threshold", "ct_nn_gru", "ct_kv_cache_len", "ct_kv_cache_free",
    "ct_transformer_decode", "ct_load_npy", "ct_q_save_safetensors_n", "ct_ff_add", "ct_ff_add_relu",
    "ct_ff_mul", "ct_ff_cat", "ct_ff_add_scalar", "ct_ff_mul_scalar",
}

UNARY = {
    "neg": "-x", "abs": "|x| (the modulus of a complex x, as a real tensor)", "sign": "the sign of x: -1, 0 or 1",
    "sgn": "x / |x| (0 at 0); the sign for real x", "angle": "the argument of x in (-pi, pi] (as a real tensor; pi for negative real x, 0 otherwise)",
    "exp": "e^x", "exp2": "2^x",
    "expm1": "e^x - 1 (exact near 0)", "log": "the natural logarithm", "log2": "the base-2 logarithm",
    "log10": "the base-10 logarithm", "log1p": "log(1 + x) (exact near 0)", "sqrt": "the square root",
    "rsqrt": "1 / sqrt(x)", "reciprocal": "1 / x", "square": "x * x", "sin": "sine", "cos": "cosine",
    "tan": "tangent", "asin": "arcsine", "acos": "arccosine", "atan": "arctangent", "asinh": "inverse hyperbolic sine",
    "acosh": "inverse hyperbolic cosine", "atanh": "inverse hyperbolic tangent", "sinh": "hyperbolic sine",
    "cosh": "hyperbolic cosine", "tanh": "hyperbolic tangent", "sigmoid": "the logistic sigmoid 1 / (1 + e^-x)",
    "logsigmoid": "log(sigmoid(x)), computed without overflow", "relu": "max(x, 0)", "relu6": "min(max(x, 0), 6)",
    "selu": "SELU: scale * (x if x > 0 else alpha * (e^x - 1)) with its fixed constants",
    "silu": "SiLU (swish): x * sigmoid(x)", "mish": "Mish: x * tanh(softplus(x))",
    "hardsigmoid": "clamp(x + 3, 0, 6) / 6", "hardswish": "x * clamp(x + 3, 0, 6) / 6",
    "erf": "the error function", "erfc": "the complementary error function 1 - erf(x)",
    "floor": "rounding down", "ceil": "rounding up", "round": "rounding to the nearest integer, halves to even",
    "trunc": "rounding toward zero", "frac": "the fractional part x - trunc(x)",
    "bitwise_not": "~x (integer and bool tensors)",
}
PREDICATES = {
    "isnan": "x is NaN", "isinf": "x is +inf or -inf", "isfinite": "x is neither NaN nor infinite",
    "isposinf": "x is +inf", "isneginf": "x is -inf", "signbit": "x's sign bit is set (true for -0.0)",
    "logical_not": "x is zero",
}
BINARY = {
    "mul": "a * b", "div": "a / b (true division: integers give floats)", "floor_divide": "floor(a / b)",
    "remainder": "Python's a % b (the result takes b's sign)", "fmod": "C's fmod(a, b) (the result takes a's sign)",
    "pow": "a ** b", "atan2": "atan2(a, b), the angle of the point (b, a)",
    "maximum": "the larger of a and b (NaN propagates)", "minimum": "the smaller of a and b (NaN propagates)",
    "hypot": "sqrt(a^2 + b^2)", "eq": "a == b", "ne": "a != b", "lt": "a < b", "le": "a <= b", "gt": "a > b",
    "ge": "a >= b", "logical_and": "a and b (nonzero is true)", "logical_or": "a or b (nonzero is true)",
    "logical_xor": "a xor b (nonzero is true)", "bitwise_and": "a & b", "bitwise_or": "a | b",
    "bitwise_xor": "a ^ b", "bitwise_left_shift": "a << b", "bitwise_right_shift": "a >> b (arithmetic for signed types)",
    "fmax": "the larger of a and b, ignoring a NaN", "fmin": "the smaller of a and b, ignoring a NaN",
    "copysign": "|a| with the sign of b", "xlogy": "a * log(b), and 0 where a is 0",
    "add": "a + b", "sub": "a - b",
}
COMPARE = {"eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor"}
DESC = {}
for _n, _p in UNARY.items():
    DESC["ct_" + _n] = "Elementwise: %s. A new tensor of x's shape, in the dtype PyTorch gives." % _p
for _n, _p in PREDICATES.items():
    DESC["ct_" + _n] = "Elementwise test: true where %s. A bool tensor of x's shape (not differentiable)." % _p
for _n, _p in BINARY.items():
    _out = "a bool tensor" if _n in COMPARE else "a new tensor"
    DESC["ct_" + _n] = "Elementwise: %s, broadcasting a and b, with PyTorch's type promotion. Returns %s." % (_p, _out)
    DESC["ct_%s_scalar" % _n] = ("Elementwise: %s with a number b, promoted as a Python number is (an integral "
                                 "value keeps integer dtypes, 2.5 makes them float). Returns %s." % (_p, _out))
DESC.update({
    "ct_celu": "Elementwise CELU: max(0, x) + min(0, alpha * (exp(x / alpha) - 1)).",
    "ct_threshold": "Elementwise: x where x > threshold, else value.",
    "ct_sub_alpha": "a - alpha * b, broadcasting, with PyTorch's type promotion (torch.sub's alpha=).",
    "ct_leaky_relu": "Elementwise leaky ReLU: x if x > 0 else negative_slope * x (PyTorch's default slope: 0.01).",
    "ct_elu": "Elementwise ELU: x if x > 0 else alpha * (e^x - 1) (PyTorch's default alpha: 1.0).",
    "ct_gelu": "Elementwise GELU: x * Phi(x), exact (approximate \"none\") or with the tanh approximation (\"tanh\").",
    "ct_softplus": "Elementwise softplus: log(1 + e^(beta x)) / beta, and x where beta x > threshold (PyTorch's defaults: beta 1, threshold 20).",
    "ct_hardtanh": "Elementwise clamp of x to [min_val, max_val] (PyTorch's defaults: -1, 1).",
    "ct_dtype_is_complex": "1 for complex64 and complex128, else 0.",
    "ct_clear_error": "Clears the calling thread's error: ct_last_error() is \"\" and ct_last_error_code() CT_OK again.",
    "ct_ndim": "The number of dimensions (0 for a scalar tensor).",
    "ct_stride": "The stride of dimension dim, in elements (negative dims count from the end).",
    "ct_numel": "The number of elements (the product of the shape; 1 for a 0-d tensor).",
    "ct_get_dtype": "The tensor's dtype.",
    "ct_is_contiguous": "1 when the tensor is contiguous in C order (row-major), else 0.",
    "ct_same_shape": "1 when a and b have the same number of dimensions and the same sizes, else 0.",
    "ct_scope_depth": "How many scopes are open on the calling thread (0 outside any CT_SCOPE).",
    "ct_empty_n": "A new tensor of the given shape and dtype, its values uninitialised (ct_empty(dt, ...) takes the sizes as arguments).",
    "ct_zeros_n": "A new tensor of the given shape and dtype filled with zeros (ct_zeros(dt, ...) takes the sizes as arguments).",
    "ct_ones_n": "A new tensor of the given shape and dtype filled with ones (ct_ones(dt, ...) takes the sizes as arguments).",
    "ct_full_n": "A new tensor of the given shape and dtype filled with value (ct_full(dt, value, ...) takes the sizes as arguments).",
    "ct_arange": "A 1-D tensor of start, start + step, ... up to but not including end.",
    "ct_linspace": "A 1-D tensor of `steps` evenly spaced values from start to end, both included.",
    "ct_view_n": "A view with a new shape (one size may be -1) sharing t's storage; an error when t's strides do not allow one (ct_reshape copies then).",
    "ct_reshape_n": "t with a new shape (one size may be -1): a view when the strides allow, else a copy.",
    "ct_permute_n": "A view with the dimensions reordered: dimension i of the result is dims[i] of t.",
    "ct_expand_n": "A view broadcasting size-1 dimensions to the given sizes (-1 keeps a size) without copying; new leading dims may be added.",
    "ct_expand_as": "t expanded to other's shape (a view).",
    "ct_view_as": "t viewed with other's shape.",
    "ct_reshape_as": "t reshaped to other's shape (a view when possible).",
    "ct_transpose": "A view with dimensions dim0 and dim1 swapped.",
    "ct_sum": "The sum of all elements: a 0-d tensor (integer and bool inputs sum in int64, as PyTorch does).",
    "ct_sum_dim": "The sum along one dimension; keepdim keeps it with size 1.",
    "ct_sum_dims": "The sum along several dimensions (ndims == 0: all of them); keepdim keeps them with size 1.",
    "ct_mean": "The mean of all elements: a 0-d tensor (floating-point inputs only, as in PyTorch).",
    "ct_mean_dim": "The mean along one dimension; keepdim keeps it with size 1.",
    "ct_mean_dims": "The mean along several dimensions (ndims == 0: all of them); keepdim keeps them with size 1.",
    "ct_matmul": "Matrix product with PyTorch's rules: 1-D . 1-D is a dot product, 2-D x 2-D a matrix product, a 1-D operand is promoted to a matrix and the added dimension removed, batch dimensions broadcast.",
    "ct_mm": "The product of two matrices: a [n, k] x b [k, m] -> [n, m] (no broadcasting).",
    "ct_bmm": "Batched matrix product: a [B, n, k] x b [B, k, m] -> [B, n, m] (no broadcasting).",
    "ct_set_requires_grad": "requires_grad_(flag): sets or clears requires_grad; returns t. Errors as PyTorch's: clearing it on a non-leaf, setting it on an integer or bool tensor.",
    "ct_get_default_dtype": "The default floating dtype factories use (float32 unless ct_set_default_dtype changed it).",
    "ct_squeeze_dim": "A view without dimension dim when its size is 1 (t itself, as a view, otherwise).",
    "ct_unsqueeze": "A view with a new size-1 dimension inserted at dim.",
    "ct_flatten": "t with dimensions start_dim..end_dim merged into one (a view when the strides allow).",
    "ct_unflatten_n": "A view of t with dimension dim split into the sizes given (one may be -1).",
    "ct_diagonal": "A view of the diagonal with the given offset over dimensions dim1 and dim2 (moved to the end).",
    "ct_as_strided": "A view of t's storage with the given shape, strides (in elements) and storage offset.",
    "ct_masked_fill": "x with value where mask (bool, broadcast to x) is true.",
    "ct_masked_fill_tensor": "x with the 0-d tensor value where mask (bool, broadcast to x) is true.",
    "ct_lerp": "Linear interpolation start + weight * (end - start), broadcasting.",
    "ct_lerp_scalar": "Linear interpolation start + weight * (end - start) with a number weight.",
    "ct_addcmul": "x + value * t1 * t2, broadcasting.",
    "ct_addcdiv": "x + value * t1 / t2, broadcasting.",
    "ct_isclose": "Elementwise |a - b| <= atol + rtol * |b| (equal_nan: NaNs compare equal): a bool tensor.",
    "ct_tile": "x repeated reps[k] times along each dimension (reps shorter than x's rank is padded with ones in front).",
    "ct_repeat_interleave_tensor": "Each element (or slice along dim) repeated repeats[i] times, repeats an int64 tensor.",
    "ct_generator_random64": "The next 64 bits of the generator: two 32-bit draws, the first the high half (as PyTorch's random64); NULL = the default generator.",
    "ct_initial_seed": "The seed the default generator was last seeded with.",
    "ct_rand_n": "A new tensor of uniform samples from [0, 1) drawn from the default generator (ct_rand(dt, ...) takes the sizes as arguments).",
    "ct_randn_n": "A new tensor of standard normal samples drawn from the default generator (ct_randn(dt, ...) takes the sizes as arguments).",
    "ct_rand_on_n": "ct_rand_n on a device (PyTorch's device= argument).",
    "ct_randn_on_n": "ct_randn_n on a device (PyTorch's device= argument).",
    "ct_bernoulli_scalar_": "Fills x in place with 0/1 draws, each 1 with probability p; returns x.",
    "ct_op_num_outputs": "The number of tensor outputs of op (-1 for a bad id).",
    "ct_op_attr": "Fills *info with the name, type and slot of the op's k-th attribute from its schema.",
    "ct_nn_max_pool2d_opts": "nn.MaxPool2d with its options (stride, padding, dilation, ceil_mode, per-axis sizes) in o.",
    "ct_nn_avg_pool2d": "nn.AvgPool2d(kernel_size, stride) (stride 0: kernel_size).",
    "ct_nn_avg_pool2d_opts": "nn.AvgPool2d with its options (stride, padding, ceil_mode, count_include_pad, divisor_override, per-axis sizes) in o.",
    "ct_nn_adaptive_avg_pool2d": "nn.AdaptiveAvgPool2d((out_h, out_w)).",
    "ct_linalg_matrix_rank": "The number of singular values (eigenvalue magnitudes when hermitian) above max(atol, rtol * the largest); NAN atol / rtol = None (PyTorch's defaults).",
    "ct_get_requires_grad": "t.requires_grad: 1 when t requires grad (a marked leaf, or a result computed from one), else 0.",
    "ct_is_leaf": "1 when t is a leaf of the autograd graph (no grad_fn), else 0.",
    "ct_fprint": "Writes PyTorch's repr of t to the stdio stream f (not under CTENSOR_NO_STDIO).",
    "ct_nn_module_list_append": "Appends module m to a ModuleList (the list takes ownership of m).",
    "ct_nn_module_list_get": "The i-th module of a ModuleList, borrowed (negative i counts from the end).",
    "ct_nn_module_list_len": "The number of modules in a ModuleList.",
    "ct_nn_init_fan_in": "The fan-in nn.init computes for t (size(1) times the receptive field); -1 with an error for fewer than 2 dimensions.",
    "ct_nn_init_fan_out": "The fan-out nn.init computes for t (size(0) times the receptive field); -1 with an error for fewer than 2 dimensions.",
    "ct_nn_init_calculate_gain": "nn.init.calculate_gain: the recommended gain for a nonlinearity (\"relu\", \"tanh\", \"leaky_relu\" with its slope in param, ...).",
    "ct_nn_init_uniform_": "Fills t in place with values drawn uniformly from [a, b); returns t.",
    "ct_nn_init_normal_": "Fills t in place with values drawn from N(mean, std^2); returns t.",
    "ct_nn_init_constant_": "Fills t in place with v; returns t.",
    "ct_nn_init_zeros_": "Fills t in place with zeros; returns t.",
    "ct_nn_init_ones_": "Fills t in place with ones; returns t.",
    "ct_nn_init_eye_": "Fills the 2-D tensor t in place with the identity matrix; returns t.",
    "ct_nn_init_xavier_uniform_": "Xavier/Glorot uniform fill: U(-a, a) with a = gain * sqrt(6 / (fan_in + fan_out)); returns t.",
    "ct_nn_init_xavier_normal_": "Xavier/Glorot normal fill: N(0, std^2) with std = gain * sqrt(2 / (fan_in + fan_out)); returns t.",
    "ct_module_save_safetensors": "Writes the module's state dict to a safetensors file at path.",
    "ct_module_load_safetensors": "Loads a safetensors file at path into the module's tensors (strict: every key must match, as load_state_dict).",
    "ct_module_load_safetensors_mem": "Loads a safetensors image held in memory (data, len) into the module's tensors (strict as load_state_dict).",
    "ct_max_pool2d": "2-D max pooling of x [N, C, H, W] or [C, H, W] with a square kernel; o (may be NULL) gives stride, padding, dilation and ceil_mode.",
    "ct_optim_num_groups": "The optimizer's number of parameter groups.",
    "ct_optim_set_lr": "Sets the learning rate of parameter group `group`.",
    "ct_linalg_inv": "The inverse of a square matrix or a batch of them; a singular input is an error (CT_ERR_NUMERIC).",
    "ct_linalg_inv_ex": "torch.linalg.inv_ex: the inverse and, in *info (info may be NULL), LAPACK's status per matrix (0: invertible); check_errors makes a singular input an error.",
    "ct_linalg_det": "The determinant of a square matrix or a batch of them.",
    "ct_linalg_slogdet": "The sign and the log of the absolute value of the determinant (sign 0, logabsdet -inf for a singular matrix).",
    "ct_linalg_qr": "The QR decomposition A = QR; mode \"reduced\" (the default), \"complete\" or \"r\".",
    "ct_linalg_eigvals": "The eigenvalues of a general square matrix (complex).",
    "ct_linalg_eigh": "Eigenvalues (ascending) and eigenvectors of a symmetric or Hermitian matrix, reading the triangle UPLO (\"L\" or \"U\").",
    "ct_linalg_eigvalsh": "The eigenvalues (ascending) of a symmetric or Hermitian matrix, reading the triangle UPLO (\"L\" or \"U\").",
    "ct_linalg_svd": "The singular value decomposition A = U diag(S) Vh; full_matrices chooses full or reduced U and Vh.",
    "ct_linalg_svdvals": "The singular values of A, in descending order.",
    "ct_linalg_matrix_exp": "The matrix exponential of a square matrix or a batch of them.",
    "ct_real": "The real part of a complex tensor as a view (a real tensor itself for real input).",
    "ct_imag": "The imaginary part of a complex tensor as a view; an error for real input, as in PyTorch.",
})


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
