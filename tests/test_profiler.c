/* test_profiler.c - the profiler (torch.profiler): per-op records from the
   dispatch hook (calls, self <= total, shapes, bytes, FLOPs as PyTorch 1.13's
   profiler counts them, allocator bytes), user ranges nesting into the tree,
   the key-averages table and its sorting, the Chrome trace's structure, the
   wait/warmup/active schedule with on_trace_ready, and errors. */
#ifndef CT_TEST_SHARED_IMPL   /* else linked from tests/ct_impl.c (Makefile) */
#define CTENSOR_IMPLEMENTATION
#endif
#include "ct_test.h"
#include "ctensor_nn.h"
#include <pthread.h>

static char trace_path[1024];

static int count_named(const char *name) {
    int n = 0;
    for (int i = 0; i < ct_profiler_num_events(); i++) {
        ct_profiler_event e;
        if (ct_profiler_get_event(i, &e) == CT_OK && !strcmp(e.name, name)) n++;
    }
    return n;
}
static int find_named(const char *name, int nth) {
    for (int i = 0; i < ct_profiler_num_events(); i++) {
        ct_profiler_event e;
        if (ct_profiler_get_event(i, &e) == CT_OK && !strcmp(e.name, name) && nth-- == 0) return i;
    }
    return -1;
}
static int64_t sum_field(const char *name, int which) {
    int64_t s = 0;
    for (int i = 0; i < ct_profiler_num_events(); i++) {
        ct_profiler_event e;
        if (ct_profiler_get_event(i, &e) != CT_OK || strcmp(e.name, name)) continue;
        s += which == 0 ? e.flops : which == 1 ? e.bytes : e.cpu_mem;
    }
    return s;
}
static int self_le_total(void) {
    for (int i = 0; i < ct_profiler_num_events(); i++) {
        ct_profiler_event e;
        if (ct_profiler_get_event(i, &e) != CT_OK || e.self_us < 0 || e.self_us > e.total_us + 1e-9) return 0;
        if (e.parent >= 0) {   /* a child lies inside its parent */
            ct_profiler_event p;
            ct_profiler_get_event(e.parent, &p);
            if (e.start_us < p.start_us || e.start_us + e.total_us > p.start_us + p.total_us + 1e-6) return 0;
        }
    }
    return 1;
}

