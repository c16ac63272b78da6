/* Fashion-MNIST with ctensor: an MLP (784-512-256-10) and a small CNN
   (two conv-bn-relu-pool blocks, then 3136-128-10), trained with SGD
   (lr 0.01, momentum 0.9, batch 64) on Debian's dataset-fashion-mnist package.
   The same model and hyperparameters in PyTorch: bench/torch/fashion_mnist.py.

   Build and run:   make fashion            (both models, 10 epochs)
                    make demo               (includes one epoch of the MLP)
   By hand:
     cc -std=c11 -O2 -march=native -fopenmp -DCTENSOR_OPENMP -DCTENSOR_ZLIB -I. \
        examples/fashion_mnist.c -o fashion_mnist -lm -lpthread -lz
     ./fashion_mnist --model cnn --epochs 5 --threads 1
   On an NVIDIA GPU (ctensor_cuda.h; make fashion-cuda builds it this way):
     nvcc -O2 -x cu -DCTENSOR_CUDA -DCTENSOR_ZLIB -I. examples/fashion_mnist.c \
        -o fashion_mnist_cuda -lcublas -lz
     ./fashion_mnist_cuda --model cnn --device cuda

   Options:
     --model mlp|cnn|both   which model(s) to train (default both)
     --epochs N             epochs per model (default 10)
     --limit N              train on the first N batches of each epoch only
     --threads N            threads for ctensor's OpenMP kernels and OpenBLAS (default 1,
                            as the PyTorch reference; on a small machine OpenMP's and
                            OpenBLAS's thread pools compete when both are > 1)
     --data DIR             IDX files (default /usr/share/datasets/fashion-mnist)
     --out DIR              where <model>.safetensors and fashion_mnist.svg go
     --seed S               initialization, shuffling (default 0)
     --device D             cpu (default), cuda or cuda:N: where the model trains (a
                            build with CTENSOR_CUDA; the model is made on the CPU, so
                            the same seed gives the same initial weights, then moved
                            with ct_module_to; each batch is copied to the device)
   Output: a progress bar per epoch on a terminal (plain lines otherwise), test
   accuracy after each epoch, the trained weights as safetensors (PyTorch's key
   names: load them with examples/torch_interop/import.py), and the loss and
   accuracy curves as an SVG file. */
#define _POSIX_C_SOURCE 200809L
#define CTENSOR_IMPLEMENTATION
#include "ctensor.h"
#include "ctensor_nn.h"
#ifdef CTENSOR_CUDA
#  include "ctensor_cuda.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef _WIN32
#  include <io.h>
#  define isatty _isatty
#  define fileno _fileno
#else
#  include <unistd.h>
#endif
#ifdef _OPENMP
#  include <omp.h>
#endif
#if defined(CTENSOR_BLAS) && defined(__GNUC__)
/* OpenBLAS's own thread count, when the CBLAS linked in is OpenBLAS (weak: absent otherwise) */
extern void openblas_set_num_threads(int n) __attribute__((weak));
#endif

#define MEAN 0.2860
#define STD 0.3530
#define MAX_EPOCHS 100

static ct_device DEV;   /* where the model trains: --device */

typedef struct run {
    const char *name;
    int epochs;
    double epoch_seconds[MAX_EPOCHS], test_acc[MAX_EPOCHS], train_loss[MAX_EPOCHS];
    /* smoothed training loss every `curve_every` steps, for the SVG */
    int ncurve;
    double *curve;   /* (epoch position, loss) pairs */
} run;

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int die(const char *what) {
    fprintf(stderr, "fashion_mnist: %s: %s\n", what, ct_last_error());
    exit(1);
}

/* images (N, 28, 28) uint8 -> float32 normalized like transforms.Normalize;
   shaped (N, 784) for the MLP or (N, 1, 28, 28) for the CNN. */
