/* cli.c: GNU long options, strict numbers, one clear line for every mistake. */
#define _GNU_SOURCE
#include "cli.h"
#include "worker_call.h"
#include "nbody.h"
#include "snapshot.h"
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef NB_VERSION
#define NB_VERSION "1.0"
#endif
#ifndef NB_COMMIT
#define NB_COMMIT "unknown"
#endif

int nb_parse_u64(const char *text, const char *option, uint64_t min, uint64_t max, uint64_t *out)
{
    const char *p = text;
    while (isspace((unsigned char)*p))
        ++p;
    if (*p == '-' || *p == '+' || !isdigit((unsigned char)*p)) {
        if (*p == '-' && isdigit((unsigned char)p[1]))
            nb_error("%s %s: must not be negative", option, text);
        else
            nb_error("%s '%s': not a whole number", option, text);
        return NB_EXIT_ERROR;
    }
    errno = 0;
    char *end;
    const unsigned long long v = strtoull(p, &end, 10);
    if (*end != '\0') {
        nb_error("%s '%s': not a whole number", option, text);
        return NB_EXIT_ERROR;
    }
    if (errno == ERANGE || v > max) {
        nb_error("%s %s: too large (at most %llu)", option, text, (unsigned long long)max);
        return NB_EXIT_ERROR;
    }
    if (v < min) {
        nb_error("%s %s: too small (at least %llu)", option, text, (unsigned long long)min);
        return NB_EXIT_ERROR;
    }
    *out = v;
    return NB_EXIT_OK;
}

int nb_parse_double(const char *text, const char *option, double min, double max, int min_inclusive, double *out)
{
    errno = 0;
    char *end;
    const double v = strtod(text, &end);
    if (end == text || *end != '\0') {
        nb_error("%s '%s': not a number", option, text);
        return NB_EXIT_ERROR;
    }
    if (!isfinite(v) || errno == ERANGE) {
        nb_error("%s %s: must be a finite number", option, text);
        return NB_EXIT_ERROR;
    }
    if (min_inclusive ? !(v >= min) : !(v > min)) {
        nb_error("%s %s: must be %s %g", option, text, min_inclusive ? "at least" : "greater than", min);
        return NB_EXIT_ERROR;
    }
    if (!(v <= max)) {
        nb_error("%s %s: must be at most %g", option, text, max);
        return NB_EXIT_ERROR;
    }
    *out = v;
    return NB_EXIT_OK;
}

