/* Quantizing the Fashion-MNIST CNN with ctensor_quant.h: post-training static
   quantization (fuse, prepare, calibrate, convert) and dynamic quantization of
   its Linear layers, each beside the float model: test accuracy, size of the
   weights file, time for the 10,000 test images.

   Build and run:   make quantize-fashion
   By hand:
     cc -std=c11 -O2 -march=native -fopenmp -DCTENSOR_OPENMP -DCTENSOR_ZLIB -I. \
        examples/quantize_fashion.c -o quantize_fashion -lm -lpthread -lz
     ./quantize_fashion [--weights build/cnn.safetensors] [--epochs 2] [--qat-batches 300] [--threads 1]

   The float CNN is examples/fashion_mnist.c's (two conv-bn-relu-pool blocks, then
   3136-128-10). With --weights (what `make fashion` saves) it is loaded; otherwise
   it is trained here first (SGD, lr 0.01, momentum 0.9, batch 64; --epochs, 2 by
   default). Calibration runs the float model with observers on 2,000 training
   images. The qconfig is PyTorch's x86 default (HistogramObserver with
   reduce_range for activations, per-channel symmetric int8 weights).
   Quantization-aware training starts from the float weights: conv + bn + relu
   fused for QAT (the batch norm folded on the fly), prepare_qat with the x86 QAT
   qconfig, --qat-batches SGD steps (lr 0.001, momentum 0.9), then convert.
   Last, the numeric suite's per-layer view of the static model: the SQNR of each
   quantized layer's output against the float layer's on 100 test images
   (compare_model_outputs) and of its weight (compare_weights). */
