/* test_copybench_cases.c - the copy benchmark's testcase table, selection by
 * name / index / prefix, option checks and the median/mean statistic. */
#include "mgpu/copybench.h"
#include "tap.h"
#include <string.h>

static const char *const nvbandwidth_names[] = {
    "host_to_device_memcpy_ce", "device_to_host_memcpy_ce", "host_to_device_bidirectional_memcpy_ce",
    "device_to_host_bidirectional_memcpy_ce", "device_to_device_memcpy_read_ce",
    "device_to_device_memcpy_write_ce", "device_to_device_bidirectional_memcpy_read_ce",
    "device_to_device_bidirectional_memcpy_write_ce", "all_to_host_memcpy_ce",
    "all_to_host_bidirectional_memcpy_ce", "host_to_all_memcpy_ce", "host_to_all_bidirectional_memcpy_ce",
    "all_to_one_write_ce", "all_to_one_read_ce", "one_to_all_write_ce", "one_to_all_read_ce",
    "host_to_device_memcpy_sm", "device_to_host_memcpy_sm", "host_to_device_bidirectional_memcpy_sm",
    "device_to_host_bidirectional_memcpy_sm", "device_to_device_memcpy_read_sm",
    "device_to_device_memcpy_write_sm", "device_to_device_bidirectional_memcpy_read_sm",
    "device_to_device_bidirectional_memcpy_write_sm", "all_to_host_memcpy_sm",
    "all_to_host_bidirectional_memcpy_sm", "host_to_all_memcpy_sm", "host_to_all_bidirectional_memcpy_sm",
    "all_to_one_write_sm", "all_to_one_read_sm", "one_to_all_write_sm", "one_to_all_read_sm",
    "host_device_latency_sm", "device_to_device_latency_sm", "device_local_copy",
};

static void table(void)
{
    int n = 0;
    const mgpu_copy_case *c = mgpu_copy_cases(&n);
    int want = (int)(sizeof nvbandwidth_names / sizeof nvbandwidth_names[0]);
    CHECKF(n == want, "%d testcases, want %d", n, want);
    for (int i = 0; i < n && i < want; i++) {
        CHECKF(strcmp(c[i].name, nvbandwidth_names[i]) == 0, "index %d is %s, want %s", i, c[i].name,
               nvbandwidth_names[i]);
        CHECK(c[i].desc && *c[i].desc && c[i].title && *c[i].title);
        /* the name says CE or SM, and the descriptor must agree */
        size_t len = strlen(c[i].name);
        if (len > 3 && strcmp(c[i].name + len - 3, "_sm") == 0) CHECKF(c[i].engine == MGPU_COPY_SM, "%s", c[i].name);
        if (len > 3 && strcmp(c[i].name + len - 3, "_ce") == 0) CHECKF(c[i].engine == MGPU_COPY_CE, "%s", c[i].name);
        /* peer testcases need two GPUs and say so */
        if (strstr(c[i].name, "device_to_device") || strstr(c[i].name, "_one") || strstr(c[i].name, "one_"))
            CHECKF(c[i].min_gpus == 2 && c[i].needs_peer, "%s", c[i].name);
        else
            CHECKF(c[i].min_gpus == 1 && !c[i].needs_peer, "%s", c[i].name);
        /* read testcases are issued by the reader, write ones by the writer */
        if (strstr(c[i].name, "_read")) CHECKF(c[i].issuer == MGPU_ISSUE_READER, "%s", c[i].name);
        if (strstr(c[i].name, "_write")) CHECKF(c[i].issuer == MGPU_ISSUE_WRITER, "%s", c[i].name);
        CHECK(mgpu_copy_case_find(c[i].name) == &c[i]);
    }
    CHECK(mgpu_copy_case_find("0") == &c[0]);
    CHECK(mgpu_copy_case_find("34") == &c[34]);
    CHECK(mgpu_copy_case_find("35") == NULL);
    CHECK(mgpu_copy_case_find("host_to_device") == NULL); /* a prefix is not a name */
    CHECK(mgpu_copy_case_find(NULL) == NULL);
}

static void selection(void)
{
    const mgpu_copy_case *sel[64];
    int n = 0;
    CHECK_OK(mgpu_copy_case_select("host_to_device", sel, 64, &n));
    CHECKF(n == 4, "host_to_device matched %d", n);
    for (int i = 0; i < n; i++) CHECK(strncmp(sel[i]->name, "host_to_device", 14) == 0);
    /* selecting again adds nothing */
    CHECK_OK(mgpu_copy_case_select("host_to_device_memcpy_ce", sel, 64, &n));
    CHECK(n == 4);
    CHECK_OK(mgpu_copy_case_select("device_local_copy", sel, 64, &n));
    CHECK(n == 5 && strcmp(sel[4]->name, "device_local_copy") == 0);
    CHECK_OK(mgpu_copy_case_select("2", sel, 64, &n)); /* index 2 is already in */
    CHECK(n == 5);

    n = 0;
    CHECK(mgpu_copy_case_select("host_to_dvice", sel, 64, &n) == MGPU_ERR_INVALID);
    CHECK(strstr(mgpu_error_message(), "host_to_dvice") && strstr(mgpu_error_message(), "--list"));
    CHECK(mgpu_copy_case_select("99", sel, 64, &n) == MGPU_ERR_INVALID);
    CHECK(strstr(mgpu_error_message(), "out of range"));
    CHECK(mgpu_copy_case_select("", sel, 64, &n) == MGPU_ERR_INVALID);
    CHECK(n == 0);
    /* capacity is respected */
    CHECK(mgpu_copy_case_select("device_to_device", sel, 3, &n) == MGPU_ERR_INVALID);
    CHECK(n == 3);
}

static void options(void)
{
    mgpu_copy_options o;
    mgpu_copy_options_default(&o);
    CHECK(o.buffer_bytes == 512ull << 20 && o.loop_count == 16 && o.samples == 3 && !o.use_mean);
    CHECK_OK(mgpu_copy_options_check(&o));
    o.buffer_bytes = 0;
    CHECK(mgpu_copy_options_check(&o) == MGPU_ERR_INVALID);
    o.buffer_bytes = 1000; /* not a multiple of 16 */
    CHECK(mgpu_copy_options_check(&o) == MGPU_ERR_INVALID);
    o.buffer_bytes = (1ull << 40) + 16;
    CHECK(mgpu_copy_options_check(&o) == MGPU_ERR_INVALID);
    o.buffer_bytes = 4096;
    o.loop_count = 0;
    CHECK(mgpu_copy_options_check(&o) == MGPU_ERR_INVALID);
    o.loop_count = 1;
    o.samples = 0;
    CHECK(mgpu_copy_options_check(&o) == MGPU_ERR_INVALID);
    o.samples = 1;
    CHECK_OK(mgpu_copy_options_check(&o));
}

static void statistic(void)
{
    double a[] = {5, 1, 3};
    CHECK(mgpu_copy_statistic(a, 3, 0) == 3);
    double b[] = {4, 1, 3, 2};
    CHECK(mgpu_copy_statistic(b, 4, 0) == 2.5);
    double c[] = {1, 2, 9};
    CHECK(mgpu_copy_statistic(c, 3, 1) == 4);
    double d[] = {7};
    CHECK(mgpu_copy_statistic(d, 1, 0) == 7);
    CHECK(mgpu_copy_statistic(d, 0, 0) == 0);
}

int main(void)
{
    table();
    selection();
    options();
    statistic();
    return tap_done();
}
