/* ...and this one only the declarations. */
#include "ctensor.h"
int tu_b_sum_is_six(void) {
    int ok = 0;
    CT_SCOPE { ok = ct_item(ct_sum(ct_full(CT_FLOAT64, 2.0, 3))) == 6.0; }
    return ok;
}
