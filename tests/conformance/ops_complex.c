/* Conformance handlers: the complex views (ctensor.h's view_as_real,
   view_as_complex, real, imag). Complex cases of other ops run through their
   own handlers; one whose op refuses the complex dtype is skipped with the
   op's message (runner.c). Gradients follow PyTorch's convention for a complex
   leaf, dL/dRe + i dL/dIm (CONFORMANCE.md). */
#include "conf.h"
#include "ctensor_linalg.h"

#define IN(k) (c->in[k])
#define ONE(expr) do { out[0] = (expr); return out[0] ? 1 : -1; } while (0)

static int h_view_as_real(conf_case *c, ct_tensor **out) { ONE(ct_view_as_real(IN(0))); }
static int h_view_as_complex(conf_case *c, ct_tensor **out) { ONE(ct_view_as_complex(IN(0))); }
static int h_real(conf_case *c, ct_tensor **out) { ONE(ct_real(IN(0))); }
static int h_imag(conf_case *c, ct_tensor **out) { ONE(ct_imag(IN(0))); }

const conf_op conf_ops_complex[] = {
    {"torch.view_as_real", h_view_as_real, NULL},
    {"torch.view_as_complex", h_view_as_complex, NULL},
    {"torch.real", h_real, NULL},
    {"torch.imag", h_imag, NULL},
    {0, 0, 0}};
