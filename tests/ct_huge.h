/* ct_huge.h - the huge-size sweep of the test programs (CT_TEST_HUGE=1).
   A dispatch listener that tries every op the program calls with sizes near
   int64's limits. For the first CT_HUGE_PER_OP calls of each op made at depth 0
   (from the program or from a backward rule) that succeeded, it runs the op
   again through ct_dispatch (no grad, its own scope, listeners paused) with one
   argument mutated at a time:
   - every int, enum and int-list attribute of the op's schema set to each of
     2^62, INT64_MAX, INT64_MIN, -1, -2^62, 0x6DB6DB6DB6DB6DB7 (times 3 wraps to
     5) and 2^31; lists also element by element, and variable lists made longer
     than CTENSOR_MAX_DIMS (all variable lists of the op together);
   - every float attribute set to 1e300, -1e300, inf, -inf, nan, 2^62 and 9.3e18
     (past INT64_MAX: a size or count derived from it must not be converted);
   - every tensor input replaced by a view that costs no memory: its last or
     first dim expanded to 2^62 (stride 0, the other dims narrowed to 1), or to
     2^40 (the other dims kept); an integer input also by a copy holding one
     of the int values above (indices, class counts, offsets read from data).
   Each mutated call must fail with an error (any code, with a message) or
   succeed with outputs that stay inside their storage, without a crash, a
   sanitizer report (ASan + UBSan builds: out-of-bounds access, signed overflow,
   ...) or an allocation of more than CT_HUGE_CAP bytes (1 GiB) where the result
   cannot legitimately be that large (every mutation but 2^31 and the 2^40
   views: their results may need 2^31+ elements, so a refused allocation there
   is just an out-of-memory error).

   The mutated calls run in a child process (fork) per op call, so a crash or a
   sanitizer report fails the one mutation (its report is printed with the op
   and the mutation) and the sweep goes on; a mutation that runs longer than
   CT_TEST_HUGE_MS milliseconds (default 300: a legitimate loop over 2^62
   elements) is killed and counted as timed out, not as a failure. The child
   allocates through a capped allocator (storage over CT_HUGE_CAP bytes, or
   more than twice that in all, is refused); under ASan, CT_TEST_HUGE also makes
   ASan's malloc return NULL beyond 1 GiB (allocator_may_return_null=1,
   max_allocation_size_mb=1024), so the process's memory stays bounded.
   Nothing here counts as a passed check; every failure names the op, the
   mutation, the attributes and the error.

   CT_TEST_HUGE=1: failures and a summary line; CT_TEST_HUGE=2: also every
   mutated call's outcome; CT_TEST_HUGE_OPS=name,name...: only these ops (short
   or stable names).

   The includer says how a failure is reported, before including this file:
     #define CT_HUGE_FAIL(...)  printf-style report of one failure
   Then ct_huge_install() adds the listener to the calling thread when
   CT_TEST_HUGE is set and not "0" (1 when it did), and ct_huge_summary()
   prints what the sweep did to stderr. ct_huge_failures counts failures. */
#ifndef CT_HUGE_H
#define CT_HUGE_H
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ctensor.h"
#ifndef CT_HUGE_FAIL
#error "define CT_HUGE_FAIL(...) (how a failure of the huge-size sweep is reported) before including ct_huge.h"
#endif
#if defined(__unix__) || defined(__APPLE__)
#  include <poll.h>
#  include <signal.h>
#  include <sys/types.h>
#  include <sys/wait.h>
#  include <unistd.h>
#  define CT_HUGE_AVAILABLE 1
#  ifndef __cplusplus   /* C++ (nvcc: tests/cuda) gets it from <signal.h> */
int kill(pid_t pid, int sig);   /* POSIX; declared here for -std=c11 builds without _POSIX_C_SOURCE */
#  endif
#else
#  define CT_HUGE_AVAILABLE 0
#endif