static void usage(FILE *f, const nb_step_facts *facts)
{
    fprintf(f,
            "Usage: %s [OPTION]...\n"
            "%s\n"
            "Runs S systems of N bodies for K steps of kick-drift leapfrog, after validating against the\n"
            "fp64 reference; prints the timing and appends it to a results CSV. The step's code runs in a\n"
            "worker process of its own (%s-worker), sandboxed where bubblewrap runs.\n"
            "\n"
            "Bodies\n"
            "  -n, --bodies N          bodies per system (default 16384)\n"
            "  -S, --systems S         independent systems (default 1)\n"
            "      --model MODEL       plummer (default), uniform, collision, hernquist (a dense centre) or\n"
            "                          hernquist-bh (the same about a black hole of 1 %% of the mass, body 0)\n"
            "      --masses MASSES     equal (default, m = 1/N) or random (uniform in [0.5,1.5), total 1)\n"
            "      --seed SEED         random seed (default 42)\n"
            "  -i, --input FILE        start from a file instead of a model: a snapshot, tipsy or GADGET/SWIFT\n"
            "                          HDF5, told apart by its content (its dt and eps are the defaults then)\n"
            "\n"
            "Integration\n"
            "  -k, --steps K           time steps (default 10)\n"
            "      --dt DT             time step (default 0.001)\n"
            "      --eps EPS           softening length (default 0.01; 0 = none, bodies must not coincide)\n"
            "\n"
            "Output\n"
            "  -o, --output FILE       write the final state as a snapshot\n"
            "      --output-format FMT --output's format: nbs (default), tipsy or hdf5 (one system)\n"
            "      --snapshot-every K  write a snapshot every K steps of this run into --snapshot-dir (counted\n"
            "                          from the run's start, also when it resumes from --input)\n"
            "      --snapshot-dir DIR  folder for those snapshots (must exist)\n"
            "      --csv FILE          append one row of results (created with a header)\n"
            "      --tag TEXT          label for the CSV row (letters, digits, - _ . =)\n"
            "      --diagnostics       fp64 energy, momentum and virial ratio before and after\n"
            "  -q, --quiet             print only errors\n"
            "\n"
            "Measurement\n"
            "  -r, --repeat R          timed repeats (on a GPU after one warm-up), median reported (default 3)\n"
            "      --validate MODE     auto (default), full, sample or off\n"
            "      --validate-only     validate, then exit: 0 pass, 1 mismatch, 2 error (with --output: the state\n"
            "                          after the state check's steps)\n"
            "      --ref-cache DIR     keep fp64 reference results in DIR between runs\n"
            "      --sandbox MODE      the worker's sandbox: auto (default: bubblewrap where it runs), require\n"
            "                          (no run without it) or off\n"
            "      --sandbox-hide DIR  a folder the worker must not see (up to 4)\n"
            "      --worker-wrapper \"PROG ARGS\"  tests: run every worker under PROG (compute-sanitizer), inside\n"
            "                          its sandbox (tests/compute-sanitizer.sh)\n"
            "      --timing HOW        k-2k (default on a GPU: a call of 2k steps less one of k) or call (each\n"
            "                          repeat one call of k steps, whole: for a profiler, which counts every step)\n",
            facts->name, facts->summary, facts->name);
    const unsigned k = facts->features;
    if (facts->gpu || k || facts->ranks) {
        fprintf(f, "\nThis step's own\n");
        if (facts->gpu)
            fprintf(f, "      --block B           threads per block (default: the step's own)\n");
        if (k & NB_FEATURE_MULTI_GPU)
            fprintf(f, "      --gpus G            GPUs to use (default: all)\n");
        if (k & NB_FEATURE_NO_OVERLAP)
            fprintf(f, "      --no-overlap        copies and compute one after another, to measure the overlap\n");
        if (k & NB_FEATURE_DECOMPOSE)
            fprintf(f, "      --decompose HOW     auto (default), systems (whole systems per GPU) or bodies\n"
                       "                          (each GPU a slice of every system's bodies; positions exchanged)\n");
        if (k & NB_FEATURE_DETERMINISTIC)
            fprintf(f, "      --deterministic     sum the forces in a fixed order (bit-identical runs, slower)\n");
        if (facts->ranks)
            fprintf(f, "      --ranks R           MPI ranks the worker runs as (default %u; one per GPU)\n", facts->ranks);
        if (k & NB_FEATURE_THETA)
            fprintf(f, "      --theta T           opening angle, 0 <= T <= 2 (default %g; 0 = every cell opened)\n",
                    (double)NB_THETA_DEFAULT);
        if (k & NB_FEATURE_BLOCK_STEPS)
            fprintf(f, "      --levels L          time steps dt / 2^k, k < L, 1 <= L <= %d (default %u: every body on --dt)\n"
                       "      --eta E             a body's step is E sqrt(eps / |a|), 0 < E <= 10 (default %g)\n",
                    NB_LEVELS_MAX, NB_LEVELS_DEFAULT, (double)NB_ETA_DEFAULT);
    }
    fprintf(f, "\n"
               "  -h, --help              this help\n"
               "  -V, --version           version and commit\n"
               "\n"
               "Exit status: 0 passed, 1 the step disagrees with the reference, 2 bad input or environment.\n");
}

enum {
    OPT_MODEL = 256, OPT_MASSES, OPT_SEED, OPT_DT, OPT_EPS, OPT_SNAP_EVERY, OPT_SNAP_DIR, OPT_CSV, OPT_TAG,
    OPT_DIAG, OPT_VALIDATE, OPT_VALIDATE_ONLY, OPT_REF_CACHE, OPT_BLOCK, OPT_GPUS, OPT_NO_OVERLAP, OPT_DECOMPOSE,
    OPT_DETERMINISTIC, OPT_THETA, OPT_SANDBOX, OPT_SANDBOX_HIDE, OPT_RANKS, OPT_LEVELS, OPT_ETA, OPT_TIMING, OPT_WORKER_WRAPPER,
    OPT_OUTPUT_FORMAT
};

static int check_tag(const char *tag)
{
    if (!*tag || strlen(tag) > 64) {
        nb_error("--tag '%s': 1 to 64 characters", tag);
        return NB_EXIT_ERROR;
    }
    for (const char *p = tag; *p; ++p)
        if (!isalnum((unsigned char)*p) && !strchr("-_.=", *p)) {
            nb_error("--tag '%s': only letters, digits and - _ . = (it goes into a CSV field)", tag);
            return NB_EXIT_ERROR;
        }
    return NB_EXIT_OK;
}

