/* check_cli.c: the command line (common/cli.c) in-process, then the first CPU step program run as a
 * user would run it: every bad input gives exit status 2, exactly one line on stderr, no file behind. */
#include "cli.h"
#include "results.h"
#include "snapshot.h"
#include "testlib.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PROG "check_cli"

/* Parse argv (NULL-terminated, without the program name); stderr is captured into *err. */
static int parse(nb_options *o, nbt_capture *err, const char *const *args)
{
    char *argv[64] = {PROG};
    int argc = 1;
    while (args[argc - 1])
        argv[argc] = (char *)args[argc - 1], ++argc;
    argv[argc] = NULL;
    nb_set_progname(PROG);
    nbt_capture_begin(err);
    static const nb_step_facts facts = {PROG, "a test", 0, 0, 0};
    const int rc = nb_parse_args(argc, argv, o, &facts);
    nbt_capture_end(err);
    return rc;
}

/* ---- nb_parse_u64 and nb_parse_double ---------------------------------------------------------- */

typedef struct u64_case {
    const char *text;
    uint64_t min, max;
    int ok;
    uint64_t want;
} u64_case;

static const u64_case u64_cases[] = {
    {"0", 0, 10, 1, 0},
    {"10", 0, 10, 1, 10},
    {"007", 0, 10, 1, 7},
    {"18446744073709551615", 0, UINT64_MAX, 1, UINT64_MAX},
    {"18446744073709551616", 0, UINT64_MAX, 0, 0},  /* 2^64: overflow */
    {"99999999999999999999999", 0, UINT64_MAX, 0, 0},
    {"11", 0, 10, 0, 0},                             /* above max */
    {"0", 1, 10, 0, 0},                              /* below min */
    {"-1", 0, 10, 0, 0},
    {"-0", 0, 10, 0, 0},                             /* no sign on unsigned numbers */
    {"+5", 0, 10, 0, 0},
    {"", 0, 10, 0, 0},
    {"abc", 0, 10, 0, 0},
    {"5x", 0, 10, 0, 0},
    {"5 ", 0, 10, 0, 0},
    {"1e3", 0, 10000, 0, 0},
    {"1.5", 0, 10, 0, 0},
    {"0x10", 0, 100, 0, 0},
    {"nan", 0, 10, 0, 0},
};

START_TEST(parse_u64)
{
    const u64_case *c = &u64_cases[_i];
    uint64_t out = 12345;
    nbt_capture err;
    nb_set_progname(PROG);
    nbt_capture_begin(&err);
    const int rc = nb_parse_u64(c->text, "--opt", c->min, c->max, &out);
    nbt_capture_end(&err);
    if (c->ok) {
        ck_assert_msg(rc == NB_EXIT_OK && out == c->want, "'%s' in [%llu, %llu]: rc %d, value %llu", c->text,
                      (unsigned long long)c->min, (unsigned long long)c->max, rc, (unsigned long long)out);
        ck_assert_msg(err.lines == 0, "'%s': stderr: %s", c->text, err.text);
    } else {
        ck_assert_msg(rc == NB_EXIT_ERROR, "'%s' in [%llu, %llu] accepted as %llu", c->text,
                      (unsigned long long)c->min, (unsigned long long)c->max, (unsigned long long)out);
        ck_assert_msg(out == 12345, "'%s': the output was written on failure", c->text);
        ck_assert_msg(err.lines == 1 && strncmp(err.text, PROG ": --opt", strlen(PROG ": --opt")) == 0,
                      "'%s': want one line naming the option, got: %s", c->text, err.text);
    }
}
END_TEST

typedef struct double_case {
    const char *text;
    double min, max;
    int inclusive, ok;
    double want;
} double_case;

static const double_case double_cases[] = {
    {"0.5", 0, 1, 0, 1, 0.5},
    {"1e-3", 0, 1, 0, 1, 1e-3},
    {"0", 0, 1, 1, 1, 0.0},       /* min allowed when inclusive */
    {"1", 0, 1, 1, 1, 1.0},
    {"0", 0, 1, 0, 0, 0},         /* ... and refused when not */
    {"-0.1", 0, 1, 1, 0, 0},
    {"1.0000001", 0, 1, 1, 0, 0},
    {"nan", 0, 1, 1, 0, 0},
    {"NaN", -1e9, 1e9, 1, 0, 0},
    {"inf", 0, INFINITY, 1, 0, 0}, /* never finite, whatever the range */
    {"-inf", -INFINITY, 1, 1, 0, 0},
    {"1e999", 0, INFINITY, 1, 0, 0},
    {"1e-999", 0, 1, 1, 0, 0},     /* underflow: not the number written */
    {"", 0, 1, 1, 0, 0},
    {"abc", 0, 1, 1, 0, 0},
    {"0.5x", 0, 1, 1, 0, 0},
    {"0.5 ", 0, 1, 1, 0, 0},
};

