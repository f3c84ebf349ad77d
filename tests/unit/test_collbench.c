/* test_collbench.c - `mgpulab bench` without ranks: the per-collective
 * descriptors (counts as nccl-tests' *GetCollByteCount, bus-bandwidth
 * factors), the exact data and expected results against a brute-force
 * reduction, flag parsing and its errors, and nccl-tests' row layout
 * against the regular expressions nccl-tests users parse it with. */
#include "mgpu/coll_doc.h"
#include "mgpu/collmodel.h"
#include "tap.h"
#include <math.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

static void test_descriptors(void)
{
    const mgpu_collbench_coll *const *c = mgpu_collbench_colls();
    int n = 0;
    for (; c[n]; n++) {}
    CHECK(n == 7);
    for (int nr = 1; nr <= 8; nr++) {
        size_t z = (size_t)nr;
        mgpu_cb_counts k;
        mgpu_cb_all_reduce.counts(1000, nr, &k);
        CHECK(k.send == 1000 && k.recv == 1000 && k.param == 1000 && k.send_inplace_off == 0);
        mgpu_cb_all_gather.counts(1000, nr, &k);
        CHECKF(k.send == 1000 / z && k.recv == (1000 / z) * z && k.param == 1000 / z &&
                   k.send_inplace_off == 1000 / z && k.recv_inplace_off == 0, "all_gather n=%d", nr);
        mgpu_cb_reduce_scatter.counts(1000, nr, &k);
        CHECKF(k.send == (1000 / z) * z && k.recv == 1000 / z && k.param == 1000 / z &&
                   k.recv_inplace_off == 1000 / z && k.send_inplace_off == 0, "reduce_scatter n=%d", nr);
        mgpu_cb_alltoall.counts(1000, nr, &k);
        CHECKF(k.send == (1000 / z) * z && k.recv == k.send && k.param == 1000 / z, "alltoall n=%d", nr);
        for (int i = 0; i < 3; i++) {
            const mgpu_collbench_coll *d = i == 0 ? &mgpu_cb_broadcast : i == 1 ? &mgpu_cb_reduce : &mgpu_cb_sendrecv;
            d->counts(1000, nr, &k);
            CHECK(k.send == 1000 && k.recv == 1000 && k.param == 1000);
        }
        /* the factors (the model's, which the bench uses) are nccl-tests' */
#define FACTOR(cb) mgpu_coll_busbw_factor((cb).coll, nr)
        CHECK(fabs(FACTOR(mgpu_cb_all_reduce) - 2.0 * (nr - 1) / nr) < 1e-12);
        CHECK(fabs(FACTOR(mgpu_cb_all_gather) - (double)(nr - 1) / nr) < 1e-12);
        CHECK(fabs(FACTOR(mgpu_cb_reduce_scatter) - (double)(nr - 1) / nr) < 1e-12);
        CHECK(fabs(FACTOR(mgpu_cb_alltoall) - (double)(nr - 1) / nr) < 1e-12);
        CHECK(FACTOR(mgpu_cb_broadcast) == 1 && FACTOR(mgpu_cb_reduce) == 1 && FACTOR(mgpu_cb_sendrecv) == 1);
#undef FACTOR
    }
    /* 8 bytes of floats over 8 ranks: all_gather rounds down to 0 elements */
    mgpu_cb_counts k;
    mgpu_cb_all_gather.counts(2, 8, &k);
    CHECK(k.send == 0 && k.recv == 0);
    CHECK(mgpu_collbench_find("all_reduce") == &mgpu_cb_all_reduce);
    CHECK(mgpu_collbench_find("all_reduce_perf") == &mgpu_cb_all_reduce);
    CHECK(mgpu_collbench_find("allreduce") == &mgpu_cb_all_reduce);
    CHECK(mgpu_collbench_find("alltoall_perf") == &mgpu_cb_alltoall);
    CHECK(mgpu_collbench_find("sendrecv") == &mgpu_cb_sendrecv);
    CHECK(mgpu_collbench_find("gather") == NULL && mgpu_collbench_find("") == NULL);
}

/* What a collective must produce, computed the slow way from every rank's
 * input, equals the descriptor's O(1) expected value; the values are small
 * integers that the dtype stores exactly. */
