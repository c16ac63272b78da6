/* test_schema.c - every op's typed attribute schema (ctensor.h, "The spine"):
   each parses, stable names are unique and well formed, ct_op_schema prints,
   and a value with every attribute set round-trips through repr / parse with
   equal values and hashes; plus the attrs API itself (None, enums by name,
   float round trips, errors that name the op, data-dependent output shapes).
   The replay check (CT_TEST_REPLAY=1, tests/ct_replay.h) proves the schemas
   complete by running every call again from its declared attributes. */
#define CTENSOR_IMPLEMENTATION
#include "ct_test.h"
#include "ctensor_nn.h"
#include "ctensor_linalg.h"

/* names the companions register: asking for them registers the companions */
static const char *const companion_ops[] = {"aten::conv2d", "aten::native_layer_norm", "aten::mse_loss", "ct::_fused_sgd_",
                                            "ct::_fused_adagrad_", "aten::linalg_cholesky_ex", "aten::linalg_vector_norm"};

/* Registers every op a build has: the companions by name, and the fused
   optimizer ops by one optimizer step (they register before their first op). */
static void register_all(void) {
    ct_tensor *p = ct_requires_grad(ct_ones(CT_FLOAT32, 2));
    ct_sgd_options so;
    memset(&so, 0, sizeof so);
    so.lr = 0.1;
    ct_optimizer *opt = ct_optim_sgd_params(1, &p, &so);
    ct_backward(ct_sum(ct_mul(p, p)));
    CHECK(ct_step(opt) == CT_OK);
    ct_optim_free(opt);
    for (size_t k = 0; k < sizeof companion_ops / sizeof companion_ops[0]; k++) {
        int op = ct_op_find(companion_ops[k]);
        CT_T_REPORT(op >= 0, "ct_op_find(\"%s\") = %d", companion_ops[k], op);
    }
}

/* a value for attribute k of type `info`, distinct per attribute */
static void value_for(const ct_attr_info *info, int k, ct_attr_value *v) {
    memset(v, 0, sizeof *v);
    v->type = info->type;
    v->count = 1;
    switch (info->type) {
    case CT_ATTR_INT: v->i = 3 + k; break;
    case CT_ATTR_FLOAT: v->f = 0.1 * (k + 1) + 1e-300; break;   /* not a short decimal */
    case CT_ATTR_BOOL: v->i = 1; break;
    case CT_ATTR_DTYPE: v->dtype = CT_FLOAT64; break;
    case CT_ATTR_DEVICE: v->device = ct_cuda(1); break;
    case CT_ATTR_ENUM: v->i = strchr(info->values, '|') ? 1 : 0; break;
    case CT_ATTR_INT_LIST:
        v->count = info->count < 0 ? 3 : info->count;   /* variable lists of one op share their length */
        for (int j = 0; j < v->count; j++) v->ints[j] = 10 * (k + 1) + j - 2;
        break;
    case CT_ATTR_FLOAT_LIST:
        v->count = info->count;
        for (int j = 0; j < v->count; j++) v->floats[j] = 1.0 / (3.0 + j + k);
        break;
    }
}
static int same_value(const ct_attr_value *a, const ct_attr_value *b) {
    if (a->type != b->type || a->is_none != b->is_none) return 0;
    if (a->is_none) return 1;
    switch (a->type) {
    case CT_ATTR_FLOAT: return !memcmp(&a->f, &b->f, sizeof a->f);
    case CT_ATTR_DTYPE: return a->dtype == b->dtype;
    case CT_ATTR_DEVICE: return a->device.type == b->device.type && a->device.index == b->device.index;
    case CT_ATTR_INT_LIST: return a->count == b->count && !memcmp(a->ints, b->ints, sizeof(int64_t) * (size_t)a->count);
    case CT_ATTR_FLOAT_LIST: return a->count == b->count && !memcmp(a->floats, b->floats, sizeof(double) * (size_t)a->count);
    default: return a->i == b->i;
    }
}

