/* snap2html.c: a run's snapshots as one self-contained web page that plays them in 3D (make view).
 *
 *   snap2html [--out FILE] [--max-points P] [--max-total T] [--system K] [--title TEXT] [--fps F]
 *             [--levels L --eta E] SNAP|DIR...
 *
 * Every file (a folder: its *.nbs, in name order, which is step order for the lab's snap-%010llu.nbs)
 * becomes a frame of the page: the page's template (report/tools/view_page.html, compiled in) with the
 * data where its marker is. Each frame is one base64 block of the same bodies: positions quantised to
 * 16 bits of the box that holds every frame (uint16 x y z per body), then the speeds to 8 bits between
 * the 2nd and 98th percentile of all frames. A large run is decimated for display: every k-th body of
 * the system, so that at most P (200000) are drawn and frames x drawn stays within T (6000000: about 56
 * MB of page); the page says how many it draws of how many. A run of several systems shows system K (0).
 * With --levels and --eta (step13's), each drawn body also gets the level step13's criterion gives it at
 * that frame (common/reference.h nb_block_level: its fp64 acceleration from every body of its system,
 * the frame's eps and dt as dt_max), a byte after the speeds: the snapshot format holds no levels, so this
 * is the level the body would take at a dt_max step's start there, not the one it ran on. That costs
 * drawn x N pair forces a frame, so it is refused past 2^35 of them over the frames (draw fewer).
 * Exit status: 0, or 2 after one line on stderr; nothing is written then (the page goes through a
 * temporary renamed into place). Every file is read and checked before the page is begun. */
#define _POSIX_C_SOURCE 200809L
#include "nbody.h"
#include "reference.h"
#include "replace.h"
#include "snapshot.h"
#include "util.h"
#include "view_page.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct options {
    const char *out, *title;
    unsigned long long max_points, max_total, system;
    double fps, eta;
    unsigned long long levels;      /* 0: no level colours */
} options;

typedef struct frame {
    char *path;
    uint64_t step;
    double time;
} frame;

typedef struct run {
    frame *frames;
    size_t nframes, cap;
    uint64_t systems, bodies;
    double dt, eps;
    size_t stride, shown;           /* every stride-th body of the system is drawn: shown of them */
    unsigned long long limit;       /* the most drawn per frame, from --max-points and --max-total */
    double lo[3], hi[3];            /* the box of every frame's drawn bodies */
    double centre[3], radius;       /* the camera's: frame 0's mean, and its 90th-percentile distance */
    double vlo, vhi;                /* the colour scale's speeds */
} run;

/* ---- the command line ------------------------------------------------------------------------ */
static int parse_count(const char *opt, const char *text, unsigned long long lo, unsigned long long *out)
{
    char *end;
    errno = 0;
    const unsigned long long v = strtoull(text, &end, 10);
    if (errno || end == text || *end != '\0' || text[0] == '-' || v < lo) {
        nb_error("%s %s: expected a whole number >= %llu", opt, text, lo);
        return 0;
    }
    *out = v;
    return 1;
}

static int add_frame(run *r, const char *path)
{
    if (r->nframes == r->cap) {
        const size_t cap = r->cap ? 2 * r->cap : 64;
        frame *f = realloc(r->frames, cap * sizeof *f);
        if (!f) {
            nb_error("out of memory for %zu frames", cap);
            return 0;
        }
        r->frames = f;
        r->cap = cap;
    }
    r->frames[r->nframes].path = strdup(path);
    if (!r->frames[r->nframes].path) {
        nb_error("out of memory");
        return 0;
    }
    ++r->nframes;
    return 1;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A folder's *.nbs files, in name order. */
static int add_folder(run *r, const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) {
        nb_error("%s: %s", dir, strerror(errno));
        return 0;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    int ok = 1;
    for (struct dirent *e; ok && (e = readdir(d));) {
        const size_t len = strlen(e->d_name);
        if (len < 5 || strcmp(e->d_name + len - 4, ".nbs") != 0)
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            char **grown = realloc(names, cap * sizeof *grown);
            if (!grown) {
                ok = 0;
                break;
            }
            names = grown;
        }
        names[n] = malloc(strlen(dir) + len + 2);
        if (!names[n]) {
            ok = 0;
            break;
        }
        sprintf(names[n], "%s/%s", dir, e->d_name);
        ++n;
    }
    closedir(d);
    if (!ok)
        nb_error("out of memory listing %s", dir);
    else if (n == 0) {
        nb_error("%s: no snapshot (*.nbs) in this folder", dir);
        ok = 0;
    }
    if (ok)
        qsort(names, n, sizeof *names, by_name);
    for (size_t k = 0; k < n; ++k) {
        if (ok)
            ok = add_frame(r, names[k]);
        free(names[k]);
    }
    free(names);
    return ok;
}

