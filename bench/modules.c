/* Module construction and loading, timed like their twin bench/torch/modules.py (1 thread):
     resnet18_build             build a ResNet-18 (torchvision's layout and initialisation:
                                every layer's default init, then kaiming_normal_(fan_out,
                                relu) over the convolutions and BatchNorm's 1 / 0) and free it
     resnet18_build_skip_init   the same under CT_SKIP_INIT (PyTorch: device="meta", then
                                to_empty(device="cpu"), what torch.nn.utils.skip_init does)
     resnet18_load_state_dict   load_state_dict of another ResNet-18's state dict (strict)
     resnet18_load_safetensors  load from safetensors bytes in memory (ctensor only)
     resnet18_skip_init_and_load  CT_SKIP_INIT build + load_state_dict: a model ready to run
                                from a checkpoint (PyTorch: meta + to_empty + load_state_dict)
   Before timing, a check: a skip-init ResNet-18 loaded from another's state dict gives
   that model's logits exactly (printed as a comment line). */
#include "bench.h"
#define CTENSOR_IMPLEMENTATION
#include "ctensor.h"
#include "ctensor_nn.h"
#include "zoo.h"

/* torchvision's ResNet-18: bench/zoo.h (shared with bench/models.c) */
static ct_module *resnet18(int64_t num_classes) { return bench_resnet18(num_classes); }

/* ---- cases ---- */
typedef struct state {
    ct_state_dict sd;       /* the source model's state dict */
    void *st;               /* ... as safetensors bytes */
    size_t st_len;
    ct_module *target;      /* a model to load into */
} state;

static void build(void *u) {
    (void)u;
    ct_module_free(resnet18(1000));
}
static void build_skip(void *u) {
    (void)u;
    ct_module *m = NULL;
    CT_SKIP_INIT m = resnet18(1000);
    ct_module_free(m);
}
static void load_sd(void *u) {
    state *s = (state *)u;
    if (ct_module_load_state_dict(s->target, &s->sd, 1)) { fprintf(stderr, "%s\n", ct_last_error()); exit(1); }
}
static void load_st(void *u) {
    state *s = (state *)u;
    if (ct_module_load_safetensors_mem(s->target, s->st, s->st_len, 1)) { fprintf(stderr, "%s\n", ct_last_error()); exit(1); }
}
static void skip_and_load(void *u) {
    state *s = (state *)u;
    ct_module *m = NULL;
    CT_SKIP_INIT m = resnet18(1000);
    if (ct_module_load_state_dict(m, &s->sd, 1)) { fprintf(stderr, "%s\n", ct_last_error()); exit(1); }
    ct_module_free(m);
}

int main(void) {
    bench_begin("modules");
    bench_set_threads(1);
    ct_manual_seed(0);
    ct_module *src = resnet18(1000);
    state s;
    if (!src || ct_module_state_dict(src, &s.sd) || ct_module_save_safetensors_mem(src, &s.st, &s.st_len)) {
        printf("# resnet18: FAILED: %s\n", ct_last_error());
        return 1;
    }
    CT_SKIP_INIT s.target = resnet18(1000);
    /* the check: a skip-init model loaded from src computes src's logits */
    CT_SCOPE {
        ct_module_eval(src);
        ct_module_eval(s.target);
        ct_module_load_state_dict(s.target, &s.sd, 1);
        ct_tensor *x = ct_randn(CT_FLOAT32, 1, 3, 64, 64);
        ct_tensor *a = ct_forward(src, x), *b = ct_forward(s.target, x);
        printf("# check: skip-init ResNet-18 + load_state_dict gives the source model's logits: %s "
               "(%lld parameters, %d state-dict tensors, %zu safetensors bytes)\n",
               a && b && ct_equal(a, b) == 1 ? "yes" : "NO", (long long)ct_module_num_elements(src), s.sd.n, s.st_len);
    }
    bench_run("resnet18_build", "torchvision layout, random init", build, NULL);
    bench_run("resnet18_build_skip_init", "CT_SKIP_INIT / meta + to_empty", build_skip, NULL);
    bench_run("resnet18_load_state_dict", "strict, 122 tensors", load_sd, &s);
    bench_run("resnet18_load_safetensors", "from memory, strict", load_st, &s);
    bench_run("resnet18_skip_init_and_load", "skip-init build + load_state_dict", skip_and_load, &s);
    ct_state_dict_free(&s.sd);
    CT_FREE(s.st);
    ct_module_free(s.target);
    ct_module_free(src);
    return 0;
}