/* repr -> parse -> equal, same hash, same text */
static int roundtrip(int op, const ct_attrs *a, char *text, size_t cap) {
    char text2[4096];
    ct_attrs back;
    ct_attrs_repr(op, a, text, cap);
    if (ct_attrs_parse(op, text, &back) != CT_OK) return 0;
    ct_attrs_repr(op, &back, text2, sizeof text2);
    return ct_attrs_equal(op, a, &back) && ct_attrs_hash(op, a) == ct_attrs_hash(op, &back) && !strcmp(text, text2);
}

TEST(test_every_op) {
    register_all();
    int n = ct_num_ops(), nattrs = 0, nops_with = 0;
    CHECK(n >= 240);   /* core, nn, the fused optimizer steps, linalg */
    for (int op = 0; op < n; op++) {
        const char *sn = ct_op_schema_name(op);
        CT_T_REPORT((!strncmp(sn, "aten::", 6) && sn[6]) || (!strncmp(sn, "ct::", 4) && sn[4]), "op %d: stable name \"%s\"", op, sn);
        for (int q = 0; q < op; q++)
            if (!strcmp(ct_op_schema_name(q), sn)) CT_T_REPORT(0, "ops %d and %d share the stable name %s", q, op, sn);
        CT_T_REPORT(ct_op_find(sn) == op, "ct_op_find(\"%s\") = %d, not %d", sn, ct_op_find(sn), op);
        int na = ct_op_num_attrs(op);
        CT_T_REPORT(na >= 0, "%s: the attribute schema does not parse: %s", sn, ct_last_error());
        if (na < 0) continue;
        {   /* PyTorch's defaults parse and print back as text that parses to them */
            ct_attrs d, d2;
            char dt[2048];
            CT_T_REPORT(ct_attrs_defaults(op, &d) == CT_OK, "%s: defaults: %s", sn, ct_last_error());
            ct_attrs_repr(op, &d, dt, sizeof dt);
            CT_T_REPORT(ct_attrs_parse(op, "", &d2) == CT_OK && ct_attrs_equal(op, &d, &d2), "%s: parse(\"\") is not the defaults %s", sn, dt);
        }
        char sch[4096];
        size_t len = ct_op_schema(op, sch, sizeof sch);
        CT_T_REPORT(len > strlen(sn) && len < sizeof sch && !strncmp(sch, sn, strlen(sn)) && sch[strlen(sn)] == '(' && strstr(sch, ") -> "),
                    "%s: ct_op_schema printed \"%s\"", sn, sch);
        /* every attribute set to a distinct value; each reads back as set (no two share a slot) */
        ct_attrs a;
        ct_attrs_init(&a);
        ct_attr_info info[32];
        ct_attr_value want[32], got;
        if (na > 32) { CT_T_REPORT(0, "%s: %d attributes", sn, na); continue; }
        nattrs += na;
        nops_with += na > 0;
        for (int k = 0; k < na; k++) {
            CT_T_REPORT(ct_op_attr(op, k, &info[k]) == CT_OK, "%s: ct_op_attr(%d): %s", sn, k, ct_last_error());
            for (int q = 0; q < k; q++)
                if (!strcmp(info[q].name, info[k].name)) CT_T_REPORT(0, "%s: two attributes named '%s'", sn, info[k].name);
            value_for(&info[k], k, &want[k]);
            CT_T_REPORT(ct_attrs_set(op, &a, info[k].name, &want[k]) == CT_OK, "%s: ct_attrs_set('%s'): %s", sn, info[k].name, ct_last_error());
        }
        for (int k = 0; k < na; k++)
            CT_T_REPORT(ct_attrs_get(op, &a, info[k].name, &got) == CT_OK && same_value(&got, &want[k]),
                        "%s: attribute '%s' does not read back as set (does another attribute share its slot?)", sn, info[k].name);
        char text[4096];
        CT_T_REPORT(roundtrip(op, &a, text, sizeof text), "%s: \"%s\" does not round-trip (%s)", sn, text, ct_last_error());
        /* the defaults (all zero), and every optional None */
        ct_attrs z;
        ct_attrs_init(&z);
        CT_T_REPORT(roundtrip(op, &z, text, sizeof text), "%s: the defaults \"%s\" do not round-trip", sn, text);
        for (int k = 0; k < na; k++) {
            if (!info[k].optional) continue;
            ct_attr_value none;
            memset(&none, 0, sizeof none);
            none.type = info[k].type;
            none.is_none = 1;
            CT_T_REPORT(ct_attrs_set(op, &a, info[k].name, &none) == CT_OK && ct_attrs_get(op, &a, info[k].name, &got) == CT_OK && got.is_none,
                        "%s: '%s' = None", sn, info[k].name);
        }
        CT_T_REPORT(roundtrip(op, &a, text, sizeof text), "%s: \"%s\" (optionals None) does not round-trip", sn, text);
        /* a change in one declared attribute changes equality */
        if (na > 0) {
            ct_attrs b = a;
            ct_attr_value v;
            ct_attrs_get(op, &b, info[0].name, &v);
            if (v.is_none) { v.is_none = 0; value_for(&info[0], 0, &v); }
            else if (v.type == CT_ATTR_FLOAT) v.f += 1.0;
            else if (v.type == CT_ATTR_INT_LIST || v.type == CT_ATTR_FLOAT_LIST) { v.ints[0] += 1; v.floats[0] += 1.0; }
            else if (v.type == CT_ATTR_DTYPE) v.dtype = CT_INT32;
            else if (v.type == CT_ATTR_DEVICE) v.device = ct_cuda(2);
            else v.i = v.i ? 0 : 1;
            ct_attrs_set(op, &b, info[0].name, &v);
            CT_T_REPORT(!ct_attrs_equal(op, &a, &b), "%s: changing '%s' leaves the attributes equal", sn, info[0].name);
        }
    }
    CHECK(nops_with >= 140);
    CHECK(nattrs > 300);
}