static int parse_args(int argc, char **argv, options *o, run *r)
{
    for (int k = 1; k < argc; ++k) {
        const char *a = argv[k];
        const int more = k + 1 < argc;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            printf("usage: snap2html [--out FILE] [--max-points P] [--max-total T] [--system K] [--title TEXT] [--fps F] SNAP|DIR...\n"
                   "One self-contained web page (WebGL, no network) that plays the snapshots in 3D.\n"
                   "  --out FILE        the page (default view.html)\n"
                   "  --max-points P    at most P bodies drawn per frame (default 200000): every k-th body\n"
                   "  --max-total T     at most T drawn bodies over all frames (default 6000000)\n"
                   "  --system K        the system shown of a run of several (default 0)\n"
                   "  --title TEXT      the page's title\n"
                   "  --fps F           frames a second when playing (default 12)\n"
                   "  --levels L --eta E  colour by the level step13's criterion gives each drawn body\n"
                   "A folder stands for its *.nbs files in name order.\n");
            exit(NB_EXIT_OK);
        } else if (strcmp(a, "--out") == 0 && more) {
            o->out = argv[++k];
        } else if (strcmp(a, "--title") == 0 && more) {
            o->title = argv[++k];
        } else if (strcmp(a, "--max-points") == 0 && more) {
            if (!parse_count(a, argv[++k], 1, &o->max_points))
                return 0;
        } else if (strcmp(a, "--max-total") == 0 && more) {
            if (!parse_count(a, argv[++k], 1, &o->max_total))
                return 0;
        } else if (strcmp(a, "--system") == 0 && more) {
            if (!parse_count(a, argv[++k], 0, &o->system))
                return 0;
        } else if (strcmp(a, "--levels") == 0 && more) {
            if (!parse_count(a, argv[++k], 2, &o->levels))
                return 0;
            if (o->levels > NB_LEVELS_MAX) {
                nb_error("--levels %llu: at most %d", o->levels, NB_LEVELS_MAX);
                return 0;
            }
        } else if (strcmp(a, "--eta") == 0 && more) {
            char *end;
            o->eta = strtod(argv[++k], &end);
            if (end == argv[k] || *end != '\0' || !(o->eta > 0.0 && o->eta <= 10.0)) {
                nb_error("--eta %s: expected a number above 0, at most 10", argv[k]);
                return 0;
            }
        } else if (strcmp(a, "--fps") == 0 && more) {
            char *end;
            o->fps = strtod(argv[++k], &end);
            if (end == argv[k] || *end != '\0' || !(o->fps >= 0.1 && o->fps <= 120)) {
                nb_error("--fps %s: expected a number from 0.1 to 120", argv[k]);
                return 0;
            }
        } else if (a[0] == '-' && a[1] != '\0') {
            nb_error("unknown or incomplete option %s (try --help)", a);
            return 0;
        } else {
            struct stat st;
            if (stat(a, &st) == 0 && S_ISDIR(st.st_mode)) {
                if (!add_folder(r, a))
                    return 0;
            } else if (!add_frame(r, a))
                return 0;
        }
    }
    if (r->nframes == 0) {
        nb_error("no snapshot files given (try --help)");
        return 0;
    }
    if (!o->levels != !(o->eta > 0.0)) {
        nb_error("--levels and --eta go together (step13's, for colours by level)");
        return 0;
    }
    return 1;
}

/* ---- pass one: read every file, the shape, the box, the scales ---------------------------------- */
static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double percentile(double *v, size_t n, double p)
{
    qsort(v, n, sizeof *v, cmp_double);
    return v[(size_t)(p * (double)(n - 1) + 0.5)];
}