START_TEST(parse_double)
{
    const double_case *c = &double_cases[_i];
    double out = 42.0;
    nbt_capture err;
    nb_set_progname(PROG);
    nbt_capture_begin(&err);
    const int rc = nb_parse_double(c->text, "--opt", c->min, c->max, c->inclusive, &out);
    nbt_capture_end(&err);
    if (c->ok) {
        ck_assert_msg(rc == NB_EXIT_OK && out == c->want, "'%s': rc %d, value %g", c->text, rc, out);
        ck_assert_msg(err.lines == 0, "'%s': stderr: %s", c->text, err.text);
    } else {
        ck_assert_msg(rc == NB_EXIT_ERROR, "'%s' in %s%g, %g] accepted as %g", c->text, c->inclusive ? "[" : "(",
                      c->min, c->max, out);
        ck_assert_msg(out == 42.0, "'%s': the output was written on failure", c->text);
        ck_assert_msg(err.lines == 1 && strncmp(err.text, PROG ": --opt", strlen(PROG ": --opt")) == 0,
                      "'%s': want one line naming the option, got: %s", c->text, err.text);
    }
}
END_TEST

/* ---- nb_parse_args ----------------------------------------------------------------------------- */

START_TEST(defaults)
{
    nb_options o;
    nbt_capture err;
    const char *args[] = {NULL};
    ck_assert_int_eq(parse(&o, &err, args), -1);
    ck_assert_int_eq(err.lines, 0);
    ck_assert(o.bodies == 16384 && o.systems == 1 && o.steps == 10 && o.seed == 42 && o.repeat == 3);
    ck_assert(o.dt == 0.001 && o.eps == 0.01);
    ck_assert(o.model == NB_MODEL_PLUMMER && o.masses == NB_MASSES_EQUAL && o.validate == NB_VALIDATE_AUTO);
    ck_assert(o.levels == 0 && o.eta < 0.0); /* not given: the harness passes NB_LEVELS_DEFAULT, NB_ETA_DEFAULT */
    ck_assert(!o.input && !o.output && !o.csv && !o.snapshot_dir && o.snapshot_every == 0);
    ck_assert(!o.bodies_set && !o.dt_set && !o.eps_set && !o.quiet);
}
END_TEST

