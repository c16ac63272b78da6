/* named_tensors.c - ctensor_named.h in one page: name the dims once, then let the
   names catch layout mistakes. One normalize function serves NCHW and NHWC images
   (the per-channel statistics are aligned by name), a reduction names its dim, and
   the classic accidental broadcast is refused with PyTorch's message.
     make examples   (or: cc -O2 -I. examples/named_tensors.c -lm) */
#define CTENSOR_IMPLEMENTATION
#include <stdio.h>
#include "ctensor.h"
#include "ctensor_named.h"

/* written once, for any layout that names its channel dim "C" */
static ct_tensor *normalize(const ct_tensor *img, const ct_tensor *mean_c, const ct_tensor *std_c) {
    return ct_div(ct_sub(img, ct_align_as(mean_c, img)), ct_align_as(std_c, img));
}

int main(void) {
    static const char *const NCHW[] = {"N", "C", "H", "W"}, *const NHWC[] = {"N", "H", "W", "C"}, *const C[] = {"C"};
    int bad = 0;
    CT_SCOPE {
        ct_manual_seed(0);
        ct_tensor *x = ct_randn(CT_FLOAT32, 2, 3, 3, 3);   /* H == W == C: position cannot tell them apart */
        ct_tensor *a = ct_refine_names(x, 4, NCHW);
        ct_tensor *b = ct_refine_names(ct_contiguous(ct_permute(x, 0, 2, 3, 1)), 4, NHWC);
        ct_tensor *mean = ct_refine_names(ct_tensor_f32(((float[]){0.5f, -1.0f, 2.0f}), 3), 1, C);
        ct_tensor *stdv = ct_refine_names(ct_tensor_f32(((float[]){2.0f, 0.5f, 4.0f}), 3), 1, C);
        ct_tensor *na = normalize(a, mean, stdv), *nb = normalize(b, mean, stdv);
        /* the same numbers whatever the layout: compare after aligning b to a's order */
        ct_tensor *nb_as_a = ct_align_as(nb, na);
        printf("normalize NCHW == NHWC: %s\n", ct_equal(ct_rename(na, 0, NULL), ct_rename(nb_as_a, 0, NULL)) == 1 ? "yes" : "NO");
        bad |= ct_equal(ct_rename(na, 0, NULL), ct_rename(nb_as_a, 0, NULL)) != 1;
        /* reductions by name */
        ct_tensor *per_channel = ct_mean_dims(na, 3, (int64_t[]){ct_dim_of(na, "N"), ct_dim_of(na, "H"), ct_dim_of(na, "W")}, 0);
        ct_print(per_channel);
        /* accidental broadcasting: a [C, 1, 1] statistic on NHWC data lines up with W, not C */
        static const char *const C11[] = {"C", NULL, NULL};
        ct_tensor *wrong = ct_refine_names(ct_ones(CT_FLOAT32, 3, 1, 1), 3, C11);
        ct_tensor *r = ct_sub(b, wrong);
        printf("NHWC - [C, 1, 1]: %s\n", r ? "ran (wrong!)" : ct_last_error());
        bad |= r != NULL;
        ct_clear_error();
    }
    return bad;
}
