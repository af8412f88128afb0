/* results.c: writing and reading the results CSV. */
#define _POSIX_C_SOURCE 200809L
#include "results.h"
#include "nbody.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

const char *nb_utc_now(char *buf, size_t len)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

typedef struct line {
    char buf[2048];
    size_t len;
} line;

static void add(line *l, const char *fmt, ...)
{
    if (l->len >= sizeof l->buf)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(l->buf + l->len, sizeof l->buf - l->len, fmt, ap);
    va_end(ap);
    if (n > 0)
        l->len += (size_t)n;
}

/* Text fields lose commas (to ';', so "compiled, no GPU" still reads), quotes and line breaks: the CSV has
 * no quoting. */
static void add_text(line *l, const char *s, int last)
{
    char clean[256];
    size_t k = 0;
    for (const char *p = s ? s : ""; *p && k + 1 < sizeof clean; ++p)
        clean[k++] = *p == ',' ? ';' : (*p == '"' || *p == '\n' || *p == '\r') ? ' ' : *p;
    clean[k] = '\0';
    add(l, last ? "%s\n" : "%s,", clean);
}

/* Negative means "not measured": an empty field. */
static void add_num(line *l, double v)
{
    if (v < 0.0)
        add(l, ",");
    else
        add(l, "%.6g,", v);
}

/* A file that is not empty must start with this lab's header. */
static int check_header(const char *path, int fd)
{
    char first[sizeof NB_RESULTS_HEADER + 1];
    ssize_t got = pread(fd, first, sizeof first, 0);
    if (got < (ssize_t)sizeof first - 1 || memcmp(first, NB_RESULTS_HEADER, sizeof first - 2) != 0 ||
        first[sizeof first - 2] != '\n') {
        nb_error("%s has another header than this lab's results (move it away or pick another --csv)", path);
        return NB_EXIT_ERROR;
    }
    return NB_EXIT_OK;
}

int nb_results_check(const char *path)
{
    if (nb_output_check(path) != NB_EXIT_OK)
        return NB_EXIT_ERROR;
    const int fd = open(path, O_RDONLY);
    if (fd < 0)
        return NB_EXIT_OK; /* not there yet: its folder takes new files */
    if (access(path, W_OK) != 0) { /* appended to, not replaced */
        nb_error("cannot write %s: %s", path, strerror(errno));
        close(fd);
        return NB_EXIT_ERROR;
    }
    struct stat st;
    const int rc = fstat(fd, &st) == 0 && st.st_size > 0 ? check_header(path, fd) : NB_EXIT_OK;
    close(fd);
    return rc;
}

/* The last row has no newline: a run that stopped while writing it. Cut it off (it is not a whole
 * row), say so, and append after the last whole one. */
static int repair_torn_row(const char *path, int fd, const struct stat *st)
{
    off_t end = st->st_size;
    char c = 0;
    while (end > 0 && pread(fd, &c, 1, end - 1) == 1 && c != '\n')
        --end;
    if (end == 0 || ftruncate(fd, end) != 0) {
        nb_error("%s ends in a torn row that cannot be removed: repair or move the file", path);
        return NB_EXIT_ERROR;
    }
    fprintf(stderr, "warning: %s ended in a torn row (%lld bytes without a newline): removed\n", path,
            (long long)(st->st_size - end));
    return NB_EXIT_OK;
}

