#define _POSIX_C_SOURCE 200809L
/* runner.c - executes conformance case folders (../shared/CONFORMANCE.md):
     conformance DIR...   runs every case folder found under each DIR
   Prints one line per failure or skip, then "N passed, N failed, N skipped";
   exits non-zero when anything failed. A case whose op has no handler is
   skipped with its op name, never passed. */
#include <ctype.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#define CTENSOR_IMPLEMENTATION   /* this file holds the library implementation */
#include "conf.h"
#include "ctensor_linalg.h"      /* its implementation too (it needs this translation unit) */

static const conf_op *const conf_families[] = {
    conf_ops_elementwise, conf_ops_creation, conf_ops_reduce, conf_ops_index, conf_ops_blas,
    conf_ops_nn, conf_ops_optim, conf_ops_linalg,
    conf_ops_nn_conv,
    conf_ops_nn_norm,
    conf_ops_nn_loss,
    conf_ops_nn_resample,
};

static int n_pass, n_fail, n_skip, verbose;

static const conf_op *find_op(const char *name) {
    for (size_t f = 0; f < sizeof conf_families / sizeof conf_families[0]; f++)
        for (const conf_op *o = conf_families[f]; o->name; o++)
            if (!strcmp(o->name, name)) return o;
    return NULL;
}

/* ---- args ---- */
static json_value *arg(const conf_case *c, const char *key) { return json_get(c->args, key); }
int conf_has(const conf_case *c, const char *key) { return arg(c, key) != NULL; }
int conf_is_null(const conf_case *c, const char *key) { json_value *v = arg(c, key); return v && v->type == JSON_NULL; }
static double json_num(const json_value *v, double def) {
    if (!v) return def;
    if (v->type == JSON_NUMBER || v->type == JSON_BOOL) return v->number;
    if (v->type == JSON_STRING) {
        if (!strcmp(v->string, "inf")) return INFINITY;
        if (!strcmp(v->string, "-inf")) return -INFINITY;
        if (!strcmp(v->string, "nan")) return NAN;
    }
    return def;
}
double conf_double(const conf_case *c, const char *key, double def) { return json_num(arg(c, key), def); }
int64_t conf_int(const conf_case *c, const char *key, int64_t def) {
    json_value *v = arg(c, key);
    return v && (v->type == JSON_NUMBER || v->type == JSON_BOOL) ? (int64_t)v->number : def;
}
int conf_bool(const conf_case *c, const char *key, int def) {
    json_value *v = arg(c, key);
    return v && (v->type == JSON_BOOL || v->type == JSON_NUMBER) ? v->number != 0 : def;
}
const char *conf_str(const conf_case *c, const char *key, const char *def) {
    json_value *v = arg(c, key);
    return v && v->type == JSON_STRING ? v->string : def;
}
int conf_ints(const conf_case *c, const char *key, int64_t *out, int max) {
    json_value *v = arg(c, key);
    if (!v || v->type == JSON_NULL) return -1;
    if (v->type == JSON_NUMBER) { if (max > 0) out[0] = (int64_t)v->number; return 1; }
    if (v->type != JSON_ARRAY) return -1;
    int n = 0;
    for (int i = 0; i < v->count && n < max; i++) out[n++] = (int64_t)json_num(v->items[i], 0);
    return n;
}
ct_dtype conf_dtype_from_name(const char *s) {
    static const struct { const char *name; ct_dtype dt; } map[] = {
        {"torch.float32", CT_FLOAT32}, {"torch.float", CT_FLOAT32}, {"torch.float64", CT_FLOAT64}, {"torch.double", CT_FLOAT64},
        {"torch.float16", CT_FLOAT16}, {"torch.half", CT_FLOAT16}, {"torch.bfloat16", CT_BFLOAT16},
        {"torch.int64", CT_INT64}, {"torch.long", CT_INT64}, {"torch.int32", CT_INT32}, {"torch.int", CT_INT32},
        {"torch.int16", CT_INT16}, {"torch.int8", CT_INT8}, {"torch.uint8", CT_UINT8}, {"torch.bool", CT_BOOL},
        {"torch.qint8", CT_QINT8}, {"torch.quint8", CT_QUINT8}, {"torch.qint32", CT_QINT32},
        {"torch.complex64", CT_COMPLEX64}, {"torch.complex128", CT_COMPLEX128},
        {"float32", CT_FLOAT32}, {"float64", CT_FLOAT64}, {"float16", CT_FLOAT16}, {"bfloat16", CT_BFLOAT16},
        {"int64", CT_INT64}, {"int32", CT_INT32}, {"int16", CT_INT16}, {"int8", CT_INT8}, {"uint8", CT_UINT8}, {"bool", CT_BOOL}};
    if (!s) return CT_NUM_DTYPES;
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (!strcmp(map[i].name, s)) return map[i].dt;
    return CT_NUM_DTYPES;
}
ct_dtype conf_dtype(const conf_case *c, const char *key) { return conf_dtype_from_name(conf_str(c, key, NULL)); }
ct_tensor *conf_named(conf_case *c, const char *name) {
    char path[2048];
    snprintf(path, sizeof path, "%s/%s.npy", c->dir, name);
    struct stat st;
    if (stat(path, &st) != 0) return NULL;
    return ct_load_npy(path);
}