/* a few adds and a matmul: calls, shapes, FLOPs (2 M N K for mm, numel for add), bytes, memory */
TEST(test_counts_flops_bytes) {
    ct_tensor *a = ct_randn(CT_FLOAT32, 3, 5), *b = ct_randn(CT_FLOAT32, 5, 7);
    ct_profiler_options o = {1, 1, 1, 1, NULL, NULL, NULL};
    CHECK_EQ_INT(ct_profiler_start(&o), CT_OK);
    CHECK_EQ_INT(ct_profiler_current_action(), CT_PROFILER_RECORD);
    ct_tensor *c = ct_add(a, a);
    c = ct_add(c, a);
    c = ct_add(c, a);
    ct_tensor *m = ct_mm(c, b);
    CHECK_EQ_INT(ct_profiler_stop(), CT_OK);
    CHECK(m != NULL);
    CHECK_EQ_INT(ct_profiler_current_action(), CT_PROFILER_NONE);
    CHECK_EQ_INT(ct_profiler_num_events(), 4);
    CHECK_EQ_INT(count_named("aten::add"), 3);
    CHECK_EQ_INT(count_named("aten::mm"), 1);
    CHECK_EQ_INT(sum_field("aten::mm", 0), 2 * 3 * 5 * 7);   /* torch.profiler: 210 for a 3x5 @ 5x7 */
    CHECK_EQ_INT(sum_field("aten::add", 0), 3 * 15);         /* torch.profiler: 15 per add */
    CHECK_EQ_INT(sum_field("aten::add", 1), 3 * 3 * 60);     /* two inputs and the output, 60 bytes each */
    CHECK_EQ_INT(sum_field("aten::mm", 1), 60 + 140 + 84);
    CHECK_EQ_INT(sum_field("aten::add", 2), 3 * 60);         /* torch.profiler: CPU Mem 60 b per add */
    ct_profiler_event e;
    CHECK_EQ_INT(ct_profiler_get_event(find_named("aten::mm", 0), &e), CT_OK);
    CHECK_STR(e.schema_name, "aten::mm");
    CHECK(!e.is_range && e.parent == -1 && e.depth == 0 && e.ninputs == 2 && e.dtype == CT_FLOAT32);
    CHECK_EQ_INT(ct_profiler_get_event(0, &e), CT_OK);
    CHECK_STR(e.schema_name, "aten::add.Tensor");
    char shapes[64];
    CHECK_EQ_INT(ct_profiler_event_shapes(0, shapes, sizeof shapes), 16);
    CHECK_STR(shapes, "[[3, 5], [3, 5]]");
    CHECK(ct_profiler_event_shapes(3, shapes, sizeof shapes) > 0);
    CHECK_STR(shapes, "[[3, 5], [5, 7]]");
    CHECK(self_le_total());
    /* stopped: ops are no longer recorded */
    ct_add(a, a);
    CHECK_EQ_INT(ct_profiler_num_events(), 4);
    /* PyTorch's defaults (NULL options): no shapes, FLOPs, bytes or memory */
    CHECK_EQ_INT(ct_profiler_start(NULL), CT_OK);
    ct_add(a, a);
    CHECK_EQ_INT(ct_profiler_stop(), CT_OK);
    CHECK_EQ_INT(ct_profiler_num_events(), 1);
    CHECK_EQ_INT(ct_profiler_get_event(0, &e), CT_OK);
    CHECK(e.flops == 0 && e.bytes == 0 && e.cpu_mem == 0);
    CHECK_EQ_INT(ct_profiler_event_shapes(0, shapes, sizeof shapes), 2);
    CHECK_STR(shapes, "[]");
    /* a view moves no data */
    ct_profiler_options ob = {0, 0, 0, 1, NULL, NULL, NULL};
    CHECK_EQ_INT(ct_profiler_start(&ob), CT_OK);
    ct_tensor *v = ct_transpose(a, 0, 1);
    ct_neg(v);
    CHECK_EQ_INT(ct_profiler_stop(), CT_OK);
    CHECK_EQ_INT(ct_profiler_num_events(), 2);
    CHECK_EQ_INT(ct_profiler_get_event(0, &e), CT_OK);
    CHECK(e.bytes == 0 && e.flops == 0);
    CHECK_EQ_INT(ct_profiler_get_event(1, &e), CT_OK);
    CHECK_STR(e.name, "aten::neg");
    CHECK_EQ_INT(e.bytes, 2 * 60);
}

/* Linear forward and backward: addmm forward (2 M N K), backward ops seen too */
TEST(test_linear_forward_backward) {
    ct_manual_seed(0);
    ct_module *lin = ct_nn_linear(5, 7);
    ct_tensor *x = ct_randn(CT_FLOAT32, 3, 5);
    ct_profiler_options o = {1, 0, 1, 0, NULL, NULL, NULL};
    CHECK_EQ_INT(ct_profiler_start(&o), CT_OK);
    ct_tensor *loss = ct_sum(ct_forward(lin, x));
    CHECK_EQ_INT(ct_backward(loss), CT_OK);
    CHECK_EQ_INT(ct_profiler_stop(), CT_OK);
    CHECK_EQ_INT(count_named("aten::addmm"), 1);
    CHECK_EQ_INT(sum_field("aten::addmm", 0), 2 * 3 * 5 * 7);
    CHECK(count_named("aten::mm") >= 1);   /* the weight's gradient */
    int i = find_named("aten::mm", 0);
    char s[64];
    ct_profiler_event_shapes(i, s, sizeof s);
    /* grad_W = g^T x: [7, 3] @ [3, 5], 2 * 7 * 3 * 5 FLOPs */
    ct_profiler_event e;
    ct_profiler_get_event(i, &e);
    CHECK_EQ_INT(e.flops, 2 * 7 * 3 * 5);
    CHECK(self_le_total());
    CHECK(ct_grad(lin->params[0].tensor) != NULL);
    ct_module_free(lin);
}

