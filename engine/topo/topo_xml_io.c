/* topo_xml_io.c - NCCL topology XML in and out. Import parses with expat
 * under hard limits (no DOCTYPE/entities, bounded depth, nodes, attributes,
 * value length and file size) because users load files from other
 * machines; export writes exactly NCCL's format (ncclTopoDumpXmlRec). */
#include "topo/topo_internal.h"
#include "mgpu/file.h"
#include <errno.h>
#include <expat.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/*--- Import -----------------------------------------------------------*/

typedef struct pctx {
    XML_Parser p;
    const char *source;
    mgpu_xml_node *root, *cur;
    int depth, nnodes;
    topo_srcmap map;
    int failed;
    mgpu_result code;
    char err[600];
} pctx;

static void fail_at(pctx *c, mgpu_result code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void fail_at(pctx *c, mgpu_result code, const char *fmt, ...)
{
    if (c->failed) return;
    c->failed = 1;
    c->code = code;
    int k = snprintf(c->err, sizeof c->err, "%s:%lu:%lu: ", c->source, (unsigned long)XML_GetCurrentLineNumber(c->p),
                     (unsigned long)XML_GetCurrentColumnNumber(c->p) + 1);
    va_list ap;
    va_start(ap, fmt);
    if (k > 0 && (size_t)k < sizeof c->err) vsnprintf(c->err + k, sizeof c->err - (size_t)k, fmt, ap);
    va_end(ap);
    XML_StopParser(c->p, XML_FALSE);
}

static int record_pos(pctx *c, const mgpu_xml_node *n)
{
    if (c->map.n == c->map.cap) {
        int cap = c->map.cap ? c->map.cap * 2 : 64;
        topo_srcpos *p = realloc(c->map.pos, (size_t)cap * sizeof *p);
        if (!p) return 0;
        c->map.pos = p;
        c->map.cap = cap;
    }
    c->map.pos[c->map.n].node = n;
    c->map.pos[c->map.n].line = (int)XML_GetCurrentLineNumber(c->p);
    c->map.pos[c->map.n].col = (int)XML_GetCurrentColumnNumber(c->p) + 1;
    c->map.n++;
    return 1;
}

static void XMLCALL on_start(void *ud, const XML_Char *name, const XML_Char **atts)
{
    pctx *c = ud;
    if (c->failed) return;
    if (c->depth >= TOPO_MAX_DEPTH)
        return fail_at(c, MGPU_ERR_PARSE, "elements nest deeper than %d levels; NCCL topologies are a few levels deep",
                       TOPO_MAX_DEPTH);
    if (c->nnodes >= TOPO_MAX_NODES)
        return fail_at(c, MGPU_ERR_PARSE, "more than %d elements; mgpulab's limit for a topology file", TOPO_MAX_NODES);
    if (strlen(name) >= MGPU_XML_NAME_LEN)
        return fail_at(c, MGPU_ERR_PARSE, "element name '%.40s...' is longer than %d characters", name,
                       MGPU_XML_NAME_LEN - 1);
    if (!c->root && c->nnodes > 0)
        return fail_at(c, MGPU_ERR_PARSE, "more than one root element");
    int na = 0;
    while (atts[2 * na]) na++;
    if (na > MGPU_XML_MAX_ATTRS)
        return fail_at(c, MGPU_ERR_PARSE, "<%s> has %d attributes; at most %d are allowed", name, na,
                       MGPU_XML_MAX_ATTRS);
    mgpu_xml_node *n = c->cur ? mgpu_xml_add_child(c->cur, name) : mgpu_xml_new(name);
    if (!n) return fail_at(c, MGPU_ERR_NOMEM, "out of memory reading the topology");
    if (!c->cur) c->root = n;
    c->nnodes++;
    c->cur = n;
    c->depth++;
    if (!record_pos(c, n)) return fail_at(c, MGPU_ERR_NOMEM, "out of memory reading the topology");
    for (int i = 0; i < na; i++) {
        const char *k = atts[2 * i], *v = atts[2 * i + 1];
        if (strlen(k) >= MGPU_XML_NAME_LEN)
            return fail_at(c, MGPU_ERR_PARSE, "<%s> attribute name '%.40s...' is longer than %d characters", name, k,
                           MGPU_XML_NAME_LEN - 1);
        size_t vl = strlen(v);
        if (vl >= MGPU_XML_VALUE_LEN)
            return fail_at(c, MGPU_ERR_PARSE, "<%s> attribute %s is %zu characters long; NCCL's limit is %d", name,
                           k, vl, MGPU_XML_VALUE_LEN - 1);
        if (mgpu_xml_set(n, k, v) != MGPU_OK)
            return fail_at(c, MGPU_ERR_PARSE, "<%s> attribute %s: %s", name, k, mgpu_error_message());
    }
}

static void XMLCALL on_end(void *ud, const XML_Char *name)
{
    (void)name;
    pctx *c = ud;
    if (c->failed || !c->cur) return;
    c->cur = c->cur->parent;
    c->depth--;
}

static void XMLCALL on_text(void *ud, const XML_Char *s, int len)
{
    pctx *c = ud;
    for (int i = 0; i < len; i++)
        if (s[i] != ' ' && s[i] != '\t' && s[i] != '\n' && s[i] != '\r')
            return fail_at(c, MGPU_ERR_PARSE, "text inside <%s> is not part of NCCL's topology format",
                           c->cur ? c->cur->name : "?");
}

static void XMLCALL on_doctype(void *ud, const XML_Char *name, const XML_Char *sysid, const XML_Char *pubid,
                               int has_internal)
{
    (void)name, (void)sysid, (void)pubid, (void)has_internal;
    fail_at(ud, MGPU_ERR_PARSE, "DOCTYPE declarations are refused: they can define entities (billion laughs, "
                                "external files); NCCL topology files have none");
}

static void XMLCALL on_entity(void *ud, const XML_Char *name, int is_param, const XML_Char *value, int vlen,
                              const XML_Char *base, const XML_Char *sysid, const XML_Char *pubid,
                              const XML_Char *notation)
{
    (void)is_param, (void)value, (void)vlen, (void)base, (void)sysid, (void)pubid, (void)notation;
    fail_at(ud, MGPU_ERR_PARSE, "entity declaration '%.40s' refused", name);
}

/* Split the parsed root into host trees: a bare <system>, or mgpulab's
 * wrapper holding one <system> per host. */
static mgpu_result split_hosts(pctx *c, mgpu_xml_node ***systems, int *n, mgpu_xml_node **wrapper)
{
    mgpu_xml_node *r = c->root;
    char where[300];
    topo_where(&c->map, r, where, sizeof where);
    *wrapper = NULL;
    if (strcmp(r->name, "system") == 0) {
        if (!(*systems = malloc(sizeof **systems))) return mgpu_fail(MGPU_ERR_NOMEM, "out of memory");
        (*systems)[0] = r;
        *n = 1;
        return MGPU_OK;
    }
    if (strcmp(r->name, TOPO_WRAPPER_NAME) != 0)
        return mgpu_fail(MGPU_ERR_PARSE, "%s: root element <%s> is neither NCCL's <system> nor mgpulab's <%s>", where,
                         r->name, TOPO_WRAPPER_NAME);
    const char *v = mgpu_xml_get(r, "version");
    if (!v || strcmp(v, "1") != 0)
        return mgpu_fail(MGPU_ERR_PARSE, "%s: <%s> needs version=\"1\"", where, TOPO_WRAPPER_NAME);
    if (r->nchildren <= 0 || r->nchildren > TOPO_MAX_HOSTS)
        return mgpu_fail(MGPU_ERR_PARSE, "%s: <%s> must hold 1 to %d <system> elements (has %d)", where,
                         TOPO_WRAPPER_NAME, TOPO_MAX_HOSTS, r->nchildren);
    for (int i = 0; i < r->nchildren; i++)
        if (strcmp(r->children[i]->name, "system") != 0) {
            topo_where(&c->map, r->children[i], where, sizeof where);
            return mgpu_fail(MGPU_ERR_PARSE, "%s: <%s> inside <%s>; only <system> elements (one per host) belong there",
                             where, r->children[i]->name, TOPO_WRAPPER_NAME);
        }
    if (!(*systems = malloc((size_t)r->nchildren * sizeof **systems)))
        return mgpu_fail(MGPU_ERR_NOMEM, "out of memory");
    for (int i = 0; i < r->nchildren; i++) {
        (*systems)[i] = r->children[i];
        r->children[i]->parent = NULL;
    }
    *n = r->nchildren;
    free(r->children);
    r->children = NULL;
    r->nchildren = r->cap_children = 0;
    *wrapper = r;
    return MGPU_OK;
}

static mgpu_result parse_xml(const char *text, size_t len, const char *source_name, int strict_links, mgpu_topo **out)
{
    const char *src = source_name ? source_name : "<input>";
    if (!out || (!text && len)) return mgpu_fail(MGPU_ERR_INVALID, "mgpu_topo_parse_xml: null argument");
    *out = NULL;
    if (len > TOPO_MAX_FILE_BYTES)
        return mgpu_fail(MGPU_ERR_PARSE, "%s: %zu bytes; topology files are limited to %u MiB", src, len,
                         TOPO_MAX_FILE_BYTES >> 20);
    pctx c = {0};
    c.source = src;
    c.map.source = src;
    c.map.strict_links = strict_links;
    /* UTF-8 forced: an encoding declaration cannot switch decoders. */
    c.p = XML_ParserCreate("UTF-8");
    if (!c.p) return mgpu_fail(MGPU_ERR_NOMEM, "out of memory creating the XML parser");
    XML_SetUserData(c.p, &c);
    XML_SetElementHandler(c.p, on_start, on_end);
    XML_SetCharacterDataHandler(c.p, on_text);
    XML_SetStartDoctypeDeclHandler(c.p, on_doctype);
    XML_SetEntityDeclHandler(c.p, on_entity);
    XML_SetParamEntityParsing(c.p, XML_PARAM_ENTITY_PARSING_NEVER);
    enum XML_Status st = XML_Parse(c.p, text ? text : "", (int)len, XML_TRUE);
    mgpu_result r = MGPU_OK;
    if (c.failed) {
        r = mgpu_fail(c.code, "%s", c.err);
    } else if (st != XML_STATUS_OK) {
        r = mgpu_fail(MGPU_ERR_PARSE, "%s:%lu:%lu: %s", src, (unsigned long)XML_GetCurrentLineNumber(c.p),
                      (unsigned long)XML_GetCurrentColumnNumber(c.p) + 1, XML_ErrorString(XML_GetErrorCode(c.p)));
    } else if (!c.root) {
        r = mgpu_fail(MGPU_ERR_PARSE, "%s:1:1: no element found", src);
    }
    XML_ParserFree(c.p);
    if (r != MGPU_OK) {
        mgpu_xml_free(c.root);
        free(c.map.pos);
        return r;
    }
    mgpu_xml_node **systems = NULL, *wrapper = NULL;
    int n = 0;
    r = split_hosts(&c, &systems, &n, &wrapper);
    if (r != MGPU_OK) {
        mgpu_xml_free(c.root);
    } else {
        /* topo_build owns the trees from here, also when it fails */
        r = topo_build(systems, n, wrapper, src, 1, &c.map, out);
    }
    free(systems);
    free(c.map.pos);
    if (r != MGPU_OK) mgpu_error_breadcrumb(__FILE__, __LINE__, __func__);
    return r;
}

mgpu_result mgpu_topo_parse_xml(const char *text, size_t len, const char *source_name, mgpu_topo **out)
{
    return parse_xml(text, len, source_name, 0, out);
}

mgpu_result mgpu_topo_load_xml(const char *path, mgpu_topo **out)
{
    if (!path || !*path || !out) return mgpu_fail(MGPU_ERR_INVALID, "no topology file named");
    /* the one reader of files named by users (mgpu/file.h): a FIFO or a
     * device is refused without blocking (--machine FIFO waited for ever,
     * issue 34), a file over the cap by its size */
    char *buf = NULL;
    size_t n = 0;
    mgpu_result r = mgpu_file_read(path, TOPO_MAX_FILE_BYTES, &buf, &n);
    if (r == MGPU_OK) r = parse_xml(buf, n, path, 1, out);
    free(buf);
    if (r != MGPU_OK) mgpu_error_breadcrumb(__FILE__, __LINE__, __func__);
    return r;
}

mgpu_result mgpu_topo_open_machine(const char *name, mgpu_topo **out)
{
    if (!name || !*name)
        return mgpu_fail(MGPU_ERR_INVALID, "--machine: empty; name a preset or an NCCL topology XML file");
    size_t l = strlen(name);
    if (strchr(name, '/') || (l >= 4 && strcmp(name + l - 4, ".xml") == 0)) MGPU_CHECK(mgpu_topo_load_xml(name, out));
    else MGPU_CHECK(mgpu_topo_preset(name, out));
    return MGPU_OK;
}

/*--- Export -----------------------------------------------------------*/

static void write_value(FILE *f, const char *v)
{
    /* NCCL never writes these characters; escaping keeps values that came
     * from a hand-edited file intact through a round trip. */
    for (; *v; v++) {
        switch (*v) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\n': fputs("&#10;", f); break;
        case '\r': fputs("&#13;", f); break;
        case '\t': fputs("&#9;", f); break;
        default: fputc(*v, f);
        }
    }
}