START_TEST(good_arguments)
{
    nb_options o;
    nbt_capture err;
    const char *args[] = {"--bodies", "1000", "-S", "3", "--steps", "0", "--dt", "0.01", "--eps", "0",
                          "--model", "uniform", "--masses", "random", "--seed", "7", "-r", "5", "-q",
                          "--snapshot-every", "10", "--snapshot-dir", "snaps", "--csv", "r.csv", "--tag",
                          "run-1.a_b=c", "--validate", "full", "--diagnostics", "-o", "out.nbs", "--block", "128",
                          "--gpus", "2", "--no-overlap", "--ref-cache", "cache", NULL};
    ck_assert_int_eq(parse(&o, &err, args), -1);
    ck_assert_msg(err.lines == 0, "stderr: %s", err.text);
    ck_assert(o.bodies == 1000 && o.systems == 3 && o.steps == 0 && o.dt == 0.01 && o.eps == 0.0);
    ck_assert(o.model == NB_MODEL_UNIFORM && o.masses == NB_MASSES_RANDOM && o.seed == 7 && o.repeat == 5);
    ck_assert(o.quiet && o.diagnostics && o.no_overlap && o.validate == NB_VALIDATE_FULL);
    ck_assert(o.snapshot_every == 10 && !strcmp(o.snapshot_dir, "snaps") && !strcmp(o.csv, "r.csv"));
    ck_assert(!strcmp(o.tag, "run-1.a_b=c") && !strcmp(o.output, "out.nbs") && !strcmp(o.ref_cache, "cache"));
    ck_assert(o.block == 128 && o.gpus == 2);
    ck_assert(o.bodies_set && o.systems_set && o.model_set && o.masses_set && o.seed_set && o.dt_set && o.eps_set);

    /* --input alone, with --dt and --eps (which the file would otherwise give), is fine. */
    const char *input[] = {"--input", "start.nbs", "--dt", "0.002", "--steps", "5", NULL};
    ck_assert_int_eq(parse(&o, &err, input), -1);
    ck_assert(!strcmp(o.input, "start.nbs") && o.dt == 0.002 && o.dt_set && !o.eps_set);
    /* Block steps' options, and the Hernquist model. */
    const char *blocks[] = {"--levels", "16", "--eta", "0.05", "--model", "hernquist", NULL};
    ck_assert_int_eq(parse(&o, &err, blocks), -1);
    ck_assert(o.levels == 16 && o.eta == 0.05 && o.model == NB_MODEL_HERNQUIST);
    const char *hole[] = {"--model", "hernquist-bh", NULL};
    ck_assert_int_eq(parse(&o, &err, hole), -1);
    ck_assert(o.model == NB_MODEL_HERNQUIST_BH && !strcmp(nb_model_name(o.model), "hernquist-bh"));
    /* The three validate modes left. */
    const char *modes[3][3] = {{"--validate", "auto", NULL}, {"--validate", "sample", NULL}, {"--validate", "off", NULL}};
    const nb_validate_mode want[3] = {NB_VALIDATE_AUTO, NB_VALIDATE_SAMPLE, NB_VALIDATE_OFF};
    for (int m = 0; m < 3; ++m) {
        ck_assert_int_eq(parse(&o, &err, modes[m]), -1);
        ck_assert(o.validate == want[m]);
    }
}
END_TEST

START_TEST(help_and_version)
{
    nb_options o;
    nbt_capture err;
    const char *help[] = {"--help", NULL}, *version[] = {"-V", NULL};
    fflush(stdout);
    ck_assert_int_eq(parse(&o, &err, help), 0);
    ck_assert_int_eq(err.lines, 0);
    ck_assert_int_eq(parse(&o, &err, version), 0);
    ck_assert_int_eq(err.lines, 0);
}
END_TEST

/* Bad command lines: each must return NB_EXIT_ERROR after exactly one line on stderr. */
static const char *const bad_args[][8] = {
    {"--bodies", "0"},
    {"--bodies", "-5"},
    {"--bodies", "many"},
    {"--bodies", "99999999999999999999999"},
    {"--bodies", "1e3"},
    {"--bodies", ""},
    {"-n", "2000000000"},                       /* more than NB_MAX_TOTAL_BODIES */
    {"--systems", "0"},
    {"--systems", "65536", "--bodies", "65536"}, /* S*N beyond the limit */
    {"--steps", "-1"},
    {"--steps", "1.5"},
    {"--repeat", "0"},
    {"--repeat", "1001"},
    {"--dt", "0"},
    {"--dt", "-0.1"},
    {"--dt", "nan"},
    {"--dt", "inf"},
    {"--dt", "fast"},
    {"--eps", "-1"},
    {"--eps", "nan"},
    {"--eps", "inf"},
    {"--seed", "-1"},
    {"--seed", "18446744073709551616"},
    {"--model", "galaxy"},
    {"--model", "Plummer"},
    {"--masses", "heavy"},
    {"--validate", "sometimes"},
    {"--tag", "a,b"},
    {"--tag", ""},
    {"--block", "0"},
    {"--block", "2048"},
    {"--gpus", "0"},
    {"--frobnicate"},
    {"-x"},
    {"--bodies"},                               /* missing value */
    {"-n"},
    {"--output"},
    {"stray"},
    {"--bodies", "10", "extra"},
    {"--input", "a.nbs", "--bodies", "10"},
    {"--input", "a.nbs", "--systems", "2"},
    {"--input", "a.nbs", "--model", "uniform"},
    {"--input", "a.nbs", "--masses", "random"},
    {"--input", "a.nbs", "--seed", "3"},
    {"--snapshot-every", "10"},                 /* without --snapshot-dir */
    {"--snapshot-dir", "snaps"},                /* without --snapshot-every */
    {"--snapshot-every", "0", "--snapshot-dir", "snaps"},
    {"--model", "collision", "--bodies", "1"},
    {"--levels", "0"},                          /* step13's block steps: 1 to NB_LEVELS_MAX levels */
    {"--levels", "17"},
    {"--levels", "2.5"},
    {"--eta", "0"},                             /* a step of 0 would never end */
    {"--eta", "-0.1"},
    {"--eta", "11"},
    {"--eta", "nan"},
};
enum { BAD_ARGS = sizeof bad_args / sizeof *bad_args };

