/* registry.h: steps.list, the one registry of steps, as C reads it (floor 2: includes text.h only of
 * grading/): reading it, selecting the steps to grade, a step's command line. */
#ifndef GRADING_REGISTRY_H
#define GRADING_REGISTRY_H

#include <stddef.h>

#define MAX_ARGS 64 /* a launched command line, mpirun's words included */

typedef struct step {
    char id[16], folder[64], lang[8];
    unsigned gpus;  /* GPUs it needs */
    char from[16];  /* the step it grows from ("" for none): its "vs prev" compares with that one */
    char check[16]; /* tolerance class: exact or tree */
    unsigned ranks; /* launch mpi:R: run through mpirun -np R; 0: run the binary itself */
    char ranks_text[16];
    int selected;
} step;

typedef struct registry {
    step *steps;
    size_t count;
} registry;

int read_registry(const char *path, registry *r);
/* Marks the steps named in `list` ("00 01 05", "3" = "03"); an empty list selects all. */
int select_steps(registry *r, const char *list);
/* argv as the registry launches step s: itself, or through mpirun -np R (in `out`) for mpi:R. */
char *const *launch_argv(const step *s, char *const argv[], char *out[MAX_ARGS]);

#endif
