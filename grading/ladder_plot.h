/* ladder_plot.h: the speedup ladder, drawn with gnuplot (floor 5: includes options.h, gpus.h and below). */
#ifndef GRADING_LADDER_PLOT_H
#define GRADING_LADDER_PLOT_H

#include "gpus.h"
#include "options.h"

/* OUT/ladder.png and .svg from a results CSV. SM counts: the GPUs here, else those recorded (--gpu-info;
 * none: count 0). 0, or 1 if it could not (with one line saying how). */
int draw_ladder(const options *o, const gpu_info *here, const gpu_info *recorded, const char *csv_path);

#endif