/* the op of a stable name, or fail the check */
static int op_of(const char *name) {
    int op = ct_op_find(name);
    CT_T_REPORT(op >= 0, "no op %s", name);
    return op;
}
static ct_attr_value val(ct_attr_type t) {
    ct_attr_value v;
    memset(&v, 0, sizeof v);
    v.type = t;
    v.count = 1;
    return v;
}

TEST(test_schema_text) {
    char buf[512];
    ct_op_schema(op_of("aten::sum.dim_IntList"), buf, sizeof buf);
    CHECK_STR(buf, "aten::sum.dim_IntList(Tensor, *, int[] dim, bool keepdim, dtype? dtype) -> Tensor");
    ct_op_schema(op_of("aten::max.dim"), buf, sizeof buf);
    CHECK_STR(buf, "aten::max.dim(Tensor, *, int dim, bool keepdim) -> (Tensor, Tensor)");
    ct_op_schema(op_of("aten::cat"), buf, sizeof buf);
    CHECK_STR(buf, "aten::cat(Tensor[], *, int dim) -> Tensor");
    ct_op_schema(op_of("aten::relu"), buf, sizeof buf);
    CHECK_STR(buf, "aten::relu(Tensor) -> Tensor");
    ct_op_schema(op_of("aten::as_strided"), buf, sizeof buf);
    CHECK_STR(buf, "aten::as_strided(Tensor, *, int[] size, int[] stride, int storage_offset) -> Tensor");
    ct_op_schema(op_of("aten::mse_loss"), buf, sizeof buf);
    CHECK_STR(buf, "aten::mse_loss(Tensor, Tensor, *, str reduction) -> Tensor");
    ct_op_schema(op_of("aten::conv2d"), buf, sizeof buf);
    CHECK_STR(buf, "aten::conv2d(Tensor[], *, int[2] stride, int[2] padding, int[2] dilation, int groups) -> Tensor");
    ct_op_schema(op_of("ct::_fused_adam_"), buf, sizeof buf);
    CHECK_STR(buf, "ct::_fused_adam_(Tensor[], *, float lr, float beta1, float beta2, float eps, float weight_decay, float step, bool maximize, bool amsgrad) -> Tensor");
    ct_attr_info info;
    int gelu = op_of("aten::gelu");
    CHECK(ct_op_num_attrs(gelu) == 1 && ct_op_attr(gelu, 0, &info) == CT_OK);
    CHECK_STR(info.name, "approximate");
    CHECK(info.type == CT_ATTR_ENUM && !info.optional && info.count == 1);
    CHECK_STR(info.values, "none|tanh");
    CHECK_ERR(ct_op_attr(gelu, 1, &info) == CT_OK, CT_ERR_ARG, "aten::gelu has no attribute 1");
    CHECK_ERR(ct_op_num_attrs(100000) >= 0, CT_ERR_ARG, "no op with id 100000");
}

