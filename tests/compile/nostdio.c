/* CTENSOR_NO_STDIO and custom allocators: the embedded configuration. A buffer from a
   *_mem saver goes back through ct_free to the allocator that made it. */
#include <stdlib.h>
static size_t allocs, frees;
static void *my_malloc(size_t n) { allocs++; return malloc(n); }
static void my_free(void *p) { frees += p != NULL; free(p); }
#define CT_MALLOC(n) my_malloc(n)
#define CT_REALLOC(p, n) realloc(p, n)
#define CT_FREE(p) my_free(p)
#define CTENSOR_NO_STDIO
#define CTENSOR_IMPLEMENTATION
#include "ctensor.h"
int main(void) {
    int ok = 0;
    CT_SCOPE { ok = ct_item(ct_sum(ct_ones(CT_FLOAT32, 4))) == 4.0; }
    void *buf = NULL;
    size_t len = 0, frees0;
    CT_SCOPE { ok &= ct_save_npy_mem(ct_ones(CT_FLOAT32, 3), &buf, &len) == CT_OK && buf && len > 0; }
    frees0 = frees;
    ct_free(buf);
    ok &= frees == frees0 + 1;
    ct_free(NULL);
    return ok && allocs > 0 ? 0 : 1;
}
