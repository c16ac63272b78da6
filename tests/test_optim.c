/* test_optim.c - torch.optim's API in ctensor: hyperparameter checks with
   PyTorch's messages, param groups, zero_grad, state_dict save/restore (also
   through safetensors), every scheduler's lr sequence against its closed form,
   clip_grad_norm_ / clip_grad_value_, convergence of each optimizer on a small
   linear regression, and flat memory over many steps. (Step-by-step agreement
   with PyTorch is checked by the conformance fixtures in tests/fixtures/optim.) */
#ifndef CT_TEST_SHARED_IMPL   /* else linked from tests/ct_impl.c (Makefile) */
#define CTENSOR_IMPLEMENTATION
#endif
#include "ct_test.h"
#include "ctensor_nn.h"
#include <stdlib.h>

static const double PI = 3.141592653589793;

/* a float64 leaf that requires grad */
static ct_tensor *param(const double *v, int64_t n) { return ct_requires_grad(ct_from_data_n(v, CT_FLOAT64, 1, &n)); }
static double at(const ct_tensor *t, int64_t i) { return ((const double *)ct_data_ptr(t))[i]; }

/* loss = sum((p - target)^2) over the params, backward: deterministic grads */
static void quad_backward(int n, ct_tensor *const *ps, double target) {
    CT_SCOPE {
        ct_tensor *loss = NULL;
        for (int i = 0; i < n; i++) {
            ct_tensor *l = ct_sum(ct_pow_scalar(ct_sub_scalar(ps[i], target + 0.25 * i), 2.0));
            loss = loss ? ct_add(loss, l) : l;
        }
        ct_backward(loss);
    }
}

/* ------------------------------------------------------------ constructor checks */
TEST(test_hyperparameter_errors) {
    double v[3] = {1, 2, 3};
    ct_tensor *p = param(v, 3);
    ct_tensor *ps[1] = {p};
    CHECK_ERR(ct_optim_sgd_params(1, ps, &(ct_sgd_options){.lr = -1.0}), CT_ERR_ARG, "SGD: Invalid learning rate: -1.0");
    CHECK_ERR(ct_optim_sgd_params(1, ps, &(ct_sgd_options){.lr = 0.1, .momentum = -0.5}), CT_ERR_ARG, "SGD: Invalid momentum value: -0.5");
    CHECK_ERR(ct_optim_sgd_params(1, ps, &(ct_sgd_options){.lr = 0.1, .weight_decay = -1e-3}), CT_ERR_ARG,
              "SGD: Invalid weight_decay value: -0.001");
    CHECK_ERR(ct_optim_sgd_params(1, ps, &(ct_sgd_options){.lr = 0.1, .nesterov = 1}), CT_ERR_ARG,
              "SGD: Nesterov momentum requires a momentum and zero dampening");
    CHECK_ERR(ct_optim_sgd_params(1, ps, &(ct_sgd_options){.lr = 0.1, .momentum = 0.9, .dampening = 0.1, .nesterov = 1}), CT_ERR_ARG,
              "SGD: Nesterov momentum requires a momentum and zero dampening");
    CHECK_ERR(ct_optim_sgd_params(1, ps, &(ct_sgd_options){.momentum = 0.9}), CT_ERR_ARG,
              "SGD: parameter group didn't specify a value of required optimization parameter lr");
    CHECK_ERR(ct_optim_sgd_params(1, ps, NULL), CT_ERR_ARG, "SGD: options are NULL");
    CHECK_ERR(ct_optim_sgd_params(0, ps, &(ct_sgd_options){.lr = 0.1}), CT_ERR_ARG, "SGD: optimizer got an empty parameter list");
    ct_tensor *dup[2] = {p, p};
    CHECK_ERR(ct_optim_sgd_params(2, dup, &(ct_sgd_options){.lr = 0.1}), CT_ERR_ARG, "duplicate parameters");
    ct_tensor *nonleaf[1] = {ct_mul_scalar(p, 2.0)};
    CHECK_ERR(ct_optim_sgd_params(1, nonleaf, &(ct_sgd_options){.lr = 0.1}), CT_ERR_ARG, "SGD: can't optimize a non-leaf Tensor");
    /* an explicit zero lr is allowed; NaN passes SGD's `lr < 0` check as in PyTorch, not Adam's `0 <= lr` */
    ct_optimizer *o = ct_optim_sgd_params(1, ps, &(ct_sgd_options){.lr = CT_ZERO});
    CHECK(o && ct_optim_get_lr(o, 0) == 0.0);
    ct_optim_free(o);
    o = ct_optim_sgd_params(1, ps, &(ct_sgd_options){.lr = NAN});
    CHECK(o != NULL);
    ct_optim_free(o);

    CHECK_ERR(ct_optim_adam_params(1, ps, &(ct_adam_options){.lr = -0.1}), CT_ERR_ARG, "Adam: Invalid learning rate: -0.1");
    CHECK_ERR(ct_optim_adam_params(1, ps, &(ct_adam_options){.lr = NAN}), CT_ERR_ARG, "Adam: Invalid learning rate: nan");
    CHECK_ERR(ct_optim_adam_params(1, ps, &(ct_adam_options){.lr = 1e-3, .eps = -1.0}), CT_ERR_ARG, "Adam: Invalid epsilon value: -1.0");
    CHECK_ERR(ct_optim_adam_params(1, ps, &(ct_adam_options){.lr = 1e-3, .beta1 = 1.0}), CT_ERR_ARG,
              "Adam: Invalid beta parameter at index 0: 1.0");
    CHECK_ERR(ct_optim_adam_params(1, ps, &(ct_adam_options){.lr = 1e-3, .beta2 = 1.5}), CT_ERR_ARG,
              "Adam: Invalid beta parameter at index 1: 1.5");
    CHECK_ERR(ct_optim_adam_params(1, ps, &(ct_adam_options){.lr = 1e-3, .beta1 = -0.1}), CT_ERR_ARG,
              "Adam: Invalid beta parameter at index 0: -0.1");
    CHECK_ERR(ct_optim_adam_params(1, ps, &(ct_adam_options){.lr = 1e-3, .weight_decay = -1.0}), CT_ERR_ARG,
              "Adam: Invalid weight_decay value: -1.0");
    CHECK_ERR(ct_optim_adamw_params(1, ps, &(ct_adamw_options){.lr = -1.0}), CT_ERR_ARG, "AdamW: Invalid learning rate: -1.0");
    CHECK_ERR(ct_optim_adamw_params(1, ps, &(ct_adamw_options){.lr = 1e-3, .beta2 = 1.0}), CT_ERR_ARG,
              "AdamW: Invalid beta parameter at index 1: 1.0");
    CHECK_ERR(ct_optim_rmsprop_params(1, ps, &(ct_rmsprop_options){.lr = -1.0}), CT_ERR_ARG, "RMSprop: Invalid learning rate: -1.0");
    CHECK_ERR(ct_optim_rmsprop_params(1, ps, &(ct_rmsprop_options){.lr = 0.01, .alpha = -1.0}), CT_ERR_ARG,
              "RMSprop: Invalid alpha value: -1.0");
    CHECK_ERR(ct_optim_rmsprop_params(1, ps, &(ct_rmsprop_options){.lr = 0.01, .momentum = -1.0}), CT_ERR_ARG,
              "RMSprop: Invalid momentum value: -1.0");
    CHECK_ERR(ct_optim_rmsprop_params(1, ps, &(ct_rmsprop_options){.lr = 0.01, .eps = -1e-8}), CT_ERR_ARG,
              "RMSprop: Invalid epsilon value: -1e-08");
    CHECK_ERR(ct_optim_adagrad_params(1, ps, &(ct_adagrad_options){.lr = -1.0}), CT_ERR_ARG, "Adagrad: Invalid learning rate: -1.0");
    CHECK_ERR(ct_optim_adagrad_params(1, ps, &(ct_adagrad_options){.lr = 0.1, .lr_decay = -1.0}), CT_ERR_ARG,
              "Adagrad: Invalid lr_decay value: -1.0");
    CHECK_ERR(ct_optim_adagrad_params(1, ps, &(ct_adagrad_options){.lr = 0.1, .initial_accumulator_value = -1.0}), CT_ERR_ARG,
              "Adagrad: Invalid initial_accumulator_value value: -1.0");
    /* a model whose constructor failed: its message is kept */
    CHECK_ERR(ct_optim_sgd(ct_nn_hardtanh(1.0, -1.0), &(ct_sgd_options){.lr = 0.1}), CT_ERR_ARG,
              "Hardtanh: max_val (-1) must be greater than or equal to min_val (1)");
    /* settings lookups */
    o = ct_optim_sgd_params(1, ps, &(ct_sgd_options){.lr = 0.1});
    CHECK_STR(ct_optim_name(o), "SGD");
    CHECK_ERR(!isnan(ct_optim_get_option(o, 0, "beta1")), CT_ERR_ARG, "get_option: SGD has no setting 'beta1'");
    CHECK_ERR(!isnan(ct_optim_get_lr(o, 1)), CT_ERR_INDEX, "get_lr: param group 1 out of range (the optimizer has 1)");
    CHECK_ERR(ct_optim_set_option(o, 0, "nope", 1.0) == CT_OK, CT_ERR_ARG, "set_option: SGD has no setting 'nope'");
    CHECK_ERR(!isnan(ct_optim_get_option(o, 0, "initial_lr")), CT_ERR_ARG, "no scheduler set it");
    CHECK_ERR(ct_step(NULL) == CT_OK, CT_ERR_ARG, "step: optimizer is NULL");
    ct_optim_free(o);
    ct_optim_free(NULL);   /* fine */
}

