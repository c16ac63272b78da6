/* Shared by the optimizer and scheduler state-dict fuzz targets (included after
   ctensor.h and ctensor_nn.h): a state dict <-> safetensors bytes. */
#ifndef CT_FUZZ_STATE_DICT_BYTES_H
#define CT_FUZZ_STATE_DICT_BYTES_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* sd as safetensors bytes (CT_MALLOC'd); traps if it cannot be written */
static inline void sd_to_bytes(const ct_state_dict *sd, void **data, size_t *len) {
    const char **names = (const char **)malloc(sizeof(char *) * (size_t)(sd->n + 1));
    const ct_tensor **ts = (const ct_tensor **)malloc(sizeof(ct_tensor *) * (size_t)(sd->n + 1));
    if (!names || !ts) __builtin_trap();
    for (int i = 0; i < sd->n; i++) {
        names[i] = sd->items[i].name;
        ts[i] = sd->items[i].tensor;
    }
    if (ct_save_safetensors_mem(sd->n, names, ts, 0, NULL, NULL, data, len) != CT_OK) __builtin_trap();
    free(names);
    free(ts);
}
/* every tensor of st as a state dict (names borrowed from st, tensors in the
   current scope); free items with free(). -1 when st does not load. */
static inline int sd_from_safetensors(ct_safetensors *st, ct_state_dict *sd) {
    int n = ct_safetensors_count(st);
    sd->n = 0;
    sd->items = (ct_named_tensor *)calloc((size_t)(n > 0 ? n : 1), sizeof(ct_named_tensor));
    if (!sd->items) __builtin_trap();
    for (int i = 0; i < n; i++) {
        const char *name = ct_safetensors_name(st, i);
        ct_tensor *t = ct_safetensors_get(st, name);
        if (!t) return -1;
        sd->items[i].name = (char *)(uintptr_t)name;
        sd->items[i].tensor = t;
        sd->items[i].persistent = 1;
        sd->n++;
    }
    return 0;
}
#ifdef CT_FUZZ_WRITE_SEEDS
static inline void write_seed(const char *dir, const char *name, unsigned char config, const void *data, size_t len) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(&config, 1, 1, f) != 1 || fwrite(data, 1, len, f) != len || fclose(f)) {
        fprintf(stderr, "cannot write %s\n", path);
        exit(1);
    }
}
#endif
#endif