#define CT_HUGE_PER_OP 2
#define CT_HUGE_CAP ((int64_t)1 << 30)

/* ASan reads these before main: with CT_TEST_HUGE set, a malloc beyond 1 GiB
   returns NULL (an out-of-memory error) instead of mapping memory or aborting. */
#if defined(__SANITIZE_ADDRESS__)
#  define CT_HUGE_ASAN 1
#elif defined(__has_feature)
#  if __has_feature(address_sanitizer)
#    define CT_HUGE_ASAN 1
#  endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(CT_HUGE_ASAN)
/* and UBSan prints where a report comes from (it does not by default) */
const char *__ubsan_default_options(void);
const char *__ubsan_default_options(void) {
    const char *h = getenv("CT_TEST_HUGE");
    return h && *h && *h != '0' ? "print_stacktrace=1" : "";
}
#endif
#ifdef CT_HUGE_ASAN
const char *__asan_default_options(void);
const char *__asan_default_options(void) {
    const char *h = getenv("CT_TEST_HUGE");
    return h && *h && *h != '0' ? "allocator_may_return_null=1:max_allocation_size_mb=1024" : "";
}
#endif

static int ct_huge_failures, ct_huge_verbose;
static long ct_huge_ncalls, ct_huge_nmut, ct_huge_nerr, ct_huge_nok, ct_huge_ntimeout, ct_huge_ncrash, ct_huge_noom;
static int ct_huge_timeout_ms = 300;
static unsigned char ct_huge_seen[4096];
static char ct_huge_only[1024];

/* ---- the values ---- */
#define CT_HUGE_NVALS 7
static const int64_t ct_huge_ivals[CT_HUGE_NVALS] = {
    (int64_t)1 << 62, INT64_MAX, INT64_MIN, -1, -((int64_t)1 << 62), (int64_t)0x6DB6DB6DB6DB6DB7LL, (int64_t)1 << 31};
static const char *const ct_huge_inames[CT_HUGE_NVALS] = {"2^62", "INT64_MAX", "INT64_MIN", "-1", "-2^62", "0x6DB6DB6DB6DB6DB7", "2^31"};
#define CT_HUGE_BIGVAL 6   /* 2^31: a result may legitimately need that many elements */
#define CT_HUGE_NFVALS 7
static const double ct_huge_fvals[CT_HUGE_NFVALS] = {1e300, -1e300, INFINITY, -INFINITY, NAN, 4611686018427387904.0, 9.3e18};
static const char *const ct_huge_fnames[CT_HUGE_NFVALS] = {"1e300", "-1e300", "inf", "-inf", "nan", "2^62", "9.3e18"};

/* ---- the mutations of one call: enumerated in a fixed order, built by index ---- */
typedef struct ct_huge_mut {
    ct_attrs a;
    ct_tensor *in[64];
    int nin;
    int big;          /* the result may legitimately need more than CT_HUGE_CAP bytes */
    const char *must_fail;   /* the call must be an error: why (a dim beyond int, an enum beyond its names) */
    char desc[256];
} ct_huge_mut;

/* a view of x costing no memory: dim hd (negative: from the end) of size `size`,
   stride 0; keep: the other dims as they are (else narrowed to 1). NULL when x
   has no such dim or an empty one. */
