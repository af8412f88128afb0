/* features.c: the default of nb_step_features (common/nbody.h) for steps that declare none.
 *
 * It stands alone in this file on purpose: libnbody.a hands it to the linker only when the step has
 * no definition of its own. Defined weakly in the same file as its reader (main.c), it was folded to
 * 0 by the compiler, and a step's own features were never seen. */
#include "nbody.h"

__attribute__((weak)) const unsigned nb_step_features = 0;