static int survey(run *r, const options *o)
{
    double *speeds = NULL;
    size_t nspeeds = 0, cap = 0;
    for (int k = 0; k < 3; ++k) {
        r->lo[k] = INFINITY;
        r->hi[k] = -INFINITY;
    }
    for (size_t f = 0; f < r->nframes; ++f) {
        nb_state s;
        nb_snapshot_info info;
        if (nb_snapshot_read(r->frames[f].path, &s, &info) != NB_EXIT_OK) {
            free(speeds);
            return 0;
        }
        if (f == 0) {
            r->systems = info.systems;
            r->bodies = info.bodies;
            r->dt = info.dt;
            r->eps = info.eps;
            if (o->system >= r->systems) {
                nb_error("--system %llu: the run has %llu system(s)", o->system, (unsigned long long)r->systems);
                nb_state_free(&s);
                return 0;
            }
            /* Decimation: the stride that keeps both limits. */
            unsigned long long per_frame = o->max_points;
            if (o->max_total / r->nframes < per_frame)
                per_frame = o->max_total / r->nframes ? o->max_total / r->nframes : 1;
            r->limit = per_frame;
            r->stride = (size_t)((r->bodies + per_frame - 1) / per_frame);
            r->shown = (size_t)((r->bodies + r->stride - 1) / r->stride);
        } else if (info.systems != r->systems || info.bodies != r->bodies) {
            nb_error("%s: %llu x %llu bodies, but %s has %llu x %llu (one run's snapshots, please)", r->frames[f].path,
                     (unsigned long long)info.systems, (unsigned long long)info.bodies, r->frames[0].path,
                     (unsigned long long)r->systems, (unsigned long long)r->bodies);
            nb_state_free(&s);
            free(speeds);
            return 0;
        }
        r->frames[f].step = info.step;
        r->frames[f].time = info.time;
        const size_t base = (size_t)o->system * r->bodies;
        const float *p[3] = {s.x + base, s.y + base, s.z + base}, *v[3] = {s.vx + base, s.vy + base, s.vz + base};
        for (size_t i = 0; i < r->bodies; i += r->stride)
            for (int k = 0; k < 3; ++k) {
                if (p[k][i] < r->lo[k])
                    r->lo[k] = p[k][i];
                if (p[k][i] > r->hi[k])
                    r->hi[k] = p[k][i];
            }
        /* The speeds of up to 4096 drawn bodies of each frame set the colour scale. */
        const size_t step = r->shown > 4096 ? r->shown / 4096 : 1;
        for (size_t j = 0; j < r->shown; j += step) {
            const size_t i = j * r->stride;
            if (nspeeds == cap) {
                cap = cap ? 2 * cap : 8192;
                double *grown = realloc(speeds, cap * sizeof *grown);
                if (!grown) {
                    nb_error("out of memory");
                    nb_state_free(&s);
                    free(speeds);
                    return 0;
                }
                speeds = grown;
            }
            speeds[nspeeds++] = sqrt((double)v[0][i] * v[0][i] + (double)v[1][i] * v[1][i] + (double)v[2][i] * v[2][i]);
        }
        if (f == 0) {
            /* The camera: the mean of the drawn bodies, and the distance 90 % of them lie within. */
            double *d = malloc(r->shown * sizeof *d);
            if (!d) {
                nb_error("out of memory");
                nb_state_free(&s);
                free(speeds);
                return 0;
            }
            for (int k = 0; k < 3; ++k) {
                double sum = 0.0;
                for (size_t i = 0; i < r->bodies; i += r->stride)
                    sum += p[k][i];
                r->centre[k] = sum / (double)r->shown;
            }
            size_t nd = 0;
            for (size_t i = 0; i < r->bodies; i += r->stride) {
                const double dx = p[0][i] - r->centre[0], dy = p[1][i] - r->centre[1], dz = p[2][i] - r->centre[2];
                d[nd++] = sqrt(dx * dx + dy * dy + dz * dz);
            }
            r->radius = percentile(d, nd, 0.9);
            free(d);
        }
        nb_state_free(&s);
    }
    /* A flat or empty extent still gets a box; one body a unit radius. */
    double span = 0.0;
    for (int k = 0; k < 3; ++k)
        span = fmax(span, r->hi[k] - r->lo[k]);
    if (!(span > 0.0))
        span = 1.0;
    for (int k = 0; k < 3; ++k)
        if (!(r->hi[k] - r->lo[k] > 1e-6 * span)) {
            r->lo[k] -= 0.5 * span;
            r->hi[k] += 0.5 * span;
        }
    if (!(r->radius > 0.0))
        r->radius = 0.5 * span;
    if (o->levels) {
        const double pairs = (double)r->shown * (double)r->bodies * (double)r->nframes, most = 34359738368.0;
        if (pairs > most) {
            nb_error("--levels: %zu drawn x %llu bodies x %zu frames = %.3g pair forces, more than 2^35: draw fewer (--max-points, --max-total) or give fewer frames",
                     r->shown, (unsigned long long)r->bodies, r->nframes, pairs);
            free(speeds);
            return 0;
        }
    }
    r->vlo = percentile(speeds, nspeeds, 0.02);
    r->vhi = percentile(speeds, nspeeds, 0.98);
    if (!(r->vhi > r->vlo))
        r->vhi = r->vlo + 1.0;
    free(speeds);
    return 1;
}