static ct_tensor *ct_huge_view(ct_tensor *x, int hd, int64_t size, int keep) {
    int nd = ct_ndim(x);
    int64_t shape[CT_MAX_DIMS];
    if (ct_numel(x) == 0) return NULL;
    ct_tensor *y = x;
    if (nd == 0) {
        if (keep) return NULL;
        y = ct_unsqueeze(x, 0);
        nd = 1;
    }
    if (hd < 0) hd += nd;
    if (hd < 0 || hd >= nd) return NULL;
    for (int d = 0; d < nd && y; d++) {
        int64_t s = ct_size(y, d);
        if ((d == hd || !keep) && s > 1) y = ct_narrow(y, d, 0, 1);
    }
    if (!y) return NULL;
    for (int d = 0; d < nd; d++) shape[d] = d == hd ? size : ct_size(y, d);
    return ct_expand_n(y, nd, shape);
}
/* a contiguous copy of integer tensor x with every element v (wrapped to its dtype) */
static ct_tensor *ct_huge_filled(ct_tensor *x, int64_t v) {
    ct_tensor *y = ct_contiguous(ct_clone(x));
    if (!y) return NULL;
    int64_t n = ct_numel(y);
    void *p = ct_data_ptr(y);
    for (int64_t k = 0; k < n; k++) switch (ct_get_dtype(y)) {
        case CT_INT64: ((int64_t *)p)[k] = v; break;
        case CT_INT32: ((int32_t *)p)[k] = (int32_t)(uint32_t)(uint64_t)v; break;
        case CT_INT16: ((int16_t *)p)[k] = (int16_t)(uint16_t)(uint64_t)v; break;
        case CT_INT8: ((int8_t *)p)[k] = (int8_t)(uint8_t)(uint64_t)v; break;
        case CT_UINT8: ((uint8_t *)p)[k] = (uint8_t)(uint64_t)v; break;
        default: return NULL;
    }
    return y;
}
static int ct_huge_is_int(ct_dtype dt) {
    return dt == CT_INT64 || dt == CT_INT32 || dt == CT_INT16 || dt == CT_INT8 || dt == CT_UINT8;
}

