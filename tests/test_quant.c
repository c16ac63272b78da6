/* test_quant.c - ctensor_quant.h: quantized tensors (tests/quant/test_quant_core.h),
   observers and fake quantization (test_quant_observer.h), int8 GEMM and quantized
   linear (test_quant_gemm.h), the workflows (test_quant_workflow.h) and the numeric
   suite (test_quant_numeric.h). Values against PyTorch-made fixtures in
   tests/fixtures/quant (tests/reference/cases_quant*.py) and exact math. */
#ifndef CT_TEST_SHARED_IMPL   /* else linked from tests/ct_impl.c (Makefile) */
#define CTENSOR_IMPLEMENTATION
#endif
#include "ct_test.h"
#include "ctensor_nn.h"
#include "ctensor_quant.h"

#ifndef CT_QUANT_FIXTURES
#define CT_QUANT_FIXTURES "tests/fixtures/quant"
#endif
/* a fixture tensor (.npy) by name; NULL (and a failed check) when missing */
static ct_tensor *qfix(const char *name) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s.npy", CT_QUANT_FIXTURES, name);
    ct_tensor *t = ct_load_npy(path);
    CT_T_REPORT(t != NULL, "fixture %s: %s", path, ct_last_error());
    return t;
}

#include "quant/test_quant_core.h"
#include "quant/test_quant_fusion.h"
#include "quant/test_quant_observer.h"
#include "quant/test_quant_gemm.h"
#include "quant/test_quant_qops.h"
#include "quant/test_quant_workflow.h"
#include "quant/test_quant_models.h"
#include "quant/test_quant_numeric.h"

int main(void) {
    ct_t_init();
    run_quant_core_tests();
    run_quant_fusion_tests();
    run_quant_observer_tests();
    run_quant_gemm_tests();
    run_quant_qops_tests();
    run_quant_workflow_tests();
    run_quant_models_tests();
    run_quant_numeric_tests();
    return ct_t_summary();
}