/* ------------------------------------------------------------ groups, defaults, zero_grad */
TEST(test_param_groups) {
    double a[2] = {1, 2}, b[2] = {3, 4}, c[1] = {5};
    ct_tensor *pa = param(a, 2), *pb = param(b, 2), *pc = param(c, 1);
    ct_optimizer *o = ct_optim_sgd_params(1, &pa, &(ct_sgd_options){.lr = 0.1, .weight_decay = 0.5});
    CHECK(o != NULL);
    /* zero fields take the optimizer's settings, as a param-group dict does */
    CHECK_EQ_INT(ct_optim_add_param_group(o, 1, &pb, &(ct_sgd_options){.lr = 0.01}), CT_OK);
    CHECK_EQ_INT(ct_optim_add_param_group(o, 1, &pc, NULL), CT_OK);
    CHECK_EQ_INT(ct_optim_num_groups(o), 3);
    CHECK_EQ_INT(ct_optim_group_size(o, 1), 1);
    CHECK(ct_optim_param(o, 2, 0) == pc);
    CHECK_CLOSE(ct_optim_get_lr(o, 1), 0.01, 0);
    CHECK_CLOSE(ct_optim_get_lr(o, 2), 0.1, 0);
    CHECK_CLOSE(ct_optim_get_option(o, 1, "weight_decay"), 0.5, 0);
    CHECK_ERR(ct_optim_add_param_group(o, 1, &pa, NULL) == CT_OK, CT_ERR_ARG, "some parameters appear in more than one parameter group");
    CHECK_ERR(ct_optim_add_param_group(o, 1, &pa, &(ct_sgd_options){.lr = -2.0}) == CT_OK, CT_ERR_ARG, "Invalid learning rate: -2.0");
    CHECK_EQ_INT(ct_optim_num_groups(o), 3);
    /* grads: d/dp sum(p^2) = 2p; p -= lr * (2p + wd * p) */
    CT_SCOPE {
        ct_backward(ct_add(ct_add(ct_sum(ct_mul(pa, pa)), ct_sum(ct_mul(pb, pb))), ct_sum(ct_mul(pc, pc))));
    }
    CHECK_EQ_INT(ct_step(o), CT_OK);
    CHECK_CLOSE(at(pa, 1), 2 - 0.1 * (2 * 2 + 0.5 * 2), 1e-15);
    CHECK_CLOSE(at(pb, 0), 3 - 0.01 * (2 * 3 + 0.5 * 3), 1e-15);
    CHECK_CLOSE(at(pc, 0), 5 - 0.1 * (2 * 5 + 0.5 * 5), 1e-15);
    /* set_lr on one group only */
    CHECK_EQ_INT(ct_optim_set_lr(o, 2, 0.0), CT_OK);
    double before = at(pc, 0), beforeb = at(pb, 0);
    CHECK_EQ_INT(ct_step(o), CT_OK);
    CHECK(at(pc, 0) == before && at(pb, 0) != beforeb);
    ct_optim_free(o);
}