TEST(test_optional_none) {
    int op = op_of("aten::argmax");
    ct_attrs a;
    ct_attr_value v;
    char text[256];
    ct_attrs_init(&a);
    ct_attrs_repr(op, &a, text, sizeof text);
    CHECK_STR(text, "dim=None, keepdim=False");   /* zeroed: the optional is None */
    v = val(CT_ATTR_INT);
    v.i = -1;
    CHECK(ct_attrs_set(op, &a, "dim", &v) == CT_OK);
    ct_attrs_repr(op, &a, text, sizeof text);
    CHECK_STR(text, "dim=-1, keepdim=False");
    CHECK(ct_attrs_parse(op, "keepdim=True, dim=None", &a) == CT_OK);
    CHECK(ct_attrs_get(op, &a, "dim", &v) == CT_OK && v.is_none);
    CHECK(ct_attrs_get(op, &a, "keepdim", &v) == CT_OK && v.i == 1);
    /* a float optional without a presence flag is None as NaN; absent from the text: None */
    op = op_of("aten::linalg_pinv");
    CHECK(ct_attrs_parse(op, "hermitian=True", &a) == CT_OK);
    CHECK(ct_attrs_get(op, &a, "atol", &v) == CT_OK && v.is_none && isnan(v.f));
    ct_attrs_repr(op, &a, text, sizeof text);
    CHECK(strstr(text, "atol=None, rtol=None, hermitian=True") == text);
    CHECK(ct_attrs_parse(op, "atol=0.5, rtol=None", &a) == CT_OK);
    CHECK(ct_attrs_get(op, &a, "atol", &v) == CT_OK && !v.is_none && v.f == 0.5);
    CHECK(ct_attrs_get(op, &a, "rtol", &v) == CT_OK && v.is_none);
    /* None for an attribute that is not optional */
    op = op_of("aten::sum.dim_IntList");
    CHECK_ERR(ct_attrs_parse(op, "keepdim=None", &a) == CT_OK, CT_ERR_FORMAT, "aten::sum.dim_IntList: bad value for 'keepdim'");
    v = val(CT_ATTR_BOOL);
    v.is_none = 1;
    CHECK_ERR(ct_attrs_set(op, &a, "keepdim", &v) == CT_OK, CT_ERR_ARG, "wrong type, length or None-ness");
}