/* ---- loading ---- */
static char *slurp(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    if (n < 0 || n > (1 << 24)) { fclose(f); return NULL; }
    char *b = (char *)malloc((size_t)n + 1);
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) { free(b); b = NULL; }
    fclose(f);
    if (b) b[n] = 0;
    return b;
}
/* input entry -> tensor: file, optional stored dtype conversion, optional permute (non-contiguous views) */
static ct_tensor *load_entry(const char *dir, const json_value *e, char *why, size_t cap) {
    json_value *file = json_get(e, "file");
    if (!file || file->type != JSON_STRING) { snprintf(why, cap, "entry without \"file\""); return NULL; }
    char path[2048];
    snprintf(path, sizeof path, "%s/%s", dir, file->string);
    ct_tensor *t = ct_load_npy(path);
    if (!t) { snprintf(why, cap, "%s", ct_last_error()); return NULL; }
    json_value *dt = json_get(e, "dtype");
    if (dt && dt->type == JSON_STRING && !strcmp(dt->string, "bfloat16")) t = ct_to(t, CT_BFLOAT16);
    json_value *perm = json_get(e, "permute");
    if (perm && perm->type == JSON_ARRAY) {
        int64_t p[CT_MAX_DIMS];
        int n = perm->count < CT_MAX_DIMS ? perm->count : CT_MAX_DIMS;
        for (int i = 0; i < n; i++) p[i] = (int64_t)json_num(perm->items[i], 0);
        t = ct_permute_n(t, n, p);
    }
    json_value *sl = json_get(e, "step");   /* every step-th element along the last dim (the file holds the base) */
    if (t && sl && sl->type == JSON_NUMBER && t->ndim > 0) t = ct_slice(t, -1, 0, INT64_MAX, (int64_t)sl->number);
    if (!t) snprintf(why, cap, "%s", ct_last_error());
    return t;
}

/* ---- comparison ---- */
static int compare(const ct_tensor *got, const ct_tensor *exp, double rtol, double atol, char *why, size_t cap) {
    if (!got) { snprintf(why, cap, "no output"); return 0; }
    if (!ct_same_shape(got, exp)) {
        char a[256], b[256];
        snprintf(a, sizeof a, "[");
        for (int d = 0; d < got->ndim; d++) snprintf(a + strlen(a), sizeof a - strlen(a), d ? ", %lld" : "%lld", (long long)got->shape[d]);
        snprintf(b, sizeof b, "[");
        for (int d = 0; d < exp->ndim; d++) snprintf(b + strlen(b), sizeof b - strlen(b), d ? ", %lld" : "%lld", (long long)exp->shape[d]);
        snprintf(why, cap, "shape %s] != expected %s]", a, b);
        return 0;
    }
    ct_dtype ge = got->dtype, ee = exp->dtype;
    if (ge != ee && !(ee == CT_FLOAT32 && ge == CT_BFLOAT16)) {
        snprintf(why, cap, "dtype %s != expected %s", ct_dtype_name(ge), ct_dtype_name(ee));
        return 0;
    }
    int exact = !ct_dtype_is_floating(ee);
    ct_tensor *g = ct_contiguous(ct_to(got, CT_FLOAT64)), *e = ct_contiguous(ct_to(exp, CT_FLOAT64));
    if (!g || !e) { snprintf(why, cap, "%s", ct_last_error()); return 0; }
    const double *gp = (const double *)ct_data_ptr(g), *ep = (const double *)ct_data_ptr(e);
    int64_t n = ct_numel(g);
    for (int64_t i = 0; i < n; i++) {
        double a = gp[i], b = ep[i];
        int ok;
        if (isnan(b)) ok = isnan(a);
        else if (isinf(b)) ok = a == b;
        else if (exact) ok = a == b;
        else ok = fabs(a - b) <= atol + rtol * fabs(b);
        if (!ok) {
            snprintf(why, cap, "element %lld: got %.9g, expected %.9g (rtol %g, atol %g)", (long long)i, a, b, rtol, atol);
            return 0;
        }
    }
    return 1;
}
/* does our message carry the meaning of PyTorch's? key words (4+ letters) */
static int similar_message(const char *ours, const char *theirs) {
    if (!theirs || !*theirs) return 1;
    if (strstr(ours, theirs)) return 1;
    int words = 0, found = 0;
    const char *p = theirs;
    char w[64];
    while (*p) {
        while (*p && !isalnum((unsigned char)*p)) p++;
        int n = 0;
        while (*p && (isalnum((unsigned char)*p) || *p == '_') && n < 63) w[n++] = (char)tolower((unsigned char)*p++);
        w[n] = 0;
        while (*p && (isalnum((unsigned char)*p) || *p == '_')) p++;
        if (n < 4) continue;
        words++;
        /* case-insensitive search */
        const char *q = ours;
        int hit = 0;
        for (; *q && !hit; q++) {
            int k = 0;
            while (k < n && q[k] && tolower((unsigned char)q[k]) == w[k]) k++;
            hit = k == n;
        }
        found += hit;
    }
    return words == 0 || found * 2 >= words;
}