TEST(test_zero_grad) {
    double a[3] = {1, 2, 3}, b[2] = {1, 1};
    ct_tensor *pa = param(a, 3), *pb = param(b, 2);
    ct_tensor *ps[2] = {pa, pb};
    ct_optimizer *o = ct_optim_adam_params(2, ps, &(ct_adam_options){.lr = 0.1});
    quad_backward(2, ps, 0.0);
    CHECK(ct_grad(pa) && ct_grad(pb));
    /* zero_grad(set_to_none=False): the same grad tensors, zeroed */
    ct_tensor *g = ct_grad(pa);
    ct_optim_zero_grad(o, 0);
    CHECK(ct_grad(pa) == g);
    CHECK_CLOSE(ct_item(ct_sum(ct_abs(ct_grad(pa)))), 0.0, 0);
    /* the default: .grad = None */
    ct_zero_grad(o);
    CHECK(ct_grad(pa) == NULL && ct_grad(pb) == NULL);
    /* a parameter without grad is skipped and gets no state */
    CT_SCOPE { ct_backward(ct_sum(ct_mul(pa, pa))); }
    double bb = at(pb, 0);
    CHECK_EQ_INT(ct_step(o), CT_OK);
    CHECK(at(pb, 0) == bb);
    ct_state_dict sd;
    CHECK_EQ_INT(ct_optim_state_dict(o, &sd), CT_OK);
    int has0 = 0, has1 = 0;
    for (int i = 0; i < sd.n; i++) {
        has0 |= !strncmp(sd.items[i].name, "state.0.", 8);
        has1 |= !strncmp(sd.items[i].name, "state.1.", 8);
    }
    CHECK(has0 && !has1);
    ct_state_dict_free(&sd);
    ct_optim_zero_grad(NULL, 1);   /* fine */
    ct_optim_free(o);
}

/* ------------------------------------------------------------ state_dict: resume identically */
static ct_optimizer *make_kind(int kind, int n, ct_tensor *const *ps) {
    switch (kind) {
    case 0: return ct_optim_sgd_params(n, ps, &(ct_sgd_options){.lr = 0.05, .momentum = 0.9, .nesterov = 1, .weight_decay = 0.01});
    case 1: return ct_optim_adam_params(n, ps, &(ct_adam_options){.lr = 0.05, .amsgrad = 1, .weight_decay = 0.1});
    case 2: return ct_optim_adamw_params(n, ps, &(ct_adamw_options){.lr = 0.05});
    case 3: return ct_optim_rmsprop_params(n, ps, &(ct_rmsprop_options){.lr = 0.01, .momentum = 0.5, .centered = 1});
    default: return ct_optim_adagrad_params(n, ps, &(ct_adagrad_options){.lr = 0.1, .lr_decay = 0.01, .initial_accumulator_value = 0.1});
    }
}
TEST(test_state_dict_resume) {
    static const char *const kinds[5] = {"SGD", "Adam", "AdamW", "RMSprop", "Adagrad"};
    for (int kind = 0; kind < 5; kind++) {
        double a[4] = {1, -2, 3, 0.5}, b[2] = {0.25, -1};
        ct_tensor *A[2] = {param(a, 4), param(b, 2)};
        ct_optimizer *oa = make_kind(kind, 2, A);
        CHECK(oa && !strcmp(ct_optim_name(oa), kinds[kind]));
        for (int s = 0; s < 3; s++) {
            ct_zero_grad(oa);
            quad_backward(2, A, 0.3 * s);
            ct_step(oa);
        }
        /* a second model with A's values and an optimizer restored from A's state,
           after a trip through safetensors bytes */
        ct_tensor *B[2] = {ct_requires_grad(ct_clone(ct_detach(A[0]))), ct_requires_grad(ct_clone(ct_detach(A[1])))};
        ct_optimizer *ob = make_kind(kind, 2, B);
        ct_state_dict sd;
        CHECK_EQ_INT(ct_optim_state_dict(oa, &sd), CT_OK);
        size_t cnt = (size_t)(sd.n > 0 ? sd.n : 1);
        const char **names = (const char **)malloc(sizeof(char *) * cnt);
        const ct_tensor **ts = (const ct_tensor **)malloc(sizeof(ct_tensor *) * cnt);
        for (int i = 0; i < sd.n; i++) { names[i] = sd.items[i].name; ts[i] = sd.items[i].tensor; }
        void *mem = NULL;
        size_t len = 0;
        CHECK_EQ_INT(ct_save_safetensors_mem(sd.n, names, ts, 0, NULL, NULL, &mem, &len), CT_OK);
        ct_safetensors *st = ct_safetensors_load_mem(mem, len, "optim");
        CHECK(st && ct_safetensors_count(st) == sd.n);
        ct_state_dict sd2;
        sd2.n = st ? ct_safetensors_count(st) : 0;
        sd2.items = (ct_named_tensor *)calloc((size_t)(sd2.n > 0 ? sd2.n : 1), sizeof(ct_named_tensor));
        for (int i = 0; i < sd2.n; i++) {
            sd2.items[i].name = (char *)ct_safetensors_name(st, i);
            sd2.items[i].tensor = ct_safetensors_get(st, sd2.items[i].name);
        }
        CHECK_EQ_INT(ct_optim_load_state_dict(ob, &sd2), CT_OK);
        free(sd2.items);
        ct_safetensors_free(st);
        ct_free(mem);
        free(names);
        free(ts);
        ct_state_dict_free(&sd);
        /* both continue bit for bit; a third copy with a fresh optimizer (no restored
           state) takes another path, so the restored state is what made them agree */
        ct_tensor *C[2] = {ct_requires_grad(ct_clone(ct_detach(A[0]))), ct_requires_grad(ct_clone(ct_detach(A[1])))};
        ct_optimizer *oc = make_kind(kind, 2, C);
        for (int s = 3; s < 8; s++) {
            ct_zero_grad(oa);
            ct_zero_grad(ob);
            ct_zero_grad(oc);
            quad_backward(2, A, 0.3 * s);
            quad_backward(2, B, 0.3 * s);
            quad_backward(2, C, 0.3 * s);
            ct_step(oa);
            ct_step(ob);
            ct_step(oc);
        }
        CHECK_EQ_INT(ct_equal(A[0], B[0]), 1);
        CHECK_EQ_INT(ct_equal(A[1], B[1]), 1);
        CHECK_EQ_INT(ct_equal(A[0], C[0]), 0);
        ct_optim_free(oc);
        ct_optim_free(oa);
        ct_optim_free(ob);
    }
    /* structure errors change nothing */
    double a[2] = {1, 2};
    ct_tensor *p = param(a, 2), *q = param(a, 2);
    ct_tensor *pq[2] = {p, q};
    ct_optimizer *one = ct_optim_adam_params(1, &p, &(ct_adam_options){.lr = 0.1});
    ct_optimizer *two = ct_optim_adam_params(2, pq, &(ct_adam_options){.lr = 0.1});
    quad_backward(1, &p, 1.0);
    ct_step(one);
    ct_state_dict sd;
    CHECK_EQ_INT(ct_optim_state_dict(one, &sd), CT_OK);
    CHECK_ERR(ct_optim_load_state_dict(two, &sd) == CT_OK, CT_ERR_ARG,
              "Adam.load_state_dict: loaded state dict contains a parameter group that doesn't match the size of optimizer's group");
    ct_optim_add_param_group(two, 1, &(ct_tensor *){param(a, 2)}, NULL);
    CHECK_ERR(ct_optim_load_state_dict(two, &sd) == CT_OK, CT_ERR_ARG,
              "Adam.load_state_dict: loaded state dict has a different number of parameter groups");
    CHECK_ERR(ct_optim_load_state_dict(one, NULL) == CT_OK, CT_ERR_ARG, "load_state_dict: optimizer or state dict is NULL");
    ct_state_dict_free(&sd);
    ct_optim_free(one);
    ct_optim_free(two);
}

