/* report_text.c - how `mgpulab report` writes text taken from progress
 * files and exports, for where it goes: an HTML page, a terminal, a
 * Markdown cell, a CSV field. Below cmd_report.c, report_class.c and
 * class_model.c, which all write such text; it calls none of them. */
#include "report.h"

/*--- HTML -------------------------------------------------------------------*/

void report_html_text(FILE *f, const char *s) { mgpu_cli_markup_text(f, s); }

void report_html_begin(FILE *f, const char *title)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>", f);
    report_html_text(f, title);
    fputs("</title>\n<style>body{font-family:sans-serif;margin:2em;color:#222}table{border-collapse:collapse;"
          "margin-bottom:1.5em}th,td{border:1px solid #bbb;padding:.3em .6em;text-align:left;vertical-align:top}"
          "th{background:#eee}.passed{color:#1a7f37}.failed,.error{color:#c62828}.new{color:#777}</style>\n"
          "</head><body>\n", f);
}

void report_html_end(FILE *f) { fputs("</body></html>\n", f); }

/*--- A terminal, Markdown, CSV -----------------------------------------------*/

/* Text from the exports on its way to a terminal (or a file shown on one):
 * every other C0 control (ESC, BEL, ...), DEL and the C1 controls (U+0080
 * to U+009F, the 8-bit CSI among them) written as \xHH or \u00HH, so a
 * learner's name cannot move the cursor, retitle the window or hide a row
 * (issue 34). md: PUT_MD escapes '|' and '\\' for a Markdown cell, PUT_CSV
 * doubles '"'. newline: what a newline or CR becomes ('\n' keeps a newline:
 * a CSV field may span lines). */
enum { PUT_PLAIN = 0, PUT_MD, PUT_CSV };
static void put_text(FILE *f, const char *s, int md, int newline)
{
    for (const unsigned char *p = (const unsigned char *)s; p && *p; p++) {
        if (*p == '\n' || *p == '\r') {
            if (newline == '\n' && *p == '\r') fputs("\\x0d", f);
            else fputc(newline, f);
        } else if (*p < 0x20 || *p == 0x7f) {
            fprintf(f, "\\x%02x", *p);
        } else if (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f) {
            fprintf(f, "\\u%04x", p[1]);
            p++;
        } else {
            if (md == PUT_MD && (*p == '|' || *p == '\\')) fputc('\\', f);
            if (md == PUT_CSV && *p == '"') fputc('"', f);
            fputc(*p, f);
        }
    }
}

void report_safe_text(FILE *f, const char *s, int keep_newlines)
{
    put_text(f, s, PUT_PLAIN, keep_newlines ? '\n' : ' ');
}

void report_md_text(FILE *f, const char *s) { put_text(f, s, PUT_MD, ' '); }

/* A field that starts with = + - @ (or a tab or CR) is a formula to a
 * spreadsheet (=HYPERLINK(...) from a learner's name): it gets a leading
 * ' as OWASP's CSV injection advice says. */
void report_csv_field(FILE *f, const char *s)
{
    fputc('"', f);
    if (s && (*s == '=' || *s == '+' || *s == '-' || *s == '@' || *s == '\t' || *s == '\r')) fputc('\'', f);
    put_text(f, s, PUT_CSV, '\n');
    fputc('"', f);
}