/* ncclTopoDumpXmlRec's layout: two spaces per level, attributes in order,
 * childless elements self-closed. */
static void write_node(FILE *f, const mgpu_xml_node *n, int indent)
{
    fprintf(f, "%*s<%s", indent, "", n->name);
    for (int i = 0; i < n->nattrs; i++) {
        fprintf(f, " %s=\"", n->attrs[i].key);
        write_value(f, n->attrs[i].value);
        fputc('"', f);
    }
    if (n->nchildren == 0) {
        fputs("/>\n", f);
        return;
    }
    fputs(">\n", f);
    for (int i = 0; i < n->nchildren; i++) write_node(f, n->children[i], indent + 2);
    fprintf(f, "%*s</%s>\n", indent, "", n->name);
}

mgpu_result mgpu_topo_write_xml(const mgpu_topo *t, FILE *f)
{
    if (!t || !f) return mgpu_fail(MGPU_ERR_INVALID, "mgpu_topo_write_xml: null argument");
    int wrapped = t->wrapper || t->nhosts > 1;
    if (wrapped) {
        if (t->wrapper) {
            fprintf(f, "<%s", t->wrapper->name);
            for (int i = 0; i < t->wrapper->nattrs; i++) {
                fprintf(f, " %s=\"", t->wrapper->attrs[i].key);
                write_value(f, t->wrapper->attrs[i].value);
                fputc('"', f);
            }
            fputs(">\n", f);
        } else {
            fprintf(f, "<%s version=\"1\">\n", TOPO_WRAPPER_NAME);
        }
    }
    for (int h = 0; h < t->nhosts; h++) write_node(f, t->hosts[h], wrapped ? 2 : 0);
    if (wrapped) fprintf(f, "</%s>\n", TOPO_WRAPPER_NAME);
    if (fflush(f) != 0 || ferror(f))
        return mgpu_fail(MGPU_ERR_IO, "writing the topology XML failed: %s", strerror(errno));
    return MGPU_OK;
}
