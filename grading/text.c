/* text.c: the grader's text (text.h): textf, text from a run made safe to echo into the table and the
 * terminal, CSV cells, the one line of a log shown as a reason, speedups and the progress line. */
#include "text.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

void textf(char *out, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out, len, fmt, ap);
    va_end(ap);
}

/* ---- what a log says ------------------------------------------------------------------------ */

/* ESC and what follows it, up to the end of the sequence: CSI (ESC [ parameters final), the string
 * sequences (OSC ESC ] ..., DCS, SOS, PM, APC: to BEL or ESC \), or ESC, intermediates, one final. */
static const unsigned char *skip_escape(const unsigned char *p)
{
    ++p;
    if (*p == '[') {
        ++p;
        while (*p >= 0x20 && *p <= 0x3f)
            ++p;
        return *p >= 0x40 && *p <= 0x7e ? p + 1 : p;
    }
    if (*p && strchr("]PX^_", *p)) {
        ++p;
        while (*p && *p != 0x07 && !(p[0] == 0x1b && p[1] == '\\'))
            ++p;
        return *p == 0x07 ? p + 1 : *p ? p + 2 : p;
    }
    while (*p >= 0x20 && *p <= 0x2f)
        ++p;
    return *p >= 0x30 && *p <= 0x7e ? p + 1 : p;
}

/* Bytes of the well-formed UTF-8 character at p; 0 for a malformed one or a C1 control (U+0080-U+009F,
 * which some terminals obey as they do ESC sequences). */
static size_t utf8_length(const unsigned char *p)
{
    static const uint32_t least[5] = {0, 0, 0xa0, 0x800, 0x10000}; /* below: overlong, or C1 */
    size_t n;
    uint32_t code;
    if (p[0] >= 0xc2 && p[0] <= 0xdf)
        n = 2, code = p[0] & 0x1fu;
    else if (p[0] >= 0xe0 && p[0] <= 0xef)
        n = 3, code = p[0] & 0x0fu;
    else if (p[0] >= 0xf0 && p[0] <= 0xf4)
        n = 4, code = p[0] & 0x07u;
    else
        return 0;
    for (size_t k = 1; k < n; ++k) {
        if ((p[k] & 0xc0) != 0x80)
            return 0;
        code = code << 6 | (p[k] & 0x3fu);
    }
    return code < least[n] || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff) ? 0 : n;
}

/* Text from a run made safe to echo into the table and the terminal, in place: escape sequences are
 * removed, tabs and line breaks become spaces, other control characters and bytes that are not UTF-8
 * become '?'. Printable ASCII and UTF-8 text stay as they are. */
void printable_text(char *text)
{
    const unsigned char *in = (const unsigned char *)text;
    char *out = text; /* never ahead of in */
    while (*in) {
        const unsigned char c = *in;
        size_t n;
        if (c == 0x1b) {
            in = skip_escape(in);
        } else if (c == '\t' || c == '\n' || c == '\r') {
            *out++ = ' ';
            ++in;
        } else if (c >= 0x20 && c < 0x7f) {
            *out++ = (char)*in++;
        } else if (c >= 0x80 && (n = utf8_length(in)) > 0) {
            memmove(out, in, n);
            out += n;
            in += n;
        } else {
            *out++ = '?';
            ++in;
        }
    }
    *out = '\0';
}

/* The last non-empty line of a log, or the first one containing `needle` (NULL: the last line). */
void log_line(const char *path, const char *needle, char *out, size_t len)
{
    out[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    char line[1024];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = '\0';
        printable_text(line); /* before anything reads it: an escape sequence can hide a separator */
        const char *p = line;
        while (isspace((unsigned char)*p))
            ++p;
        if (!*p)
            continue;
        if (needle && !strstr(p, needle))
            continue;
        textf(out, len, "%s", p);
        if (needle)
            break;
    }
    fclose(f);
}

void clean_cell(char *s)
{
    for (; *s; ++s)
        if (*s == ',')
            *s = ';'; /* as common/results.c's fields: a clause stays a clause */
        else if (*s == '"' || *s == '\n' || *s == '\r')
            *s = ' ';
}

void format_speedup(double x, char *out, size_t len)
{
    textf(out, len, x < 9.995 ? "%.2fx" : x < 99.95 ? "%.1fx" : "%.0fx", x);
}

/* ---- the progress line -------------------------------------------------------------------------- */

void progress(int tty, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (tty)
        printf("\r\033[K%s", buf);
    else
        printf("%s\n", buf);
    fflush(stdout);
}

void progress_end(int tty)
{
    if (tty) {
        printf("\r\033[K");
        fflush(stdout);
    }
}
