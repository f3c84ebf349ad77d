/* alloc_conf.c - MGPU_ALLOC_CONF, in the form of PYTORCH_CUDA_ALLOC_CONF:
 * comma-separated key:value pairs. */
#include "mgpu/mem.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define ACCEPTED "backend:native|plain, max_split_size_mb:N (N >= 20, as in PyTorch), expandable_segments:True|False"

static mgpu_result bad(const char *text, const char *why)
{
    return mgpu_fail(MGPU_ERR_INVALID, "MGPU_ALLOC_CONF '%s': %s; accepted: %s", text, why, ACCEPTED);
}

static int parse_bool(const char *v, int *out)
{
    if (strcasecmp(v, "true") == 0 || strcmp(v, "1") == 0) *out = 1;
    else if (strcasecmp(v, "false") == 0 || strcmp(v, "0") == 0) *out = 0;
    else return 0;
    return 1;
}

mgpu_result mgpu_alloc_conf_parse(const char *text, mgpu_alloc_conf *out)
{
    mgpu_alloc_conf c = {1, UINT64_MAX, 0};
    if (!text || !*text) {
        *out = c;
        return MGPU_OK;
    }
    char buf[512];
    if (strlen(text) >= sizeof buf) return bad("too long", "at most 511 characters");
    snprintf(buf, sizeof buf, "%s", text);
    char *save = NULL;
    for (char *item = strtok_r(buf, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        while (*item == ' ') item++;
        if (!*item) continue;
        char *colon = strchr(item, ':');
        if (!colon) {
            char why[160];
            snprintf(why, sizeof why, "'%.60s' is not key:value", item);
            return bad(text, why);
        }
        *colon = '\0';
        const char *key = item, *val = colon + 1;
        char why[200];
        if (strcmp(key, "backend") == 0) {
            if (strcmp(val, "native") == 0) c.caching = 1;
            else if (strcmp(val, "plain") == 0 || strcmp(val, "cudaMalloc") == 0) c.caching = 0;
            else {
                snprintf(why, sizeof why, "backend '%.40s' is neither native (the caching allocator) nor plain", val);
                return bad(text, why);
            }
        } else if (strcmp(key, "max_split_size_mb") == 0) {
            char *end = NULL;
            errno = 0;
            unsigned long long mb = strtoull(val, &end, 10);
            if (!*val || *end || errno || val[0] == '-' || mb > (1ull << 30)) {
                snprintf(why, sizeof why, "max_split_size_mb '%.40s' is not a whole number of MiB", val);
                return bad(text, why);
            }
            /* PyTorch refuses sizes below its large buffer: such blocks
             * would never be split at all. */
            if (mb < 20) {
                snprintf(why, sizeof why, "max_split_size_mb %llu is below 20 (the large-pool segment size)", mb);
                return bad(text, why);
            }
            c.max_split_size = mb << 20;
        } else if (strcmp(key, "expandable_segments") == 0) {
            if (!parse_bool(val, &c.expandable_segments)) {
                snprintf(why, sizeof why, "expandable_segments '%.40s' is neither True nor False", val);
                return bad(text, why);
            }
        } else {
            snprintf(why, sizeof why, "unknown key '%.40s'", key);
            return bad(text, why);
        }
    }
    *out = c;
    return MGPU_OK;
}

void mgpu_alloc_conf_format(const mgpu_alloc_conf *c, char *buf, size_t len)
{
    /* Unlimited has no spelling in PyTorch: the key is left out. */
    char split[48] = "";
    if (c->max_split_size != UINT64_MAX)
        snprintf(split, sizeof split, "max_split_size_mb:%llu,", (unsigned long long)(c->max_split_size >> 20));
    snprintf(buf, len, "backend:%s,%sexpandable_segments:%s", c->caching ? "native" : "plain", split,
             c->expandable_segments ? "True" : "False");
}
