/* ct_replay.h - the replay check of the test programs (CT_TEST_REPLAY=1).
   A dispatch listener that proves every op's attribute schema complete: for each
   op call made at depth 0 (from the program or from a backward rule), the
   attributes go to their text form and back (parse(repr(a)) == a, equal hashes,
   the same text again), then the op runs again through ct_dispatch from the
   parsed attributes alone (a fresh struct: undeclared slots are zero) on the same
   inputs (for in-place calls, copies of the inputs as they were: the call may
   have written input 0, inputs sharing its memory, or further state such as an
   optimizer's buffers; a copy of the generator as it was, for random ops), and its outputs must equal the original
   outputs bit for bit.

   The includer says how a mismatch is reported, before including this file:
     #define CT_REPLAY_FAIL(...)  printf-style report of one mismatch
   (ct_test.h counts it as a failed check; the conformance runner fails the case
   that made the call). Then ct_replay_install() adds the listener to the calling
   thread when CT_TEST_REPLAY is set and not "0" (1 when it did), and
   ct_replay_calls / ct_replay_failures count what it saw. */
#ifndef CT_REPLAY_H
#define CT_REPLAY_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ctensor.h"
#ifndef CT_REPLAY_FAIL
#error "define CT_REPLAY_FAIL(...) (how a replay mismatch is reported) before including ct_replay.h"
#endif

#define CT_REPLAY_DEPTH 64
#define CT_REPLAY_SAVED 8   /* in-place calls: the first inputs, copied as they were */
typedef struct ct_replay_frame { ct_tensor *before[CT_REPLAY_SAVED]; ct_generator gen; int has_gen; } ct_replay_frame;
static ct_replay_frame ct_replay_stack[CT_REPLAY_DEPTH];
static int ct_replay_n, ct_replay_calls, ct_replay_failures;

static int ct_replay_same_bits(const ct_tensor *a, const ct_tensor *b) {
    if (!a || !b || ct_get_dtype(a) != ct_get_dtype(b) || !ct_same_shape(a, b)) return 0;
    /* two views of the same memory with the same geometry are the same (a view too
       large to copy, such as an expand to 2^62, compares this way) */
    if (ct_data_ptr(a) == ct_data_ptr(b)) {
        int d, same = 1;
        for (d = 0; d < a->ndim; d++) same &= a->strides[d] == b->strides[d] || a->shape[d] <= 1;
        if (same) return 1;
    }
    ct_tensor *x = ct_contiguous(a), *y = ct_contiguous(b);
    if (!x || !y) return 0;
    return !memcmp(ct_data_ptr(x), ct_data_ptr(y), (size_t)ct_numel(x) * ct_dtype_size(ct_get_dtype(x)));
}
#define CT_REPLAY_REPORT(...) do { ct_replay_failures++; CT_REPLAY_FAIL(__VA_ARGS__); } while (0)
static void ct_replay_listener(const ct_dispatch_event *e, void *user) {
    (void)user;
    if (e->depth) return;
    if (e->phase == CT_DISPATCH_ENTER) {
        ct_replay_frame *f = &ct_replay_stack[ct_replay_n < CT_REPLAY_DEPTH ? ct_replay_n : CT_REPLAY_DEPTH - 1];
        for (int i = 0; i < CT_REPLAY_SAVED; i++) {
            const ct_tensor *x = i < e->nin ? e->inputs[i] : NULL;
            f->before[i] = e->inplace && x ? ct_retain(ct_clone(x)) : NULL;
        }
        f->has_gen = e->generator != NULL;
        if (e->generator) f->gen = *e->generator;
        ct_replay_n++;
        return;
    }
    ct_replay_frame *f = &ct_replay_stack[--ct_replay_n < CT_REPLAY_DEPTH ? ct_replay_n : CT_REPLAY_DEPTH - 1];
    if (e->phase == CT_DISPATCH_EXIT) {
        char err[2048], text[4096], text2[4096];
        ct_status code = ct_last_error_code();
        snprintf(err, sizeof err, "%s", ct_last_error());
        const char *name = ct_op_schema_name(e->op);
        ct_attrs back;
        ct_attrs_repr(e->op, e->attrs, text, sizeof text);
        int ok = ct_attrs_parse(e->op, text, &back) == CT_OK;
        if (ok) ct_attrs_repr(e->op, &back, text2, sizeof text2);
        else snprintf(text2, sizeof text2, "(no parse)");
        if (!ok || !ct_attrs_equal(e->op, e->attrs, &back) || ct_attrs_hash(e->op, e->attrs) != ct_attrs_hash(e->op, &back) ||
            strcmp(text, text2))
            CT_REPLAY_REPORT("replay %s: attributes do not round-trip: \"%s\" -> \"%s\" (%s)", name, text, text2, ct_last_error());
        int tok = ct_scope_begin();
        int pg = ct_set_grad_enabled(0);
        ct_tensor *in[64], *out[8];
        int nin = e->nin < 64 ? e->nin : 64;
        for (int i = 0; i < nin; i++) in[i] = e->inputs[i];
        for (int i = 0; i < CT_REPLAY_SAVED && i < nin; i++)
            if (f->before[i]) in[i] = ct_clone(f->before[i]);
        ct_generator g;
        if (f->has_gen) g = f->gen;
        ct_clear_error();
        int n = ok ? ct_dispatch(e->op, nin, in, &back, f->has_gen ? &g : NULL, e->inplace, out, 8) : -1;
        int same = n == e->nout;
        for (int j = 0; same && j < n && j < 8; j++) same = ct_replay_same_bits(out[j], e->outputs[j]);
        if (!same)
            CT_REPLAY_REPORT("replay %s(%s): the op run again from its declared attributes gives other outputs (%d vs %d outputs; %s)",
                             name, text, n, e->nout, n < 0 ? ct_last_error() : "values differ");
        ct_replay_calls++;
        ct_set_grad_enabled(pg);
        ct_scope_end(tok);
        if (code) ct_set_error(code, "%s", err);
        else ct_clear_error();
    }
    for (int i = 0; i < CT_REPLAY_SAVED; i++)
        if (f->before[i]) ct_release(f->before[i]);
}
static int ct_replay_install(void) {
    const char *r = getenv("CT_TEST_REPLAY");
    if (!r || !*r || *r == '0') return 0;
    return ct_add_dispatch_listener(ct_replay_listener, NULL, CT_LISTEN_ENTER) > 0;
}
#endif