/* The row of `r`, newline-terminated, into l; 0, or NB_EXIT_ERROR when it does not fit. */
static int format_row(const nb_result *r, line *l_out)
{
    line l = {{0}, 0};
    add_text(&l, r->step, 0);
    add_text(&l, r->name, 0);
    add_text(&l, r->build, 0);
    add_text(&l, r->tag, 0);
    add_text(&l, r->model, 0);
    add_text(&l, r->masses, 0);
    add(&l, "%llu,%llu,%llu,", (unsigned long long)r->systems, (unsigned long long)r->bodies, (unsigned long long)r->steps);
    if (r->dt < 0.0 || r->eps < 0.0) /* a row for a run that never started (the grader's): not known */
        add(&l, ",,");
    else
        add(&l, "%.9g,%.9g,", r->dt, r->eps);
    add(&l, "%llu,%llu,", (unsigned long long)r->seed, (unsigned long long)r->repeat);
    add_num(&l, r->e2e_s);
    add_num(&l, r->e2e_min_s);
    add_num(&l, r->e2e_max_s);
    add_num(&l, r->kernel_s);
    add_num(&l, r->kernel_min_s);
    add_num(&l, r->kernel_max_s);
    add_num(&l, r->ginteractions_s);
    add_num(&l, r->gflops);
    add_num(&l, r->acc_rms);
    add_num(&l, r->acc_max);
    add_num(&l, r->acc_ratio);
    add_num(&l, r->state_pos);
    add_num(&l, r->state_vel);
    add_num(&l, r->timed_change);
    add_num(&l, r->timed_state);
    add(&l, "%llu,", (unsigned long long)r->checked);
    add_text(&l, r->pass, 0);
    add_text(&l, r->device, 0);
    add(&l, "%u,%u,%u,", r->gpus, r->threads, r->block);
    add_num(&l, r->clock_mhz > 0.0 ? r->clock_mhz : -1.0);
    add_text(&l, r->theta ? r->theta : "", 0);
    add_text(&l, r->levels ? r->levels : "", 0);
    add_text(&l, r->eta ? r->eta : "", 0);
    add_text(&l, r->decompose ? r->decompose : "", 0);
    add_text(&l, r->config, 0);
    add_num(&l, r->region_s);
    add_text(&l, r->worker ? r->worker : "", 0);
    add_text(&l, r->timing ? r->timing : "", 0);
    add_text(&l, r->date, 0);
    add_text(&l, r->commit, 1);
    *l_out = l;
    return l.len < sizeof l.buf ? NB_EXIT_OK : NB_EXIT_ERROR;
}

char *nb_results_row(const nb_result *r)
{
    line l;
    if (format_row(r, &l) != NB_EXIT_OK)
        return NULL;
    if (l.len > 0 && l.buf[l.len - 1] == '\n')
        l.buf[--l.len] = '\0';
    return strdup(l.buf);
}

int nb_results_append(const char *path, const nb_result *r)
{
    line l;
    if (format_row(r, &l) != NB_EXIT_OK) {
        nb_error("results row too long for %s", path);
        return NB_EXIT_ERROR;
    }

    int fd = open(path, O_RDWR | O_APPEND | O_CREAT, 0644); /* read too: the header is checked */
    if (fd < 0) {
        nb_error("cannot write %s: %s", path, strerror(errno));
        return NB_EXIT_ERROR;
    }
    /* An exclusive lock covers the header check and the write when runs share a file. */
    struct flock lock = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
    while (fcntl(fd, F_SETLKW, &lock) != 0 && errno == EINTR)
        ;
    struct stat st;
    int rc = NB_EXIT_OK;
    if (fstat(fd, &st) == 0 && st.st_size > 0) {
        rc = check_header(path, fd);
        char last = '\n';
        if (rc == NB_EXIT_OK && pread(fd, &last, 1, st.st_size - 1) == 1 && last != '\n')
            rc = repair_torn_row(path, fd, &st);
    } else if (nb_write_all(fd, NB_RESULTS_HEADER "\n", strlen(NB_RESULTS_HEADER "\n")) != 0) {
        nb_error("cannot write %s: %s", path, strerror(errno));
        rc = NB_EXIT_ERROR;
    }
    if (rc == NB_EXIT_OK) { /* a whole row or nothing: a part written is cut off again */
        const off_t before = lseek(fd, 0, SEEK_END);
        if (nb_write_all(fd, l.buf, l.len) != 0) {
            const int why = errno;
            nb_error("cannot write %s: %s", path, strerror(why));
            if (before >= 0 && lseek(fd, 0, SEEK_END) > before && ftruncate(fd, before) != 0)
                nb_error("%s: the partial row could not be removed either: %s", path, strerror(errno));
            rc = NB_EXIT_ERROR;
        }
    }
    if (close(fd) != 0 && rc == NB_EXIT_OK) {
        nb_error("cannot write %s: %s", path, strerror(errno));
        rc = NB_EXIT_ERROR;
    }
    return rc;
}

