/* conf.h - the conformance runner's interface for op handlers.
   A handler receives a loaded case (inputs, args) and runs the ctensor
   equivalent of the PyTorch op, storing outputs in out[] and returning how
   many it produced, or -1 when the op failed (ct_last_error() says why). */
#ifndef CONF_H
#define CONF_H
#include "ctensor.h"
#include "ctensor_nn.h"
#include "json.h"

#define CONF_MAX_IN 16
#define CONF_MAX_OUT 8

typedef struct conf_case {
    const char *dir;
    const char *op;
    json_value *json;        /* the whole case.json */
    json_value *args;        /* "args" (may be NULL) */
    int nin;
    ct_tensor *in[CONF_MAX_IN];
} conf_case;

typedef int (*conf_fn)(conf_case *c, ct_tensor **out);
/* Optional: brings an output into the normal form the fixtures use
   (sign / order conventions of eigh, svd, qr, ...). Returns the new tensor. */
typedef ct_tensor *(*conf_norm_fn)(conf_case *c, int index, ct_tensor *out);
typedef struct conf_op {
    const char *name;        /* PyTorch's name: "torch.add", "torch.nn.functional.relu", ... */
    conf_fn fn;
    conf_norm_fn normalize;  /* NULL when outputs compare as they are */
} conf_op;

/* args access (key absent -> default) */
int conf_has(const conf_case *c, const char *key);
double conf_double(const conf_case *c, const char *key, double def);  /* "inf"/"-inf" strings too */
int64_t conf_int(const conf_case *c, const char *key, int64_t def);
int conf_bool(const conf_case *c, const char *key, int def);
const char *conf_str(const conf_case *c, const char *key, const char *def);  /* NULL if absent and def NULL */
int conf_is_null(const conf_case *c, const char *key);                       /* present and null */
/* an int or a list of ints -> out[] (returns the count, -1 if absent) */
int conf_ints(const conf_case *c, const char *key, int64_t *out, int max);
/* PyTorch dtype name ("torch.float32") -> ct_dtype; CT_NUM_DTYPES if absent/unknown */
ct_dtype conf_dtype(const conf_case *c, const char *key);
ct_dtype conf_dtype_from_name(const char *name);
/* a named extra array (<name>.npy in the case folder), NULL if missing */
ct_tensor *conf_named(conf_case *c, const char *name);

/* handler tables, one per op family (each file ends its table with {0}) */
extern const conf_op conf_ops_elementwise[];
extern const conf_op conf_ops_creation[];
extern const conf_op conf_ops_reduce[];
extern const conf_op conf_ops_index[];
extern const conf_op conf_ops_blas[];
extern const conf_op conf_ops_nn[];
extern const conf_op conf_ops_optim[];
extern const conf_op conf_ops_linalg[];
extern const conf_op conf_ops_nn_conv[];
extern const conf_op conf_ops_nn_norm[];
extern const conf_op conf_ops_nn_loss[];
extern const conf_op conf_ops_nn_resample[];
#endif