/* Every option's defaults. */
static void defaults(nb_options *o)
{
    memset(o, 0, sizeof *o);
    o->bodies = 16384;
    o->systems = 1;
    o->steps = 10;
    o->dt = 0.001;
    o->eps = 0.01;
    o->seed = 42;
    o->repeat = 3;
    o->model = NB_MODEL_PLUMMER;
    o->masses = NB_MASSES_EQUAL;
    o->validate = NB_VALIDATE_AUTO;
    o->theta = -1.0;
    o->eta = -1.0;

}

/* The words an option takes, each its value: one table an option, read both ways (nb_word_name). */
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))
static const nb_word validate_words[] = {{"auto", NB_VALIDATE_AUTO}, {"full", NB_VALIDATE_FULL},
                                         {"sample", NB_VALIDATE_SAMPLE}, {"off", NB_VALIDATE_OFF}};
static const nb_word decompose_words[] = {{"auto", NB_DECOMPOSE_AUTO}, {"systems", NB_DECOMPOSE_SYSTEMS},
                                          {"bodies", NB_DECOMPOSE_BODIES}};
static const nb_word sandbox_words[] = {{"auto", NB_SANDBOX_AUTO}, {"require", NB_SANDBOX_REQUIRE},
                                        {"off", NB_SANDBOX_OFF}};
static const nb_word timing_words[] = {{"k-2k", 0}, {"call", 1}};

static const struct option longopts[] = {
    {"bodies", required_argument, 0, 'n'},       {"systems", required_argument, 0, 'S'},
    {"steps", required_argument, 0, 'k'},        {"dt", required_argument, 0, OPT_DT},
    {"eps", required_argument, 0, OPT_EPS},      {"seed", required_argument, 0, OPT_SEED},
    {"model", required_argument, 0, OPT_MODEL},  {"masses", required_argument, 0, OPT_MASSES},
    {"input", required_argument, 0, 'i'},        {"output", required_argument, 0, 'o'},
    {"repeat", required_argument, 0, 'r'},       {"csv", required_argument, 0, OPT_CSV},
    {"tag", required_argument, 0, OPT_TAG},      {"quiet", no_argument, 0, 'q'},
    {"help", no_argument, 0, 'h'},               {"version", no_argument, 0, 'V'},
    {"snapshot-every", required_argument, 0, OPT_SNAP_EVERY},
    {"snapshot-dir", required_argument, 0, OPT_SNAP_DIR},
    {"diagnostics", no_argument, 0, OPT_DIAG},   {"validate", required_argument, 0, OPT_VALIDATE},
    {"validate-only", no_argument, 0, OPT_VALIDATE_ONLY},
    {"ref-cache", required_argument, 0, OPT_REF_CACHE},
    {"block", required_argument, 0, OPT_BLOCK},  {"gpus", required_argument, 0, OPT_GPUS},
    {"no-overlap", no_argument, 0, OPT_NO_OVERLAP},
    {"decompose", required_argument, 0, OPT_DECOMPOSE},
    {"deterministic", no_argument, 0, OPT_DETERMINISTIC},
    {"theta", required_argument, 0, OPT_THETA},
    {"sandbox", required_argument, 0, OPT_SANDBOX},
    {"sandbox-hide", required_argument, 0, OPT_SANDBOX_HIDE},
    {"ranks", required_argument, 0, OPT_RANKS},
    {"timing", required_argument, 0, OPT_TIMING},
    {"levels", required_argument, 0, OPT_LEVELS}, {"eta", required_argument, 0, OPT_ETA},
    {"worker-wrapper", required_argument, 0, OPT_WORKER_WRAPPER},
    {"output-format", required_argument, 0, OPT_OUTPUT_FORMAT},
    {0, 0, 0, 0}};

