/* ct_test.h - the tiny test harness every ctensor test program uses.
   A failing check prints file:line, the expression and the values; the run
   ends with "N passed, N failed" and exits non-zero when anything failed. */
#ifndef CT_TEST_H
#define CT_TEST_H
#include <stdlib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "ctensor.h"
#ifndef CT_FREE   /* tests linked to tests/ct_impl.c: the default allocator */
#define CT_FREE(p) free(p)
#endif

static int ct_t_pass, ct_t_fail;
static const char *ct_t_current = "";

#define CT_T_REPORT(ok, ...)                                                                  \
    do {                                                                                      \
        if (ok) ct_t_pass++;                                                                  \
        else {                                                                                \
            ct_t_fail++;                                                                      \
            printf("FAIL %s:%d [%s] ", __FILE__, __LINE__, ct_t_current);                     \
            printf(__VA_ARGS__);                                                              \
            printf("\n");                                                                     \
        }                                                                                     \
    } while (0)

#define CHECK(cond) CT_T_REPORT((cond), "%s", #cond)
#define CHECK_EQ_INT(a, b)                                                                    \
    do {                                                                                      \
        long long ct_t_a = (long long)(a), ct_t_b = (long long)(b);                           \
        CT_T_REPORT(ct_t_a == ct_t_b, "%s == %s (%lld vs %lld)", #a, #b, ct_t_a, ct_t_b);     \
    } while (0)
#define CHECK_CLOSE(a, b, tol)                                                                \
    do {                                                                                      \
        double ct_t_a = (double)(a), ct_t_b = (double)(b);                                    \
        CT_T_REPORT(fabs(ct_t_a - ct_t_b) <= (tol) || (isnan(ct_t_a) && isnan(ct_t_b)),       \
                    "%s ~= %s (%.10g vs %.10g, tol %g)", #a, #b, ct_t_a, ct_t_b, (double)(tol)); \
    } while (0)
#define CHECK_STR(a, b)                                                                       \
    do {                                                                                      \
        const char *ct_t_a = (a), *ct_t_b = (b);                                              \
        CT_T_REPORT(ct_t_a && ct_t_b && !strcmp(ct_t_a, ct_t_b), "%s == %s\n  got:      %s\n  expected: %s", \
                    #a, #b, ct_t_a ? ct_t_a : "(null)", ct_t_b ? ct_t_b : "(null)");          \
    } while (0)
/* expr must fail (NULL or non-zero status) with the given code and a message
   containing `phrase`. */
#define CHECK_ERR(expr, code, phrase)                                                         \
    do {                                                                                      \
        ct_clear_error();                                                                     \
        int ct_t_failed = !(expr);                                                            \
        const char *ct_t_m = ct_last_error();                                                 \
        CT_T_REPORT(ct_t_failed && ct_last_error_code() == (code) && strstr(ct_t_m, (phrase)), \
                    "%s should fail with %s containing \"%s\"; got %s \"%s\"", #expr, #code,  \
                    phrase, ct_status_name(ct_last_error_code()), ct_t_m);                    \
        ct_clear_error();                                                                     \
    } while (0)
/* compare a tensor's values (converted to double) with an array */
#define CHECK_VALUES(t, arr, n, tol)                                                          \
    do {                                                                                      \
        const ct_tensor *ct_t_t = (t);                                                        \
        const double *ct_t_e = (arr);                                                         \
        int ct_t_ok = ct_t_t && ct_numel(ct_t_t) == (n);                                      \
        long long ct_t_bad = -1;                                                              \
        double ct_t_gv = 0;                                                                   \
        if (ct_t_ok) {                                                                        \
            ct_tensor *ct_t_d = ct_contiguous(ct_to(ct_t_t, CT_FLOAT64));                     \
            const double *ct_t_p = (const double *)ct_data_ptr(ct_t_d);                       \
            for (long long ct_t_i = 0; ct_t_i < (n); ct_t_i++) {                              \
                double ct_t_g = ct_t_p[ct_t_i], ct_t_x = ct_t_e[ct_t_i];                      \
                int ct_t_same = (isnan(ct_t_g) && isnan(ct_t_x)) || ct_t_g == ct_t_x ||       \
                                fabs(ct_t_g - ct_t_x) <= (tol) * (1 + fabs(ct_t_x));          \
                if (!ct_t_same) { ct_t_ok = 0; ct_t_bad = ct_t_i; ct_t_gv = ct_t_g; break; }  \
            }                                                                                 \
        }                                                                                     \
        CT_T_REPORT(ct_t_ok, "%s values: %s (element %lld: got %.10g, expected %.10g)", #t,   \
                    ct_t_t ? "mismatch" : ct_last_error(), ct_t_bad, ct_t_gv,                 \
                    ct_t_bad >= 0 ? ct_t_e[ct_t_bad] : 0.0);                                  \
    } while (0)
/* compare the printed repr */
#define CHECK_REPR(t, expected)                                                               \
    do {                                                                                      \
        char ct_t_buf[4096];                                                                  \
        ct_repr((t), ct_t_buf, sizeof ct_t_buf);                                              \
        CHECK_STR(ct_t_buf, expected);                                                        \
    } while (0)

#define TEST(name) static void name(void)
#define RUN(name)                                                                             \
    do {                                                                                      \
        ct_t_current = #name;                                                                 \
        int ct_t_tok = ct_scope_begin();                                                      \
        name();                                                                               \
        ct_scope_end(ct_t_tok);                                                               \
        ct_clear_error();                                                                     \
    } while (0)

static void ct_t_quiet(ct_status code, const char *msg, void *user) { (void)code; (void)msg; (void)user; }

/* ---- replay check (CT_TEST_REPLAY=1 in the environment) ----------------------
   A dispatch listener that proves every op's attribute schema complete: for each
   op call of the test (depth 0), the attributes go to their text form and back
   (parse(repr(a)) == a, equal hashes), then the op runs again through
   ct_dispatch from the parsed attributes alone (a fresh struct: undeclared slots
   are zero) on the same inputs (a copy of input 0, as it was, for in-place calls;
   a copy of the generator, as it was, for random ops), and its outputs must
   equal the original outputs bit for bit. */
#define CT_T_REPLAY_DEPTH 64
/* replay checks count failures only: the pass count stays that of the test itself */
#define CT_T_REPLAY_CHECK(ok, ...) do { if (!(ok)) CT_T_REPORT(0, __VA_ARGS__); } while (0)
typedef struct ct_t_replay_frame { ct_tensor *before; ct_generator gen; int has_gen; } ct_t_replay_frame;
static ct_t_replay_frame ct_t_replay_stack[CT_T_REPLAY_DEPTH];
static int ct_t_replay_n, ct_t_replays;
static int ct_t_same_bits(const ct_tensor *a, const ct_tensor *b) {
    if (!a || !b || a->dtype != b->dtype || !ct_same_shape(a, b)) return 0;
    ct_tensor *x = ct_contiguous(a), *y = ct_contiguous(b);
    if (!x || !y) return 0;
    return !memcmp(ct_data_ptr(x), ct_data_ptr(y), (size_t)ct_numel(x) * ct_dtype_size(x->dtype));
}
static void ct_t_replay_listener(const ct_dispatch_event *e, void *user) {
    (void)user;
    if (e->depth) return;
    if (e->phase == CT_DISPATCH_ENTER) {
        ct_t_replay_frame *f = &ct_t_replay_stack[ct_t_replay_n < CT_T_REPLAY_DEPTH ? ct_t_replay_n : CT_T_REPLAY_DEPTH - 1];
        f->before = e->inplace && e->nin > 0 ? ct_retain(ct_clone(e->inputs[0])) : NULL;
        f->has_gen = e->generator != NULL;
        if (e->generator) f->gen = *e->generator;
        ct_t_replay_n++;
        return;
    }
    ct_t_replay_frame *f = &ct_t_replay_stack[--ct_t_replay_n < CT_T_REPLAY_DEPTH ? ct_t_replay_n : CT_T_REPLAY_DEPTH - 1];
    ct_tensor *before = f->before;
    if (e->phase == CT_DISPATCH_EXIT) {
        char err[2048], text[4096], text2[4096];
        ct_status code = ct_last_error_code();
        snprintf(err, sizeof err, "%s", ct_last_error());
        const char *name = ct_op_schema_name(e->op);
        ct_attrs back;
        ct_attrs_repr(e->op, e->attrs, text, sizeof text);
        int ok = ct_attrs_parse(e->op, text, &back) == CT_OK;
        ct_attrs_repr(e->op, &back, text2, sizeof text2);
        CT_T_REPLAY_CHECK(ok && ct_attrs_equal(e->op, e->attrs, &back) && ct_attrs_hash(e->op, e->attrs) == ct_attrs_hash(e->op, &back) &&
                    !strcmp(text, text2), "replay %s: attributes do not round-trip: \"%s\" -> \"%s\" (%s)", name, text, text2, ct_last_error());
        int tok = ct_scope_begin();
        int pg = ct_set_grad_enabled(0);
        ct_tensor *in[64], *out[8];
        int nin = e->nin < 64 ? e->nin : 64;
        for (int i = 0; i < nin; i++) in[i] = e->inputs[i];
        if (before) in[0] = ct_clone(before);
        ct_generator g;
        if (f->has_gen) g = f->gen;
        ct_clear_error();
        int n = ok ? ct_dispatch(e->op, nin, in, &back, f->has_gen ? &g : NULL, e->inplace, out, 8) : -1;
        int same = n == e->nout;
        for (int j = 0; same && j < n && j < 8; j++) same = ct_t_same_bits(out[j], e->outputs[j]);
        CT_T_REPLAY_CHECK(same, "replay %s(%s): the op run again from its declared attributes gives other outputs (%d vs %d outputs; %s)",
                    name, text, n, e->nout, n < 0 ? ct_last_error() : "values differ");
        ct_t_replays++;
        ct_set_grad_enabled(pg);
        ct_scope_end(tok);
        if (code) ct_set_error(code, "%s", err);
        else ct_clear_error();
    }
    if (before) ct_release(before);
}
static void ct_t_init(void) {
    ct_set_logger(ct_t_quiet, NULL);
    const char *r = getenv("CT_TEST_REPLAY");
    if (r && *r && *r != '0') ct_add_dispatch_listener(ct_t_replay_listener, NULL, CT_LISTEN_ENTER);
}
static int ct_t_summary(void) {
    if (ct_t_replays) fprintf(stderr, "(%d op calls replayed from their attributes)\n", ct_t_replays);
    printf("%d passed, %d failed\n", ct_t_pass, ct_t_fail);
    return ct_t_fail ? 1 : 0;
}
#endif
