/* report.h - `mgpulab report`'s pieces (private to the CLI).
 *
 * A learner's report is one JSON document (mgpu_lab_export, engine/lab/
 * export.c; docs/classroom.md describes it): what --export writes, and the
 * class's shared folder receives after every step. cmd_report.c prints one
 * learner's; report_class.c the class's grid from a directory of them
 * (class_model.c reads them); report_text.c writes their text. */
#ifndef MGPU_CLI_REPORT_H
#define MGPU_CLI_REPORT_H
#include <jansson.h>
#include <stdio.h>

#include "cmd.h"
#include "mgpu/lab.h"

/* Text from progress files and exports, written for where it goes
 * (report_text.c, which calls no other report file). */
/* Text escaped for HTML element content and attribute values. */
void report_html_text(FILE *f, const char *s);
/* The <head> with the page's own style (no external resource) and <body>. */
void report_html_begin(FILE *f, const char *title);
void report_html_end(FILE *f);
/* Text for a terminal: control characters (ESC, BEL, C1, ...) shown as
 * \xHH instead of acting; a newline kept or made a space. */
void report_safe_text(FILE *f, const char *s, int keep_newlines);
/* Markdown table text, safe as report_safe_text: a '|' would end the
 * cell, a newline the row. */
void report_md_text(FILE *f, const char *s);
/* A CSV field, quoted and safe as report_safe_text (newlines kept). */
void report_csv_field(FILE *f, const char *s);

/* `mgpulab report --class DIR` with the class's labs in cat: returns the
 * exit status. verify: re-run every claimed pass with these options first
 * (--verify, report_verify.c); NULL: the exports as they are. */
int report_class(const char *dir, const char *format, FILE *out, mgpu_lab_catalog *cat, const mgpu_cli_globals *verify);
/* `mgpulab report --class DIR --watch`: the live grid (report_watch.c). */
int report_watch(const char *dir, mgpu_lab_catalog *cat);
/* Open lab `name` of the class for the learners: add it to DIR's
 * open-labs.txt (atomically). msg says what happened. Returns 0, 1 when
 * the file cannot be written, 2 for a lab not in the class. */
int report_open_lab(const char *dir, mgpu_lab_catalog *cat, const char *name, char *msg, size_t len);
/* The class formats: markdown, text, html, csv, json; -1 for another. */
int report_class_format(const char *format);

#endif