/* attributes that name dims: any value beyond int must be refused */
static int ct_huge_is_dim(const char *name) {
    return !strcmp(name, "dim") || !strcmp(name, "dims") || !strcmp(name, "dim0") || !strcmp(name, "dim1") || !strcmp(name, "dim2");
}
static int ct_huge_small(int64_t v) { return v >= -((int64_t)1 << 31) && v < ((int64_t)1 << 31); }
static int ct_huge_nnames(const ct_attr_info *info) {
    int n = info->values[0] ? 1 : 0;
    for (const char *p = info->values; *p; p++) n += *p == '|';
    return n;
}
/* Builds mutation k of call e into m; 0 when k is past the last one. */
static int ct_huge_make(const ct_dispatch_event *e, int k, ct_huge_mut *m) {
    int op = e->op, na = ct_op_num_attrs(op), idx = 0;
    m->a = *e->attrs;
    m->nin = e->nin < 64 ? e->nin : 64;
    for (int i = 0; i < m->nin; i++) m->in[i] = e->inputs[i];
    m->big = 0;
    m->must_fail = NULL;
    m->desc[0] = 0;
#define CT_HUGE_HIT() (idx++ == k)
    for (int j = 0; j < na; j++) {
        ct_attr_info info;
        ct_attr_value cur, v;
        if (ct_op_attr(op, j, &info) || ct_attrs_get(op, e->attrs, info.name, &cur)) continue;
        if (info.type == CT_ATTR_INT || info.type == CT_ATTR_ENUM) {
            for (int q = 0; q < CT_HUGE_NVALS; q++)
                if (CT_HUGE_HIT()) {
                    v = cur;
                    v.is_none = 0;
                    v.i = ct_huge_ivals[q];
                    ct_attrs_set(op, &m->a, info.name, &v);
                    m->big = q == CT_HUGE_BIGVAL;
                    snprintf(m->desc, sizeof m->desc, "%s=%s", info.name, ct_huge_inames[q]);
                    if (info.type == CT_ATTR_INT && ct_huge_is_dim(info.name) && !ct_huge_small(ct_huge_ivals[q]))
                        m->must_fail = "a dim beyond int range (PyTorch: Dimension out of range)";
                    if (info.type == CT_ATTR_ENUM && !ct_attrs_get(op, &m->a, info.name, &v) && (v.i < 0 || v.i >= ct_huge_nnames(&info)))
                        m->must_fail = "an enum index beyond its names";
                    return 1;
                }
        } else if (info.type == CT_ATTR_FLOAT) {
            for (int q = 0; q < CT_HUGE_NFVALS; q++)
                if (CT_HUGE_HIT()) {
                    v = cur;
                    v.is_none = 0;
                    v.f = ct_huge_fvals[q];
                    ct_attrs_set(op, &m->a, info.name, &v);
                    snprintf(m->desc, sizeof m->desc, "%s=%s", info.name, ct_huge_fnames[q]);
                    return 1;
                }
        } else if (info.type == CT_ATTR_FLOAT_LIST) {
            for (int el = 0; el < info.count; el++)
                for (int q = 0; q < CT_HUGE_NFVALS; q++)
                    if (CT_HUGE_HIT()) {
                        v = cur;
                        v.is_none = 0;
                        v.count = info.count;
                        v.floats[el] = ct_huge_fvals[q];
                        ct_attrs_set(op, &m->a, info.name, &v);
                        snprintf(m->desc, sizeof m->desc, "%s[%d]=%s", info.name, el, ct_huge_fnames[q]);
                        return 1;
                    }
        } else if (info.type == CT_ATTR_INT_LIST) {
            int n = cur.is_none ? (info.count > 0 ? info.count : 1) : cur.count;
            if (n > 3 * CT_MAX_DIMS) n = 3 * CT_MAX_DIMS;
            /* the whole list, then element by element */
            for (int el = -1; el < n; el++) {
                if (el >= 0 && n == 1) break;
                if (el < 0 && n == 0) continue;
                for (int q = 0; q < CT_HUGE_NVALS; q++)
                    if (CT_HUGE_HIT()) {
                        v = cur;
                        v.is_none = 0;
                        v.count = n;
                        for (int t = 0; t < n; t++)
                            if (el < 0 || t == el) v.ints[t] = ct_huge_ivals[q];
                            else if (cur.is_none) v.ints[t] = 1;
                        ct_attrs_set(op, &m->a, info.name, &v);
                        m->big = q == CT_HUGE_BIGVAL;
                        if (ct_huge_is_dim(info.name) && !ct_huge_small(ct_huge_ivals[q]))
                            m->must_fail = "a dim beyond int range (PyTorch: Dimension out of range)";
                        if (el < 0) snprintf(m->desc, sizeof m->desc, "%s=[%s, ...] (all %d)", info.name, ct_huge_inames[q], n);
                        else snprintf(m->desc, sizeof m->desc, "%s[%d]=%s", info.name, el, ct_huge_inames[q]);
                        return 1;
                    }
            }
            /* a variable list: empty, and longer than CTENSOR_MAX_DIMS (with the op's
               other variable lists, which share its length) */
            if (info.count < 0) {
                int nvar = 0;
                for (int t = 0; t < na; t++) {
                    ct_attr_info o;
                    if (!ct_op_attr(op, t, &o) && o.type == CT_ATTR_INT_LIST && o.count < 0) nvar++;
                }
                int lens[2] = {0, 3 * CT_MAX_DIMS / (nvar > 0 ? nvar : 1)};
                for (int L = 0; L < 2; L++)
                    if (CT_HUGE_HIT()) {
                        for (int t = 0; t < na; t++) {
                            ct_attr_info o;
                            ct_attr_value ov, nv;
                            if (ct_op_attr(op, t, &o) || o.type != CT_ATTR_INT_LIST || o.count >= 0) continue;
                            if (ct_attrs_get(op, e->attrs, o.name, &ov)) continue;
                            nv = ov;
                            nv.is_none = 0;
                            nv.count = lens[L];
                            for (int u = 0; u < lens[L]; u++) nv.ints[u] = ov.count > 0 ? ov.ints[u % ov.count] : 1;
                            ct_attrs_set(op, &m->a, o.name, &nv);
                        }
                        snprintf(m->desc, sizeof m->desc, "%s of length %d", info.name, lens[L]);
                        return 1;
                    }
            }
        }
    }
    for (int i = 0; i < m->nin; i++) {
        ct_tensor *x = e->inputs[i];
        if (!x) continue;
        /* views: (last dim, 2^62), (first dim, 2^62), (first dim, 2^40, others kept), (last dim, 2^40, others kept) */
        static const int hds[4] = {-1, 0, 0, -1};
        static const int keeps[4] = {0, 0, 1, 1};
        for (int w = 0; w < 4; w++) {
            if (w == 1 && ct_ndim(x) < 2) continue;
            if (w == 3 && ct_ndim(x) < 2) continue;
            if (CT_HUGE_HIT()) {
                int64_t size = keeps[w] ? (int64_t)1 << 40 : (int64_t)1 << 62;
                m->in[i] = ct_huge_view(x, hds[w], size, keeps[w]);
                m->big = keeps[w];
                snprintf(m->desc, sizeof m->desc, "input %d expanded: dim %d of %s%s", i, hds[w], keeps[w] ? "2^40" : "2^62",
                         keeps[w] ? "" : " (the others 1)");
                if (!m->in[i]) m->in[i] = x, snprintf(m->desc, sizeof m->desc, "(no view)");
                return 1;
            }
        }
        if (ct_huge_is_int(ct_get_dtype(x)))
            for (int q = 0; q < CT_HUGE_NVALS; q++)
                if (CT_HUGE_HIT()) {
                    m->in[i] = ct_huge_filled(x, ct_huge_ivals[q]);
                    m->big = q == CT_HUGE_BIGVAL;
                    snprintf(m->desc, sizeof m->desc, "input %d filled with %s", i, ct_huge_inames[q]);
                    if (!m->in[i]) m->in[i] = x, snprintf(m->desc, sizeof m->desc, "(no copy)");
                    return 1;
                }
    }
#undef CT_HUGE_HIT
    return 0;
}