/* ------------------------------------------------------------ schedulers against their closed forms */
static ct_optimizer *sgd1(double lr, double momentum) {
    double a[1] = {1};
    ct_tensor *p = param(a, 1);
    return ct_optim_sgd_params(1, &p, &(ct_sgd_options){.lr = lr, .momentum = momentum});
}
#define CHECK_REL(a, b, tol) CHECK_CLOSE((a), (b), (tol) * (1 + fabs((double)(b))))

TEST(test_step_multistep_exponential) {
    ct_optimizer *o = sgd1(0.5, 0);
    ct_lr_scheduler *s = ct_sched_step_lr(o, 3, 0.1);
    for (int t = 0; t <= 12; t++) {
        if (t) { ct_step(o); ct_sched_step(s); }
        CHECK_REL(ct_optim_get_lr(o, 0), 0.5 * pow(0.1, t / 3), 1e-14);
        CHECK(ct_sched_get_last_lr(s, 0) == ct_optim_get_lr(o, 0));
        CHECK_EQ_INT(ct_sched_last_epoch(s), t);
    }
    ct_sched_free(s);
    ct_optim_free(o);

    o = sgd1(1.0, 0);
    const int64_t ms[4] = {2, 5, 5, 8};   /* a repeated milestone counts twice, as with PyTorch's Counter */
    s = ct_sched_multistep_lr(o, 4, ms, 0.5);
    for (int t = 0; t <= 10; t++) {
        if (t) ct_sched_step(s);
        int k = 0;
        for (int q = 0; q < 4; q++) k += ms[q] <= t;
        CHECK_REL(ct_optim_get_lr(o, 0), pow(0.5, k), 1e-15);
    }
    ct_sched_free(s);
    ct_optim_free(o);

    o = sgd1(0.2, 0);
    s = ct_sched_exponential_lr(o, 0.9);
    for (int t = 0; t <= 50; t++) {
        if (t) ct_sched_step(s);
        CHECK_REL(ct_optim_get_lr(o, 0), 0.2 * pow(0.9, t), 1e-13);
    }
    ct_sched_free(s);
    ct_optim_free(o);
    CHECK_ERR(ct_sched_step_lr(o = sgd1(0.1, 0), 0, 0.1), CT_ERR_ARG, "StepLR: step_size must be positive (got 0)");
    ct_optim_free(o);
    CHECK_ERR(ct_sched_step_lr(NULL, 1, 0.1), CT_ERR_NULL, "StepLR: optimizer is NULL");
    CHECK_ERR(ct_sched_step(NULL) == CT_OK, CT_ERR_ARG, "scheduler step: scheduler is NULL");
}