/* user ranges nest with ops: record_function */
TEST(test_ranges_nest) {
    ct_tensor *a = ct_randn(CT_FLOAT32, 4, 4);
    CHECK_EQ_INT(ct_profiler_range_push("not_running"), CT_OK);   /* no-ops while stopped */
    CHECK_EQ_INT(ct_profiler_range_pop(), CT_OK);
    CHECK_EQ_INT(ct_profiler_start(NULL), CT_OK);
    CHECK_EQ_INT(ct_profiler_range_push("outer"), CT_OK);
    ct_add(a, a);
    CHECK_EQ_INT(ct_profiler_range_push("inner \"quoted\""), CT_OK);
    ct_mul(a, a);
    CHECK_EQ_INT(ct_profiler_range_pop(), CT_OK);
    CHECK_EQ_INT(ct_profiler_range_pop(), CT_OK);
    ct_tanh(a);
    CHECK_EQ_INT(ct_profiler_stop(), CT_OK);
    CHECK_EQ_INT(ct_profiler_num_events(), 5);
    ct_profiler_event outer, add, inner, mul, tanh_;
    ct_profiler_get_event(0, &outer);
    ct_profiler_get_event(1, &add);
    ct_profiler_get_event(2, &inner);
    ct_profiler_get_event(3, &mul);
    ct_profiler_get_event(4, &tanh_);
    CHECK_STR(outer.name, "outer");
    CHECK(outer.is_range && outer.parent == -1 && outer.depth == 0);
    CHECK_STR(add.name, "aten::add");
    CHECK(add.parent == 0 && add.depth == 1);
    CHECK_STR(inner.name, "inner \"quoted\"");
    CHECK(inner.is_range && inner.parent == 0 && inner.depth == 1);
    CHECK_STR(mul.name, "aten::mul");
    CHECK(mul.parent == 2 && mul.depth == 2);
    CHECK_STR(tanh_.name, "aten::tanh");
    CHECK(tanh_.parent == -1 && tanh_.depth == 0);
    /* self = total minus the direct children */
    CHECK_CLOSE(outer.self_us, outer.total_us - add.total_us - inner.total_us, 1e-6);
    CHECK_CLOSE(inner.self_us, inner.total_us - mul.total_us, 1e-6);
    CHECK_CLOSE(mul.self_us, mul.total_us, 1e-9);
    CHECK(outer.total_us >= add.total_us + inner.total_us);
    CHECK(self_le_total());
}

/* ops run inside another op's kernel (dispatch depth > 0) are recorded under it */
static int square_kernel(ct_op_call *c) {   /* a CPU kernel for tanh made of ops: x * x */
    int sc = ct_scope_begin();
    ct_tensor *r = ct_copy_(ct_op_call_output(c, 0), ct_mul(ct_op_call_input(c, 0), ct_op_call_input(c, 0)));
    ct_scope_end(sc);
    return r ? 0 : -1;
}
TEST(test_nested_ops) {
    ct_tensor *a = ct_randn(CT_FLOAT32, 3, 3);
    CHECK_EQ_INT(ct_register_kernel("aten::tanh", CT_BACKEND_CPU, square_kernel), CT_OK);
    CHECK_EQ_INT(ct_profiler_start(NULL), CT_OK);
    ct_tensor *y = ct_tanh(a);
    CHECK_EQ_INT(ct_profiler_stop(), CT_OK);
    CHECK_EQ_INT(ct_register_kernel("aten::tanh", CT_BACKEND_CPU, NULL), CT_OK);
    CHECK(y != NULL);
    CHECK_EQ_INT(ct_profiler_num_events(), 3);
    ct_profiler_event t, m, c;
    ct_profiler_get_event(0, &t);
    ct_profiler_get_event(1, &m);
    ct_profiler_get_event(2, &c);
    CHECK_STR(t.name, "aten::tanh");
    CHECK_STR(m.name, "aten::mul");
    CHECK_STR(c.name, "aten::copy_");
    CHECK(t.depth == 0 && m.parent == 0 && m.depth == 1 && c.parent == 0 && c.depth == 1);
    CHECK_CLOSE(t.self_us, t.total_us - m.total_us - c.total_us, 1e-6);
    CHECK(t.total_us >= m.total_us + c.total_us);
    /* the table: tanh's total includes its children, its self time does not */
    ct_profiler_table_options o = {"name", 0, 0, 0};
    char buf[4096];
    CHECK(ct_profiler_table(buf, sizeof buf, &o) > 0 && strstr(buf, "aten::tanh"));
}

