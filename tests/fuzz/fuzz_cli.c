/* fuzz_cli.c: libFuzzer target for the command line every step shares (common/cli.c).
 *
 * An input is one or more command lines separated by an empty line, each the arguments after the
 * program's name, one per line. Each is parsed from its own copy, freed before the next, as one
 * process may parse several command lines (the tests do): what one parse leaves behind (getopt's
 * state) must not reach into the next. The parser must go on (-1), stop after --help or --version (0)
 * or refuse with one line (2), never crash, read freed memory or leak; what it accepts must be within
 * the lab's limits. */
#include "cli.h"
#include "nbody.h"
#include "snapshot.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ARGS 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* One command line: `len` bytes of arguments, one per line. */
static void parse(const uint8_t *data, size_t len)
{
    char *text = (char *)malloc(len + 1);
    if (!text)
        abort();
    memcpy(text, data, len);
    text[len] = '\0';
    char name[] = "fuzz_cli";
    char *argv[MAX_ARGS + 2] = {name};
    int argc = 1;
    for (char *p = text; len > 0 && argc <= MAX_ARGS;) {
        argv[argc++] = p;
        char *nl = (char *)memchr(p, '\n', (size_t)(text + len - p));
        if (!nl)
            break;
        *nl = '\0';
        p = nl + 1;
    }
    argv[argc] = NULL;

    nb_options o;
    static const nb_step_facts facts = {"fuzz_cli", "the command-line fuzzer", 1, ~0u, 2};
    const int rc = nb_parse_args(argc, argv, &o, &facts);
    if (rc != -1 && rc != NB_EXIT_OK && rc != NB_EXIT_ERROR)
        abort();
    if (rc == -1) {
        uint64_t total;
        if (o.bodies < 1 || o.systems < 1 || __builtin_mul_overflow(o.bodies, o.systems, &total) ||
            total > NB_MAX_TOTAL_BODIES || o.repeat < 1)
            abort();
        if (!(isfinite(o.dt) && o.dt > 0.0 && (float)o.dt >= FLT_MIN) || !(isfinite(o.eps) && o.eps >= 0.0))
            abort();
        if ((o.snapshot_every != 0) != (o.snapshot_dir != NULL))
            abort();
    }
    free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *end = data + size;
    for (;;) {
        const uint8_t *cut = data;
        while (cut + 1 < end && !(cut[0] == '\n' && cut[1] == '\n'))
            ++cut;
        if (cut + 1 >= end) {
            parse(data, (size_t)(end - data));
            return 0;
        }
        parse(data, (size_t)(cut - data));
        data = cut + 2;
    }
}