#define _POSIX_C_SOURCE 200809L
#define CTENSOR_IMPLEMENTATION
#include "ctensor.h"
#include "ctensor_nn.h"
#include "ctensor_quant.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MEAN 0.2860
#define STD 0.3530

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
static void die(const char *what) {
    fprintf(stderr, "quantize_fashion: %s: %s\n", what, ct_last_error());
    exit(1);
}
static ct_tensor *load_images(const char *dir, const char *file) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    ct_tensor *r = NULL;
    CT_SCOPE {
        ct_tensor *u8 = ct_load_idx(path);
        if (!u8) break;
        ct_tensor *x = ct_div_scalar(ct_sub_scalar(ct_div_scalar(ct_to(u8, CT_FLOAT32), 255.0), MEAN), STD);
        r = ct_retain(ct_contiguous(ct_reshape(x, ct_size(u8, 0), 1, 28, 28)));
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
/* fashion_mnist.c's CNN, its keys "0.weight" ... */
static ct_module *make_cnn(void) {
    return ct_nn_sequential(ct_nn_conv2d(1, 32, 3, 1, 1), ct_nn_batch_norm2d(32), ct_nn_relu(), ct_nn_max_pool2d(2, 2),
                            ct_nn_conv2d(32, 64, 3, 1, 1), ct_nn_batch_norm2d(64), ct_nn_relu(), ct_nn_max_pool2d(2, 2),
                            ct_nn_flatten(), ct_nn_linear(3136, 128), ct_nn_relu(), ct_nn_linear(128, 10));
}
/* SGD (momentum 0.9, batch 64, shuffled) for `epochs` epochs, or max_steps steps
   when max_steps > 0; returns the steps taken */
static int train(ct_module *model, ct_tensor *x, ct_tensor *y, int epochs, int max_steps, double lr, uint64_t seed) {
    ct_tensor *items[2] = {x, y};
    ct_dataset *ds = ct_tensor_dataset(2, items);
    ct_dataloader_options lo;
    memset(&lo, 0, sizeof lo);
    lo.batch_size = 64;
    lo.shuffle = 1;
    lo.seed = seed;
    ct_dataloader *dl = ct_dataloader_new(ds, &lo);
    ct_sgd_options so;
    memset(&so, 0, sizeof so);
    so.lr = lr;
    so.momentum = 0.9;
    ct_optimizer *opt = ct_optim_sgd(model, &so);
    if (!ds || !dl || !opt) die("training setup");
    ct_module_train(model, 1);
    int steps = 0;
    for (int e = 0; e < epochs && (max_steps <= 0 || steps < max_steps); e++) {
        ct_batch b;
        while ((max_steps <= 0 || steps < max_steps) && ct_dataloader_next(dl, &b) == 1) CT_SCOPE {
            ct_tensor *loss = ct_cross_entropy(ct_forward(model, b.x), b.y, NULL);
            ct_zero_grad(opt);
            if (ct_backward(loss) != CT_OK || ct_step(opt) != CT_OK) die("training step");
            steps++;
        }
    }
    ct_optim_free(opt);
    ct_dataloader_free(dl);
    ct_dataset_free(ds);
    return steps;
}
/* test accuracy (percent) and the time for the whole test set */
static double evaluate(ct_module *model, ct_tensor *x, ct_tensor *y, double *seconds) {
    int64_t n = ct_size(x, 0), correct = 0;
    ct_module_eval(model);
    double t0 = now();
    CT_NO_GRAD {
        for (int64_t i = 0; i < n; i += 500) CT_SCOPE {
            int64_t m = n - i < 500 ? n - i : 500;
            ct_tensor *logits = ct_forward(model, ct_narrow(x, 0, i, m));
            ct_tensor *hits = ct_sum(ct_eq(ct_argmax_dim(logits, 1, 0), ct_narrow(y, 0, i, m)));
            if (!hits) die("evaluate");
            correct += ct_item_int(hits);
        }
    }
    *seconds = now() - t0;
    return 100.0 * (double)correct / (double)n;
}
/* a new float CNN with the weights of `from` */
static ct_module *copy_cnn(ct_module *from) {
    ct_module *m = make_cnn();
    ct_state_dict sd;
    if (!m || ct_module_state_dict(from, &sd) != CT_OK || ct_module_load_state_dict(m, &sd, 1) != CT_OK) die("copy");
    ct_state_dict_free(&sd);
    return m;
}
/* bytes of the model's state dict as a (quantized) safetensors file */
static size_t file_size(ct_module *model) {
    ct_state_dict sd;
    if (ct_module_state_dict(model, &sd) != CT_OK) die("state_dict");
    const char **names = (const char **)malloc(sizeof(char *) * (size_t)(sd.n ? sd.n : 1));
    const ct_tensor **ts = (const ct_tensor **)malloc(sizeof(ct_tensor *) * (size_t)(sd.n ? sd.n : 1));
    for (int i = 0; i < sd.n; i++) {
        names[i] = sd.items[i].name;
        ts[i] = sd.items[i].tensor;
    }
    void *buf = NULL;
    size_t len = 0;
    if (ct_q_save_safetensors_mem(sd.n, names, ts, &buf, &len) != CT_OK) die("save");
    ct_free(buf);
    free((void *)names);
    free((void *)ts);
    ct_state_dict_free(&sd);
    return len;
}

int main(int argc, char **argv) {
    const char *weights = NULL, *data = "/usr/share/datasets/fashion-mnist";
    int epochs = 2, threads = 1, qat_batches = 300;
    for (int i = 1; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(argv[i], "--weights") && v) weights = v, i++;
        else if (!strcmp(argv[i], "--epochs") && v) epochs = atoi(v), i++;
        else if (!strcmp(argv[i], "--threads") && v) threads = atoi(v), i++;
        else if (!strcmp(argv[i], "--qat-batches") && v) qat_batches = atoi(v), i++;
        else if (!strcmp(argv[i], "--data") && v) data = v, i++;
        else {
            fprintf(stderr, "usage: %s [--weights FILE] [--epochs N] [--qat-batches N] [--threads N] [--data DIR]\n", argv[0]);
            return 2;
        }
    }
    ct_set_num_threads(threads);
    ct_manual_seed(0);
    ct_tensor *xtr = load_images(data, "train-images-idx3-ubyte.gz"), *ytr = load_labels(data, "train-labels-idx1-ubyte.gz");
    ct_tensor *xte = load_images(data, "t10k-images-idx3-ubyte.gz"), *yte = load_labels(data, "t10k-labels-idx1-ubyte.gz");
    ct_module *cnn = make_cnn();
    if (!cnn) die("model");
    if (weights) {
        if (ct_module_load_safetensors(cnn, weights, 1) != CT_OK) die(weights);
        printf("float CNN loaded from %s\n", weights);
    } else {
        double t0 = now();
        train(cnn, xtr, ytr, epochs, 0, 0.01, 0);
        printf("trained %d epoch(s) in %.1f s\n", epochs, now() - t0);
    }
    ct_module_eval(cnn);

    double t_f, t_q, t_d;
    double acc_f = evaluate(cnn, xte, yte, &t_f);
    size_t sz_f = file_size(cnn);

    /* dynamic: the Linear layers of a copy of the float model */
    ct_module *dyn = ct_module_eval(copy_cnn(cnn));
    ct_module *qatm = copy_cnn(cnn);   /* QAT starts from the float weights too */
    ct_module *fref = ct_module_eval(copy_cnn(cnn));   /* the float twin of the static model, for the numeric suite */
    if (ct_quantize_dynamic(dyn, 0, 1) != 2) die("quantize_dynamic");
    double acc_d = evaluate(dyn, xte, yte, &t_d);
    size_t sz_d = file_size(dyn);

    /* static: QuantStub, the CNN, DeQuantStub; fuse conv+bn+relu and linear+relu */
    ct_module *net = ct_nn_sequential_dict({"quant", ct_nn_quant_stub()}, {"model", cnn}, {"dequant", ct_nn_dequant_stub()});
    ct_module *fnet = ct_nn_sequential_dict({"quant", ct_nn_quant_stub()}, {"model", fref}, {"dequant", ct_nn_dequant_stub()});
    if (!net || !fnet) die("wrap");
    for (int k = 0; k < 2; k++) {
        ct_module *m = k ? fnet : net;
        if (ct_fuse_modules(m, "model.0", "model.1", "model.2") != CT_OK || ct_fuse_modules(m, "model.4", "model.5", "model.6") != CT_OK ||
            ct_fuse_modules(m, "model.9", "model.10") != CT_OK)
            die("fuse_modules");
    }
    ct_qconfig qc = ct_qconfig_default_x86();
    if (ct_quant_prepare(net, &qc, NULL) < 0) die("prepare");
    double t0 = now();
    CT_NO_GRAD {
        for (int64_t i = 0; i < 2000; i += 500) CT_SCOPE {
            if (!ct_forward(net, ct_narrow(xtr, 0, i, 500))) die("calibration");
        }
    }
    printf("calibrated on 2000 training images in %.2f s\n", now() - t0);
    if (ct_quant_convert(net) < 0) die("convert");
    double acc_q = evaluate(net, xte, yte, &t_q);
    size_t sz_q = file_size(net);

    /* quantization-aware training */
    ct_module *qnet = ct_nn_sequential_dict({"quant", ct_nn_quant_stub()}, {"model", qatm}, {"dequant", ct_nn_dequant_stub()});
    if (!qnet) die("wrap");
    ct_module_train(qnet, 1);
    if (ct_fuse_modules_qat(qnet, "model.0", "model.1", "model.2") != CT_OK || ct_fuse_modules_qat(qnet, "model.4", "model.5", "model.6") != CT_OK ||
        ct_fuse_modules_qat(qnet, "model.9", "model.10") != CT_OK)
        die("fuse_modules_qat");
    ct_qconfig qqc = ct_qat_qconfig_default_x86();
    if (ct_quant_prepare_qat(qnet, &qqc, NULL) < 0) die("prepare_qat");
    t0 = now();
    int steps = train(qnet, xtr, ytr, 1, qat_batches, 0.001, 1);
    printf("QAT: %d steps in %.1f s\n", steps, now() - t0);
    ct_module_eval(qnet);
    if (ct_quant_convert(qnet) < 0) die("convert (QAT)");
    double t_a, acc_a = evaluate(qnet, xte, yte, &t_a);
    size_t sz_a = file_size(qnet);

    printf("\n| model | test accuracy | weights file | 10k test images |\n|---|---|---|---|\n");
    printf("| float32 | %.2f %% | %zu bytes | %.3f s |\n", acc_f, sz_f, t_f);
    printf("| dynamic int8 (Linear layers) | %.2f %% (%+.2f) | %zu bytes (%.2fx smaller) | %.3f s |\n", acc_d, acc_d - acc_f, sz_d,
           (double)sz_f / (double)sz_d, t_d);
    printf("| static int8 (PTQ, x86 qconfig) | %.2f %% (%+.2f) | %zu bytes (%.2fx smaller) | %.3f s |\n", acc_q, acc_q - acc_f, sz_q,
           (double)sz_f / (double)sz_q, t_q);
    printf("| static int8 (QAT, %d steps) | %.2f %% (%+.2f) | %zu bytes (%.2fx smaller) | %.3f s |\n", qat_batches, acc_a, acc_a - acc_f,
           sz_a, (double)sz_f / (double)sz_a, t_a);
    printf("\nthe quantized model:\n");
    ct_module_print(net);

    /* torch.ao.ns._numeric_suite: compare_model_outputs and compare_weights */
    ct_ns_result outs, ws;
    ct_state_dict fsd, qsd;
    CT_SCOPE {
        if (ct_ns_compare_model_outputs(fnet, net, ct_narrow(xte, 0, 0, 100), &outs) != CT_OK) die("compare_model_outputs");
    }
    if (ct_module_state_dict(fnet, &fsd) != CT_OK || ct_module_state_dict(net, &qsd) != CT_OK || ct_ns_compare_weights(&fsd, &qsd, &ws) != CT_OK)
        die("compare_weights");
    printf("\nSQNR of the static model against the float one, per layer (100 test images):\n");
    printf("| module | output SQNR | weight SQNR |\n|---|---|---|\n");
    for (int i = 0; i < outs.n; i++) {
        char wname[128];
        snprintf(wname, sizeof wname, "%.*s.weight", (int)(strlen(outs.entries[i].name) - strlen(".stats")), outs.entries[i].name);
        double wsq = NAN;
        for (int k = 0; k < ws.n; k++)
            if (!strcmp(ws.entries[k].name, wname)) wsq = ws.entries[k].sqnr;
        printf("| %s | %.1f dB | ", outs.entries[i].name, outs.entries[i].sqnr);
        if (isnan(wsq)) printf("- |\n");
        else printf("%.1f dB |\n", wsq);
    }
    ct_ns_result_free(&outs);
    ct_ns_result_free(&ws);
    ct_state_dict_free(&fsd);
    ct_state_dict_free(&qsd);
    ct_module_free(fnet);
    ct_module_free(net);
    ct_module_free(qnet);
    ct_module_free(dyn);
    ct_release(xtr);
    ct_release(ytr);
    ct_release(xte);
    ct_release(yte);
    return 0;
}