static double brute(const mgpu_cb_data *d, uint64_t i)
{
    double acc = mgpu_cb_input(d, 0, i);
    for (int r = 1; r < d->nranks; r++) {
        double v = mgpu_cb_input(d, r, i);
        switch (d->op) {
        case MGPU_SUM: case MGPU_AVG: acc += v; break;
        case MGPU_PROD: acc *= v; break;
        case MGPU_MAX: acc = v > acc ? v : acc; break;
        case MGPU_MIN: acc = v < acc ? v : acc; break;
        }
    }
    if (d->op == MGPU_AVG) acc = d->dtype == MGPU_I32 ? trunc(acc / d->nranks) : acc / d->nranks;
    return acc;
}

static int representable(mgpu_dtype t, double v)
{
    unsigned char mem[4];
    mgpu_fill_store(mem, t, 0, (float)v);
    return t == MGPU_I32 ? *(int32_t *)mem == (int32_t)v : mgpu_elem_f32(mem, t, 0) == (float)v;
}

static void test_data(void)
{
    int bad = 0, distinct = 0;
    for (int t = 0; t < MGPU_DTYPE_COUNT; t++)
        for (int op = 0; op < MGPU_REDOP_COUNT; op++)
            for (int nr = 1; nr <= 8; nr++) {
                mgpu_cb_data d;
                mgpu_cb_data_init(&d, (mgpu_dtype)t, op, nr, 0, 42);
                for (uint64_t i = 0; i < 2000; i++) {
                    double e = mgpu_cb_reduced(&d, i), b = brute(&d, i);
                    if (e != b || (op != MGPU_AVG && !representable((mgpu_dtype)t, e))) bad++;
                    for (int r = 0; r < nr; r++)
                        if (!representable((mgpu_dtype)t, mgpu_cb_input(&d, r, i))) bad++;
                }
                /* inputs differ between ranks, so a mixed-up rank is seen */
                if (nr > 1 && op != MGPU_PROD && mgpu_cb_input(&d, 0, 5) != mgpu_cb_input(&d, 1, 5)) distinct++;
            }
    CHECKF(bad == 0, "%d inexact or wrong expected values", bad);
    CHECK(distinct > 0);
    /* expected outputs of the data-movement collectives */
    mgpu_cb_data d;
    mgpu_cb_data_init(&d, MGPU_F32, -1, 4, 2, 7);
    mgpu_cb_counts k;
    double out[40];
    mgpu_cb_all_gather.counts(40, 4, &k);
    CHECK(mgpu_cb_all_gather.expected(&d, 1, &k, 0, 40, out) == 1);
    CHECK(out[0] == mgpu_cb_input(&d, 0, 0) && out[13] == mgpu_cb_input(&d, 1, 3) && out[39] == mgpu_cb_input(&d, 3, 9));
    mgpu_cb_alltoall.counts(40, 4, &k);
    CHECK(mgpu_cb_alltoall.expected(&d, 1, &k, 0, 40, out) == 1);
    CHECK(out[0] == mgpu_cb_input(&d, 0, 10) && out[25] == mgpu_cb_input(&d, 2, 15));
    mgpu_cb_broadcast.counts(40, 4, &k);
    CHECK(mgpu_cb_broadcast.expected(&d, 3, &k, 5, 3, out) == 1 && out[0] == mgpu_cb_input(&d, 2, 5));
    mgpu_cb_sendrecv.counts(40, 4, &k);
    CHECK(mgpu_cb_sendrecv.expected(&d, 0, &k, 0, 2, out) == 1 && out[1] == mgpu_cb_input(&d, 3, 1));
    mgpu_cb_data_init(&d, MGPU_I32, MGPU_SUM, 4, 2, 7);
    mgpu_cb_reduce.counts(40, 4, &k);
    CHECK(mgpu_cb_reduce.expected(&d, 1, &k, 0, 4, out) == 0); /* off the root: undefined */
    CHECK(mgpu_cb_reduce.expected(&d, 2, &k, 0, 4, out) == 1 && out[3] == brute(&d, 3));
    mgpu_cb_reduce_scatter.counts(40, 4, &k);
    CHECK(mgpu_cb_reduce_scatter.expected(&d, 3, &k, 0, 10, out) == 1 && out[4] == brute(&d, 34));
}

/* "COLL -X V -XV ..." through the engine's pieces as both coordinators use
 * them: the collective by name, each flag's value set, then the one check
 * (the CLI's own words - long names, --json, a flag given twice - are its
 * option table's, tests/cli/bench.sh and option_spec.sh). */
