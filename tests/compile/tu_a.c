/* Two translation units: this one holds the implementation... */
#define CTENSOR_IMPLEMENTATION
#include "ctensor.h"
int tu_b_sum_is_six(void);
int main(void) { return tu_b_sum_is_six() ? 0 : 1; }
