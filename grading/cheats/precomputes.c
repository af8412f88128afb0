/* INSTRUCTORS ONLY: a grader self-test cheat (grading/cheats/README.md).
 * cheat: precomputes | 00 | HONEST | computes the ladder's problem while its worker starts (a constructor,
 * never timed): the default model and seed at the cheats' size, 2 steps; a timed call whose bodies are that
 * problem, or a relabelling of it (the judge's variants: bodies rotated, axes turned and mirrored, undone in
 * O(N)), gets the answer at once. Under the fixed seed of old (grade --seed 42) it PASSes about 200 times
 * faster than the honest step; with the seed each grade draws, it is the honest step */
#include "honest00.h"
#include "init.h"
#include "relabel.h"

#define KNOWN_N 2048
#define KNOWN_STEPS 2
static nb_state known_start, known_end;

__attribute__((constructor)) static void precompute(void)
{
    if (nb_state_alloc(&known_start, 1, KNOWN_N) != NB_EXIT_OK || nb_state_alloc(&known_end, 1, KNOWN_N) != NB_EXIT_OK)
        return;
    nb_init(&known_start, NB_MODEL_PLUMMER, NB_MASSES_EQUAL, 42); /* the lab's default seed */
    nb_state_copy(&known_end, &known_start);
    nb_run_info info = {0, 0, ""};
    nb_run run = {KNOWN_STEPS, 0.001f, 1e-4f, 0, NULL, &info, {0}};
    honest_step_run(&known_end, &run);
}

int nb_step_run(nb_state *s, const nb_run *run)
{
    static nb_state scratch;
    nb_variant v;
    if (known_end.x && run->steps == KNOWN_STEPS && s->bodies == KNOWN_N &&
        (scratch.x || nb_state_alloc(&scratch, 1, KNOWN_N) == NB_EXIT_OK) && known_variant(s, &known_start, &v, &scratch)) {
        answer_as(s, &v, &known_end); /* nothing computed */
        return NB_EXIT_OK;
    }
    return honest_step_run(s, run);
}