static void describe(const char *const *args, char *buf, size_t len)
{
    buf[0] = '\0';
    for (int k = 0; args[k]; ++k)
        snprintf(buf + strlen(buf), len - strlen(buf), "%s'%s'", k ? " " : "", args[k]);
}

START_TEST(bad_arguments)
{
    const char *const *args = bad_args[_i];
    char what[256];
    describe(args, what, sizeof what);
    nb_options o;
    nbt_capture err;
    const int rc = parse(&o, &err, (const char **)args);
    ck_assert_msg(rc == NB_EXIT_ERROR, "%s: returned %d, want %d", what, rc, NB_EXIT_ERROR);
    ck_assert_msg(err.lines == 1, "%s: %d lines on stderr: %s", what, err.lines, err.text);
    ck_assert_msg(strncmp(err.text, PROG ": ", strlen(PROG) + 2) == 0, "%s: the line does not start with the "
                  "program's name: %s", what, err.text);
}
END_TEST

/* ---- the program, from outside ----------------------------------------------------------------- */

/* The first CPU step of steps.list (tests.mk passes them all in NB_TEST_STEP_BINS). */
static const char *first_step(char *buf, size_t len)
{
    const char *list = nbt_env("NB_TEST_STEP_BINS");
    const size_t n = strcspn(list, " ");
    ck_assert(n < len);
    memcpy(buf, list, n);
    buf[n] = '\0';
    return buf;
}

/* Run the step with args; {OUT} in an argument is replaced by the scratch folder. */
static int run_step(const char *const *args, nbt_capture *err)
{
    static char bin[4096], expanded[32][4400];
    char *argv[34] = {(char *)first_step(bin, sizeof bin)};
    int k = 0;
    for (; args[k]; ++k) {
        const char *at = strstr(args[k], "{OUT}");
        if (at)
            snprintf(expanded[k], sizeof expanded[k], "%.*s%s%s", (int)(at - args[k]), args[k], nbt_tmpdir(), at + 5);
        else
            snprintf(expanded[k], sizeof expanded[k], "%s", args[k]);
        argv[k + 1] = expanded[k];
    }
    argv[k + 1] = NULL;
    return nbt_run_program(argv, err);
}

/* Files every black-box case may use: a good input, a corrupt one, one with two bodies at one place,
 * and a CSV with someone else's header. Returns how many entries the scratch folder holds. */
static size_t prepare_files(void)
{
    nb_state s;
    ck_assert_int_eq(nb_state_alloc(&s, 1, 8), NB_EXIT_OK);
    nb_init(&s, NB_MODEL_PLUMMER, NB_MASSES_EQUAL, 1);
    ck_assert_int_eq(nb_snapshot_write(nbt_path(0, "good.nbs"), &s, 0.01, 0.001), NB_EXIT_OK);
    size_t len;
    unsigned char *b = nbt_read_file(nbt_path(0, "good.nbs"), &len);
    b[100] ^= 1;
    ck_assert_int_eq(nbt_write_file(nbt_path(1, "corrupt.nbs"), b, len), 0);
    free(b);
    s.x[3] = s.x[5];
    s.y[3] = s.y[5];
    s.z[3] = s.z[5];
    ck_assert_int_eq(nb_snapshot_write(nbt_path(2, "coincident.nbs"), &s, 0.0, 0.001), NB_EXIT_OK);
    ck_assert_int_eq(nbt_write_file(nbt_path(3, "foreign.csv"), "a,b,c\n1,2,3\n", 12), 0);
    nb_state_free(&s);
    return nbt_count_entries(nbt_tmpdir());
}