TEST(test_cosine_and_linear) {
    /* two groups with different base lrs follow their own curves */
    double a[1] = {1}, b[1] = {2};
    ct_tensor *pa = param(a, 1), *pb = param(b, 1);
    ct_optimizer *o = ct_optim_sgd_params(1, &pa, &(ct_sgd_options){.lr = 0.1});
    ct_optim_add_param_group(o, 1, &pb, &(ct_sgd_options){.lr = 0.02});
    const double eta = 0.001, T = 10;
    ct_lr_scheduler *s = ct_sched_cosine_annealing_lr(o, 10, eta);
    CHECK_CLOSE(ct_optim_get_option(o, 1, "initial_lr"), 0.02, 0);
    for (int t = 0; t <= 35; t++) {   /* past T_max the (recursive) form keeps following the cosine */
        if (t) ct_sched_step(s);
        CHECK_REL(ct_optim_get_lr(o, 0), eta + (0.1 - eta) * (1 + cos(PI * t / T)) / 2, 1e-12);
        CHECK_REL(ct_optim_get_lr(o, 1), eta + (0.02 - eta) * (1 + cos(PI * t / T)) / 2, 1e-12);
    }
    ct_sched_free(s);
    ct_optim_free(o);
    CHECK_ERR(ct_sched_cosine_annealing_lr(o = sgd1(0.1, 0), 0, 0), CT_ERR_ARG, "CosineAnnealingLR: T_max must be positive");
    ct_optim_free(o);

    o = sgd1(0.3, 0);
    const double sf = 0.25, ef = 0.75;
    const int ti = 4;
    s = ct_sched_linear_lr(o, sf, ef, ti);
    for (int t = 0; t <= 9; t++) {
        if (t) ct_sched_step(s);
        double f = sf + (ef - sf) * (t < ti ? t : ti) / ti;
        CHECK_REL(ct_optim_get_lr(o, 0), 0.3 * f, 1e-14);
    }
    ct_sched_free(s);
    ct_optim_free(o);
    CHECK_ERR(ct_sched_linear_lr(o = sgd1(0.1, 0), 1.5, 1.0, 5), CT_ERR_ARG,
              "LinearLR: Starting multiplicative factor expected to be between 0 and 1.");
    CHECK_ERR(ct_sched_linear_lr(o, 0.5, -1.0, 5), CT_ERR_ARG, "LinearLR: Ending multiplicative factor expected to be between 0 and 1.");
    ct_optim_free(o);
}

/* OneCycleLR's schedule written out: phases end at float(pct * total) - 1 (and
   2 * pct * total - 2), lr anneals between initial_lr = max / div, max_lr and
   min_lr = initial / final_div; momentum goes the other way */
static double anneal(int linear, double a, double b, double pct) {
    return linear ? (b - a) * pct + a : b + (a - b) / 2.0 * (cos(PI * pct) + 1);
}
static void one_cycle_expect(int t, int total, double pct, int linear, int three, double mx, double div, double fdiv,
                             double *lr, double *mom) {
    double init = mx / div, mn = init / fdiv, e1 = pct * total - 1, e2 = 2 * pct * total - 2, e3 = total - 1;
    if (!three) {
        if (t <= e1) { *lr = anneal(linear, init, mx, t / e1); *mom = anneal(linear, 0.95, 0.85, t / e1); }
        else { double p = (t - e1) / (e3 - e1); *lr = anneal(linear, mx, mn, p); *mom = anneal(linear, 0.85, 0.95, p); }
    } else {
        if (t <= e1) { *lr = anneal(linear, init, mx, t / e1); *mom = anneal(linear, 0.95, 0.85, t / e1); }
        else if (t <= e2) { double p = (t - e1) / (e2 - e1); *lr = anneal(linear, mx, init, p); *mom = anneal(linear, 0.85, 0.95, p); }
        else { double p = (t - e2) / (e3 - e2); *lr = anneal(linear, init, mn, p); *mom = 0.95; }
    }
}
TEST(test_one_cycle) {
    for (int variant = 0; variant < 3; variant++) {
        int linear = variant == 1, three = variant == 2, adam = variant == 2;
        double a[1] = {1};
        ct_tensor *p = param(a, 1);
        ct_optimizer *o = adam ? ct_optim_adam_params(1, &p, &(ct_adam_options){.lr = 1e-3})
                               : ct_optim_sgd_params(1, &p, &(ct_sgd_options){.lr = 1e-3, .momentum = 0.9});
        ct_one_cycle_options oc = {0};
        oc.max_lr = 0.1;
        oc.total_steps = 20;
        oc.anneal_strategy = linear ? "linear" : NULL;
        oc.three_phase = three;
        ct_lr_scheduler *s = ct_sched_one_cycle_lr(o, &oc);
        CHECK(s != NULL);
        for (int t = 0; t < 20; t++) {
            if (t) { quad_backward(1, &p, 0); ct_step(o); ct_zero_grad(o); CHECK_EQ_INT(ct_sched_step(s), CT_OK); }
            double lr, mom;
            one_cycle_expect(t, 20, 0.3, linear, three, 0.1, 25, 1e4, &lr, &mom);
            CHECK_REL(ct_optim_get_lr(o, 0), lr, 1e-13);
            CHECK_REL(ct_optim_get_option(o, 0, adam ? "beta1" : "momentum"), mom, 1e-13);
        }
        CHECK_CLOSE(ct_optim_get_option(o, 0, "max_lr"), 0.1, 0);
        CHECK_REL(ct_optim_get_option(o, 0, "min_lr"), 0.1 / 25 / 1e4, 1e-15);
        /* one step past the end is allowed (as in PyTorch), the next is an error */
        CHECK_EQ_INT(ct_sched_step(s), CT_OK);
        CHECK_ERR(ct_sched_step(s) == CT_OK, CT_ERR_STATE, "OneCycleLR: Tried to step 22 times. The specified number of total steps is 20");
        ct_sched_free(s);
        ct_optim_free(o);
    }
    ct_optimizer *o = sgd1(0.1, 0.9);
    ct_one_cycle_options oc = {0};
    oc.max_lr = 0.1;
    CHECK_ERR(ct_sched_one_cycle_lr(o, &oc), CT_ERR_ARG, "OneCycleLR: You must define either total_steps OR (epochs AND steps_per_epoch)");
    oc.epochs = 2;
    CHECK_ERR(ct_sched_one_cycle_lr(o, &oc), CT_ERR_ARG, "OneCycleLR: Expected positive integer steps_per_epoch, but got 0");
    oc.steps_per_epoch = 5;
    oc.pct_start = 1.5;
    CHECK_ERR(ct_sched_one_cycle_lr(o, &oc), CT_ERR_ARG, "OneCycleLR: Expected float between 0 and 1 pct_start, but got 1.5");
    oc.pct_start = 0;
    oc.anneal_strategy = "exp";
    CHECK_ERR(ct_sched_one_cycle_lr(o, &oc), CT_ERR_ARG, "OneCycleLR: anneal_strategy must by one of 'cos' or 'linear', instead got exp");
    ct_optim_free(o);
    double a[1] = {1};
    ct_tensor *p = param(a, 1);
    o = ct_optim_adagrad_params(1, &p, &(ct_adagrad_options){.lr = 0.1});
    oc.anneal_strategy = NULL;
    CHECK_ERR(ct_sched_one_cycle_lr(o, &oc), CT_ERR_ARG, "OneCycleLR: optimizer must support momentum with `cycle_momentum` option enabled");
    oc.no_cycle_momentum = 1;
    ct_lr_scheduler *s = ct_sched_one_cycle_lr(o, &oc);   /* epochs * steps_per_epoch = 10 */
    CHECK(s != NULL);
    CHECK_REL(ct_optim_get_lr(o, 0), 0.1 / 25, 1e-15);
    ct_sched_free(s);
    ct_optim_free(o);
}