static void report(const char *kind, const char *dir, const char *op, const char *msg) {
    printf("%s %s [%s]: %s\n", kind, dir, op ? op : "?", msg);
}

static void run_case(const char *dir) {
    char path[2048], why[1024] = "";
    snprintf(path, sizeof path, "%s/case.json", dir);
    char *text = slurp(path);
    if (!text) { n_fail++; report("FAIL", dir, NULL, "cannot read case.json"); return; }
    char err[256];
    json_value *j = json_parse(text, err, sizeof err);
    free(text);
    if (!j) { n_fail++; report("FAIL", dir, NULL, err); return; }
    conf_case c;
    memset(&c, 0, sizeof c);
    c.dir = dir;
    c.json = j;
    json_value *opv = json_get(j, "op");
    c.op = opv && opv->type == JSON_STRING ? opv->string : NULL;
    c.args = json_get(j, "args");
    int s = ct_scope_begin();
    const conf_op *op = c.op ? find_op(c.op) : NULL;
    if (!op) {
        n_skip++;
        report("SKIP", dir, c.op, "no handler for this op");
        goto done;
    }
    double rtol = json_num(json_get(j, "rtol"), 1e-5), atol = json_num(json_get(j, "atol"), 1e-6);
    json_value *ins = json_get(j, "inputs");
    for (int i = 0; ins && i < ins->count && i < CONF_MAX_IN; i++) {
        c.in[i] = load_entry(dir, ins->items[i], why, sizeof why);
        if (!c.in[i]) { n_fail++; report("FAIL", dir, c.op, why); goto done; }
        json_value *rg = json_get(ins->items[i], "requires_grad");
        if (rg && rg->number != 0 && ct_dtype_is_floating(c.in[i]->dtype)) {
            /* views from the loader are not leaves: detach, then require grad */
            c.in[i] = ct_requires_grad(ct_is_leaf(c.in[i]) ? c.in[i] : ct_detach(c.in[i]));
        }
        c.nin = i + 1;
    }
    json_value *ee = json_get(j, "expect_error");
    ct_tensor *out[CONF_MAX_OUT] = {0};
    ct_clear_error();
    int nout = op->fn(&c, out);
    if (ee) {
        json_value *m = json_get(ee, "message");
        if (nout >= 0) { n_fail++; report("FAIL", dir, c.op, "expected an error, the op succeeded"); goto done; }
        if (!similar_message(ct_last_error(), m && m->type == JSON_STRING ? m->string : NULL)) {
            n_fail++;
            snprintf(why, sizeof why, "error message differs:\n    ours:    %s\n    PyTorch: %s", ct_last_error(), m && m->string ? m->string : "");
            report("FAIL", dir, c.op, why);
            goto done;
        }
        n_pass++;
        goto done;
    }
    if (nout < 0) { n_fail++; snprintf(why, sizeof why, "op failed: %s", ct_last_error()); report("FAIL", dir, c.op, why); goto done; }
    json_value *outs = json_get(j, "outputs");
    int nexp = outs ? outs->count : 0;
    if (nout < nexp) { n_fail++; snprintf(why, sizeof why, "op returned %d outputs, expected %d", nout, nexp); report("FAIL", dir, c.op, why); goto done; }
    ct_tensor *gouts[CONF_MAX_OUT] = {0}, *roots[CONF_MAX_OUT];
    int nroots = 0;
    for (int k = 0; k < nexp && k < CONF_MAX_OUT; k++) {
        ct_tensor *e = load_entry(dir, outs->items[k], why, sizeof why);
        if (!e) { n_fail++; report("FAIL", dir, c.op, why); goto done; }
        ct_tensor *got = op->normalize ? op->normalize(&c, k, out[k]) : out[k];
        if (!compare(got, e, rtol, atol, why, sizeof why)) {
            n_fail++;
            char msg[1200];
            snprintf(msg, sizeof msg, "output %d: %s", k, why);
            report("FAIL", dir, c.op, msg);
            goto done;
        }
        json_value *gf = json_get(outs->items[k], "gout");
        if (gf && gf->type == JSON_STRING) {
            snprintf(path, sizeof path, "%s/%s", dir, gf->string);
            gouts[nroots] = ct_load_npy(path);
            if (!gouts[nroots]) { n_fail++; report("FAIL", dir, c.op, ct_last_error()); goto done; }
            if (out[k]->dtype != gouts[nroots]->dtype) gouts[nroots] = ct_to(gouts[nroots], out[k]->dtype);
            roots[nroots++] = out[k];
        }
    }
    json_value *grads = json_get(j, "grads");
    if (grads && grads->count > 0) {
        if (!nroots) { n_fail++; report("FAIL", dir, c.op, "grads given but no output names a gout"); goto done; }
        ct_tensor *wrt[CONF_MAX_IN], *res[CONF_MAX_IN];
        ct_tensor *expg[CONF_MAX_IN];
        int nw = 0;
        for (int k = 0; k < grads->count && nw < CONF_MAX_IN; k++) {
            json_value *w = json_get(grads->items[k], "wrt");
            int idx = w && w->type == JSON_STRING && !strncmp(w->string, "in", 2) ? atoi(w->string + 2) : -1;
            if (idx < 0 || idx >= c.nin) { n_fail++; report("FAIL", dir, c.op, "bad \"wrt\" in grads"); goto done; }
            expg[nw] = load_entry(dir, grads->items[k], why, sizeof why);
            if (!expg[nw]) { n_fail++; report("FAIL", dir, c.op, why); goto done; }
            wrt[nw++] = c.in[idx];
        }
        int live = 1;
        for (int r = 0; r < nroots; r++) live &= ct_get_requires_grad(roots[r]);
        if (!live) { n_fail++; report("FAIL", dir, c.op, "output does not require grad (no graph recorded)"); goto done; }
        ct_grad_options go;
        memset(&go, 0, sizeof go);
        go.allow_unused = 1;
        go.materialize_grads = 1;
        if (ct_autograd_grad(nroots, roots, gouts, nw, wrt, res, &go) != CT_OK) {
            n_fail++;
            snprintf(why, sizeof why, "backward failed: %s", ct_last_error());
            report("FAIL", dir, c.op, why);
            goto done;
        }
        double grtol = json_num(json_get(j, "grad_rtol"), rtol), gatol = json_num(json_get(j, "grad_atol"), atol);
        for (int k = 0; k < nw; k++) {
            if (!compare(res[k], expg[k], grtol, gatol, why, sizeof why)) {
                n_fail++;
                char msg[1200];
                snprintf(msg, sizeof msg, "gradient %d: %s", k, why);
                report("FAIL", dir, c.op, msg);
                goto done;
            }
        }
    }
    n_pass++;
    if (verbose) report("ok  ", dir, c.op, "");
done:
    ct_scope_end(s);
    ct_clear_error();
    json_free(j);
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }
static void walk(const char *dir, int depth) {
    char path[2048];
    struct stat st;
    snprintf(path, sizeof path, "%s/case.json", dir);
    if (stat(path, &st) == 0) { run_case(dir); return; }
    if (depth > 16) return;
    DIR *d = opendir(dir);
    if (!d) return;
    char **names = NULL;
    int n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        if (n == cap) { cap = cap ? 2 * cap : 64; names = (char **)realloc(names, sizeof(char *) * (size_t)cap); }
        names[n++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof(char *), cmp_str);
    for (int i = 0; i < n; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) walk(path, depth + 1);
        free(names[i]);
    }
    free(names);
}

static void quiet(ct_status code, const char *msg, void *user) { (void)code; (void)msg; (void)user; }

int main(int argc, char **argv) {
    int ndirs = 0;
    ct_set_logger(quiet, NULL);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-v")) { verbose = 1; continue; }
        struct stat st;
        if (stat(argv[i], &st) != 0) { printf("FAIL %s: no such directory\n", argv[i]); n_fail++; continue; }
        walk(argv[i], 0);
        ndirs++;
    }
    if (!ndirs && argc < 2) { fprintf(stderr, "usage: conformance [-v] DIR...\n"); return 2; }
    printf("%d passed, %d failed, %d skipped\n", n_pass, n_fail, n_skip);
    return n_fail ? 1 : 0;
}
