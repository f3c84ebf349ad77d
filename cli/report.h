/* report.h - `mgpulab report`'s pieces (private to the CLI).
 *
 * A learner's report is one JSON document (what --export writes and an
 * instructor collects):
 *   {"format": "mgpulab-report", "version": 1, "created": unix time,
 *    "learner": {"name", "id"}, "host", "backend", "machine",
 *    "labs": [{"id", "title", "steps": [{"id", "title", "state", "attempts",
 *      "hints_taken", "solution_shown", "seconds", "last_run", "message", "measurements": {}}]}]}
 * The learner's answers are never in it; a step's "solution" (the learner's
 * exercise file) only when the class configuration asks for it. cmd_report.c builds
 * and prints it; report_class.c aggregates a directory of them. */
#ifndef MGPU_CLI_REPORT_H
#define MGPU_CLI_REPORT_H
#include <jansson.h>
#include <stdio.h>

#define REPORT_FORMAT "mgpulab-report"
#define REPORT_VERSION 1

/* Text escaped for HTML element content and attribute values. */
void report_html_text(FILE *f, const char *s);
/* The <head> with the page's own style (no external resource) and <body>. */
void report_html_begin(FILE *f, const char *title);
void report_html_end(FILE *f);

/* `mgpulab report --class DIR`: returns the exit status. */
int report_class(const char *dir, const char *format, FILE *out);

#endif