TEST(test_enums_by_name) {
    int op = op_of("aten::gelu");
    ct_attrs a;
    ct_attr_value v;
    char text[128];
    CHECK(ct_attrs_parse(op, "approximate='tanh'", &a) == CT_OK);
    CHECK(ct_attrs_get(op, &a, "approximate", &v) == CT_OK && v.i == 1);
    ct_attrs_repr(op, &a, text, sizeof text);
    CHECK_STR(text, "approximate='tanh'");
    CHECK(ct_attrs_parse(op, "approximate=0", &a) == CT_OK);   /* the index is read too */
    ct_attrs_repr(op, &a, text, sizeof text);
    CHECK_STR(text, "approximate='none'");
    CHECK_ERR(ct_attrs_parse(op, "approximate='fast'", &a) == CT_OK, CT_ERR_FORMAT, "aten::gelu: bad value for 'approximate'");
    op = op_of("aten::scatter_reduce.two");
    CHECK(ct_attrs_parse(op, "dim=1, reduce='amax', include_self=False", &a) == CT_OK);
    CHECK(ct_attrs_get(op, &a, "reduce", &v) == CT_OK && v.i == 3);
    op = op_of("aten::linalg_qr");
    CHECK(ct_attrs_parse(op, "mode='r', api='linalg.qr'", &a) == CT_OK);
    ct_attrs_repr(op, &a, text, sizeof text);
    CHECK_STR(text, "mode='r', api='linalg.qr'");
    /* the same result through ct_dispatch with parsed attributes as from the public function */
    int sc = ct_scope_begin();
    ct_tensor *x = ct_tensor_f32(((float[]){-1.0f, 0.5f, 2.0f}), 3), *y = NULL;
    CHECK(ct_attrs_parse(op_of("aten::gelu"), "approximate='tanh'", &a) == CT_OK);
    CHECK(ct_dispatch(op_of("aten::gelu"), 1, &x, &a, NULL, 0, &y, 1) == 1);
    CHECK(ct_equal(y, ct_gelu(x, "tanh")) == 1);
    ct_scope_end(sc);
}

TEST(test_float_roundtrip) {
    int op = op_of("aten::leaky_relu");
    const double vals[] = {0.1, 1e-300, 5e-324, -0.0, 1.0 / 3.0, 123456789.125, 1e308, INFINITY, -INFINITY, NAN};
    for (size_t k = 0; k < sizeof vals / sizeof vals[0]; k++) {
        ct_attrs a, b;
        ct_attr_value v = val(CT_ATTR_FLOAT), w;
        char text[128];
        ct_attrs_init(&a);
        v.f = vals[k];
        CHECK(ct_attrs_set(op, &a, "negative_slope", &v) == CT_OK);
        ct_attrs_repr(op, &a, text, sizeof text);
        CHECK(ct_attrs_parse(op, text, &b) == CT_OK);
        CHECK(ct_attrs_get(op, &b, "negative_slope", &w) == CT_OK);
        CT_T_REPORT(isnan(vals[k]) ? isnan(w.f) : !memcmp(&w.f, &vals[k], sizeof w.f), "%.17g -> \"%s\" -> %.17g", vals[k], text, w.f);
        CHECK(ct_attrs_equal(op, &a, &b) && ct_attrs_hash(op, &a) == ct_attrs_hash(op, &b));
    }
    ct_attrs a;
    char text[128];
    ct_attrs_init(&a);
    a.s[0] = 0.1;
    ct_attrs_repr(op, &a, text, sizeof text);
    CHECK_STR(text, "negative_slope=0.1");
    a.s[0] = 2.0;
    ct_attrs_repr(op, &a, text, sizeof text);
    CHECK_STR(text, "negative_slope=2.");   /* a float stays a float in the text */
    a.s[0] = INFINITY;
    ct_attrs_repr(op, &a, text, sizeof text);
    CHECK_STR(text, "negative_slope=inf");
}