/* the hook is per thread: another thread's ops and ranges are not recorded */
static void *other_thread(void *u) {
    ct_tensor *a = (ct_tensor *)u;
    int sc = ct_scope_begin();
    ct_status st = ct_profiler_range_push("elsewhere");
    ct_tensor *r = ct_mul(a, a);
    ct_status st2 = ct_profiler_range_pop();
    ct_status st3 = ct_profiler_step();   /* only the starting thread drives the profiler */
    int ok = st == CT_OK && r && st2 == CT_OK && st3 == CT_ERR_STATE && strstr(ct_last_error(), "other than the one that started");
    ct_scope_end(sc);
    return ok ? u : NULL;
}
TEST(test_threads) {
    ct_tensor *a = ct_randn(CT_FLOAT32, 3, 3);
    CHECK_EQ_INT(ct_profiler_start(NULL), CT_OK);
    ct_add(a, a);
    pthread_t th;
    void *ret = NULL;
    CHECK(pthread_create(&th, NULL, other_thread, a) == 0 && pthread_join(th, &ret) == 0);
    CHECK(ret == a);
    ct_add(a, a);
    CHECK_EQ_INT(ct_profiler_stop(), CT_OK);
    CHECK_EQ_INT(ct_profiler_num_events(), 2);
    CHECK_EQ_INT(count_named("aten::add"), 2);
}

static int line_count(const char *s) {
    int n = 0;
    for (; *s; s++) n += *s == '\n';
    return n;
}
static const char *nth_line(const char *s, int k) {
    while (k-- > 0 && s) {
        s = strchr(s, '\n');
        if (s) s++;
    }
    return s;
}