/* ---- pass two: the page ------------------------------------------------------------------------ */
/* A JSON string; '<' as \u003c, so no text closes the script block it sits in. */
static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *c = (const unsigned char *)s; *c; ++c) {
        if (*c == '"' || *c == '\\')
            fprintf(f, "\\%c", *c);
        else if (*c < 0x20 || *c == '<' || *c == '>' || *c == '&')
            fprintf(f, "\\u%04x", *c);
        else
            fputc(*c, f);
    }
    fputc('"', f);
}

static void write_meta(FILE *f, const run *r, const options *o, const char *title)
{
    fprintf(f, "<script type=\"application/json\" id=\"meta\">{\"title\": ");
    json_string(f, title);
    fprintf(f, ", \"bodies\": %llu, \"systems\": %llu, \"system\": %llu, \"shown\": %zu, \"stride\": %zu, \"max_points\": %llu,\n",
            (unsigned long long)r->bodies, (unsigned long long)r->systems, o->system, r->shown, r->stride, r->limit);
    fprintf(f, " \"lo\": [%.9g, %.9g, %.9g], \"hi\": [%.9g, %.9g, %.9g], \"centre\": [%.9g, %.9g, %.9g], \"radius\": %.9g,\n",
            r->lo[0], r->lo[1], r->lo[2], r->hi[0], r->hi[1], r->hi[2], r->centre[0], r->centre[1], r->centre[2], r->radius);
    fprintf(f, " \"vlo\": %.9g, \"vhi\": %.9g, \"clipped\": true, \"dt\": %.9g, \"eps\": %.9g, \"fps\": %g,\n",
            r->vlo, r->vhi, r->dt, r->eps, o->fps);
    fprintf(f, " \"levels\": %llu, \"eta\": %.9g, \"frames\": [", o->levels, o->eta);
    for (size_t k = 0; k < r->nframes; ++k)
        fprintf(f, "%s{\"step\": %llu, \"time\": %.9g}", k ? ", " : "", (unsigned long long)r->frames[k].step, r->frames[k].time);
    fprintf(f, "]}</script>\n");
}

static void base64(FILE *f, const unsigned char *b, size_t n)
{
    static const char digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t i = 0;
    for (; i + 3 <= n; i += 3) {
        const unsigned v = (unsigned)b[i] << 16 | (unsigned)b[i + 1] << 8 | b[i + 2];
        fputc(digits[v >> 18], f);
        fputc(digits[(v >> 12) & 63], f);
        fputc(digits[(v >> 6) & 63], f);
        fputc(digits[v & 63], f);
    }
    if (i < n) {
        const unsigned v = (unsigned)b[i] << 16 | (i + 1 < n ? (unsigned)b[i + 1] << 8 : 0u);
        fputc(digits[v >> 18], f);
        fputc(digits[(v >> 12) & 63], f);
        fputc(i + 1 < n ? digits[(v >> 6) & 63] : '=', f);
        fputc('=', f);
    }
}

/* The levels of the drawn bodies (every stride-th of system `system`) by step13's criterion, as bytes
 * 255 k / (levels - 1). 0, or NB_EXIT_ERROR after one line. */
static int drawn_levels(const nb_state *s, const run *r, const options *o, unsigned char *out)
{
    size_t *index = malloc(r->shown * sizeof *index);
    double *acc = malloc(3 * r->shown * sizeof *acc);
    nb_state64 s64;
    const int have = index && acc && nb_state64_alloc(&s64, s->systems, s->bodies) == NB_EXIT_OK;
    if (!have) {
        nb_error("out of memory for the levels of %zu bodies", r->shown);
        free(index);
        free(acc);
        return NB_EXIT_ERROR;
    }
    nb_state64_from(&s64, s);
    for (size_t j = 0; j < r->shown; ++j)
        index[j] = (size_t)o->system * r->bodies + j * r->stride;
    nb_ref_accel(&s64, r->eps * r->eps, index, r->shown, acc, acc + r->shown, acc + 2 * r->shown);
    const double bound = o->eta * o->eta * r->eps;
    for (size_t j = 0; j < r->shown; ++j) {
        const double ax = acc[j], ay = acc[r->shown + j], az = acc[2 * r->shown + j];
        const int k = nb_block_level(sqrt(ax * ax + ay * ay + az * az), bound, r->dt, (unsigned)o->levels);
        out[j] = (unsigned char)lround(255.0 * k / (double)(o->levels - 1));
    }
    nb_state64_free(&s64);
    free(index);
    free(acc);
    return NB_EXIT_OK;
}