static ct_tensor *load_images(const char *dir, const char *file, int cnn) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    ct_tensor *r = NULL;
    CT_SCOPE {
        ct_tensor *u8 = ct_load_idx(path);
        if (!u8) break;
        ct_tensor *x = ct_div_scalar(ct_sub_scalar(ct_div_scalar(ct_to(u8, CT_FLOAT32), 255.0), MEAN), STD);
        x = cnn ? ct_reshape(x, u8->shape[0], 1, 28, 28) : ct_reshape(x, u8->shape[0], 784);
        r = ct_retain(ct_contiguous(x));
    }
    if (!r) die(path);
    return r;
}
static ct_tensor *load_labels(const char *dir, const char *file) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    ct_tensor *r = NULL;
    CT_SCOPE { r = ct_retain(ct_to(ct_load_idx(path), CT_INT64)); }
    if (!r) die(path);
    return r;
}

static ct_module *make_mlp(void) {
    return ct_nn_sequential(ct_nn_linear(784, 512), ct_nn_relu(), ct_nn_linear(512, 256), ct_nn_relu(),
                            ct_nn_linear(256, 10));
}
static ct_module *make_cnn(void) {
    return ct_nn_sequential(ct_nn_conv2d(1, 32, 3, 1, 1), ct_nn_batch_norm2d(32), ct_nn_relu(), ct_nn_max_pool2d(2, 2),
                            ct_nn_conv2d(32, 64, 3, 1, 1), ct_nn_batch_norm2d(64), ct_nn_relu(), ct_nn_max_pool2d(2, 2),
                            ct_nn_flatten(), ct_nn_linear(3136, 128), ct_nn_relu(), ct_nn_linear(128, 10));
}

/* test accuracy in percent, in eval mode, without recording a graph */
static double evaluate(ct_module *model, ct_tensor *x, ct_tensor *y) {
    int64_t n = x->shape[0], correct = 0;
    ct_module_eval(model);
    CT_NO_GRAD {
        for (int64_t i = 0; i < n; i += 1000) CT_SCOPE {
            int64_t m = n - i < 1000 ? n - i : 1000;
            ct_tensor *logits = ct_forward(model, ct_to_device(ct_narrow(x, 0, i, m), DEV));
            ct_tensor *hits = ct_sum(ct_eq(ct_argmax_dim(logits, 1, 0), ct_to_device(ct_narrow(y, 0, i, m), DEV)));
            if (!hits) die("evaluate");
            correct += ct_item_int(hits);
        }
    }
    ct_module_train(model, 1);
    return 100.0 * (double)correct / (double)n;
}

static void fmt_time(char *buf, size_t cap, double s) {
    if (s < 0 || s > 1e6) s = 0;
    int t = (int)(s + 0.5);
    if (t >= 3600) snprintf(buf, cap, "%d:%02d:%02d", t / 3600, t / 60 % 60, t % 60);
    else snprintf(buf, cap, "%d:%02d", t / 60, t % 60);
}

/* one line, redrawn in place on a terminal */
static void progress(int tty, const char *name, int epoch, int epochs, int64_t step, int64_t steps, double loss,
                     double ips, double elapsed) {
    char eta[32], el[32];
    fmt_time(eta, sizeof eta, ips > 0 ? (double)(steps - step) * elapsed / (double)step : 0);
    fmt_time(el, sizeof el, elapsed);
    if (tty) {
        enum { W = 30 };
        char bar[W + 1];
        int fill = (int)((double)W * (double)step / (double)steps);
        for (int i = 0; i < W; i++) bar[i] = i < fill ? '#' : (i == fill ? '>' : '.');
        bar[W] = 0;
        printf("\r%s epoch %d/%d [%s] %4lld/%lld loss %.4f %6.0f img/s %s ETA %s ", name, epoch, epochs, bar,
               (long long)step, (long long)steps, loss, ips, el, eta);
    } else {
        printf("%s epoch %d/%d step %lld/%lld loss %.4f %.0f img/s elapsed %s ETA %s\n", name, epoch, epochs,
               (long long)step, (long long)steps, loss, ips, el, eta);
    }
    fflush(stdout);
}

