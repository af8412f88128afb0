/* features.c: the names of the features column of steps.list (nbody.h's NB_FEATURE_*), read by the
 * judge and the grader alike. */
#include "nbody.h"

#include <string.h>

unsigned nb_feature_bit(const char *name, size_t len)
{
    static const struct {
        const char *name;
        unsigned bit;
    } known[] = {{"snapshots", NB_FEATURE_SNAPSHOTS}, {"multi_gpu", NB_FEATURE_MULTI_GPU},
                 {"deterministic", NB_FEATURE_DETERMINISTIC}, {"theta", NB_FEATURE_THETA},
                 {"no_overlap", NB_FEATURE_NO_OVERLAP}, {"decompose", NB_FEATURE_DECOMPOSE},
                 {"block_steps", NB_FEATURE_BLOCK_STEPS}};
    for (size_t k = 0; k < sizeof known / sizeof known[0]; ++k)
        if (strlen(known[k].name) == len && !strncmp(name, known[k].name, len))
            return known[k].bit;
    return 0;
}

unsigned nb_features_parse(const char *list)
{
    unsigned bits = 0;
    if (!strcmp(list, "-") || !*list)
        return 0;
    for (const char *p = list; *p;) {
        const size_t n = strcspn(p, ",");
        const unsigned bit = nb_feature_bit(p, n);
        if (!bit)
            return ~0u;
        bits |= bit;
        p += n + (p[n] == ',');
    }
    return bits;
}