TEST(test_scheduler_state_dict) {
    ct_optimizer *oa = sgd1(0.1, 0), *ob = sgd1(0.1, 0);
    ct_lr_scheduler *sa = ct_sched_cosine_annealing_lr(oa, 7, 0.0);
    for (int t = 0; t < 4; t++) ct_sched_step(sa);
    ct_state_dict sd;
    CHECK_EQ_INT(ct_sched_state_dict(sa, &sd), CT_OK);
    ct_optim_set_lr(ob, 0, ct_optim_get_lr(oa, 0));    /* the optimizer's own state_dict carries lr; here set directly */
    ct_lr_scheduler *sb = ct_sched_cosine_annealing_lr(ob, 7, 0.0);
    CHECK_EQ_INT(ct_sched_load_state_dict(sb, &sd), CT_OK);
    CHECK_EQ_INT(ct_sched_last_epoch(sb), 4);
    for (int t = 0; t < 6; t++) {
        ct_sched_step(sa);
        ct_sched_step(sb);
        CHECK(ct_optim_get_lr(oa, 0) == ct_optim_get_lr(ob, 0));
    }
    ct_state_dict_free(&sd);
    CHECK_ERR(ct_sched_load_state_dict(sb, NULL) == CT_OK, CT_ERR_ARG, "load_state_dict: scheduler or state dict is NULL");
    /* counters that stepping on would overflow (found by tests/fuzz/sched_state.c: a
       float -> int64 conversion out of range) are refused, and nothing changes */
    CHECK_EQ_INT(ct_sched_state_dict(sb, &sd), CT_OK);
    double lr0 = ct_sched_get_last_lr(sb, 0);
    int64_t le0 = ct_sched_last_epoch(sb);
    const double bad[4] = {NAN, 1.7e161, -2, 0.5};
    for (int k = 0; k < 2; k++)
        for (int v = 0; v < 4; v++) {
            if (k == 0 && v == 2) continue;   /* ... -2 < -1 */
            ct_tensor *keep = sd.items[k].tensor;
            sd.items[k].tensor = ct_scalar_tensor(bad[v], CT_FLOAT64);
            CHECK_ERR(ct_sched_load_state_dict(sb, &sd) == CT_OK, CT_ERR_ARG, k == 0 ? "CosineAnnealingLR.load_state_dict: \"last_epoch\" must be an integer from -1 to 2^53"
                                                                                  : "\"_step_count\" must be an integer from 0 to 2^53");
            sd.items[k].tensor = keep;
        }
    sd.items[0].tensor = ct_scalar_tensor(-2, CT_FLOAT64);
    CHECK_ERR(ct_sched_load_state_dict(sb, &sd) == CT_OK, CT_ERR_ARG, "must be an integer from -1 to 2^53 (got -2)");
    CHECK_EQ_INT(ct_sched_last_epoch(sb), le0);
    CHECK(ct_sched_get_last_lr(sb, 0) == lr0);
    ct_state_dict_free(&sd);
    ct_sched_free(sa);
    ct_sched_free(sb);
    ct_optim_free(oa);
    ct_optim_free(ob);
}

