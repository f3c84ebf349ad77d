/* topo_doc.h - the packed rows of the "topo" document (topo_doc.c): the
 * job writes each row of the path-type matrix and of the peer-access table
 * as one string, a character per cell; mgpu_topo_doc_expand (mgpu/jobs.h)
 * turns them back into arrays where the document is received. */
#ifndef MGPU_JOBS_TOPO_DOC_H
#define MGPU_JOBS_TOPO_DOC_H
#include "mgpu/jobs.h"

#define TOPO_MAX_KINDS 64

/* The distinct path names of a matrix, in the order first seen. */
typedef struct topo_kinds {
    char name[TOPO_MAX_KINDS][16];
    int n;
} topo_kinds;

/* The character for a cell (its name added when new); '\0' when the
 * matrix has more than TOPO_MAX_KINDS names. */
char topo_kind_char(topo_kinds *k, const char *cell);
/* The names as a JSON array: the matrix's "cells". */
json_t *topo_kinds_json(const topo_kinds *k);
/* 'y', 'n' or '-' (unknown) for a peer-access answer of 1, 0 or -1. */
char topo_peer_char(int can);

#endif