static mgpu_result parse(const char *line, mgpu_collbench_options *o, const mgpu_collbench_coll **c)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s", line);
    mgpu_collbench_options_default(o);
    *c = NULL;
    for (char *tok = strtok(buf, " "); tok; tok = strtok(NULL, " ")) {
        if (tok[0] != '-') {
            MGPU_CHECK(mgpu_collbench_lookup(tok, c));
            continue;
        }
        char *v = tok[2] ? tok + 2 : strtok(NULL, " ");
        if (!v) return mgpu_fail(MGPU_ERR_INVALID, "%s needs a value", tok);
        MGPU_CHECK(mgpu_collbench_set(o, tok[1], v, NULL));
    }
    if (!*c) return mgpu_fail(MGPU_ERR_INVALID, "which collective?");
    return mgpu_collbench_options_check(o, *c);
}

static void test_parse(void)
{
    mgpu_collbench_options o;
    const mgpu_collbench_coll *c;
    CHECK_OK(parse("all_reduce", &o, &c));
    CHECK(c == &mgpu_cb_all_reduce && o.min_bytes == 8 && o.max_bytes == 32ull << 20 && o.iters == 20 &&
          o.warmup == 5 && o.check == 1 && o.average == 1 && o.ndtypes == 1 && o.dtypes[0] == MGPU_F32 &&
          o.ops[0] == MGPU_SUM && !o.set_iters);
    CHECK_OK(parse("all_gather -b 1K -e 256M -f 2 -n 3 -w0 -c 0 -o max -d half -r 1 -z 1 -a 3 -G 0", &o, &c));
    CHECK(c == &mgpu_cb_all_gather && o.min_bytes == 1024 && o.max_bytes == 256ull << 20 && o.step_factor == 2 &&
          o.iters == 3 && o.warmup == 0 && o.check == 0 && o.ops[0] == MGPU_MAX && o.dtypes[0] == MGPU_F16 &&
          o.root == 1 && o.blocking == 1 && o.average == 3 && o.set_iters && o.set_warmup);
    CHECK_OK(parse("reduce -b 1M -e 1G -o all -d all", &o, &c));
    CHECK(o.min_bytes == 1u << 20 && o.max_bytes == 1u << 30 && o.nops == MGPU_REDOP_COUNT &&
          o.ndtypes == MGPU_DTYPE_COUNT);
    CHECK_OK(parse("-d bfloat16 broadcast_perf -d int32", &o, &c));
    CHECK(c == &mgpu_cb_broadcast && o.dtypes[0] == MGPU_I32);
    static const struct { const char *line, *msg; } bad[] = {
        {"all_reduce -b -5", "-b"},         {"all_reduce -e 1e99", "-e"},
        {"all_reduce -b 12Q", "12Q"},       {"all_reduce -b 1M -e 1K", "larger than -e"},
        {"all_reduce -o mean", "mean"},     {"all_reduce -d double", "not supported"},
        {"all_reduce -d float8", "float8"}, {"all_reduce -G 1", "not supported"},
        {"all_reduce -n 0", "-n"},          {"all_reduce -c 2", "-c"},
        {"all_reduce -a 4", "-a"},          {"all_reduce -g 2", "--ranks"},
        {"all_reduce -q 1", "-q has no handler"},
        {"gather", "not a collective; use all_reduce, all_gather"},
        {"all_reduce -b 0 -e 1M -f 2", "-f"}, {"all_reduce -b 8 -e 1G -i 1", "sizes"},
        {"all_reduce -e 100G", "64G"},      {"all_reduce -r -1", "-r"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        mgpu_result r = parse(bad[i].line, &o, &c);
        CHECKF(r != MGPU_OK && strstr(mgpu_error_message(), bad[i].msg), "'%s' -> %d '%s'", bad[i].line, r,
               mgpu_error_message());
    }
    /* a message names the flag as its caller says (lab.bench: its opts key) */
    mgpu_collbench_options_default(&o);
    CHECK(mgpu_collbench_set(&o, 'o', "mean", "opts.o") != MGPU_OK &&
          strstr(mgpu_error_message(), "opts.o: 'mean' is not a reduction; use sum"));
    CHECK(mgpu_collbench_set(&o, 'c', "2", "opts.c") != MGPU_OK && strstr(mgpu_error_message(), "opts.c (check 0 or 1)"));
    /* sweep steps as nccl-tests does */
    CHECK_OK(parse("all_reduce -b 8 -e 256M -f 2", &o, &c));
    int rows = 0;
    for (uint64_t s = o.min_bytes; s <= o.max_bytes; s = mgpu_collbench_next_size(&o, s)) rows++;
    CHECK(rows == 26);
    CHECK_OK(parse("all_reduce -b 1M -e 4M", &o, &c));
    rows = 0;
    for (uint64_t s = o.min_bytes; s <= o.max_bytes; s = mgpu_collbench_next_size(&o, s)) rows++;
    CHECK(rows == 4);
}

/* nccl-tests users' expressions, in POSIX form (\s -> [[:space:]], \d -> [0-9]). */
#define SP "[[:space:]]+"
static const char row_re[] = "^[[:space:]]+([0-9]+)" SP "([0-9]+)" SP "([[:alnum:]_]+)" SP "([[:alnum:]_]+|none)" SP
                             "(-?[0-9]+)" SP "([0-9.]+)" SP "([0-9.]+)" SP "([0-9.]+)" SP "([0-9]+|N/A)" SP "([0-9.]+)" SP
                             "([0-9.]+)" SP "([0-9.]+)" SP "([0-9]+|N/A)$";
static const char avg_re[] = "# Avg bus bandwidth[[:space:]]*:[[:space:]]*([0-9.]+)";

static void test_format(void)
{
    regex_t row, avg;
    CHECK(regcomp(&row, row_re, REG_EXTENDED) == 0);
    CHECK(regcomp(&avg, avg_re, REG_EXTENDED) == 0);
    static const double times[] = {0, 0.004, 5.5, 99.999, 123.45, 9999.9, 12345.6, 1e7, 3e9};
    for (size_t i = 0; i < sizeof times / sizeof times[0]; i++) {
        mgpu_collbench_row r = {.bytes = 268435456, .count = 67108864, .dtype = MGPU_BF16, .op = -1, .root = -1};
        r.oop.time_us = times[i];
        mgpu_collbench_bw(r.bytes, times[i], 1.75, &r.oop.algbw, &r.oop.busbw);
        r.oop.wrong = 0;
        r.ip = r.oop;
        r.ip.wrong = i & 1 ? -1 : 123;
        char line[512];
        mgpu_collbench_format_row(&r, line, sizeof line);
        regmatch_t m[14];
        CHECKF(regexec(&row, line, 14, m, 0) == 0, "row '%s' does not parse", line);
        CHECKF(strstr(line, "bfloat16") && strstr(line, "  none  ") && !strstr(line, "e+") && !strstr(line, "e-") && !strstr(line, "inf"),
               "'%s'", line);
        if (i == 4) { /* 256 MiB in 123.45 us */
            CHECK(strstr(line, " 123.45 ") != NULL);
            CHECKF(strstr(line, " 2174.4 ") && strstr(line, " 3805.3 "), "'%s'", line);
        }
    }
    mgpu_collbench_row r = {.bytes = 8, .count = 2, .dtype = MGPU_F32, .op = MGPU_SUM, .root = -1};
    char line[512];
    mgpu_collbench_format_row(&r, line, sizeof line);
    CHECKF(regexec(&row, line, 0, NULL, 0) == 0 && strstr(line, "  float     sum      -1"), "'%s'", line);
    /* the header lines are comments and never look like rows */
    char hdr[1024];
    mgpu_collbench_format_header(hdr, sizeof hdr);
    CHECK(hdr[0] == '#' && strstr(hdr, "out-of-place") && strstr(hdr, "in-place") && strstr(hdr, "#wrong") &&
          strstr(hdr, "(elements)"));
    for (char *p = strtok(hdr, "\n"); p; p = strtok(NULL, "\n")) CHECK(p[0] == '#' && regexec(&row, p, 0, NULL, 0) != 0);
    static const double avgs[] = {0, 0.00001, 12.3456, 365.25, 4.2e7};
    for (size_t i = 0; i < sizeof avgs / sizeof avgs[0]; i++) {
        char foot[256];
        mgpu_collbench_format_footer(i == 1, avgs[i], foot, sizeof foot);
        regmatch_t m[2];
        CHECKF(regexec(&avg, foot, 2, m, 0) == 0, "footer '%s'", foot);
        CHECKF(fabs(atof(foot + m[1].rm_so) - avgs[i]) <= 1e-5 * (1 + avgs[i]), "footer '%s'", foot);
        CHECK(strstr(foot, "# Out of bounds values : ") == foot);
        CHECK(strstr(foot, i == 1 ? " 1 FAILED" : " 0 OK") != NULL);
    }
    regfree(&row);
    regfree(&avg);
}

/* The job's documents (mgpu/coll_doc.h): params and rows come back as they
 * went, a malformed one is refused, and the result document counts what the
 * CLI and lab.bench report. */
static void test_doc(void)
{
    mgpu_collbench_options o, back;
    const mgpu_collbench_coll *c, *cb;
    CHECK_OK(parse("reduce -b 1K -e 64M -f 4 -n 3 -w 1 -c 0 -o all -d half -r 2 -z 1 -a 2", &o, &c));
    json_t *p = mgpu_collbench_params_json(c, &o);
    CHECK_OK(mgpu_collbench_params_read(p, &back, &cb));
    CHECK(cb == c && back.min_bytes == o.min_bytes && back.max_bytes == o.max_bytes &&
          back.step_factor == o.step_factor && back.iters == 3 && back.warmup == 1 && back.check == 0 &&
          back.root == 2 && back.blocking == 1 && back.average == 2 && back.nops == MGPU_REDOP_COUNT &&
          back.ndtypes == 1 && back.dtypes[0] == MGPU_F16 && back.set_iters && back.set_warmup);
    json_object_set_new(p, "max_bytes", json_integer(8)); /* -b 1K > -e 8: the same check as the coordinator's */
    CHECK(mgpu_collbench_params_read(p, &back, &cb) != MGPU_OK && strstr(mgpu_error_message(), "larger than -e"));
    json_object_del(p, "iters");
    CHECK(mgpu_collbench_params_read(p, &back, &cb) != MGPU_OK && strstr(mgpu_error_message(), "malformed"));
    json_decref(p);

    mgpu_collbench_row r = {.bytes = 4096, .count = 1024, .dtype = MGPU_BF16, .op = -1, .root = -1},
                       got;
    r.oop = (mgpu_collbench_half){.time_us = 12.5, .algbw = 0.33, .busbw = 0.58, .wrong = 0};
    r.ip = (mgpu_collbench_half){.time_us = 13.25, .algbw = 0.31, .busbw = 0.54, .wrong = -1};
    json_t *j = mgpu_collbench_row_json(&r);
    CHECK_OK(mgpu_collbench_row_read(j, &got));
    CHECK(got.bytes == 4096 && got.count == 1024 && got.dtype == MGPU_BF16 && got.op == -1 && got.root == -1 &&
          got.oop.time_us == 12.5 && got.oop.busbw == 0.58 && got.oop.wrong == 0 && got.ip.wrong == -1);
    CHECK(!strcmp(json_string_value(json_object_get(j, "redop")), "none") &&
          json_is_null(json_object_get(json_object_get(j, "in_place"), "nwrong")));

    mgpu_collbench_result res;
    mgpu_collbench_result_init(&res, c, &o, NULL);
    CHECK(!json_object_get(res.doc, "version"));
    CHECK_OK(mgpu_collbench_result_add(&res, j, NULL));
    r.oop.wrong = 3;
    json_t *bad = mgpu_collbench_row_json(&r);
    CHECK_OK(mgpu_collbench_result_add(&res, bad, &got));
    CHECK(got.oop.wrong == 3 && res.wrong_checks == 1);
    json_object_del(bad, "type");
    CHECK(mgpu_collbench_result_add(&res, bad, NULL) != MGPU_OK && res.wrong_checks == 2); /* never a clean run */
    CHECK(fabs(mgpu_collbench_result_avg(&res) - (0.58 + 0.54) / 2) < 1e-12);
    mgpu_rt_report rep = {.ok = 1, .failed_rank = -1};
    json_t *doc = mgpu_collbench_result_finish(&res, &rep);
    CHECK(json_array_size(json_object_get(doc, "rows")) == 2 &&
          json_integer_value(json_object_get(doc, "wrong_checks")) == 2 &&
          json_is_true(json_object_get(json_object_get(doc, "report"), "ok")) &&
          !strcmp(json_string_value(json_object_get(doc, "collective")), "reduce"));
    mgpu_collbench_result_free(&res); /* finish emptied it: a no-op */
    json_decref(doc);
    json_decref(bad);
    json_decref(j);
}

int main(void)
{
    test_descriptors();
    test_data();
    test_parse();
    test_doc();
    test_format();
    return tap_done();
}