/* ------------------------------------------------------------ gradient clipping */
static void set_grads(ct_tensor *a, ct_tensor *b, const double *ga, const double *gb) {
    ct_set_grad(a, ct_from_data_n(ga, CT_FLOAT64, 1, &(int64_t){4}));
    ct_set_grad(b, ct_from_data_n(gb, CT_FLOAT64, 1, &(int64_t){2}));
}
TEST(test_clip_grad_norm) {
    double z[4] = {0, 0, 0, 0};
    ct_tensor *a = param(z, 4), *b = param(z, 2);
    ct_tensor *ps[2] = {a, b};
    const double ga[4] = {3, 0, -4, 0}, gb[2] = {12, 0};   /* 2-norms 5 and 12: total 13 */
    set_grads(a, b, ga, gb);
    double total = ct_clip_grad_norm_(2, ps, 6.5, 2.0);
    CHECK_CLOSE(total, 13.0, 1e-15);
    double coef = 6.5 / (13.0 + 1e-6);
    CHECK_CLOSE(at(ct_grad(a), 2), -4 * coef, 1e-15);
    CHECK_CLOSE(at(ct_grad(b), 0), 12 * coef, 1e-15);
    /* under max_norm: grads unchanged (multiplied by the clamped 1.0) */
    set_grads(a, b, ga, gb);
    CHECK_CLOSE(ct_clip_grad_norm_(2, ps, 100.0, 2.0), 13.0, 1e-15);
    CHECK(at(ct_grad(a), 0) == 3 && at(ct_grad(b), 0) == 12);
    /* inf norm: the largest |g|; 1-norm: the sum; 0-"norm": the nonzero count */
    set_grads(a, b, ga, gb);
    CHECK_CLOSE(ct_clip_grad_norm_(2, ps, 1.0, INFINITY), 12.0, 0);
    CHECK_CLOSE(at(ct_grad(b), 0), 12 * (1.0 / (12 + 1e-6)), 1e-15);
    set_grads(a, b, ga, gb);
    CHECK_CLOSE(ct_clip_grad_norm_(2, ps, 100.0, 1.0), 19.0, 1e-15);
    set_grads(a, b, ga, gb);
    /* PyTorch takes the norm of the per-tensor norms: [2 nonzeros, 1 nonzero] has 2 nonzeros */
    CHECK_CLOSE(ct_clip_grad_norm_(2, ps, 100.0, 0.0), 2.0, 0);
    set_grads(a, b, ga, gb);
    CHECK_CLOSE(ct_clip_grad_norm_(2, ps, 100.0, 3.0), pow(27 + 64 + 1728, 1.0 / 3), 1e-12);
    /* non-finite totals */
    const double gn[4] = {NAN, 1, 1, 1};
    set_grads(a, b, gn, gb);
    double tn = 0;
    CHECK_ERR(ct_clip_grad_norm_ex(2, ps, 1.0, 2.0, 1, &tn) == CT_OK, CT_ERR_NUMERIC,
              "clip_grad_norm_: The total norm of order 2.0 for gradients from `parameters` is non-finite, so it cannot be clipped. "
              "To disable this error and scale the gradients by the non-finite norm anyway, set `error_if_nonfinite=False`");
    CHECK(isnan(tn) && at(ct_grad(a), 1) == 1 && at(ct_grad(b), 0) == 12);   /* untouched */
    CHECK(isnan(ct_clip_grad_norm_(2, ps, 1.0, 2.0)));                       /* without the flag: NaN, no error */
    const double gi[4] = {INFINITY, 1, 1, 1};
    set_grads(a, b, gi, gb);
    CHECK_ERR(ct_clip_grad_norm_ex(2, ps, 1.0, INFINITY, 1, &tn) == CT_OK, CT_ERR_NUMERIC, "The total norm of order inf");
    /* float32 grads: the total in float32 */
    ct_set_grad(a, NULL);
    ct_set_grad(b, NULL);
    CHECK_CLOSE(ct_clip_grad_norm_(2, ps, 1.0, 2.0), 0.0, 0);   /* no grads: 0 */
    ct_tensor *f = ct_requires_grad(ct_zeros(CT_FLOAT32, 3));
    ct_set_grad(f, ct_tensor_f32(((float[]){1.0f, 2.0f, 2.0f}), 3));
    CHECK_CLOSE(ct_clip_grad_norm_(1, &f, 1.0, 2.0), 3.0, 0);
    CHECK_CLOSE(ct_item(ct_sum(ct_grad(f))), 5.0f * (float)(1.0f / (3.0f + 1e-6f)), 1e-6);
    /* the module form */
    ct_module *m = ct_nn_linear(3, 2);
    CT_SCOPE { ct_backward(ct_sum(ct_forward(m, ct_ones(CT_FLOAT32, 4, 3)))); }
    double mt = ct_clip_grad_norm_module_(m, 0.5, 2.0);
    CHECK(mt > 0.5);
    ct_tensor *mp[2];
    ct_module_parameters(m, mp, 2);
    CHECK_CLOSE(ct_clip_grad_norm_(2, mp, 100.0, 2.0), 0.5, 1e-5);
    ct_module_free(m);
    /* bad input */
    CHECK_ERR(!isnan(ct_clip_grad_norm_(-1, ps, 1.0, 2.0)), CT_ERR_ARG, "clip_grad_norm_: bad parameter list");
    ct_tensor *withnull[2] = {a, NULL};
    CHECK_ERR(!isnan(ct_clip_grad_norm_(2, withnull, 1.0, 2.0)), CT_ERR_NULL, "clip_grad_norm_: parameter 1 is NULL");
    CHECK_ERR(!isnan(ct_clip_grad_norm_module_(NULL, 1.0, 2.0)), CT_ERR_NULL, "clip_grad_norm_: module is NULL");
}

TEST(test_clip_grad_value) {
    double z[4] = {0, 0, 0, 0};
    ct_tensor *a = param(z, 4), *b = param(z, 2), *c = param(z, 1);
    ct_tensor *ps[3] = {a, b, c};   /* c has no grad: skipped */
    const double ga[4] = {3, -0.25, -4, 0.5}, gb[2] = {-0.75, 0.1};
    set_grads(a, b, ga, gb);
    CHECK_EQ_INT(ct_clip_grad_value_(3, ps, 0.5), CT_OK);
    const double ea[4] = {0.5, -0.25, -0.5, 0.5}, eb[2] = {-0.5, 0.1};
    CHECK_VALUES(ct_grad(a), ea, 4, 0);
    CHECK_VALUES(ct_grad(b), eb, 2, 0);
    CHECK(ct_grad(c) == NULL);
    ct_module *m = ct_nn_linear(3, 2);
    CT_SCOPE { ct_backward(ct_sum(ct_mul_scalar(ct_forward(m, ct_ones(CT_FLOAT32, 4, 3)), 10.0))); }
    CHECK_EQ_INT(ct_clip_grad_value_module_(m, 1.0), CT_OK);
    ct_tensor *w = ct_module_get(m, "weight");
    CHECK_CLOSE(ct_item(ct_amax(ct_abs(ct_grad(w)), 0, NULL, 0)), 1.0, 0);
    ct_module_free(m);
    CHECK_ERR(ct_clip_grad_value_(-1, ps, 1.0) == CT_OK, CT_ERR_ARG, "clip_grad_value_: bad parameter list");
    ct_tensor *withnull[2] = {a, NULL};
    CHECK_ERR(ct_clip_grad_value_(2, withnull, 1.0) == CT_OK, CT_ERR_NULL, "clip_grad_value_: parameter 1 is NULL");
    CHECK_ERR(ct_clip_grad_value_module_(NULL, 1.0) == CT_OK, CT_ERR_NULL, "clip_grad_value_: module is NULL");
}