TEST(test_table) {
    ct_tensor *a = ct_randn(CT_FLOAT32, 3, 5), *b = ct_randn(CT_FLOAT32, 5, 7), *big = ct_randn(CT_FLOAT32, 64, 64);
    ct_profiler_options o = {1, 1, 1, 1, NULL, NULL, NULL};
    CHECK_EQ_INT(ct_profiler_start(&o), CT_OK);
    for (int i = 0; i < 3; i++) ct_add(a, a);
    ct_add(big, big);
    ct_mm(a, b);
    ct_mm(big, big);
    ct_sum(a);   /* no FLOP count */
    CHECK_EQ_INT(ct_profiler_stop(), CT_OK);
    /* snprintf semantics: the length first, then the text */
    size_t n = ct_profiler_table(NULL, 0, NULL);
    CHECK(n > 0);
    char *t = (char *)malloc(n + 1);
    CHECK_EQ_INT(ct_profiler_table(t, n + 1, NULL), n);
    CHECK_EQ_INT(strlen(t), n);
    CHECK(strstr(t, "Name") && strstr(t, "Self CPU %") && strstr(t, "CPU total %") && strstr(t, "CPU time avg"));
    CHECK(strstr(t, "CPU Mem") && strstr(t, "Self CPU Mem") && strstr(t, "# of Calls") && strstr(t, "Total KFLOPs"));
    CHECK(strstr(t, "Total Bytes") && strstr(t, "Self CPU time total: ") && !strstr(t, "Input Shapes"));
    CHECK_EQ_INT(line_count(t), 3 + 3 + 2);   /* sep, header, sep, 3 rows, sep, total */
    /* by count: add (4 calls) first, then mm (2), then sum (1) */
    ct_profiler_table_options to = {"count", 0, 0, 0};
    ct_profiler_table(t, n + 1, &to);
    const char *r0 = nth_line(t, 3), *r1 = nth_line(t, 4), *r2 = nth_line(t, 5);
    CHECK(r0 && r1 && r2 && strstr(r0, "aten::add") && strstr(r0, "           4  ") && strstr(r1, "aten::mm") && strstr(r2, "aten::sum"));
    /* the unit from the smallest count (add: 3 * 15 + 64 * 64 = 4141): mm's 2*3*5*7 + 2*64^3 in KFLOPs */
    CHECK(r0 && r1 && strstr(r0, "       4.141  ") && strstr(r1, "     524.498  "));
    /* by flops: mm before add; sum has none: "--" */
    to.sort_by = "flops";
    ct_profiler_table(t, n + 1, &to);
    CHECK(strstr(nth_line(t, 3), "aten::mm") && strstr(nth_line(t, 4), "aten::add") && strstr(nth_line(t, 5), "--"));
    /* by name, ascending; a row limit */
    to.sort_by = "name";
    to.row_limit = 2;
    ct_profiler_table(t, n + 1, &to);
    CHECK_EQ_INT(line_count(t), 3 + 2 + 2);
    CHECK(strstr(nth_line(t, 3), "aten::add") && strstr(nth_line(t, 4), "aten::mm"));
    /* by bytes: add moves 3 * 180 + 3 * 16384 bytes, mm 284 + 3 * 16384 */
    to.sort_by = "bytes";
    to.row_limit = 1;
    ct_profiler_table(t, n + 1, &to);
    CHECK(strstr(nth_line(t, 3), "aten::add") && strstr(nth_line(t, 3), "48.53 Kb"));
    free(t);
    /* grouped by input shapes: add splits into [[3, 5], [3, 5]] x3 and [[64, 64], [64, 64]] x1 */
    ct_profiler_table_options g = {"count", 0, 1, 0};
    n = ct_profiler_table(NULL, 0, &g);
    t = (char *)malloc(n + 1);
    ct_profiler_table(t, n + 1, &g);
    CHECK(strstr(t, "Input Shapes") != NULL);
    CHECK_EQ_INT(line_count(t), 3 + 5 + 2);
    CHECK(strstr(nth_line(t, 3), "aten::add") && strstr(nth_line(t, 3), "[[3, 5], [3, 5]]"));
    /* a truncated buffer is still terminated */
    char small[16];
    CHECK_EQ_INT(ct_profiler_table(small, sizeof small, &g), n);
    CHECK_EQ_INT(strlen(small), 15);
    free(t);
    /* key_averages() as data */
    ct_profiler_avg rows[8];
    ct_profiler_table_options kc = {"count", 0, 0, 0};
    CHECK_EQ_INT(ct_profiler_key_averages(NULL, 0, &kc), 3);
    CHECK_EQ_INT(ct_profiler_key_averages(rows, 8, &kc), 3);
    CHECK_STR(rows[0].name, "aten::add");
    CHECK_EQ_INT(rows[0].count, 4);
    CHECK_EQ_INT(rows[0].flops, 4141);
    CHECK_EQ_INT(rows[0].cpu_mem, 3 * 60 + 16384);
    CHECK_CLOSE(rows[0].avg_us, rows[0].total_us / 4, 1e-9);
    CHECK_STR(rows[1].name, "aten::mm");
    CHECK_EQ_INT(rows[1].flops, 524498);
    CHECK(!strcmp(rows[2].name, "aten::sum") && rows[2].flops == 0 && rows[2].count == 1);
    CHECK_CLOSE(rows[0].self_percent + rows[1].self_percent + rows[2].self_percent, 100.0, 1e-6);
    kc.row_limit = 2;
    CHECK_EQ_INT(ct_profiler_key_averages(rows, 1, &kc), 2);   /* two rows exist, one written */
    CHECK_ERR(ct_profiler_key_averages(NULL, 2, NULL) >= 0, CT_ERR_ARG, "profiler_key_averages: rows is NULL or cap (2)");
    /* the Self CPU % column adds up to 100 */
    ct_profiler_event e;
    double self_all = 0;
    for (int i = 0; i < ct_profiler_num_events(); i++) {
        ct_profiler_get_event(i, &e);
        self_all += e.self_us;
    }
    CHECK(self_all > 0);
}