static void train(run *r, ct_module *model, ct_tensor *xtr, ct_tensor *ytr, ct_tensor *xte, ct_tensor *yte,
                  int64_t limit, uint64_t seed, const char *outdir) {
    int tty = isatty(fileno(stdout));
    /* (named structs rather than compound literals: this file also builds as C++ / under nvcc) */
    ct_tensor *items[2] = {xtr, ytr};
    ct_dataset *ds = ct_tensor_dataset(2, items);
    ct_dataloader_options lo;
    memset(&lo, 0, sizeof lo);
    lo.batch_size = 64;
    lo.shuffle = 1;
    lo.seed = seed;
    lo.prefetch = 1;
    ct_dataloader *dl = ct_dataloader_new(ds, &lo);
    ct_sgd_options so;
    memset(&so, 0, sizeof so);
    so.lr = 0.01;
    so.momentum = 0.9;
    ct_optimizer *opt = ct_optim_sgd(model, &so);
    if (!ds || !dl || !opt) die("setup");
    int64_t steps = ct_dataloader_num_batches(dl);
    if (limit > 0 && limit < steps) steps = limit;
    int curve_every = 50;
    r->curve = (double *)malloc(sizeof(double) * 2 * (size_t)(r->epochs * (steps / curve_every + 1) + 1));
    r->ncurve = 0;
    ct_module_train(model, 1);
    for (int e = 0; e < r->epochs; e++) {
        double t0 = now(), t_end = 0, last_draw = 0, sum = 0, window = 0;
        int64_t step = 0, seen = 0;
        int wn = 0;
        ct_batch b;
        int got;
        while ((got = ct_dataloader_next(dl, &b)) == 1) {
            if (step >= steps) continue;   /* --limit: drain the epoch (not timed) */
            double lv = 0;
            CT_SCOPE {
                ct_tensor *loss = ct_cross_entropy(ct_forward(model, ct_to_device(b.x, DEV)), ct_to_device(b.y, DEV), NULL);
                ct_zero_grad(opt);
                if (ct_backward(loss) != CT_OK || ct_step(opt) != CT_OK) die("training step");
                lv = ct_item(loss);
            }
            step++;
            seen += b.x->shape[0];
            sum += lv;
            window += lv;
            wn++;
            if (wn == curve_every) {
                r->curve[2 * r->ncurve] = e + (double)step / (double)steps;
                r->curve[2 * r->ncurve + 1] = window / wn;
                r->ncurve++;
                window = 0;
                wn = 0;
            }
            double t = now() - t0;
            if (step == steps) t_end = t;
            if ((tty && t - last_draw > 0.1) || (!tty && step % 200 == 0) || step == steps) {
                progress(tty, r->name, e + 1, r->epochs, step, steps, sum / (double)step, (double)seen / t, t);
                last_draw = t;
            }
        }
        if (got < 0) die("data loader");
        r->epoch_seconds[e] = t_end > 0 ? t_end : now() - t0;
        r->train_loss[e] = sum / (double)(step ? step : 1);
        r->test_acc[e] = evaluate(model, xte, yte);
        if (tty) printf("\n");
        printf("%s epoch %d/%d: train loss %.4f, test accuracy %.2f%%, %.1f s\n", r->name, e + 1, r->epochs,
               r->train_loss[e], r->test_acc[e], r->epoch_seconds[e]);
        fflush(stdout);
    }
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.safetensors", outdir, r->name);
    if (!ct_module_to(model, ct_cpu())) die("moving the model to the CPU");   /* files hold host data */
    if (ct_module_save_safetensors(model, path) != CT_OK) die(path);
    printf("%s: weights saved to %s\n", r->name, path);
    ct_optim_free(opt);
    ct_dataloader_free(dl);
    ct_dataset_free(ds);
}