/* ------------------------------------------------------------ convergence: linear regression */
/* y = X w* + b*, 64 samples of 3 features; loss = mean((X w + b - y)^2) */
static double train_regression(int kind, int steps, double *werr) {
    ct_manual_seed(3);
    ct_tensor *X = ct_randn(CT_FLOAT64, 64, 3);
    const double wt[3] = {1.5, -2.0, 0.5};
    ct_tensor *wstar = ct_tensor_f64(wt, 3, 1);
    ct_tensor *y = ct_add_scalar(ct_matmul(X, wstar), 0.3);
    ct_tensor *w = ct_requires_grad(ct_zeros(CT_FLOAT64, 3, 1)), *b = ct_requires_grad(ct_zeros(CT_FLOAT64, 1));
    ct_tensor *ps[2] = {w, b};
    ct_optimizer *o;
    switch (kind) {
    case 0: o = ct_optim_sgd_params(2, ps, &(ct_sgd_options){.lr = 0.1}); break;
    case 1: o = ct_optim_sgd_params(2, ps, &(ct_sgd_options){.lr = 0.05, .momentum = 0.9, .nesterov = 1}); break;
    case 2: o = ct_optim_adam_params(2, ps, &(ct_adam_options){.lr = 0.05}); break;
    case 3: o = ct_optim_adamw_params(2, ps, &(ct_adamw_options){.lr = 0.05, .weight_decay = CT_ZERO, .amsgrad = 1}); break;
    case 4: o = ct_optim_rmsprop_params(2, ps, &(ct_rmsprop_options){.lr = 0.02}); break;
    default: o = ct_optim_adagrad_params(2, ps, &(ct_adagrad_options){.lr = 0.5}); break;
    }
    /* Adam-like steps keep a size of about lr near the optimum: decay the lr */
    ct_lr_scheduler *s = kind >= 2 && kind <= 4 ? ct_sched_exponential_lr(o, 0.995) : NULL;
    double loss = NAN;
    for (int it = 0; it < steps; it++) CT_SCOPE {
        ct_tensor *r = ct_sub(ct_add(ct_matmul(X, w), b), y);
        ct_tensor *l = ct_mean(ct_mul(r, r));
        loss = ct_item(l);
        ct_zero_grad(o);
        ct_backward(l);
        ct_step(o);
        if (s) ct_sched_step(s);
    }
    *werr = ct_item(ct_amax(ct_abs(ct_sub(w, wstar)), 0, NULL, 0)) + fabs(ct_item(b) - 0.3);
    ct_sched_free(s);
    ct_optim_free(o);
    return loss;
}
TEST(test_linear_regression_converges) {
    static const char *const names[6] = {"SGD", "SGD nesterov", "Adam", "AdamW amsgrad", "RMSprop", "Adagrad"};
    for (int kind = 0; kind < 6; kind++) {
        double werr = NAN, loss = train_regression(kind, 1500, &werr);
        if (getenv("VERBOSE")) printf("%s: loss %g werr %g\n", names[kind], loss, werr);
        CT_T_REPORT(loss < 1e-12 && werr < 1e-5, "%s: final loss %g, parameter error %g", names[kind], loss, werr);
    }
}

/* ------------------------------------------------------------ memory stays flat */
TEST(test_memory_flat) {
    ct_module *m = ct_nn_sequential(ct_nn_linear(8, 16), ct_nn_relu(), ct_nn_linear(16, 1));
    ct_optimizer *opts[3] = {ct_optim_sgd(m, &(ct_sgd_options){.lr = 1e-3, .momentum = 0.9}),
                             ct_optim_adam(m, &(ct_adam_options){.lr = 1e-3, .amsgrad = 1}),
                             ct_optim_rmsprop(m, &(ct_rmsprop_options){.lr = 1e-3, .centered = 1, .momentum = 0.5})};
    ct_tensor *x = ct_randn(CT_FLOAT32, 32, 8);
    for (int k = 0; k < 3; k++) {
        ct_lr_scheduler *s = ct_sched_step_lr(opts[k], 10, 0.5);
        int64_t t1 = 0, b1 = 0;
        for (int it = 0; it < 200; it++) {
            CT_SCOPE {
                ct_tensor *loss = ct_mean(ct_pow_scalar(ct_forward(m, x), 2.0));
                ct_zero_grad(opts[k]);
                ct_backward(loss);
                ct_clip_grad_norm_module_(m, 1.0, 2.0);
                ct_step(opts[k]);
                ct_sched_step(s);
            }
            if (it == 1) { t1 = ct_live_tensors(); b1 = ct_live_bytes(); }
        }
        CHECK_EQ_INT(ct_live_tensors(), t1);
        CHECK_EQ_INT(ct_live_bytes(), b1);
        ct_sched_free(s);
    }
    for (int k = 0; k < 3; k++) ct_optim_free(opts[k]);
    ct_module_free(m);
}

int main(void) {
    ct_t_init();
    int64_t t0 = ct_live_tensors();
    RUN(test_hyperparameter_errors);
    RUN(test_param_groups);
    RUN(test_zero_grad);
    RUN(test_state_dict_resume);
    RUN(test_step_multistep_exponential);
    RUN(test_cosine_and_linear);
    RUN(test_one_cycle);
    RUN(test_scheduler_state_dict);
    RUN(test_clip_grad_norm);
    RUN(test_clip_grad_value);
    RUN(test_linear_regression_converges);
    RUN(test_memory_flat);
    CHECK_EQ_INT(ct_live_tensors(), t0);
    return ct_t_summary();
}
