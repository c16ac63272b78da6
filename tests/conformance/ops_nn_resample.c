/* Conformance handlers: resampling (F.interpolate, F.pixel_shuffle,
   F.pixel_unshuffle, F.affine_grid, F.grid_sample). Args under PyTorch's
   keyword names: size / scale_factor an int (float) or a list, mode strings,
   align_corners and recompute_scale_factor true, false or absent / null (None). */
#include <string.h>
#include "conf.h"

#define IN(k) (c->in[k])
#define ONE(expr) do { out[0] = (expr); return out[0] ? 1 : -1; } while (0)

/* true -> 1, false -> -1, absent or null -> 0 (the options' None) */
static int tristate(conf_case *c, const char *key) {
    if (!conf_has(c, key) || conf_is_null(c, key)) return 0;
    return conf_bool(c, key, 0) ? 1 : -1;
}
static int h_interpolate(conf_case *c, ct_tensor **out) {
    ct_interpolate_options o;
    memset(&o, 0, sizeof o);
    conf_ints(c, "size", o.size, 3);
    json_value *sf = c->args ? json_get(c->args, "scale_factor") : NULL;
    if (sf && sf->type == JSON_NUMBER) o.scale_factor[0] = sf->number;
    if (sf && sf->type == JSON_ARRAY)
        for (int i = 0; i < sf->count && i < 3; i++) o.scale_factor[i] = json_at(sf, i)->number;
    o.mode = conf_str(c, "mode", NULL);
    o.align_corners = tristate(c, "align_corners");
    o.recompute_scale_factor = tristate(c, "recompute_scale_factor");
    o.antialias = conf_bool(c, "antialias", 0);
    ONE(ct_interpolate(IN(0), &o));
}
static int h_pixel_shuffle(conf_case *c, ct_tensor **out) { ONE(ct_pixel_shuffle(IN(0), conf_int(c, "upscale_factor", 1))); }
static int h_pixel_unshuffle(conf_case *c, ct_tensor **out) { ONE(ct_pixel_unshuffle(IN(0), conf_int(c, "downscale_factor", 1))); }
static int h_affine_grid(conf_case *c, ct_tensor **out) {
    int64_t size[8];
    int n = conf_ints(c, "size", size, 8);
    ONE(ct_affine_grid(IN(0), n < 0 ? 0 : n, size, conf_bool(c, "align_corners", 0)));
}
static int h_grid_sample(conf_case *c, ct_tensor **out) {
    ct_grid_sample_options o;
    memset(&o, 0, sizeof o);
    o.mode = conf_str(c, "mode", NULL);
    o.padding_mode = conf_str(c, "padding_mode", NULL);
    o.align_corners = conf_bool(c, "align_corners", 0);
    ONE(ct_grid_sample(IN(0), IN(1), &o));
}

const conf_op conf_ops_nn_resample[] = {
    {"torch.nn.functional.interpolate", h_interpolate, NULL},
    {"torch.nn.functional.pixel_shuffle", h_pixel_shuffle, NULL},
    {"torch.nn.functional.pixel_unshuffle", h_pixel_unshuffle, NULL},
    {"torch.nn.functional.affine_grid", h_affine_grid, NULL},
    {"torch.nn.functional.grid_sample", h_grid_sample, NULL},
    {0, 0, 0}};