#if CT_HUGE_AVAILABLE
/* ---- the child: a capped allocator, the mutated calls, a line protocol ---- */
static int ct_huge_fd = -1;
static int64_t ct_huge_live, ct_huge_refused;
static void *ct_huge_alloc(size_t n, ct_device dev, void *u) {
    (void)dev; (void)u;
    if ((int64_t)n > CT_HUGE_CAP || ct_huge_live + (int64_t)n > 2 * CT_HUGE_CAP) {
        if ((int64_t)n > ct_huge_refused) ct_huge_refused = (int64_t)n;
        return NULL;
    }
    size_t total = ((n + 63) / 64) * 64 + 64;
    unsigned char *p = (unsigned char *)aligned_alloc(64, total);
    if (!p) return NULL;
    memcpy(p, &n, sizeof n);
    ct_huge_live += (int64_t)n;
    return p + 64;
}
static void ct_huge_free(void *q, ct_device dev, void *u) {
    (void)dev; (void)u;
    if (!q) return;
    unsigned char *p = (unsigned char *)q - 64;
    size_t n;
    memcpy(&n, p, sizeof n);
    ct_huge_live -= (int64_t)n;
    free(p);
}
static void ct_huge_send(const char *fmt, ...) {
    char buf[3072];
    va_list ap;
    buf[0] = '\x1e';
    va_start(ap, fmt);
    int n = vsnprintf(buf + 1, sizeof buf - 2, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    n = n + 1 < (int)sizeof buf - 1 ? n + 1 : (int)sizeof buf - 2;
    for (int i = 1; i < n; i++)
        if (buf[i] == '\n') buf[i] = ' ';
    buf[n++] = '\n';
    for (int off = 0; off < n;) {
        ssize_t w = write(ct_huge_fd, buf + off, (size_t)(n - off));
        if (w <= 0) _exit(3);
        off += (int)w;
    }
}
/* a view's elements must lie inside its storage */
static const char *ct_huge_bad_output(const ct_tensor *t) {
    if (!t) return "a NULL output";
    if (ct_numel(t) < 0) return "a negative element count";
    if (ct_numel(t) == 0 || !t->storage) return NULL;
    int64_t lo = t->offset, hi = t->offset;
    for (int d = 0; d < t->ndim; d++) {
        int64_t s = t->shape[d] - 1, st = t->strides[d];
        if (s < 0) return "a negative size";
        if (st && (s > INT64_MAX / (st < 0 ? -st : st) || st == INT64_MIN)) return "an extent (size - 1) * stride beyond int64";
        int64_t ext = s * st;
        if (ext < 0) { if (lo < INT64_MIN - ext) return "an extent beyond int64"; lo += ext; }
        else { if (hi > INT64_MAX - ext) return "an extent beyond int64"; hi += ext; }
    }
    int64_t es = (int64_t)ct_dtype_size(t->dtype);
    if (lo < 0) return "elements before its storage";
    if (hi >= t->storage->nbytes / (es ? es : 1)) return "elements past the end of its storage";
    return NULL;
}
static void ct_huge_child(const ct_dispatch_event *e, int start) {
    static const ct_allocator capped = {ct_huge_alloc, ct_huge_free, NULL};
    ct_set_allocator(CT_CPU, &capped);
    ct_set_grad_enabled(0);
    for (int k = start;; k++) {
        int tok = ct_scope_begin();
        ct_huge_mut m;
        ct_clear_error();
        if (!ct_huge_make(e, k, &m)) { ct_scope_end(tok); ct_huge_send("E %d", k); break; }
        char attrs[1024];
        ct_attrs_repr(e->op, &m.a, attrs, sizeof attrs);
        ct_huge_send("B %d %s|%s", k, m.desc, attrs);
        ct_tensor *out[8];
        ct_huge_refused = 0;
        ct_clear_error();
        int n = ct_dispatch(e->op, m.nin, m.in, &m.a, e->generator, e->inplace, out, 8);
        const char *bad = NULL;
        char why[2048];
        why[0] = 0;
        if (n < 0) {
            if (ct_last_error_code() == CT_OK || !*ct_last_error()) bad = "failed without an error code and message";
        } else if (m.must_fail) {
            snprintf(why, sizeof why, "succeeded with %.1500s", m.must_fail);
            bad = why;
        } else {
            for (int j = 0; j < n && j < 8 && !bad; j++) {
                const char *b = ct_huge_bad_output(out[j]);
                if (b) {
                    char sh[512];
                    int off = 0;
                    sh[0] = 0;
                    for (int d = 0; out[j] && d < out[j]->ndim && off < 400; d++)
                        off += snprintf(sh + off, sizeof sh - (size_t)off, "%s%lld:%lld", d ? ", " : "", (long long)out[j]->shape[d],
                                        (long long)out[j]->strides[d]);
                    snprintf(why, sizeof why, "succeeded with output %d (size:stride [%.500s], offset %lld) having %.1000s", j, sh,
                             out[j] ? (long long)out[j]->offset : 0LL, b);
                    bad = why;
                }
            }
        }
        if (!bad && ct_huge_refused > CT_HUGE_CAP && !m.big) {
            snprintf(why, sizeof why, "tried to allocate %lld bytes (the cap is %lld; this mutation cannot need that much)%s%.1500s",
                     (long long)ct_huge_refused, (long long)CT_HUGE_CAP, n < 0 ? ": " : "", n < 0 ? ct_last_error() : "");
            bad = why;
        }
        if (bad) ct_huge_send("F %d %s", k, bad);
        else ct_huge_send("R %d %d %d %s", k, n < 0 ? 0 : 1, ct_huge_refused > CT_HUGE_CAP, n < 0 ? ct_last_error() : "ok");
        ct_scope_end(tok);
    }
}

/* ---- the parent: forks, reads the child's lines, reports ---- */
typedef struct ct_huge_reader {
    char buf[65536];
    int len;
    char report[8192];  /* the sanitizer's lines worth showing */
    int rlen;
} ct_huge_reader;
static void ct_huge_keep(ct_huge_reader *r, const char *line) {
    /* keep the sanitizer's headline, its summary and the top frames */
    int keep = strstr(line, "ERROR:") || strstr(line, "runtime error") || strstr(line, "SUMMARY") ||
               strstr(line, "WARNING:") || (strstr(line, "    #") && r->rlen < 6000);
    if (!keep) return;
    int n = (int)strlen(line);
    if (r->rlen + n + 2 >= (int)sizeof r->report) return;
    memcpy(r->report + r->rlen, line, (size_t)n);
    r->rlen += n;
    r->report[r->rlen++] = '\n';
    r->report[r->rlen] = 0;
}
static void ct_huge_parent_call(const ct_dispatch_event *e) {
    const char *name = ct_op_schema_name(e->op);
    int start = 0;
    char cur_desc[2048];
    for (int round = 0; round < 10000; round++) {
        int p[2];
        fflush(stdout);
        fflush(stderr);
        if (pipe(p)) return;
        pid_t pid = fork();
        if (pid < 0) { close(p[0]); close(p[1]); return; }
        if (pid == 0) {
            close(p[0]);
            ct_huge_fd = p[1];
            dup2(p[1], 2);
            ct_huge_child(e, start);
            _exit(0);
        }
        close(p[1]);
        static ct_huge_reader rd;
        rd.len = 0;
        rd.rlen = 0;
        rd.report[0] = 0;
        int cur = -1, ended = 0, timed_out = 0;
        cur_desc[0] = 0;
        for (;;) {
            struct pollfd f;
            f.fd = p[0];
            f.events = POLLIN;
            f.revents = 0;
            int pr = poll(&f, 1, ct_huge_timeout_ms);
            if (pr == 0) { timed_out = 1; break; }
            if (pr < 0) continue;
            if (rd.len >= (int)sizeof rd.buf - 1) rd.len = 0;   /* a runaway line: drop it */
            ssize_t got = read(p[0], rd.buf + rd.len, sizeof rd.buf - 1 - (size_t)rd.len);
            if (got <= 0) break;
            rd.len += (int)got;
            char *s = rd.buf, *nl;
            while ((nl = (char *)memchr(s, '\n', (size_t)(rd.buf + rd.len - s)))) {
                *nl = 0;
                if (s[0] == '\x1e') {
                    char kind = s[1];
                    int k = atoi(s + 3);
                    const char *rest = strchr(s + 3, ' ');
                    rest = rest ? rest + 1 : "";
                    if (kind == 'B') {
                        cur = k;
                        ct_huge_nmut++;
                        snprintf(cur_desc, sizeof cur_desc, "%.2000s", rest);
                        rd.rlen = 0;
                        rd.report[0] = 0;
                    } else if (kind == 'E') {
                        ended = 1;
                    } else if (kind == 'F') {
                        char *bar = strchr(cur_desc, '|');
                        if (bar) *bar = 0;
                        ct_huge_failures++;
                        CT_HUGE_FAIL("huge %s [%s] (attributes: %s): %s", name, cur_desc, bar ? bar + 1 : "", rest);
                        if (bar) *bar = '|';
                    } else if (kind == 'R') {
                        int ok = atoi(rest), oom = 0;
                        const char *msg = strchr(rest, ' ');
                        if (msg) { oom = atoi(msg + 1); msg = strchr(msg + 1, ' '); }
                        if (ok) ct_huge_nok++;
                        else ct_huge_nerr++;
                        if (oom) ct_huge_noom++;
                        if (ct_huge_verbose) fprintf(stderr, "huge %s [%s]: %s\n", name, cur_desc, msg ? msg + 1 : "");
                    }
                } else {
                    ct_huge_keep(&rd, s);
                }
                s = nl + 1;
            }
            rd.len -= (int)(s - rd.buf);
            memmove(rd.buf, s, (size_t)rd.len);
        }
        if (timed_out) kill(pid, SIGKILL);
        int st = 0;
        while (waitpid(pid, &st, 0) < 0) {}
        close(p[0]);
        if (ended && !timed_out) return;
        char *bar = strchr(cur_desc, '|');
        if (bar) *bar = 0;
        if (timed_out) {
            ct_huge_ntimeout++;
            if (ct_huge_verbose) fprintf(stderr, "huge %s [%s]: timed out after %d ms\n", name, cur_desc, ct_huge_timeout_ms);
        } else {
            char how[64];
            if (WIFSIGNALED(st)) snprintf(how, sizeof how, "signal %d", WTERMSIG(st));
            else snprintf(how, sizeof how, "exit code %d", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
            ct_huge_ncrash++;
            ct_huge_failures++;
            CT_HUGE_FAIL("huge %s [%s] (attributes: %s): crashed (%s)%s%s", name, cur < 0 ? "before the first mutation" : cur_desc,
                         bar ? bar + 1 : "", how, rd.rlen ? "\n" : "", rd.report);
        }
        if (cur < 0) return;
        start = cur + 1;
    }
}
#endif

static int ct_huge_wanted(int op) {
    if (!ct_huge_only[0]) return 1;
    const char *s = ct_huge_only;
    const char *a = ct_op_name(op), *b = ct_op_schema_name(op);
    while (*s) {
        const char *c = strchr(s, ',');
        size_t n = c ? (size_t)(c - s) : strlen(s);
        if ((strlen(a) == n && !strncmp(a, s, n)) || (strlen(b) == n && !strncmp(b, s, n))) return 1;
        s += n + (c ? 1 : 0);
    }
    return 0;
}
static void ct_huge_listener(const ct_dispatch_event *e, void *user) {
    (void)user;
    if (e->depth || e->phase != CT_DISPATCH_EXIT || e->op < 0) return;
    if (e->op < (int)sizeof ct_huge_seen && ct_huge_seen[e->op] >= CT_HUGE_PER_OP) return;
    if (!ct_huge_wanted(e->op)) return;
    if (e->op < (int)sizeof ct_huge_seen) ct_huge_seen[e->op]++;
#if CT_HUGE_AVAILABLE
    char err[2048];
    ct_status code = ct_last_error_code();
    snprintf(err, sizeof err, "%.2000s", ct_last_error());
    ct_huge_ncalls++;
    ct_huge_parent_call(e);
    if (code) ct_set_error(code, "%s", err);
    else ct_clear_error();
#endif
}
static int ct_huge_install(void) {
    const char *h = getenv("CT_TEST_HUGE");
    if (!h || !*h || *h == '0') return 0;
    ct_huge_verbose = *h == '2';
    const char *ms = getenv("CT_TEST_HUGE_MS");
    if (ms && atoi(ms) > 0) ct_huge_timeout_ms = atoi(ms);
    const char *only = getenv("CT_TEST_HUGE_OPS");
    if (only) snprintf(ct_huge_only, sizeof ct_huge_only, "%s", only);
#if !CT_HUGE_AVAILABLE
    fprintf(stderr, "CT_TEST_HUGE: the huge-size sweep needs fork (POSIX); not run\n");
    return 0;
#else
    return ct_add_dispatch_listener(ct_huge_listener, NULL, 0) > 0;
#endif
}
static void ct_huge_summary(void) {
    if (!ct_huge_ncalls) return;
    fprintf(stderr, "(huge-size sweep: %ld op calls, %ld mutated calls: %ld errors, %ld succeeded, %ld timed out, %ld crashed, "
                    "%ld refused allocations over 1 GiB; %d failures)\n",
            ct_huge_ncalls, ct_huge_nmut, ct_huge_nerr, ct_huge_nok, ct_huge_ntimeout, ct_huge_ncrash, ct_huge_noom, ct_huge_failures);
}
#endif
