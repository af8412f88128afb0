/* testlib.h: what the lab's Check programs share: a timed TCase, the run and its verdict, SKIP,
 * capturing stderr, scratch folders and files, and running the step programs as a user would.
 *
 * Every program is one Suite. It writes TAP to $CK_TAP_LOG_FILE_NAME (tests/run.sh sets it and counts
 * the results from it) and exits 0 (all passed), 1 (something failed) or 77 (skipped, with the reason). */
#ifndef NB_TESTLIB_H
#define NB_TESTLIB_H

#include <check.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The exit status of a program whose tests could not run here (the automake convention). */
#define NBT_EXIT_SKIP 77

/* An assertion for loops: Check's ck_assert marks every passing call through a pipe to the parent,
 * which costs microseconds; this costs nothing until it fails. */
#define nbt_require(cond, ...)                                                                     \
    do {                                                                                           \
        if (!(cond))                                                                               \
            ck_abort_msg(__VA_ARGS__);                                                             \
    } while (0)

/* A TCase with an explicit timeout in seconds, sized for a 2-core CI machine; Check multiplies it by
 * $CK_TIMEOUT_MULTIPLIER. Timeouts need fork mode (the default), so GPU programs cannot have them. */
TCase *nbt_tcase(Suite *suite, const char *name, double timeout_s);

/* Run the suite (CK_FORK or CK_NOFORK), print Check's report, return the exit status. */
int nbt_run(Suite *suite, enum fork_status fork);

/* Write `count` TAP lines "ok i - name # SKIP reason" and say why on stdout; returns NBT_EXIT_SKIP. */
int nbt_skip(const char *suite, const char *const *names, size_t count, const char *reason);
/* After nbt_run: add `count` skipped tests to its TAP file (tests left out of the suite because what
 * they need is not here, e.g. no CPU step written yet) and say why on stdout. */
void nbt_add_skips(const char *suite, const char *const *names, size_t count, const char *reason);

/* What a piece of code printed on stderr (the lab's errors are one line each). */
typedef struct nbt_capture {
    int saved_fd;
    FILE *file;
    char text[4096];   /* the first 4095 bytes */
    int lines;         /* newline characters */
} nbt_capture;
void nbt_capture_begin(nbt_capture *c);
void nbt_capture_end(nbt_capture *c);

/* Make a multi-line report one line, in place ("a\n  b\n" -> "a | b"): Check's messages and the TAP
 * lines made from them are one line each. Returns text. */
char *nbt_one_line(char *text);

/* A fresh folder for this process under $NB_TEST_TMP (default /tmp); made on first use. */
const char *nbt_tmpdir(void);
/* nbt_tmpdir()/name, in a buffer that lives until the next call with the same slot (0..7). */
const char *nbt_path(int slot, const char *name);
/* Remove the folder and what is in it (one level deep), at the end of a test that passed. */
void nbt_tmpdir_remove(void);
/* Entries of a folder other than . and .. */
size_t nbt_count_entries(const char *dir);

/* Whole files. nbt_read_file returns malloc'ed bytes (free them) or NULL. */
int nbt_write_file(const char *path, const void *bytes, size_t len);
unsigned char *nbt_read_file(const char *path, size_t *len);

/* Run argv[0] (a path) with stdout to /dev/null and stderr into *err; returns its exit status, or
 * 128 + the signal that killed it. */
int nbt_run_program(char *const argv[], nbt_capture *err);

/* Bytes the C library's allocator holds for the program now (glibc's mallinfo2). */
size_t nbt_heap_in_use(void);

/* Little-endian fields, as the snapshot format stores them. */
uint32_t nbt_get_u32(const unsigned char *p);
uint64_t nbt_get_u64(const unsigned char *p);
void nbt_put_u32(unsigned char *p, uint32_t v);
void nbt_put_u64(unsigned char *p, uint64_t v);

/* An environment variable that must be set (tests/tests.mk sets them); fails the test otherwise. */
const char *nbt_env(const char *name);

#endif
