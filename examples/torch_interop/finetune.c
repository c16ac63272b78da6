/* finetune.c - PyTorch weights in, a few training steps in ctensor, weights out for PyTorch.
   cc -std=c11 -O2 -I. examples/torch_interop/finetune.c -o finetune -lm -lpthread

     /usr/bin/python3 examples/torch_interop/export.py --mlp 196,32,10 --seed 0 mlp.safetensors
     ./finetune mlp.safetensors tuned.safetensors
     /usr/bin/python3 examples/torch_interop/import.py tuned.safetensors --mlp 196,32,10

   The PyTorch code it mirrors:
     model = nn.Sequential(nn.Linear(196, 32), nn.ReLU(), nn.Linear(32, 10))
     model.load_state_dict(load_file(src))                 # strict
     opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
     for step in range(20): loss = F.cross_entropy(model(x), y); opt.zero_grad(); loss.backward(); opt.step()
     save_model(model, dst)
   (the loss here is written out as -mean(log_softmax(logits)[i, y_i]), with a
   one-hot mask, on a random batch labelled by a fixed random teacher) */
#define CTENSOR_IMPLEMENTATION
#include "ctensor.h"
#include "ctensor_nn.h"

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s IN.safetensors OUT.safetensors\n", argv[0]);
        return 2;
    }
    int status = 0;
    ct_module *model = ct_nn_sequential(ct_nn_linear(196, 32), ct_nn_relu(), ct_nn_linear(32, 10));
    if (ct_module_load_safetensors(model, argv[1], 1) != CT_OK) {
        fprintf(stderr, "%s\n", ct_last_error());
        ct_module_free(model);
        return 1;
    }
    ct_optimizer *opt = ct_optim_sgd(model, &(ct_sgd_options){ .lr = 0.05, .momentum = 0.9 });
    CT_SCOPE {
        ct_manual_seed(0);
        ct_tensor *x = ct_randn(CT_FLOAT32, 64, 196);
        ct_tensor *teacher = ct_randn(CT_FLOAT32, 196, 10);
        ct_tensor *onehot = ct_one_hot(ct_argmax_dim(ct_matmul(x, teacher), 1, 0), 10);
        ct_tensor *mask = ct_to(onehot, CT_FLOAT32);
        for (int step = 0; step < 20; step++) CT_SCOPE {
            ct_tensor *logp = ct_log_softmax(ct_forward(model, x), 1);
            ct_tensor *loss = ct_neg(ct_mul_scalar(ct_sum(ct_mul(logp, mask)), 1.0 / 64));
            if (!loss) { status = 1; break; }
            if (step % 5 == 0 || step == 19) printf("step %2d  loss %.4f\n", step, ct_item(loss));
            ct_zero_grad(opt);
            ct_backward(loss);
            ct_step(opt);
        }
    }
    if (!status && ct_module_save_safetensors(model, argv[2]) == CT_OK) printf("wrote %s\n", argv[2]);
    else status = fprintf(stderr, "%s\n", ct_last_error()) > 0;
    ct_optim_free(opt);
    ct_module_free(model);
    return status;
}