/* Loss (left) and test accuracy (right) against epochs, one colour per model. */
static void write_svg(const char *path, run *runs, int nrun) {
    FILE *f = fopen(path, "w");
    if (!f) { fprintf(stderr, "fashion_mnist: cannot write %s\n", path); return; }
    const char *colour[2] = {"#1f77b4", "#d62728"};
    const double W = 420, H = 300, L = 55, T = 35, PW = W - L - 20, PH = H - T - 45;
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%g\" height=\"%g\" font-family=\"sans-serif\" "
               "font-size=\"11\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n", 2 * W, H);
    int maxep = 1;
    double lmax = 0, amin = 100, amax = 0;
    for (int k = 0; k < nrun; k++) {
        if (runs[k].epochs > maxep) maxep = runs[k].epochs;
        for (int i = 0; i < runs[k].ncurve; i++) if (runs[k].curve[2 * i + 1] > lmax) lmax = runs[k].curve[2 * i + 1];
        for (int e = 0; e < runs[k].epochs; e++) {
            if (runs[k].test_acc[e] < amin) amin = runs[k].test_acc[e];
            if (runs[k].test_acc[e] > amax) amax = runs[k].test_acc[e];
        }
    }
    if (lmax <= 0) lmax = 1;
    amin = (double)(int)(amin - 1);
    amax = (double)(int)(amax + 1) + (amax + 1 <= amin + 1 ? 1 : 0);
    for (int p = 0; p < 2; p++) {
        double ox = p * W + L, lo = p ? amin : 0, hi = p ? amax : lmax;
        fprintf(f, "<text x=\"%g\" y=\"20\" font-size=\"13\">%s</text>\n", ox, p ? "test accuracy (%)" : "training loss");
        fprintf(f, "<rect x=\"%g\" y=\"%g\" width=\"%g\" height=\"%g\" fill=\"none\" stroke=\"#888\"/>\n", ox, T, PW, PH);
        for (int i = 0; i <= 4; i++) {   /* y ticks */
            double v = lo + (hi - lo) * i / 4, y = T + PH - PH * i / 4;
            fprintf(f, "<line x1=\"%g\" x2=\"%g\" y1=\"%g\" y2=\"%g\" stroke=\"#eee\"/>", ox, ox + PW, y, y);
            fprintf(f, "<text x=\"%g\" y=\"%g\" text-anchor=\"end\">%.*f</text>\n", ox - 4, y + 4, p ? 1 : 2, v);
        }
        for (int e = 0; e <= maxep; e++) {   /* x ticks: epochs */
            double x = ox + PW * e / maxep;
            fprintf(f, "<text x=\"%g\" y=\"%g\" text-anchor=\"middle\">%d</text>\n", x, T + PH + 15, e);
        }
        fprintf(f, "<text x=\"%g\" y=\"%g\" text-anchor=\"middle\">epoch</text>\n", ox + PW / 2, T + PH + 32);
        for (int k = 0; k < nrun; k++) {
            fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"", colour[k % 2]);
            int n = p ? runs[k].epochs : runs[k].ncurve;
            for (int i = 0; i < n; i++) {
                double xv = p ? i + 1 : runs[k].curve[2 * i], yv = p ? runs[k].test_acc[i] : runs[k].curve[2 * i + 1];
                fprintf(f, "%.1f,%.1f ", ox + PW * xv / maxep, T + PH - PH * (yv - lo) / (hi - lo));
            }
            fprintf(f, "\"/>\n");
            fprintf(f, "<text x=\"%g\" y=\"%g\" fill=\"%s\">%s</text>\n", ox + PW - 40, T + 15 + 14 * k, colour[k % 2],
                    runs[k].name);
        }
    }
    fprintf(f, "</svg>\n");
    fclose(f);
    printf("curves written to %s\n", path);
}