/* ---- reading --------------------------------------------------------------------------- */

static size_t split(char *s, char **out, size_t max)
{
    size_t n = 0;
    for (;;) {
        if (n < max)
            out[n] = s;
        ++n;
        char *comma = strchr(s, ',');
        if (!comma)
            break;
        if (out) /* the counting pass (out = NULL) leaves the text whole */
            *comma = '\0';
        s = comma + 1;
    }
    return n;
}

int nb_csv_read(const char *path, nb_csv *csv)
{
    if (nb_input_check(path) != NB_EXIT_OK)
        return NB_EXIT_ERROR;
    memset(csv, 0, sizeof *csv);
    FILE *f = fopen(path, "rb");
    if (!f) {
        nb_error("cannot read %s: %s", path, strerror(errno));
        return NB_EXIT_ERROR;
    }
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    if (size <= 0) {
        fclose(f);
        nb_error("%s: empty, no header", path);
        return NB_EXIT_ERROR;
    }
    csv->text = (char *)nb_malloc((size_t)size + 1, "a CSV file");
    if (!csv->text || fread(csv->text, 1, (size_t)size, f) != (size_t)size) {
        fclose(f);
        nb_csv_free(csv);
        if (csv->text)
            nb_error("cannot read %s", path);
        return NB_EXIT_ERROR;
    }
    fclose(f);
    csv->text[size] = '\0';

    size_t lines = 0;
    for (char *p = csv->text; *p; ++p)
        lines += *p == '\n';
    char **line_start = (char **)nb_malloc((lines + 1) * sizeof(char *), "a CSV file");
    if (!line_start) {
        nb_csv_free(csv);
        return NB_EXIT_ERROR;
    }
    size_t count = 0;
    for (char *p = csv->text; *p;) {
        char *nl = strchr(p, '\n');
        if (nl)
            *nl = '\0';
        if (*p)
            line_start[count++] = p;
        if (!nl)
            break;
        p = nl + 1;
    }
    if (count == 0) {
        free(line_start);
        nb_csv_free(csv);
        nb_error("%s: empty, no header", path);
        return NB_EXIT_ERROR;
    }
    csv->columns = split(line_start[0], NULL, 0);
    csv->header = (char **)nb_malloc(csv->columns * sizeof(char *), "a CSV file");
    csv->cell = (char ***)nb_malloc(count * sizeof(char **), "a CSV file");
    if (!csv->header || !csv->cell) {
        free(line_start);
        nb_csv_free(csv);
        return NB_EXIT_ERROR;
    }
    split(line_start[0], csv->header, csv->columns);
    for (size_t r = 1; r < count; ++r) {
        char **cells = (char **)calloc(csv->columns, sizeof(char *));
        if (!cells) {
            free(line_start);
            nb_csv_free(csv);
            nb_error("out of host memory reading %s", path);
            return NB_EXIT_ERROR;
        }
        const size_t n = split(line_start[r], cells, csv->columns);
        if (n != csv->columns) {
            free(cells);
            free(line_start);
            nb_error("%s: line %zu has %zu fields, the header %zu", path, r + 1, n, csv->columns);
            nb_csv_free(csv);
            return NB_EXIT_ERROR;
        }
        csv->cell[csv->rows++] = cells;
    }
    free(line_start);
    return NB_EXIT_OK;
}

void nb_csv_free(nb_csv *csv)
{
    for (size_t r = 0; r < csv->rows; ++r)
        free(csv->cell[r]);
    free(csv->cell);
    free(csv->header);
    free(csv->text);
    memset(csv, 0, sizeof *csv);
}

int nb_csv_column(const nb_csv *csv, const char *name)
{
    for (size_t c = 0; c < csv->columns; ++c)
        if (!strcmp(csv->header[c], name))
            return (int)c;
    return -1;
}

const char *nb_csv_get(const nb_csv *csv, size_t r, const char *name)
{
    const int c = nb_csv_column(csv, name);
    return c < 0 || r >= csv->rows ? "" : csv->cell[r][c];
}
