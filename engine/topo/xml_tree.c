/* xml_tree.c - the element tree that mirrors NCCL's topology XML: nodes
 * with ordered attributes and children (ordered, so export is stable). */
#include "topo/topo_internal.h"
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

mgpu_xml_node *mgpu_xml_new(const char *name)
{
    if (!name || strlen(name) >= MGPU_XML_NAME_LEN) return NULL;
    mgpu_xml_node *n = calloc(1, sizeof *n);
    if (!n) return NULL;
    strcpy(n->name, name);
    return n;
}

mgpu_xml_node *mgpu_xml_add_child(mgpu_xml_node *parent, const char *name)
{
    if (!parent) return NULL;
    if (parent->nchildren == parent->cap_children) {
        int cap = parent->cap_children ? parent->cap_children * 2 : 4;
        mgpu_xml_node **c = realloc(parent->children, (size_t)cap * sizeof *c);
        if (!c) return NULL;
        parent->children = c;
        parent->cap_children = cap;
    }
    mgpu_xml_node *n = mgpu_xml_new(name);
    if (!n) return NULL;
    n->parent = parent;
    parent->children[parent->nchildren++] = n;
    return n;
}

mgpu_result mgpu_xml_set(mgpu_xml_node *n, const char *key, const char *value)
{
    if (!n || !key || !value) return mgpu_fail(MGPU_ERR_INVALID, "mgpu_xml_set: null argument");
    size_t kl = strlen(key), vl = strlen(value);
    if (kl == 0 || kl >= MGPU_XML_NAME_LEN)
        return mgpu_fail(MGPU_ERR_INVALID, "<%s>: attribute name '%.40s' is empty or longer than %d characters",
                         n->name, key, MGPU_XML_NAME_LEN - 1);
    if (vl >= MGPU_XML_VALUE_LEN)
        return mgpu_fail(MGPU_ERR_INVALID, "<%s %s>: value of %zu characters is longer than %d (NCCL's limit too)",
                         n->name, key, vl, MGPU_XML_VALUE_LEN - 1);
    for (int i = 0; i < n->nattrs; i++) {
        if (strcmp(n->attrs[i].key, key) == 0) {
            memcpy(n->attrs[i].value, value, vl + 1);
            return MGPU_OK;
        }
    }
    if (n->nattrs == MGPU_XML_MAX_ATTRS)
        return mgpu_fail(MGPU_ERR_INVALID, "<%s>: more than %d attributes", n->name, MGPU_XML_MAX_ATTRS);
    memcpy(n->attrs[n->nattrs].key, key, kl + 1);
    memcpy(n->attrs[n->nattrs].value, value, vl + 1);
    n->nattrs++;
    return MGPU_OK;
}

mgpu_result mgpu_xml_setf(mgpu_xml_node *n, const char *key, const char *fmt, ...)
{
    char buf[MGPU_XML_VALUE_LEN + 1];
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (k < 0 || k >= MGPU_XML_VALUE_LEN)
        return mgpu_fail(MGPU_ERR_INVALID, "<%s %s>: formatted value is longer than %d characters",
                         n ? n->name : "?", key ? key : "?", MGPU_XML_VALUE_LEN - 1);
    return mgpu_xml_set(n, key, buf);
}

const char *mgpu_xml_get(const mgpu_xml_node *n, const char *key)
{
    if (!n || !key) return NULL;
    for (int i = 0; i < n->nattrs; i++)
        if (strcmp(n->attrs[i].key, key) == 0) return n->attrs[i].value;
    return NULL;
}

void mgpu_xml_free(mgpu_xml_node *n)
{
    if (!n) return;
    for (int i = 0; i < n->nchildren; i++) mgpu_xml_free(n->children[i]);
    free(n->children);
    free(n);
}

int topo_parse_long(const char *s, long long *out)
{
    if (!s || !*s) return 0;
    /* strtoll accepts leading blanks and "+"; NCCL's files have neither, so
     * a value with them is more likely damage than intent. */
    if (s[0] == ' ' || s[0] == '\t' || s[0] == '+') return 0;
    errno = 0;
    char *end = NULL;
    /* Decimal, or hex with 0x (class ids); never octal: "08" is eight. */
    const char *d = s[0] == '-' ? s + 1 : s;
    int base = (d[0] == '0' && (d[1] == 'x' || d[1] == 'X')) ? 16 : 10;
    long long v = strtoll(s, &end, base);
    if (errno || end == s || *end) return 0;
    *out = v;
    return 1;
}
