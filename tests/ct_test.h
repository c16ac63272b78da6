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

/* ---- replay check (CT_TEST_REPLAY=1 in the environment): tests/ct_replay.h ----
   Replay mismatches count as failures; the pass count stays that of the test. */
#define CT_REPLAY_FAIL(...) CT_T_REPORT(0, __VA_ARGS__)
#include "ct_replay.h"
/* ---- huge-size sweep (CT_TEST_HUGE=1): tests/ct_huge.h ----
   Each failing mutated call counts as a failure; nothing counts as a pass. */
#define CT_HUGE_FAIL(...) CT_T_REPORT(0, __VA_ARGS__)
#include "ct_huge.h"
static void ct_t_init(void) {
    ct_set_logger(ct_t_quiet, NULL);
    ct_replay_install();
    ct_huge_install();
}
static int ct_t_summary(void) {
    if (ct_replay_calls) fprintf(stderr, "(%d op calls replayed from their attributes)\n", ct_replay_calls);
    ct_huge_summary();
    printf("%d passed, %d failed\n", ct_t_pass, ct_t_fail);
    return ct_t_fail ? 1 : 0;
}
#endif
