/* CTENSOR_STATIC: every function private to this file. */
#define CTENSOR_STATIC
#define CTENSOR_IMPLEMENTATION
#include "ctensor.h"
int main(void) {
    int ok = 0;
    CT_SCOPE { ok = ct_item(ct_sum(ct_arange(0, 4, 1, CT_INT64))) == 6.0; }
    return ok ? 0 : 1;
}
