/* test_core_size.c - size, count and seconds parsing accept what nccl-tests
 * users type and refuse everything else with a message. */
#include "mgpu/size.h"
#include "tap.h"
#include <string.h>

static void accepts(const char *text, uint64_t want)
{
    uint64_t v = 0;
    mgpu_result r = mgpu_parse_size(text, "-b", &v);
    CHECKF(r == MGPU_OK && v == want, "'%s' -> r=%d v=%llu want %llu (%s)", text, r,
           (unsigned long long)v, (unsigned long long)want, mgpu_error_message());
}

static void refuses(const char *text)
{
    uint64_t v = 12345;
    mgpu_result r = mgpu_parse_size(text, "-b", &v);
    CHECKF(r == MGPU_ERR_INVALID, "'%s' was accepted as %llu", text, (unsigned long long)v);
    CHECKF(strstr(mgpu_error_message(), "-b") != NULL, "message does not name the option: %s", mgpu_error_message());
    CHECK(v == 12345);
}

int main(void)
{
    accepts("8", 8);
    accepts("0", 0);
    accepts("1K", 1024);
    accepts("256M", 256ull << 20);
    accepts("1G", 1ull << 30);
    accepts("2g", 2ull << 30);
    accepts("4KiB", 4096);
    accepts("64MB", 64ull << 20);
    accepts("1T", 1ull << 40);
    refuses("");
    refuses("-5");
    refuses("+5");
    refuses("1e99");
    refuses("12Q");
    refuses("1.5M");
    refuses("M");
    refuses(" 8");
    refuses("8 ");
    refuses("99999999999999999999999");
    refuses("5000000000G");
    refuses("0x10");

    long long n;
    CHECK_OK(mgpu_parse_count("20", "-n", 1, 100, &n));
    CHECK(n == 20);
    CHECK(mgpu_parse_count("0", "-n", 1, 100, &n) == MGPU_ERR_INVALID);
    CHECK(mgpu_parse_count("101", "-n", 1, 100, &n) == MGPU_ERR_INVALID);
    CHECK(mgpu_parse_count("1e3", "-n", 1, 10000, &n) == MGPU_ERR_INVALID);
    CHECK(mgpu_parse_count("99999999999999999999", "-n", 1, 100, &n) == MGPU_ERR_INVALID);
    CHECK(mgpu_parse_count("-3", "-n", -5, 5, &n) == MGPU_OK && n == -3);

    double s;
    CHECK_OK(mgpu_parse_seconds("0.5", "--timeout", 100, &s));
    CHECK(s == 0.5);
    CHECK(mgpu_parse_seconds("-1", "--timeout", 100, &s) == MGPU_ERR_INVALID);
    CHECK(mgpu_parse_seconds("1e99", "--timeout", 100, &s) == MGPU_ERR_INVALID);
    CHECK(mgpu_parse_seconds("nan", "--timeout", 100, &s) == MGPU_ERR_INVALID);
    CHECK(mgpu_parse_seconds("0", "--timeout", 100, &s) == MGPU_ERR_INVALID);

    char buf[32];
    CHECK(strcmp(mgpu_format_size(256ull << 20, buf, sizeof buf), "256M") == 0);
    CHECK(strcmp(mgpu_format_size(1000, buf, sizeof buf), "1000") == 0);
    CHECK(strcmp(mgpu_format_size(3072, buf, sizeof buf), "3K") == 0);
    return tap_done();
}
