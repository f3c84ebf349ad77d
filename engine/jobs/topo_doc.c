/* topo_doc.c - the "topo" document's two square tables on the wire. The
 * path-type matrix and the peer-access table have a cell for every pair of
 * devices: as JSON arrays of strings a 2,000-GPU host made 49 MB, over the
 * 16 MiB a worker may send in one message ("a message of 48948905 bytes is
 * over the 16 MiB limit", issue 16 item 16). So the job sends each row as
 * one string of one character per cell - the matrix's characters index its
 * "cells" (the distinct path names), the peer table's are y, n and - for
 * yes, no and unknown - and whoever receives the document expands them back
 * into the arrays `topo --json` documents. Expanded rows share one JSON
 * string per distinct cell, so the receiver holds a pointer per cell. */
#include "jobs/topo_doc.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* 64 characters that JSON never escapes: a matrix has at most this many
 * distinct path names (X, NV1..NV18 at most, the PCIe types, NET). */
static const char cell_chars[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz+/";

char topo_kind_char(topo_kinds *k, const char *cell)
{
    int i = 0;
    while (i < k->n && strcmp(k->name[i], cell) != 0) i++;
    if (i == k->n) {
        if (k->n == TOPO_MAX_KINDS || strlen(cell) >= sizeof k->name[0]) return '\0';
        snprintf(k->name[k->n++], sizeof k->name[0], "%s", cell);
    }
    return cell_chars[i];
}

json_t *topo_kinds_json(const topo_kinds *k)
{
    json_t *a = json_array();
    for (int i = 0; a && i < k->n; i++) json_array_append_new(a, json_string(k->name[i]));
    return a;
}

char topo_peer_char(int can) { return can < 0 ? '-' : can ? 'y' : 'n'; }

static mgpu_result expand_matrix(json_t *m)
{
    json_t *names = json_object_get(m, "cells"), *rows = json_object_get(m, "rows");
    if (!names) return MGPU_OK; /* already arrays */
    size_t nk = json_array_size(names), n = json_array_size(rows);
    if (!json_is_array(names) || nk > TOPO_MAX_KINDS || !json_is_array(rows))
        return mgpu_fail(MGPU_ERR_PARSE, "topo document: a malformed packed matrix");
    json_t *out = json_array();
    for (size_t r = 0; out && r < n; r++) {
        const char *s = json_string_value(json_array_get(rows, r));
        json_t *row = s && strlen(s) == n ? json_array() : NULL;
        for (size_t c = 0; row && c < n; c++) {
            const char *hit = strchr(cell_chars, s[c]);
            size_t k = hit && s[c] ? (size_t)(hit - cell_chars) : nk;
            if (k >= nk || json_array_append(row, json_array_get(names, k)) != 0) { /* shared, not copied */
                json_decref(row);
                row = NULL;
            }
        }
        if (!row || json_array_append_new(out, row) != 0) {
            json_decref(out);
            return mgpu_fail(MGPU_ERR_PARSE, "topo document: row %zu of the packed matrix is malformed", r);
        }
    }
    if (!out) return mgpu_fail(MGPU_ERR_NOMEM, "out of memory expanding the topology matrix");
    json_object_set_new(m, "rows", out);
    json_object_del(m, "cells");
    return MGPU_OK;
}

static mgpu_result expand_peer(json_t *doc)
{
    json_t *rows = json_object_get(doc, "peer_access");
    size_t n = json_array_size(rows);
    if (n == 0 || !json_is_string(json_array_get(rows, 0))) return MGPU_OK; /* already arrays */
    json_t *out = json_array();
    for (size_t a = 0; out && a < n; a++) {
        const char *s = json_string_value(json_array_get(rows, a));
        json_t *row = s && strlen(s) == n ? json_array() : NULL;
        for (size_t b = 0; row && b < n; b++)
            json_array_append_new(row, s[b] == 'y' ? json_true() : s[b] == 'n' ? json_false() : json_null());
        if (!row || json_array_append_new(out, row) != 0) {
            json_decref(out);
            return mgpu_fail(MGPU_ERR_PARSE, "topo document: row %zu of the packed peer access is malformed", a);
        }
    }
    if (!out) return mgpu_fail(MGPU_ERR_NOMEM, "out of memory expanding the peer-access table");
    json_object_set_new(doc, "peer_access", out);
    return MGPU_OK;
}

mgpu_result mgpu_topo_doc_expand(json_t *doc)
{
    if (!json_is_object(doc)) return mgpu_fail(MGPU_ERR_INVALID, "topo document: not an object");
    json_t *m = json_object_get(doc, "matrix");
    if (json_is_object(m)) MGPU_CHECK(expand_matrix(m));
    MGPU_CHECK(expand_peer(doc));
    return MGPU_OK;
}
