/* conf.h - the conformance runner's interface for op handlers.
   A handler receives a loaded case (inputs, args) and runs the ctensor
   equivalent of the PyTorch op, storing outputs in out[] and returning how
   many it produced, -1 when the op failed (ct_last_error() says why), or
   CONF_SKIP through conf_skip() when the case asks for something ctensor
   does not support (the case is then reported as skipped, with the reason). */
#ifndef CONF_H
#define CONF_H
#include "ctensor.h"
#include "ctensor_nn.h"
#include "json.h"

#define CONF_MAX_IN 64
#define CONF_MAX_OUT 8
#define CONF_MAX_RESULTS 8
#define CONF_SKIP (-2)

typedef struct conf_case {
    const char *dir;
    const char *op;
    json_value *json;        /* the whole case.json */
    json_value *args;        /* "args" (may be NULL) */
    int nin;
    ct_tensor *in[CONF_MAX_IN];
    /* named results (conf_result): compared with <name>.npy when the case has it */
    int nresults;
    const char *result_name[CONF_MAX_RESULTS];
    ct_tensor *result[CONF_MAX_RESULTS];
    char skip_reason[256];
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
int conf_given(const conf_case *c, const char *key);                         /* present and not null */
double conf_double(const conf_case *c, const char *key, double def);  /* "inf"/"-inf" strings too */
int64_t conf_int(const conf_case *c, const char *key, int64_t def);
int conf_bool(const conf_case *c, const char *key, int def);
const char *conf_str(const conf_case *c, const char *key, const char *def);  /* NULL if absent and def NULL */
int conf_is_null(const conf_case *c, const char *key);                       /* present and null */
/* a JSON number as int64 (bools too; values outside int64 read as 0), def when v is not a number */
int64_t conf_json_int(const json_value *v, int64_t def);
/* an int or a list of ints -> out[] (returns the count, -1 if absent) */
int conf_ints(const conf_case *c, const char *key, int64_t *out, int max);
/* PyTorch dtype name ("torch.float32") -> ct_dtype; CT_NUM_DTYPES if absent/unknown */
ct_dtype conf_dtype(const conf_case *c, const char *key);
ct_dtype conf_dtype_from_name(const char *name);
/* a named extra array (<name>.npy in the case folder), NULL if missing */
ct_tensor *conf_named(conf_case *c, const char *name);

/* Tensor arguments in PyTorch's signature order (CONFORMANCE.md, "Optional
   tensors"): names[0..n) are the op's tensor parameters in order, the first
   `required` of them positional. Each takes the next input in0, in1, ...,
   except one that the case leaves as None ("<name>": null in args): that one
   is NULL and takes no input. Parameters past the last input are NULL too.
   Returns 0, or -1 with an error when inputs are left over or a required
   tensor is missing. */
int conf_tensors(conf_case *c, int n, const char *const *names, int required, ct_tensor **t);
/* Records the reason (printf-style) and returns CONF_SKIP, for `return conf_skip(...)`. */
int conf_skip(conf_case *c, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* A named result: after a successful call the runner compares t with <name>.npy
   when the case folder has that file (e.g. the running stats F.batch_norm
   updates in place). Returns 0, -1 when t is NULL or the table is full. */
int conf_result(conf_case *c, const char *name, ct_tensor *t);

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
/* ops that take complex inputs: a case with a complex input or output runs
   only when its op is in this table; other complex cases are skipped */
extern const conf_op conf_ops_complex[];
extern const conf_op conf_ops_composite[];
extern const conf_op conf_ops_nn_resample[];
extern const conf_op conf_ops_nn_transformer[];
extern const conf_op conf_ops_special[];
#endif