static char *read_text(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *b = (char *)malloc((size_t)n + 1);
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) { free(b); b = NULL; }
    if (b) b[n] = 0;
    fclose(f);
    return b;
}
static int count_str(const char *s, const char *w) {
    int n = 0;
    for (const char *p = strstr(s, w); p; p = strstr(p + 1, w)) n++;
    return n;
}
/* brackets balance outside strings, strings close, and nothing follows the top object */
static int json_shape_ok(const char *s) {
    int depth = 0, in_str = 0, closed = 0;
    for (; *s; s++) {
        if (in_str) {
            if (*s == '\\') { if (!*++s) return 0; }
            else if (*s == '"') in_str = 0;
            continue;
        }
        if (closed && *s != '\n' && *s != ' ') return 0;
        if (*s == '"') in_str = 1;
        else if (*s == '{' || *s == '[') depth++;
        else if (*s == '}' || *s == ']') {
            if (--depth < 0) return 0;
            if (depth == 0) closed = 1;
        }
    }
    return !in_str && depth == 0 && closed;
}

TEST(test_chrome_trace) {
    ct_tensor *a = ct_randn(CT_FLOAT32, 3, 5), *b = ct_randn(CT_FLOAT32, 5, 7);
    ct_profiler_options o = {1, 0, 1, 0, NULL, NULL, NULL};
    CHECK_EQ_INT(ct_profiler_start(&o), CT_OK);
    CHECK_EQ_INT(ct_profiler_range_push("my \"block\""), CT_OK);
    ct_add(a, a);
    ct_add(a, a);
    ct_mm(a, b);
    CHECK_EQ_INT(ct_profiler_range_pop(), CT_OK);
    CHECK_EQ_INT(ct_profiler_stop(), CT_OK);
    CHECK_EQ_INT(ct_profiler_export_chrome_trace(trace_path), CT_OK);
    char *s = read_text(trace_path);
    CHECK(s != NULL);
    if (!s) return;
    CHECK(json_shape_ok(s));
    CHECK(!strncmp(s, "{\n  \"schemaVersion\": 1,\n  \"traceEvents\": [", 42));
    CHECK_EQ_INT(count_str(s, "\"ph\": \"X\""), 4);
    CHECK_EQ_INT(count_str(s, "\"cat\": \"cpu_op\""), 3);
    CHECK_EQ_INT(count_str(s, "\"cat\": \"user_annotation\", \"name\": \"my \\\"block\\\"\""), 1);
    CHECK_EQ_INT(count_str(s, "\"name\": \"aten::add\""), 2);
    CHECK_EQ_INT(count_str(s, "\"Input Dims\": [[3, 5], [3, 5]]"), 2);
    CHECK_EQ_INT(count_str(s, "\"Input Dims\": [[3, 5], [5, 7]], \"FLOPs\": 210"), 1);
    CHECK_EQ_INT(count_str(s, "\"ts\": "), 4);
    CHECK_EQ_INT(count_str(s, "\"dur\": "), 4);
    CHECK(strstr(s, "\"dtype\": \"float32\"") != NULL);
    free(s);
    remove(trace_path);
}

