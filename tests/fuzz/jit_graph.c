/* libFuzzer target: ct_graph_load_mem on arbitrary bytes (ctensor_jit.h's graph files:
   the safetensors layout with the graph text in its metadata).
   Build and run: make fuzz FUZZ=jit_graph FUZZ_SECONDS=60   (or sh tests/fuzz/smoke.sh)
   A loaded graph must verify, print, save and load back to the same text; a refused
   file must leave an error naming it; everything is freed. (Loaded graphs are not
   run here: a valid graph may ask a factory op for any size.) */
#ifndef CT_FUZZ_SHARED_IMPL   /* the smoke run and make fuzz link tests/fuzz/shared/impl.c instead */
#define CTENSOR_IMPLEMENTATION
#endif
#include "ctensor.h"
#include "ctensor_nn.h"
#include "ctensor_quant.h"   /* quantized constants (a converted graph's weights and their qparams entries) */
#include "ctensor_jit.h"
#include <stdlib.h>
#include <string.h>

static char t1[1 << 16], t2[1 << 16];

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
    static int64_t live0 = -1;
    if (live0 < 0) { ct_set_logger(NULL, NULL); live0 = ct_live_tensors(); }
    int tok = ct_scope_begin();
    ct_clear_error();
    ct_graph *g = ct_graph_load_mem(data, size, "fuzz.ctjit");
    if (!g) {
        if (ct_last_error_code() == CT_OK || !strstr(ct_last_error(), "fuzz.ctjit")) __builtin_trap();
    } else {
        if (ct_graph_verify(g) != CT_OK) __builtin_trap();
        void *buf;
        size_t len;
        if (ct_graph_save_mem(g, &buf, &len) == CT_OK) {
            ct_graph *h = ct_graph_load_mem(buf, len, "roundtrip.ctjit");
            if (!h) __builtin_trap();
            size_t n1 = ct_graph_repr(g, t1, sizeof t1), n2 = ct_graph_repr(h, t2, sizeof t2);
            if (n1 != n2 || strcmp(t1, t2)) __builtin_trap();
            ct_graph_free(h);
            ct_free(buf);
        }
        ct_graph_free(g);
    }
    ct_scope_end(tok);
    if (ct_live_tensors() != live0) __builtin_trap();
    return 0;
}
