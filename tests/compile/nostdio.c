/* CTENSOR_NO_STDIO and custom allocators: the embedded configuration. */
#include <stdlib.h>
static size_t allocs;
static void *my_malloc(size_t n) { allocs++; return malloc(n); }
#define CT_MALLOC(n) my_malloc(n)
#define CT_REALLOC(p, n) realloc(p, n)
#define CT_FREE(p) free(p)
#define CTENSOR_NO_STDIO
#define CTENSOR_IMPLEMENTATION
#include "ctensor.h"
int main(void) {
    int ok = 0;
    CT_SCOPE { ok = ct_item(ct_sum(ct_ones(CT_FLOAT32, 4))) == 4.0; }
    return ok && allocs > 0 ? 0 : 1;
}
