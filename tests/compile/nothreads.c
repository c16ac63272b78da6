/* CTENSOR_NO_THREADS: no pthread use at all (no thread-exit destructor, no data-loader
   prefetch thread: prefetch is done in the calling thread). tests/compile/run.sh checks
   that the object references no pthread symbol and links without -lpthread. */
#define CTENSOR_NO_THREADS
#define CTENSOR_IMPLEMENTATION
#include "ctensor.h"
#include "ctensor_nn.h"

int main(void) {
    int bad = 0;
    CT_SCOPE {
        ct_tensor *x = ct_reshape(ct_arange(0, 10, 1, CT_FLOAT32), 5, 2), *y = ct_arange(0, 5, 1, CT_INT64);
        ct_tensor *both[2];
        both[0] = x;
        both[1] = y;
        ct_dataset *ds = ct_tensor_dataset(2, both);
        ct_dataloader_options o = {0};
        o.batch_size = 2;
        o.prefetch = 1;
        ct_dataloader *dl = ct_dataloader_new(ds, &o);
        ct_batch b;
        double total = 0;
        int n = 0;
        while (dl && ct_dataloader_next(dl, &b) == 1) CT_SCOPE {
            total += ct_item(ct_sum(b.x));
            n++;
        }
        bad |= !dl || n != 3 || total != 45.0;
        ct_dataloader_free(dl);
        ct_dataset_free(ds);
    }
    ct_thread_cleanup();
    return bad;
}