/* Every case also asks for an output file and a CSV row: neither may appear. */
#define SMALL "--bodies", "16", "--steps", "1", "--repeat", "1"
static const char *const bad_runs[][12] = {
    {"--bodies", "0"},
    {"--bodies", "many"},
    {"--bodies", "99999999999999999999999"},
    {"--dt", "nan"},
    {"--eps", "inf"},
    {"--steps", "-3"},
    {"--frobnicate"},
    {"--bodies"},
    {"--model", "galaxy"},
    {"--snapshot-every", "5"},
    {"--input", "{OUT}/no-such.nbs"},
    {"--input", "{OUT}/corrupt.nbs"},
    {"--input", "{OUT}/good.nbs", "--bodies", "10"},
    {"--input", "{OUT}/coincident.nbs", "--eps", "0"},
    {SMALL, "--block", "64"},                    /* a GPU option on a CPU step */
    {SMALL, "--gpus", "1"},
    {SMALL, "--levels", "4"},                    /* block steps on a step with one dt */
    {SMALL, "--eta", "0.1"},
    {SMALL, "--snapshot-every", "1", "--snapshot-dir", "{OUT}/no-such-folder"},
    {"--steps", "0", "--bodies", "16"},          /* --csv needs a step to time */
    {SMALL, "--csv", "{OUT}/foreign.csv"},       /* someone else's CSV: refused before the run */
};
enum { BAD_RUNS = sizeof bad_runs / sizeof *bad_runs };

START_TEST(program_refuses_bad_input)
{
    const size_t before = prepare_files();
    const char *args[16];
    int k = 0, has_csv = 0;
    for (; bad_runs[_i][k]; ++k) {
        args[k] = bad_runs[_i][k];
        has_csv |= !strcmp(args[k], "--csv");
    }
    args[k++] = "--output";
    args[k++] = "{OUT}/out.nbs";
    if (!has_csv) {
        args[k++] = "--csv";
        args[k++] = "{OUT}/results.csv";
    }
    args[k] = NULL;
    char what[512];
    describe(args, what, sizeof what);
    nbt_capture err;
    const int rc = run_step(args, &err);
    ck_assert_msg(rc == NB_EXIT_ERROR, "%s: exit status %d, want 2 (stderr: %s)", what, rc, err.text);
    ck_assert_msg(err.lines == 1, "%s: %d lines on stderr: %s", what, err.lines, err.text);
    ck_assert_msg(nbt_count_entries(nbt_tmpdir()) == before, "%s: left a file behind", what);
    nbt_tmpdir_remove();
}
END_TEST

START_TEST(program_unwritable_output)
{
    /* The run succeeds, the output cannot be written: status 2, one line, no temporary left. */
    const size_t before = prepare_files();
    const char *args[] = {SMALL, "-q", "--output", "{OUT}/missing/out.nbs", NULL};
    nbt_capture err;
    const int rc = run_step(args, &err);
    ck_assert_msg(rc == NB_EXIT_ERROR && err.lines == 1, "exit status %d, stderr: %s", rc, err.text);
    ck_assert_uint_eq(nbt_count_entries(nbt_tmpdir()), before);
    const char *folder[] = {SMALL, "-q", "--output", "{OUT}", NULL}; /* the path is a folder */
    const int rc2 = run_step(folder, &err);
    ck_assert_msg(rc2 == NB_EXIT_ERROR && err.lines == 1, "exit status %d, stderr: %s", rc2, err.text);
    ck_assert_uint_eq(nbt_count_entries(nbt_tmpdir()), before);
    nbt_tmpdir_remove();
}
END_TEST

START_TEST(program_good_run)
{
    /* A small run: status 0, silent with -q, a readable output of the right shape, one CSV row. */
    const char *args[] = {"--bodies", "64", "-S", "2", "--steps", "3", "--repeat", "2", "-q", "--seed", "5",
                          "--output", "{OUT}/out.nbs", "--csv", "{OUT}/r.csv", "--tag", "check", NULL};
    nbt_capture err;
    const int rc = run_step(args, &err);
    ck_assert_msg(rc == 0 && err.lines == 0, "exit status %d, stderr: %s", rc, err.text);
    nb_state s;
    nb_snapshot_info info;
    ck_assert_int_eq(nb_snapshot_read(nbt_path(0, "out.nbs"), &s, &info), NB_EXIT_OK);
    ck_assert(info.systems == 2 && info.bodies == 64 && info.dt == 0.001 && info.eps == 0.01);
    nb_state_free(&s);
    nb_csv csv;
    ck_assert_int_eq(nb_csv_read(nbt_path(1, "r.csv"), &csv), NB_EXIT_OK);
    ck_assert_uint_eq(csv.rows, 1);
    ck_assert_str_eq(nb_csv_get(&csv, 0, "pass"), "PASS");
    ck_assert_str_eq(nb_csv_get(&csv, 0, "bodies"), "64");
    ck_assert_str_eq(nb_csv_get(&csv, 0, "systems"), "2");
    ck_assert_str_eq(nb_csv_get(&csv, 0, "tag"), "check");
    nb_csv_free(&csv);
    /* A second run appends a row under the same header. */
    ck_assert_int_eq(run_step(args, &err), 0);
    ck_assert_int_eq(nb_csv_read(nbt_path(1, "r.csv"), &csv), NB_EXIT_OK);
    ck_assert_uint_eq(csv.rows, 2);
    nb_csv_free(&csv);
    /* --help and --version: status 0, nothing on stderr. */
    const char *help[] = {"--help", NULL}, *version[] = {"--version", NULL};
    ck_assert_int_eq(run_step(help, &err), 0);
    ck_assert_int_eq(err.lines, 0);
    ck_assert_int_eq(run_step(version, &err), 0);
    ck_assert_int_eq(err.lines, 0);
    nbt_tmpdir_remove();
}
END_TEST

