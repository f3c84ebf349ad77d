/* test_topo_affinity.c - NCCL's affinity masks become CPU lists as
 * nvidia-smi prints them, and back. */
#include "topo/topo_internal.h"
#include "tap.h"
#include <string.h>

static void to_list(const char *mask, const char *want)
{
    char out[128];
    CHECK_OK(topo_mask_to_cpulist(mask, out, sizeof out));
    CHECKF(strcmp(out, want) == 0, "%s -> '%s', want '%s'", mask, out, want);
}

int main(void)
{
    to_list("ffffffff,00000000,ffffffff", "0-31,64-95");
    to_list("ffffffff,00000000", "32-63");
    to_list("0000ffff", "0-15");
    to_list("ffff,ffffffff", "0-47");
    to_list("00000000,00000000,00ffffff,00000000,00000000,00ffffff", "0-23,96-119");
    to_list("00000001", "0");
    to_list("80000000,00000001", "0,63");
    to_list("0000000A", "1,3");
    to_list("00000000", "");
    to_list("", "");
    char out[128];
    CHECK(topo_mask_to_cpulist("xyz", out, sizeof out) == MGPU_ERR_INVALID);
    CHECK(topo_mask_to_cpulist("123456789", out, sizeof out) == MGPU_ERR_INVALID);
    CHECK(topo_mask_to_cpulist(",", out, sizeof out) == MGPU_ERR_INVALID);
    CHECK(topo_mask_to_cpulist("ff,", out, sizeof out) == MGPU_ERR_INVALID);
    CHECK(topo_mask_to_cpulist("ff ff", out, sizeof out) == MGPU_ERR_INVALID);
    /* a list too long to show ends in "..." instead of being cut silently */
    char mask[9 * 64];
    size_t n = 0;
    for (int i = 0; i < 64; i++) n += (size_t)snprintf(mask + n, sizeof mask - n, "%s55555555", i ? "," : "");
    CHECK_OK(topo_mask_to_cpulist(mask, out, sizeof out));
    CHECK(strlen(out) < sizeof out && strcmp(out + strlen(out) - 3, "...") == 0);

    char m[256];
    CHECK_OK(topo_cpulist_to_mask("0-55,112-167", 224, m, sizeof m));
    CHECK(strcmp(m, "00000000,000000ff,ffffffff,ffff0000,00000000,00ffffff,ffffffff") == 0);
    CHECK_OK(topo_mask_to_cpulist(m, out, sizeof out));
    CHECK(strcmp(out, "0-55,112-167") == 0);
    CHECK_OK(topo_cpulist_to_mask("0-31,64-95", 128, m, sizeof m));
    CHECK(strcmp(m, "00000000,ffffffff,00000000,ffffffff") == 0);
    CHECK(topo_cpulist_to_mask("0-300", 224, m, sizeof m) == MGPU_ERR_INVALID);
    CHECK(topo_cpulist_to_mask("5-2", 224, m, sizeof m) == MGPU_ERR_INVALID);
    CHECK(topo_cpulist_to_mask("a", 224, m, sizeof m) == MGPU_ERR_INVALID);
    return tap_done();
}