/* One option and its value into o: NB_EXIT_OK, or NB_EXIT_ERROR after its line. */
static int parse_one(int c, nb_options *o)
{
    int rc = NB_EXIT_OK, v = 0;
    uint64_t u;
    switch (c) {
    case 'n':
        rc = nb_parse_u64(optarg, "--bodies", 1, NB_MAX_TOTAL_BODIES, &o->bodies);
        o->bodies_set = 1;
        break;
    case 'S':
        rc = nb_parse_u64(optarg, "--systems", 1, NB_MAX_TOTAL_BODIES, &o->systems);
        o->systems_set = 1;
        break;
    case 'k': rc = nb_parse_u64(optarg, "--steps", 0, UINT64_C(1) << 40, &o->steps); break;
    case 'r': rc = nb_parse_u64(optarg, "--repeat", 1, 1000, &o->repeat); break;
    case OPT_SEED:
        rc = nb_parse_u64(optarg, "--seed", 0, UINT64_MAX, &o->seed);
        o->seed_set = 1;
        break;
    case OPT_DT:
        rc = nb_parse_double(optarg, "--dt", 0.0, 1e6, 0, &o->dt);
        if (rc == NB_EXIT_OK && (float)o->dt < FLT_MIN) { /* the steps would not move at all */
            nb_error("--dt %s: too small for float32, in which the steps compute (at least %g)",
                     optarg, (double)FLT_MIN);
            rc = NB_EXIT_ERROR;
        }
        o->dt_set = 1;
        break;
    case OPT_EPS:
        rc = nb_parse_double(optarg, "--eps", 0.0, 1e6, 1, &o->eps);
        if (rc == NB_EXIT_OK && o->eps > 0.0 && (float)(o->eps * o->eps) < FLT_MIN) { /* eps^2 would be 0: no softening */
            nb_error("--eps %s: its square is too small for float32, in which the forces compute (0, or at least %.3g)",
                     optarg, sqrt((double)FLT_MIN));
            rc = NB_EXIT_ERROR;
        }
        o->eps_set = 1;
        break;
    case OPT_MODEL:
        o->model_set = 1;
        rc = nb_word_value(nb_model_words, nb_model_word_count, optarg, "--model", &v);
        o->model = (nb_model)v;
        break;
    case OPT_MASSES:
        o->masses_set = 1;
        rc = nb_word_value(nb_masses_words, nb_masses_word_count, optarg, "--masses", &v);
        o->masses = (nb_masses)v;
        break;
    case 'i': o->input = optarg; break;
    case 'o': o->output = optarg; break;
    case OPT_OUTPUT_FORMAT: o->output_format = optarg; break;
    case OPT_CSV: o->csv = optarg; break;
    case OPT_TAG:
        rc = check_tag(optarg);
        o->tag = optarg;
        break;
    case 'q': o->quiet = 1; break;
    case OPT_SNAP_EVERY: rc = nb_parse_u64(optarg, "--snapshot-every", 1, UINT64_C(1) << 40, &o->snapshot_every); break;
    case OPT_SNAP_DIR: o->snapshot_dir = optarg; break;
    case OPT_DIAG: o->diagnostics = 1; break;
    case OPT_VALIDATE:
        rc = nb_word_value(validate_words, COUNT(validate_words), optarg, "--validate", &v);
        o->validate = (nb_validate_mode)v;
        break;
    case OPT_VALIDATE_ONLY: o->validate_only = 1; break;
    case OPT_REF_CACHE:
        o->ref_cache = optarg;
        if (!*optarg) {
            nb_error("--ref-cache '': give a folder (an empty name would mean the filesystem's root)");
            rc = NB_EXIT_ERROR;
        }
        break;
    case OPT_BLOCK:
        rc = nb_parse_u64(optarg, "--block", 1, 1024, &u);
        o->block = (unsigned)u;
        break;
    case OPT_GPUS:
        rc = nb_parse_u64(optarg, "--gpus", 1, 64, &u);
        o->gpus = (unsigned)u;
        break;
    case OPT_NO_OVERLAP: o->no_overlap = 1; break;
    case OPT_RANKS:
        rc = nb_parse_u64(optarg, "--ranks", 1, 64, &u);
        o->ranks = (unsigned)u;
        break;
    case OPT_DETERMINISTIC: o->deterministic = 1; break;
    case OPT_THETA: rc = nb_parse_double(optarg, "--theta", 0.0, 2.0, 1, &o->theta); break;
    case OPT_LEVELS: rc = nb_parse_u64(optarg, "--levels", 1, NB_LEVELS_MAX, &o->levels); break;
    case OPT_ETA: rc = nb_parse_double(optarg, "--eta", 0.0, 10.0, 0, &o->eta); break;
    case OPT_DECOMPOSE:
        rc = nb_word_value(decompose_words, COUNT(decompose_words), optarg, "--decompose", &v);
        o->decompose = v;
        break;
    case OPT_SANDBOX:
        rc = nb_word_value(sandbox_words, COUNT(sandbox_words), optarg, "--sandbox", &v);
        o->sandbox = v;
        break;
    case OPT_TIMING:
        rc = nb_word_value(timing_words, COUNT(timing_words), optarg, "--timing", &v);
        o->timing_call = v;
        break;
    case OPT_WORKER_WRAPPER: /* tests only: compute-sanitizer inside the sandbox, around the worker */
        if (!*optarg || optarg[0] != '/') {
            nb_error("--worker-wrapper '%s': give the program's absolute path (and its options)", optarg);
            rc = NB_EXIT_ERROR;
        } else {
            o->worker_wrapper = optarg;
        }
        break;
    case OPT_SANDBOX_HIDE: {
        size_t h = 0;
        while (h < 4 && o->sandbox_hide[h])
            ++h;
        if (h == 4 || !*optarg || optarg[0] != '/') {
            nb_error(h == 4 ? "--sandbox-hide: at most 4 folders" : "--sandbox-hide '%s': give an absolute path",
                     optarg);
            rc = NB_EXIT_ERROR;
        } else {
            o->sandbox_hide[h] = optarg;
        }
        break;
    }
    }
    return rc;
}