/* One frame's block: the drawn bodies' quantised positions (little-endian uint16 x y z), then speeds,
 * then with --levels their levels. */
static int write_frame(FILE *f, const run *r, const options *o, size_t k, unsigned char *bytes)
{
    nb_state s;
    nb_snapshot_info info;
    if (nb_snapshot_read(r->frames[k].path, &s, &info) != NB_EXIT_OK)
        return 0;
    const size_t base = (size_t)o->system * r->bodies;
    const float *p[3] = {s.x + base, s.y + base, s.z + base}, *v[3] = {s.vx + base, s.vy + base, s.vz + base};
    unsigned char *speed = bytes + 6 * r->shown;
    size_t j = 0;
    for (size_t i = 0; i < r->bodies; i += r->stride, ++j) {
        for (int c = 0; c < 3; ++c) {
            const double t = (p[c][i] - r->lo[c]) / (r->hi[c] - r->lo[c]);
            const unsigned q = (unsigned)lround(fmin(1.0, fmax(0.0, t)) * 65535.0);
            bytes[6 * j + 2 * c] = (unsigned char)(q & 255);
            bytes[6 * j + 2 * c + 1] = (unsigned char)(q >> 8);
        }
        const double sp = sqrt((double)v[0][i] * v[0][i] + (double)v[1][i] * v[1][i] + (double)v[2][i] * v[2][i]);
        speed[j] = (unsigned char)lround(fmin(1.0, fmax(0.0, (sp - r->vlo) / (r->vhi - r->vlo))) * 255.0);
    }
    const int ok = !o->levels || drawn_levels(&s, r, o, bytes + 7 * r->shown) == NB_EXIT_OK;
    nb_state_free(&s);
    if (!ok)
        return 0;
    fprintf(f, "<script type=\"application/octet-stream\" id=\"f%zu\">", k);
    base64(f, bytes, (o->levels ? 8 : 7) * r->shown);
    fprintf(f, "</script>\n");
    return 1;
}

static int write_page(const run *r, const options *o)
{
    char title[512];
    if (o->title)
        snprintf(title, sizeof title, "%s", o->title);
    else
        snprintf(title, sizeof title, "%s%s (%zu frame%s)", r->frames[0].path, r->nframes > 1 ? " ..." : "", r->nframes,
                 r->nframes > 1 ? "s" : "");
    unsigned char *bytes = malloc(8 * r->shown);
    if (!bytes) {
        nb_error("out of memory for %zu bodies", r->shown);
        return 0;
    }
    nb_replace rep;
    const int fd = nb_replace_open(&rep, o->out);
    if (fd < 0) {
        free(bytes);
        return 0;
    }
    FILE *f = fdopen(fd, "w");
    if (!f) {
        nb_error("%s: %s", o->out, strerror(errno));
        close(fd);
        nb_replace_discard(&rep);
        free(bytes);
        return 0;
    }
    fputs(nb_view_page_head, f);
    write_meta(f, r, o, title);
    int ok = 1;
    for (size_t k = 0; ok && k < r->nframes; ++k)
        ok = write_frame(f, r, o, k, bytes);
    fputs(nb_view_page_tail, f);
    free(bytes);
    if (ok && (fflush(f) != 0 || ferror(f) || fsync(fileno(f)) != 0)) {
        nb_error("%s: cannot write the page: %s", o->out, strerror(errno));
        ok = 0;
    }
    if (fclose(f) != 0 && ok) {
        nb_error("%s: cannot write the page: %s", o->out, strerror(errno));
        ok = 0;
    }
    if (!ok) {
        nb_replace_discard(&rep);
        return 0;
    }
    return nb_replace_commit(&rep, NULL) == NB_EXIT_OK;
}

int main(int argc, char **argv)
{
    nb_set_progname("snap2html");
    options o = {.out = "view.html", .title = NULL, .max_points = 200000, .max_total = 6000000, .system = 0, .fps = 12.0,
                 .eta = 0.0, .levels = 0};
    run r = {0};
    int ok = parse_args(argc, argv, &o, &r) && survey(&r, &o) && write_page(&r, &o);
    if (ok)
        printf("snap2html: %s: %zu frame%s of %zu bodies drawn (of %llu%s)\n", o.out, r.nframes, r.nframes > 1 ? "s" : "", r.shown,
               (unsigned long long)r.bodies, r.stride > 1 ? ", decimated for display" : "");
    for (size_t k = 0; k < r.nframes; ++k)
        free(r.frames[k].path);
    free(r.frames);
    return ok ? NB_EXIT_OK : NB_EXIT_ERROR;
}