int main(int argc, char **argv) {
    const char *model = "both", *data = "/usr/share/datasets/fashion-mnist", *out = ".", *device = "cpu";
    int epochs = 10, threads = 1;
    int64_t limit = 0;
    uint64_t seed = 0;
    for (int i = 1; i < argc; i += 2) {   /* --option value */
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v) { fprintf(stderr, "usage: %s [--model mlp|cnn|both] [--epochs N] [--limit N] [--threads N] [--data DIR] [--out DIR] [--seed S] [--device cpu|cuda|cuda:N]\n", argv[0]); return 2; }
        if (!strcmp(a, "--model")) model = v;
        else if (!strcmp(a, "--epochs")) epochs = atoi(v);
        else if (!strcmp(a, "--limit")) limit = atoll(v);
        else if (!strcmp(a, "--threads")) threads = atoi(v);
        else if (!strcmp(a, "--data")) data = v;
        else if (!strcmp(a, "--out")) out = v;
        else if (!strcmp(a, "--seed")) seed = (uint64_t)atoll(v);
        else if (!strcmp(a, "--device")) device = v;
        else { fprintf(stderr, "fashion_mnist: unknown option %s\n", a); return 2; }
    }
    if (epochs < 1 || epochs > MAX_EPOCHS) { fprintf(stderr, "fashion_mnist: --epochs must be 1..%d\n", MAX_EPOCHS); return 2; }
    int want_mlp = !strcmp(model, "mlp") || !strcmp(model, "both"), want_cnn = !strcmp(model, "cnn") || !strcmp(model, "both");
    if (!want_mlp && !want_cnn) { fprintf(stderr, "fashion_mnist: --model must be mlp, cnn or both\n"); return 2; }
    if (threads < 1) { fprintf(stderr, "fashion_mnist: --threads must be at least 1\n"); return 2; }
    if (!strcmp(device, "cpu")) DEV = ct_cpu();
    else if (!strncmp(device, "cuda", 4) && (device[4] == 0 || (device[4] == ':' && device[5] >= '0' && device[5] <= '9'))) {
#ifdef CTENSOR_CUDA
        DEV = ct_cuda(device[4] ? atoi(device + 5) : 0);
        if (DEV.index >= ct_cuda_device_count()) {
            fprintf(stderr, "fashion_mnist: --device %s: %d CUDA device(s) found\n", device, ct_cuda_device_count());
            return 2;
        }
#else
        fprintf(stderr, "fashion_mnist: --device %s: this build has no CUDA; build it with nvcc and -DCTENSOR_CUDA (make fashion-cuda)\n", device);
        return 2;
#endif
    } else { fprintf(stderr, "fashion_mnist: --device must be cpu, cuda or cuda:N (got %s)\n", device); return 2; }
#if defined(CTENSOR_BLAS) && defined(__GNUC__)
    if (openblas_set_num_threads) openblas_set_num_threads(threads);
#endif
#ifdef _OPENMP
    omp_set_num_threads(threads);
    threads = omp_get_max_threads();
#else
    threads = 1;
#endif
    char devname[32];
    printf("Fashion-MNIST: %s, %d epoch(s)%s, batch 64, SGD lr 0.01 momentum 0.9, %d thread(s), on %s\n", model, epochs,
           limit > 0 ? " (limited)" : "", threads, ct_device_str(DEV, devname, sizeof devname));
    run runs[2];
    int nrun = 0;
    for (int pass = 0; pass < 2; pass++) {
        int cnn = pass == 1;
        if ((cnn && !want_cnn) || (!cnn && !want_mlp)) continue;
        ct_manual_seed(seed);
        ct_tensor *xtr = load_images(data, "train-images-idx3-ubyte.gz", cnn);
        ct_tensor *ytr = load_labels(data, "train-labels-idx1-ubyte.gz");
        ct_tensor *xte = load_images(data, "t10k-images-idx3-ubyte.gz", cnn);
        ct_tensor *yte = load_labels(data, "t10k-labels-idx1-ubyte.gz");
        ct_module *m = cnn ? make_cnn() : make_mlp();
        if (!m) die("model");
        ct_module_print(m);
        if (!ct_module_to(m, DEV)) die("moving the model to the device");
        run *r = &runs[nrun++];
        memset(r, 0, sizeof *r);
        r->name = cnn ? "cnn" : "mlp";
        r->epochs = epochs;
        train(r, m, xtr, ytr, xte, yte, limit, seed, out);
        ct_module_free(m);
        ct_release(xtr);
        ct_release(ytr);
        ct_release(xte);
        ct_release(yte);
    }
    printf("\n%-5s %6s %10s %10s\n", "model", "epoch", "accuracy", "seconds");
    for (int k = 0; k < nrun; k++)
        for (int e = 0; e < runs[k].epochs; e++)
            printf("%-5s %6d %9.2f%% %10.1f\n", runs[k].name, e + 1, runs[k].test_acc[e], runs[k].epoch_seconds[e]);
    char svg[1024];
    snprintf(svg, sizeof svg, "%s/fashion_mnist.svg", out);
    write_svg(svg, runs, nrun);
    for (int k = 0; k < nrun; k++) free(runs[k].curve);
    return 0;
}
