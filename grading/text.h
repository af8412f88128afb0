/* text.h: the grader's text, the ground floor (includes nothing of grading/): messages and paths cut to
 * their buffer, text from a run made safe to echo, CSV cells, speedups, and the progress line. */
#ifndef GRADING_TEXT_H
#define GRADING_TEXT_H

#include <stddef.h>

/* snprintf for the grader's messages and paths: a text too long for its buffer is cut short. */
void textf(char *out, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Escape sequences removed, tabs and line breaks a space, other control characters and non-UTF-8 '?'. */
void printable_text(char *text);
/* Text for a CSV cell of ours: commas become semicolons, quotes and line breaks spaces. */
void clean_cell(char *s);
/* The first line of a log holding `needle`, or (NULL) its last non-empty line; made printable. */
void log_line(const char *path, const char *needle, char *out, size_t len);
/* 1.00x, 12.3x, 456x */
void format_speedup(double x, char *out, size_t len);
/* One progress line: rewritten in place on a terminal (tty), one line each otherwise (common/progress.c's
 * ticker is another thing: stderr, after two seconds; the grader's lines are its stdout, at once). */
void progress(int tty, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void progress_end(int tty);

#endif
