/* registry.c: steps.list, the one registry of steps: reading it, selecting the steps to grade, and the
 * steps' facts (an mpi:R step's judge starts its worker through mpirun itself). */
#define _GNU_SOURCE /* strtok_r */
#include "registry.h"
#include "text.h"
#include "nbody.h"
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int is_number(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; ++s)
        if (!isdigit((unsigned char)*s))
            return 0;
    return 1;
}

/* The rule every reader of steps.list uses: lines whose first field is a number are steps. */
int read_registry(const char *path, registry *r)
{
    memset(r, 0, sizeof *r);
    FILE *f = fopen(path, "r");
    if (!f) {
        nb_error("cannot read the registry %s: %s", path, strerror(errno));
        return NB_EXIT_ERROR;
    }
    char line[1024];
    size_t lineno = 0;
    while (fgets(line, sizeof line, f)) {
        ++lineno;
        char first[64] = "";
        if (sscanf(line, "%63s", first) != 1 || !is_number(first))
            continue;
        graded_step s;
        memset(&s, 0, sizeof s);
        char gpus[16], flags[256], features[128], launch[32];
        if (sscanf(line, "%15s %63s %7s %15s %255s %15s %127s %31s", s.id, s.folder, s.lang, gpus, flags, s.from,
                   features, launch) != 8 ||
            !is_number(gpus) || (strcmp(s.lang, "c") && strcmp(s.lang, "cu")) ||
            (strcmp(s.from, "-") && !is_number(s.from)) || (s.features = nb_features_parse(features)) == ~0u ||
            (strcmp(launch, "-") && (strncmp(launch, "mpi:", 4) || !is_number(launch + 4) ||
                                     strtoul(launch + 4, NULL, 10) < 1 || strtoul(launch + 4, NULL, 10) > 64))) {
            nb_error("%s line %zu: expected 'id folder c|cu gpus flags from|- features|- -|mpi:R summary' (features: "
                     "comma-separated, of %s)", path, lineno, NB_FEATURE_NAMES);
            fclose(f);
            free(r->steps);
            return NB_EXIT_ERROR;
        }
        if (!strcmp(s.from, "-"))
            s.from[0] = '\0';
        snprintf(s.check, sizeof s.check, "%s", s.features & NB_FEATURE_THETA ? "tree" : "exact");
        s.ranks = strcmp(launch, "-") ? (unsigned)strtoul(launch + 4, NULL, 10) : 0;
        snprintf(s.ranks_text, sizeof s.ranks_text, "%u", s.ranks);
        s.gpus = (unsigned)strtoul(gpus, NULL, 10);
        if (!strcmp(s.lang, "cu") && s.gpus == 0)
            s.gpus = 1; /* CUDA code needs a GPU, whatever the column says */
        graded_step *grown = (graded_step *)realloc(r->steps, (r->count + 1) * sizeof(graded_step));
        if (!grown) {
            nb_error("out of memory reading %s", path);
            fclose(f);
            free(r->steps);
            return NB_EXIT_ERROR;
        }
        r->steps = grown;
        r->steps[r->count++] = s;
    }
    fclose(f);
    if (r->count == 0) {
        nb_error("%s lists no steps", path);
        return NB_EXIT_ERROR;
    }
    for (size_t k = 0; k < r->count; ++k) { /* a step grows from one listed before it */
        size_t j = 0;
        while (j < k && (!r->steps[k].from[0] || strcmp(r->steps[j].id, r->steps[k].from)))
            ++j;
        if (r->steps[k].from[0] && j == k) {
            nb_error("%s: step %s grows from step %s, which is not listed before it", path, r->steps[k].id,
                     r->steps[k].from);
            free(r->steps);
            return NB_EXIT_ERROR;
        }
    }
    return NB_EXIT_OK;
}

/* Marks the steps named in `list` ("00 01 05", "3" = "03"); an empty list selects all. */
int select_steps(registry *r, const char *list)
{
    char buf[512];
    textf(buf, sizeof buf, "%s", list);
    int any = 0;
    for (char *save = NULL, *tok = strtok_r(buf, " ,", &save); tok; tok = strtok_r(NULL, " ,", &save)) {
        any = 1;
        size_t k = 0;
        for (; k < r->count; ++k)
            if (!strcmp(tok, r->steps[k].id) ||
                (is_number(tok) && strtoul(tok, NULL, 10) == strtoul(r->steps[k].id, NULL, 10)))
                break;
        if (k == r->count) {
            char ids[256] = "";
            for (size_t j = 0; j < r->count; ++j) {
                const size_t used = strlen(ids);
                textf(ids + used, sizeof ids - used, " %s", r->steps[j].id);
            }
            nb_error("no step '%s' in the registry (it has:%s)", tok, ids);
            return NB_EXIT_ERROR;
        }
        r->steps[k].selected = 1;
    }
    for (size_t k = 0; k < r->count && !any; ++k)
        r->steps[k].selected = 1;
    return NB_EXIT_OK;
}