/* torch.profiler.schedule(wait=1, warmup=1, active=2, repeat=1) */
static int ready_calls, ready_adds, ready_steps;
static void on_ready(void *user) {
    (*(int *)user)++;
    ready_calls++;
    ready_adds = count_named("aten::add");
    ready_steps = count_named("ProfilerStep#2") + count_named("ProfilerStep#3");
}
TEST(test_schedule) {
    ct_tensor *a = ct_randn(CT_FLOAT32, 2, 2);
    ct_profiler_schedule sch = {1, 1, 2, 1, 0};
    int user = 0;
    ct_profiler_options o = {0, 0, 0, 0, &sch, on_ready, &user};
    ready_calls = ready_adds = ready_steps = 0;
    CHECK_EQ_INT(ct_profiler_start(&o), CT_OK);
    ct_profiler_action expect[] = {CT_PROFILER_NONE, CT_PROFILER_WARMUP, CT_PROFILER_RECORD, CT_PROFILER_RECORD_AND_SAVE,
                                   CT_PROFILER_NONE, CT_PROFILER_NONE};
    for (int step = 0; step < 6; step++) {
        CHECK_EQ_INT(ct_profiler_current_action(), expect[step]);
        ct_add(a, a);
        if (step == 1) CHECK_EQ_INT(ct_profiler_num_events(), 2);   /* warming up: ProfilerStep#1 and an add */
        CHECK_EQ_INT(ct_profiler_step(), CT_OK);
        CHECK_EQ_INT(ready_calls, step >= 3 ? 1 : 0);
    }
    CHECK_EQ_INT(ct_profiler_stop(), CT_OK);
    CHECK_EQ_INT(ready_calls, 1);
    CHECK_EQ_INT(user, 1);
    CHECK_EQ_INT(ready_adds, 2);
    CHECK_EQ_INT(ready_steps, 2);
    /* the saved cycle stays readable after stop */
    CHECK_EQ_INT(count_named("aten::add"), 2);
    CHECK_EQ_INT(count_named("ProfilerStep#2"), 1);
    CHECK_EQ_INT(count_named("ProfilerStep#1"), 0);   /* warmup dropped */
    int s2 = find_named("ProfilerStep#2", 0);
    ct_profiler_event e;
    ct_profiler_get_event(s2 + 1, &e);
    CHECK(!strcmp(e.name, "aten::add") && e.parent == s2);
    CHECK(self_le_total());

    /* skip_first, repeat 0 (until stopped), stop while recording saves */
    ct_profiler_schedule s2b = {0, 0, 2, 0, 1};
    o.schedule = &s2b;
    ready_calls = 0;
    CHECK_EQ_INT(ct_profiler_start(&o), CT_OK);
    CHECK_EQ_INT(ct_profiler_current_action(), CT_PROFILER_NONE);
    for (int step = 0; step < 4; step++) {   /* steps 1, 2 | 3, 4: one save at step 2 -> 3 */
        ct_add(a, a);
        CHECK_EQ_INT(ct_profiler_step(), CT_OK);
    }
    CHECK_EQ_INT(ready_calls, 1);
    CHECK_EQ_INT(ct_profiler_current_action(), CT_PROFILER_RECORD_AND_SAVE);
    ct_add(a, a);
    CHECK_EQ_INT(ct_profiler_stop(), CT_OK);
    CHECK_EQ_INT(ready_calls, 2);
    CHECK_EQ_INT(count_named("aten::add"), 2);   /* steps 3 and 4 */

    /* no schedule: one on_trace_ready at stop, no ProfilerStep ranges */
    ct_profiler_options plain = {0, 0, 0, 0, NULL, on_ready, &user};
    ready_calls = 0;
    CHECK_EQ_INT(ct_profiler_start(&plain), CT_OK);
    ct_add(a, a);
    CHECK_EQ_INT(ct_profiler_step(), CT_OK);
    ct_add(a, a);
    CHECK_EQ_INT(ct_profiler_stop(), CT_OK);
    CHECK_EQ_INT(ready_calls, 1);
    CHECK_EQ_INT(ct_profiler_num_events(), 2);
}