/* A message with a long path in it keeps its reason at the end: one line, its beginning, " ... ", its end.
 * Up to 4096 bytes it is shown whole (1024 cut it off before); the capture holds 4095 bytes. */
START_TEST(long_message_keeps_its_reason)
{
    static char path[20001];
    for (size_t i = 0; i < sizeof path - 1; ++i)
        path[i] = i % 15 == 14 ? '/' : 'd';
    nbt_capture err;
    const size_t lengths[] = {1500, 3000, sizeof path - 1};
    for (int k = 0; k < 3; ++k) {
        const size_t len = lengths[k];
        path[len] = '\0';
        nbt_capture_begin(&err);
        nb_error("cannot read %s: %s", path, "No such file or directory");
        nbt_capture_end(&err);
        path[len] = len % 15 == 14 ? '/' : 'd';
        const size_t got = strlen(err.text);
        ck_assert_msg(err.lines == 1 && got > 40, "%zu characters: %d lines", len, err.lines);
        ck_assert_msg(!strncmp(err.text, "nbody: cannot read dddd", 23), "%zu characters: begins %.40s", len, err.text);
        ck_assert_msg(!strcmp(err.text + got - 28, ": No such file or directory\n"), "%zu characters: ends %s", len,
                      err.text + got - 60);
        ck_assert_msg((strstr(err.text, " ... ") != NULL) == (len > 4096 - 40), "%zu characters: cut or not", len);
        ck_assert_msg(got < sizeof err.text - 1, "%zu characters: %zu shown", len, got);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("cli");
    TCase *numbers = nbt_tcase(s, "numbers", 30);
    tcase_add_loop_test(numbers, parse_u64, 0, sizeof u64_cases / sizeof *u64_cases);
    tcase_add_loop_test(numbers, parse_double, 0, sizeof double_cases / sizeof *double_cases);
    TCase *args = nbt_tcase(s, "arguments", 30);
    tcase_add_test(args, defaults);
    tcase_add_test(args, good_arguments);
    tcase_add_test(args, help_and_version);
    tcase_add_loop_test(args, bad_arguments, 0, BAD_ARGS);
    tcase_add_test(args, long_message_keeps_its_reason);
    /* The program cases run a CPU step that is written (tests.mk): none in a fresh handout, where they
     * are skipped and the steps' stubs are reported as TODO by make test. */
    const char *bins = getenv("NB_TEST_STEP_BINS");
    if (bins && *bins) {
        TCase *program = nbt_tcase(s, "program", 120);
        tcase_add_loop_test(program, program_refuses_bad_input, 0, BAD_RUNS);
        tcase_add_test(program, program_unwritable_output);
        tcase_add_test(program, program_good_run);
        return nbt_run(s, CK_FORK);
    }
    const int rc = nbt_run(s, CK_FORK);
    static const char *const program_tests[] = {"program:program_refuses_bad_input", "program:program_unwritable_output",
                                                "program:program_good_run"};
    char why[600];
    const char *todo = getenv("NB_TEST_TODO");
    snprintf(why, sizeof why, "no CPU step written yet (TODO: %s)", todo && *todo ? todo : "none listed");
    nbt_add_skips("tests/check_cli.c", program_tests, 3, why);
    return rc;
}