TEST(test_bad_text) {
    int op = op_of("aten::sum.dim_IntList");
    ct_attrs a;
    ct_attr_value v = val(CT_ATTR_INT);
    CHECK(ct_attrs_parse(op, "dim=[0, -1], keepdim=True, dtype=float64", &a) == CT_OK);
    CHECK_ERR(ct_attrs_parse(op, "dim=[1, 2", &a) == CT_OK, CT_ERR_FORMAT, "aten::sum.dim_IntList: bad value for 'dim'");
    CHECK_ERR(ct_attrs_parse(op, "dim=[1] keepdim=True", &a) == CT_OK, CT_ERR_FORMAT, "aten::sum.dim_IntList: expected ','");
    CHECK_ERR(ct_attrs_parse(op, "=1", &a) == CT_OK, CT_ERR_FORMAT, "aten::sum.dim_IntList: expected name=value");
    CHECK_ERR(ct_attrs_parse(op, "dtype=float99", &a) == CT_OK, CT_ERR_FORMAT, "aten::sum.dim_IntList: bad value for 'dtype'");
    CHECK_ERR(ct_attrs_parse(op, "keepdim=yes", &a) == CT_OK, CT_ERR_FORMAT, "aten::sum.dim_IntList: bad value for 'keepdim'");
    /* a failed parse leaves the struct as it was */
    CHECK(ct_attrs_get(op, &a, "dim", &v) == CT_OK && v.count == 2 && v.ints[1] == -1);
    /* unknown attribute names */
    CHECK_ERR(ct_attrs_parse(op, "foo=1", &a) == CT_OK, CT_ERR_FORMAT, "aten::sum.dim_IntList has no attribute 'foo'");
    CHECK_ERR(ct_attrs_set(op, &a, "foo", &v) == CT_OK, CT_ERR_ARG, "aten::sum.dim_IntList has no attribute 'foo'");
    CHECK_ERR(ct_attrs_get(op, &a, "foo", &v) == CT_OK, CT_ERR_ARG, "aten::sum.dim_IntList has no attribute 'foo'");
    CHECK_ERR(ct_attrs_parse(op_of("aten::relu"), "dim=1", &a) == CT_OK, CT_ERR_FORMAT, "aten::relu has no attribute 'dim'");
    /* a value of another type */
    v.i = 1;
    CHECK_ERR(ct_attrs_set(op, &a, "keepdim", &v) == CT_OK, CT_ERR_ARG, "aten::sum.dim_IntList's attribute 'keepdim'");
    CHECK_ERR(ct_attrs_parse(-1, "", &a) == CT_OK, CT_ERR_ARG, "no op with id -1");
}

TEST(test_lists) {
    /* as_strided: stride is a second variable list of size's length (v#1) */
    int op = op_of("aten::as_strided");
    ct_attrs a;
    ct_attr_value v = val(CT_ATTR_INT_LIST);
    char text[256];
    CHECK(ct_attrs_parse(op, "size=[2, 3], stride=[3, 1], storage_offset=1", &a) == CT_OK);
    CHECK(a.nv == 2 && a.v[0] == 2 && a.v[1] == 3 && a.v[2] == 3 && a.v[3] == 1 && a.i[0] == 1);
    ct_attrs_repr(op, &a, text, sizeof text);
    CHECK_STR(text, "size=[2, 3], stride=[3, 1], storage_offset=1");
    v.count = 3;
    CHECK_ERR(ct_attrs_set(op, &a, "stride", &v) == CT_OK, CT_ERR_ARG, "wrong type, length or None-ness");
    CHECK_ERR(ct_attrs_parse(op, "size=[2, 3], stride=[1]", &a) == CT_OK, CT_ERR_FORMAT, "bad value for 'stride'");
    int sc = ct_scope_begin();
    ct_tensor *x = ct_arange(0, 12, 1, CT_FLOAT32), *y = NULL;
    CHECK(ct_attrs_parse(op, "size=[2, 3], stride=[3, 1], storage_offset=1", &a) == CT_OK);
    CHECK(ct_dispatch(op, 1, &x, &a, NULL, 0, &y, 1) == 1);
    double e[] = {1, 2, 3, 4, 5, 6};
    CHECK_VALUES(y, e, 6, 0);
    /* roll: shifts, then dims */
    op = op_of("aten::roll");
    CHECK(ct_attrs_parse(op, "shifts=[1], dims=[0]", &a) == CT_OK);
    CHECK(ct_dispatch(op, 1, &x, &a, NULL, 0, &y, 1) == 1);
    CHECK(ct_equal(y, ct_roll(x, 1, (int64_t[]){1}, 1, (int64_t[]){0})) == 1);
    /* a fixed list prints its length */
    op = op_of("aten::max_pool2d_with_indices");
    CHECK(ct_attrs_parse(op, "kernel_size=[2, 2], stride=[2, 2], padding=[0, 0], dilation=[1, 1], ceil_mode=True", &a) == CT_OK);
    ct_attrs_repr(op, &a, text, sizeof text);
    CHECK_STR(text, "kernel_size=[2, 2], stride=[2, 2], padding=[0, 0], dilation=[1, 1], ceil_mode=True");
    CHECK_ERR(ct_attrs_parse(op, "kernel_size=[2]", &a) == CT_OK, CT_ERR_FORMAT, "bad value for 'kernel_size'");
    ct_scope_end(sc);
}

