/* profiler.c - the profiler's cost per op: a 4x4 float32 add (the dispatcher's
   cheapest path) with the profiler off, on (PyTorch's defaults), and on with
   shapes, FLOPs, bytes and allocator bytes recorded. Twin: bench/torch/profiler.py.

   Each call runs 1000 adds in one scope (times are per add):
     add_4x4_f32_off             no profiler (the dispatch hook's one branch)
     add_4x4_f32_on              ct_profiler_start(NULL)-like options
     add_4x4_f32_on_all          record_shapes, profile_memory, with_flops, with_bytes
     add_4x4_f32_off_after       after ct_profiler_stop: back to the first case
   While on, each call ends with ct_profiler_step() under a schedule of
   active=1 steps (each step saves and starts a new trace), so records do not
   pile up over the run; the twin keeps one torch.profiler.profile open for the
   whole case (no schedule: PyTorch's cheapest way). One thread.
   Target (issue 17): off, one predictable branch per op; on, under 1 us per op. */
#include "bench.h"
#define CTENSOR_IMPLEMENTATION
#include "ctensor.h"
#include "ctensor_nn.h"

typedef struct state { ct_tensor *a, *b; int step; } state;
static ct_tensor *volatile sink;
static int saved_events;   /* events in the last saved step (on_trace_ready) */
static void on_ready(void *u) {
    (void)u;
    saved_events = ct_profiler_num_events();
}

static void add1000(void *u) {
    state *s = (state *)u;
    CT_SCOPE {
        for (int i = 0; i < 1000; i++) sink = ct_add(s->a, s->b);
    }
    if (s->step) ct_profiler_step();
}

static void run_case(const char *name, const char *params, state *s, const ct_profiler_options *o) {
    if (!bench_selected(name)) return;
    static const ct_profiler_schedule every_step = {0, 0, 1, 0, 0};
    ct_profiler_options po;
    s->step = 0;
    if (o) {
        po = *o;
        po.schedule = &every_step;
        po.on_trace_ready = on_ready;
        if (ct_profiler_start(&po) != CT_OK) {
            printf("# %s: FAILED: %s\n", name, ct_last_error());
            return;
        }
        s->step = 1;
    }
    sink = NULL;
    saved_events = 0;
    add1000(s);
    if (!sink || (o && saved_events < 1000)) {
        printf("# %s: FAILED: %s\n", name, sink ? "nothing recorded" : ct_last_error());
    } else {
        bench_opts bo = {1000, 0, 0, NULL};
        bench_run_opts(name, params, add1000, s, &bo);
    }
    if (o) ct_profiler_stop();
}

int main(void) {
    bench_begin("profiler");
    bench_set_threads(1);
    ct_manual_seed(0);
    state s;
    int root = ct_scope_begin();
    s.a = ct_randn(CT_FLOAT32, 4, 4);
    s.b = ct_randn(CT_FLOAT32, 4, 4);
    if (!s.a || !s.b) {
        fprintf(stderr, "profiler: setup failed: %s\n", ct_last_error());
        return 1;
    }
    int prev = ct_set_grad_enabled(0); /* as torch.no_grad() in the twin */
    ct_profiler_options plain = {0, 0, 0, 0, NULL, NULL, NULL};
    ct_profiler_options all = {1, 1, 1, 1, NULL, NULL, NULL};
    run_case("add_4x4_f32_off", "a + b, profiler off", &s, NULL);
    run_case("add_4x4_f32_on", "a + b, profiler on (defaults)", &s, &plain);
    run_case("add_4x4_f32_on_all", "a + b, shapes+memory+flops(+bytes)", &s, &all);
    run_case("add_4x4_f32_off_after", "a + b, after the profiler stopped", &s, NULL);
    ct_set_grad_enabled(prev);
    sink = NULL;
    ct_scope_end(root);
    return 0;
}
