/* util.h: error lines, checked allocation, checked size arithmetic, the program's name. */
#ifndef NB_UTIL_H
#define NB_UTIL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Every message starts with the program's name: "step03_tiling: ...". */
void nb_set_progname(const char *name);
const char *nb_progname(void);

/* One line on stderr, prefixed with the program's name; line breaks in it become spaces. A message over
 * 4096 bytes is shown as its first and last 2000 around " ... ", so the reason at its end survives a long
 * path in the middle. */
void nb_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The same line, then exit(code). */
void nb_die(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));

/* malloc that says what it could not allocate; NULL after one line on stderr. */
void *nb_malloc(size_t bytes, const char *what);
/* The same, starting on a 64-byte cache line; release it with nb_free_lines (not free). */
void *nb_malloc_lines(size_t bytes, const char *what);
void nb_free_lines(void *p);

/* All len bytes to fd, retried after EINTR and short writes. 0, or -1 with errno saying why (a short
 * write is followed by another, whose error is the reason: a full disk, EFBIG at a file-size limit). */
int nb_write_all(int fd, const void *bytes, size_t len);

/* a*b into *out; returns 1 on overflow. */
int nb_mul_overflows(uint64_t a, uint64_t b, uint64_t *out);

/* Before a run: 0 if `path` could be written through a temporary file and a rename (it is not a folder,
 * its folder exists and takes new files), else NB_EXIT_ERROR after the line the write itself would
 * give, so that a long run is not wasted. */
int nb_output_check(const char *path);
/* A path to read from must be a regular file (a FIFO would block): 0, or NB_EXIT_ERROR after one line. */
int nb_input_check(const char *path);

/* Host memory the kernel says is available (MemAvailable), or 0 if unknown. */
uint64_t nb_host_memory_available(void);

/* A word an option takes and the value it stands for: one table an option, read both ways. */
typedef struct nb_word {
    const char *name;
    int value;
} nb_word;
/* The value of `text` among words[0..count): NB_EXIT_OK, or NB_EXIT_ERROR after the one line
 * "OPTION 'TEXT': must be A, B or C". */
int nb_word_value(const nb_word *words, size_t count, const char *text, const char *option, int *value);
/* The word of `value`, or "?". */
const char *nb_word_name(const nb_word *words, size_t count, int value);

/* "1.5 GiB" style size, into buf. */
const char *nb_format_bytes(uint64_t bytes, char *buf, size_t len);

/* argv[(*k)++] = word, the NULL after it still in argv's `cap` slots; past that, one line and exit 2. */
void nb_argv_add(char **argv, size_t *k, size_t cap, const char *word);

#ifdef __cplusplus
}
#endif
#endif