TEST(test_errors) {
    ct_tensor *a = ct_randn(CT_FLOAT32, 2, 2);
    CHECK_ERR(ct_profiler_stop() == CT_OK, CT_ERR_STATE, "profiler_stop: the profiler is not running");
    CHECK_ERR(ct_profiler_step() == CT_OK, CT_ERR_STATE, "profiler_step: the profiler is not running");
    ct_profiler_schedule bad = {1, 1, 0, 1, 0};
    ct_profiler_options o = {0, 0, 0, 0, &bad, NULL, NULL};
    CHECK_ERR(ct_profiler_start(&o) == CT_OK, CT_ERR_ARG, "Invalid profiler schedule arguments (wait=1, warmup=1, active=0");
    ct_profiler_schedule neg = {-1, 0, 1, 0, 0};
    o.schedule = &neg;
    CHECK_ERR(ct_profiler_start(&o) == CT_OK, CT_ERR_ARG, "wait=-1");
    ct_profiler_schedule neg2 = {0, 0, 1, -2, 0};
    o.schedule = &neg2;
    CHECK_ERR(ct_profiler_start(&o) == CT_OK, CT_ERR_ARG, "repeat=-2");
    CHECK_EQ_INT(ct_profiler_current_action(), CT_PROFILER_NONE);
    CHECK_EQ_INT(ct_profiler_start(NULL), CT_OK);
    CHECK_ERR(ct_profiler_start(NULL) == CT_OK, CT_ERR_STATE, "profiler_start: the profiler is already running");
    CHECK_ERR(ct_profiler_range_pop() == CT_OK, CT_ERR_STATE, "profiler_range_pop: no range is open");
    CHECK_ERR(ct_profiler_range_push(NULL) == CT_OK, CT_ERR_ARG, "profiler_range_push: name is NULL");
    CHECK_EQ_INT(ct_profiler_stop(), CT_OK);
    /* nothing recorded */
    CHECK_EQ_INT(ct_profiler_num_events(), 0);
    CHECK_ERR(ct_profiler_export_chrome_trace(trace_path) == CT_OK, CT_ERR_STATE, "export_chrome_trace: no profiling data");
    CHECK_ERR(ct_profiler_table(NULL, 0, NULL) > 0, CT_ERR_STATE, "profiler_table: no profiling data");
    CHECK_ERR(ct_profiler_key_averages(NULL, 0, NULL) >= 0, CT_ERR_STATE, "profiler_key_averages: no profiling data");
    /* with data */
    CHECK_EQ_INT(ct_profiler_start(NULL), CT_OK);
    ct_add(a, a);
    CHECK_EQ_INT(ct_profiler_stop(), CT_OK);
    CHECK_ERR(ct_profiler_export_chrome_trace("/nonexistent_dir_ct/trace.json") == CT_OK, CT_ERR_IO,
              "export_chrome_trace: cannot open '/nonexistent_dir_ct/trace.json' for writing");
    CHECK_ERR(ct_profiler_export_chrome_trace(NULL) == CT_OK, CT_ERR_ARG, "export_chrome_trace: path is NULL");
    ct_profiler_table_options to = {"cuda_time", 0, 0, 0};
    char buf[64];
    CHECK_ERR(ct_profiler_table(buf, sizeof buf, &to) > 0, CT_ERR_ARG, "profiler_table: unknown sort_by 'cuda_time'");
    CHECK_STR(buf, "");
    ct_profiler_table_options tg = {NULL, 0, 1, 0};
    CHECK_ERR(ct_profiler_table(buf, sizeof buf, &tg) > 0, CT_ERR_STATE, "group_by_input_shape needs the profiler started with record_shapes");
    ct_profiler_table_options tl = {NULL, -1, 0, 0};
    CHECK_ERR(ct_profiler_table(buf, sizeof buf, &tl) > 0, CT_ERR_ARG, "row_limit (-1)");
    CHECK_ERR(ct_profiler_print_table(NULL, NULL) == CT_OK, CT_ERR_ARG, "profiler_print_table: f is NULL");
    ct_profiler_event e;
    CHECK_ERR(ct_profiler_get_event(1, &e) == CT_OK, CT_ERR_INDEX, "profiler_get_event: index 1 is out of range for 1 events");
    CHECK_ERR(ct_profiler_get_event(0, NULL) == CT_OK, CT_ERR_INDEX, "(e is NULL)");
    CHECK_ERR(ct_profiler_event_shapes(-1, buf, sizeof buf) > 0, CT_ERR_INDEX, "profiler_event_shapes: index -1 is out of range");
}

int main(int argc, char **argv) {
    ct_t_init();
    snprintf(trace_path, sizeof trace_path, "%s.trace.json", argc > 0 ? argv[0] : "test_profiler");
    RUN(test_counts_flops_bytes);
    RUN(test_linear_forward_backward);
    RUN(test_ranges_nest);
    RUN(test_nested_ops);
    RUN(test_threads);
    RUN(test_table);
    RUN(test_chrome_trace);
    RUN(test_schedule);
    RUN(test_errors);
    return ct_t_summary();
}
