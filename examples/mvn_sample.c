/* cc -std=c11 -O2 -I. examples/mvn_sample.c -o mvn_sample -llapacke -lopenblas -lm && ./mvn_sample

   The torch.linalg announcement's example: a sample of a multivariate normal
   distribution through the Cholesky factor of its covariance, the square root of
   the covariance determinant two ways, and the gradient of a matrix inverse.
   The inputs are what NumPy's np.random.seed(0) gives:
       mu = np.random.rand(4); L = np.random.rand(4, 4); sigma = L @ L.T + np.eye(4)
       normal_noise = np.random.standard_normal(4) */
#define CTENSOR_IMPLEMENTATION
#include "ctensor.h"
#include "ctensor_linalg.h"

static const double mu_data[4] = {0.5488135039273248, 0.7151893663724195, 0.6027633760716439, 0.5448831829968969};
static const double L_data[16] = {0.4236547993389047, 0.6458941130666561, 0.4375872112626925, 0.8917730007820798,
                                  0.9636627605010293, 0.3834415188257777, 0.7917250380826646, 0.5288949197529045,
                                  0.5680445610939323, 0.925596638292661, 0.07103605819788694, 0.08712929970154071,
                                  0.02021839744032572, 0.832619845547938, 0.7781567509498505, 0.8700121482468192};
static const double noise_data[4] = {1.4940790731576061, -0.20515826376580087, 0.31306770165090136, -0.8540957393017248};

/* mu + torch.linalg.cholesky(sigma) @ normal_noise */
static ct_tensor *multivariate_normal_sample(const ct_tensor *mu, const ct_tensor *sigma, const ct_tensor *noise) {
    return ct_add(mu, ct_matmul(ct_linalg_cholesky(sigma), noise));
}

int main(void) {
    int status = 0;
    ct_set_logger(NULL, NULL);   /* errors are reported below, from ct_last_error() */
    CT_SCOPE {
        ct_tensor *mu = ct_tensor_f64(mu_data, 4);
        ct_tensor *L = ct_tensor_f64(L_data, 4, 4);
        ct_tensor *noise = ct_tensor_f64(noise_data, 4);
        ct_tensor *sigma = ct_add(ct_matmul(L, ct_t(L)), ct_eye(4, 4, CT_FLOAT64));   /* positive-definite */

        ct_tensor *sample = multivariate_normal_sample(mu, sigma, noise);
        printf("multivariate_normal_sample_torch(mu, sigma, normal_noise)\n");
        if (sample) ct_print(sample);              /* tensor([2.9502, 1.7852, 1.8317, 0.9080], dtype=torch.float64) */

        /* |sigma|^0.5 two ways: sqrt(det(sigma)) and prod(diag(cholesky(sigma))) */
        ct_tensor *det = ct_linalg_det(sigma);
        ct_tensor *d = ct_linalg_diagonal(ct_linalg_cholesky(sigma), 0, -2, -1);
        double prod = 1.0;
        for (int64_t i = 0; d && i < ct_size(d, 0); i++) prod *= ct_item(ct_select(d, 0, i));
        if (det) printf("|sigma|^0.5 = %.15f\n|L|         = %.15f\n", sqrt(ct_item(det)), prod);   /* 4.237127491242027 */

        /* autograd: inv(t).backward(ones) */
        static const float t_data[4] = {1, 2, 3, 4};
        ct_tensor *t = ct_requires_grad(ct_tensor_f32(t_data, 2, 2));
        ct_tensor *inv = ct_linalg_inv(t);
        ct_tensor *ones = ct_ones_like(inv);
        if (inv && ct_backward_ex(1, &inv, &ones, NULL) == CT_OK) {
            printf("t.grad\n");
            ct_print(ct_grad(t));                 /* tensor([[-0.5000,  0.5000], [ 0.5000, -0.5000]]) */
        }
        if (!sample || !det || !d || !ct_grad(t)) status = fprintf(stderr, "%s\n", ct_last_error()) > 0;

        /* errors are values, in PyTorch's words */
        ct_tensor *bad = ct_neg(sigma);
        if (!ct_linalg_cholesky(bad)) printf("error: %s\n", ct_last_error());
        ct_clear_error();
    }
    return status;
}