TEST(test_equal_hash) {
    int op = op_of("aten::add.Tensor");
    ct_attrs a, b;
    ct_attrs_init(&a);
    ct_attrs_init(&b);
    a.s[0] = b.s[0] = 2.0;
    a.i[2] = 7;       /* an undeclared slot does not count */
    a.s[5] = 1.5;
    CHECK(ct_attrs_equal(op, &a, &b) && ct_attrs_hash(op, &a) == ct_attrs_hash(op, &b));
    b.s[0] = -2.0;
    CHECK(!ct_attrs_equal(op, &a, &b));
    CHECK(ct_attrs_hash(op, &a) != ct_attrs_hash(op, &b));
    /* another op with the same attributes hashes apart */
    CHECK(ct_attrs_hash(op, &a) != ct_attrs_hash(op_of("aten::sub.Tensor"), &a));
    /* an enum attribute compares by index; None compares equal to None whatever the slot holds */
    op = op_of("aten::argmax");
    ct_attrs_init(&a);
    ct_attrs_init(&b);
    a.i[0] = 5;    /* dim without its presence flag: None */
    CHECK(ct_attrs_equal(op, &a, &b));
}

TEST(test_data_shape_ops) {
    static const char *const names[] = {"aten::nonzero", "aten::masked_select", "aten::repeat_interleave.self_int", "aten::one_hot"};
    for (int k = 0; k < 4; k++) CT_T_REPORT(ct_op_flags(op_of(names[k])) & CT_OP_DATA_SHAPE, "%s lacks CT_OP_DATA_SHAPE", names[k]);
    CHECK(!(ct_op_flags(op_of("aten::add.Tensor")) & CT_OP_DATA_SHAPE));
    int sc = ct_scope_begin();
    ct_tensor *x = ct_tensor_i64(((int64_t[]){0, 3, 0, 1}), 2, 2), *y = NULL;
    CHECK(ct_dispatch(op_of("aten::nonzero"), 1, &x, NULL, NULL, 0, &y, 1) == 1);
    double nz[] = {0, 1, 1, 1};
    CHECK_VALUES(y, nz, 4, 0);
    ct_attrs a;
    ct_tensor *idx = ct_tensor_i64(((int64_t[]){2, 0}), 2);
    CHECK(ct_attrs_parse(op_of("aten::one_hot"), "num_classes=-1", &a) == CT_OK);
    CHECK(ct_dispatch(op_of("aten::one_hot"), 1, &idx, &a, NULL, 0, &y, 1) == 1);
    CHECK(y && y->ndim == 2 && y->shape[1] == 3);
    CHECK(ct_attrs_parse(op_of("aten::one_hot"), "num_classes=5", &a) == CT_OK);
    CHECK(ct_dispatch(op_of("aten::one_hot"), 1, &idx, &a, NULL, 0, &y, 1) == 1);
    CHECK(y && y->shape[1] == 5);
    CHECK(ct_attrs_parse(op_of("aten::one_hot"), "num_classes=2", &a) == CT_OK);
    CHECK_ERR(ct_dispatch(op_of("aten::one_hot"), 1, &idx, &a, NULL, 0, &y, 1) == 1, CT_ERR_ARG, "Class values must be smaller than num_classes");
    ct_scope_end(sc);
}

int main(void) {
    ct_t_init();
    RUN(test_every_op);
    RUN(test_schema_text);
    RUN(test_optional_none);
    RUN(test_enums_by_name);
    RUN(test_float_roundtrip);
    RUN(test_bad_text);
    RUN(test_lists);
    RUN(test_equal_hash);
    RUN(test_data_shape_ops);
    return ct_t_summary();
}