/* An option getopt did not know, or one given a value it takes none: one line. */
static void unknown_option(int argc, char **argv)
{
    if (optind > 0 && optind <= argc && !strncmp(argv[optind - 1], "--", 2) && strchr(argv[optind - 1], '=')) {
        /* --name=value: a known option that takes no value, or an unknown one */
        const char *arg = argv[optind - 1] + 2;
        const size_t len = strcspn(arg, "=");
        int known = 0;
        for (const struct option *l = longopts; l->name; ++l)
            known |= strlen(l->name) == len && !strncmp(l->name, arg, len);
        nb_error(known ? "option --%.*s takes no value (see --help)" : "unknown option --%.*s (see --help)",
                 (int)len, arg);
    } else if (optopt)
        nb_error("unknown option -%c (see --help)", optopt);
    else
        nb_error("unknown option %s (see --help)", argv[optind - 1]);
}

/* What the options say together. */
static int check_together(const nb_options *o)
{
    if (o->input && (o->bodies_set || o->systems_set || o->model_set || o->masses_set || o->seed_set)) {
        nb_error("--input takes the bodies from the file: drop --bodies, --systems, --model, --masses and --seed");
        return NB_EXIT_ERROR;
    }
    uint64_t total;
    if (nb_mul_overflows(o->bodies, o->systems, &total) || total > NB_MAX_TOTAL_BODIES) {
        nb_error("%llu systems of %llu bodies: more than the %llu bodies the lab handles",
                 (unsigned long long)o->systems, (unsigned long long)o->bodies,
                 (unsigned long long)NB_MAX_TOTAL_BODIES);
        return NB_EXIT_ERROR;
    }
    if (o->model == NB_MODEL_COLLISION && !o->input && o->bodies < 2) {
        nb_error("--model collision needs at least 2 bodies (one per sphere)");
        return NB_EXIT_ERROR;
    }
    if ((o->snapshot_every != 0) != (o->snapshot_dir != NULL)) {
        nb_error("--snapshot-every and --snapshot-dir go together");
        return NB_EXIT_ERROR;
    }
    return NB_EXIT_OK;
}

int nb_parse_args(int argc, char **argv, nb_options *o, const nb_step_facts *facts)
{
    defaults(o);
    opterr = 0; /* our own messages, one line each */
    /* 0, not 1: getopt (glibc, musl) then also forgets short options an earlier parse left half read. */
    optind = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":n:S:k:i:o:r:qhV", longopts, NULL)) != -1) {
        switch (c) {
        case 'h': usage(stdout, facts); return NB_EXIT_OK;
        case 'V': printf("%s %s (commit %s)\n", facts->name, NB_VERSION, NB_COMMIT); return NB_EXIT_OK;
        case ':':
            nb_error("option %s needs a value (see --help)", argv[optind - 1]);
            return NB_EXIT_ERROR;
        case '?':
            unknown_option(argc, argv);
            return NB_EXIT_ERROR;
        default:
            if (parse_one(c, o) != NB_EXIT_OK)
                return NB_EXIT_ERROR;
        }
    }
    if (optind < argc) {
        nb_error("unexpected argument '%s' (see --help)", argv[optind]);
        return NB_EXIT_ERROR;
    }
    return check_together(o) == NB_EXIT_OK ? -1 : NB_EXIT_ERROR;
}
