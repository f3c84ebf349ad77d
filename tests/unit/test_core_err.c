/* test_core_err.c - failures carry a message and a breadcrumb trail. */
#include "mgpu/err.h"
#include "tap.h"
#include <string.h>

static mgpu_result inner(void) { return mgpu_fail(MGPU_ERR_PARSE, "topo.xml:3:7: bad attribute"); }
static mgpu_result middle(void)
{
    MGPU_CHECK(inner());
    return MGPU_OK;
}
static mgpu_result outer(int *cleaned)
{
    mgpu_result r;
    MGPU_CHECKGOTO(middle(), r, out);
out:
    *cleaned = 1;
    return r;
}

int main(void)
{
    int cleaned = 0;
    CHECK(outer(&cleaned) == MGPU_ERR_PARSE);
    CHECK(cleaned == 1);
    CHECK(strcmp(mgpu_error_message(), "topo.xml:3:7: bad attribute") == 0);
    CHECKF(strstr(mgpu_error_trail(), "middle") && strstr(mgpu_error_trail(), "outer"), "trail: %s",
           mgpu_error_trail());
    CHECK(mgpu_error_code() == MGPU_ERR_PARSE);
    CHECK(strcmp(mgpu_result_name(MGPU_ERR_DEVICE_OOM), "device-oom") == 0);
    mgpu_error_clear();
    CHECK(mgpu_error_message()[0] == '\0' && mgpu_error_trail()[0] == '\0');
    return tap_done();
}
