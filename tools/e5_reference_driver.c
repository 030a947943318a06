#include "e5.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
/* usage: drv model.bin query|passage < lines > vectors.f32 */
int main(int argc, char **argv) {
    e5_model *m = e5_load(argv[1]);
    if (!m) return 1;
    int is_q = strcmp(argv[2], "query") == 0;
    int D = e5_dim(m);
    float *out = malloc(sizeof(float) * D);
    char *line = NULL; size_t cap = 0; ssize_t n;
    while ((n = getline(&line, &cap, stdin)) > 0) {
        if (line[n-1] == '\n') line[n-1] = 0;
        e5_embed(m, line, is_q, out);
        fwrite(out, sizeof(float), D, stdout);
    }
    return 0;
}
