/* observers, fake quantization, qconfigs (helper A's tests) */
static void run_quant_observer_tests(void) {}
