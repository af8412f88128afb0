/* INSTRUCTORS ONLY: a grader self-test cheat (grading/cheats/README.md).
 * cheat: precomputes-gpu | 03 | HONEST | in the first call its worker gets (never timed: a check, or the
 * decoy step before a timed call) computes the ladder's problem of the default seed at the GPU cheats' size
 * for 10 and 20 steps; a timed call whose bodies are a relabelling of it gets the answer at once (4.8 times
 * the honest speed once, with the fixed seed of old); with the seed each grade draws, it is the honest step */
#include "honest03.h"
#include "init.h"
#include "relabel.h"

#define KNOWN_N 32768
static nb_state known_start, known_k, known_2k, scratch;
static int tried;

static void precompute(void)
{
    if (nb_state_alloc(&known_start, 1, KNOWN_N) != NB_EXIT_OK || nb_state_alloc(&known_k, 1, KNOWN_N) != NB_EXIT_OK ||
        nb_state_alloc(&known_2k, 1, KNOWN_N) != NB_EXIT_OK || nb_state_alloc(&scratch, 1, KNOWN_N) != NB_EXIT_OK)
        return;
    nb_init(&known_start, NB_MODEL_PLUMMER, NB_MASSES_EQUAL, 42);
    nb_run_info info = {0, 0, ""};
    nb_run run = {10, 0.001f, 1e-4f, 0, NULL, &info, {0}};
    nb_state_copy(&known_k, &known_start);
    honest_step_run(&known_k, &run);
    run.steps = 20;
    nb_state_copy(&known_2k, &known_start);
    honest_step_run(&known_2k, &run);
}

int nb_step_run(nb_state *s, const nb_run *run)
{
    if (!tried++)
        precompute();
    nb_variant v;
    if (known_2k.x && (run->steps == 10 || run->steps == 20) && known_variant(s, &known_start, &v, &scratch)) {
        answer_as(s, &v, run->steps == 10 ? &known_k : &known_2k);
        return NB_EXIT_OK;
    }
    return honest_step_run(s, run);
}
