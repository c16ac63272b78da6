/* CT_SCOPE and the grad-mode blocks in each of their forms (tests/compile/run.sh
   builds this as C with gcc and clang, as C++, and with -DCTENSOR_PORTABLE_SCOPE):
   break and continue leave the block and close it; 1000 of each leave no tensor,
   no scope and no changed mode behind. Prints "N passed, N failed". */
#ifndef CT_SCOPE_SHARED_IMPL   /* run.sh links one implementation object to all four builds */
#define CTENSOR_IMPLEMENTATION
#endif
#include "ctensor.h"
#include <stdio.h>

static int pass, fail;
#define EXPECT(c)                                                           \
    do {                                                                    \
        if (c) pass++;                                                      \
        else { fail++; printf("FAIL %s:%d %s\n", __FILE__, __LINE__, #c); } \
    } while (0)

/* a return inside the block: closes the scope in the C++ and gcc/clang forms,
   leaves it open (to the enclosing scope) in the portable form */
static double first_positive(int n) {
    for (int i = 0; i < n; i++) CT_SCOPE {
        ct_tensor *x = ct_full(CT_FLOAT32, (double)i, 2);
        if (i == 3) return ct_item(ct_sum(x));
    }
    return -1;
}

int main(void) {
    int64_t live0 = ct_live_tensors();
    int depth0 = ct_scope_depth(), body = 0, after = 0;
    for (int i = 0; i < 1000; i++) {
        CT_SCOPE {
            ct_tensor *x = ct_ones(CT_FLOAT32, 4);
            ct_tensor *y = ct_add(x, x);
            body += y != NULL;
            if (i % 2) break;
            continue;
        }
        after++;  /* break and continue leave the scope, not this loop */
    }
    EXPECT(body == 1000 && after == 1000);
    EXPECT(ct_live_tensors() == live0);
    EXPECT(ct_scope_depth() == depth0);

    int grad0 = ct_is_grad_enabled();
    for (int i = 0; i < 1000; i++) {
        CT_NO_GRAD {
            if (i % 2) break;
            continue;
        }
    }
    EXPECT(ct_is_grad_enabled() == grad0);
    for (int i = 0; i < 1000; i++) CT_INFERENCE_MODE {
        if (i % 2) break;
        continue;
    }
    EXPECT(!ct_is_inference_mode_enabled());

    /* a return inside: the enclosing scope closes what it left open, in every form */
    CT_SCOPE {
        EXPECT(first_positive(10) == 6.0);
#if defined(CTENSOR_PORTABLE_SCOPE)
        EXPECT(ct_scope_depth() == depth0 + 2);   /* left open: the documented cost */
#else
        EXPECT(ct_scope_depth() == depth0 + 1);
#endif
    }
    EXPECT(ct_live_tensors() == live0);
    EXPECT(ct_scope_depth() == depth0);
    printf("%d passed, %d failed\n", pass, fail);
    return fail != 0;
}
