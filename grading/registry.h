/* registry.h: steps.list, the one registry of steps, as C reads it (floor 2: includes text.h only of
 * grading/): reading it, selecting the steps to grade, a step's command line. */
#ifndef GRADING_REGISTRY_H
#define GRADING_REGISTRY_H

#include <stddef.h>


typedef struct graded_step {
    char id[16], folder[64], lang[8];
    unsigned gpus;  /* GPUs it needs */
    char from[16];  /* the step it grows from ("" for none): its "vs prev" compares with that one */
    unsigned features; /* NB_FEATURE_* of the features column */
    char check[16]; /* tolerance class, from the features: tree (theta) or exact */
    unsigned ranks; /* launch mpi:R: the judge runs its worker through mpirun -np R; 0: one process */
    char ranks_text[16];
    int selected;
} graded_step;

typedef struct registry {
    graded_step *steps;
    size_t count;
} registry;

int read_registry(const char *path, registry *r);
/* Marks the steps named in `list` ("00 01 05", "3" = "03"); an empty list selects all. */
int select_steps(registry *r, const char *list);

#endif
