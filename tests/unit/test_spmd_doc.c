/* test_spmd_doc.c - the spmd job's documents (mgpu/spmd_doc.h): params come
 * back as they went (and a malformed one is refused), and what a
 * coordinator keeps of the ranks' messages makes the document both
 * `mgpulab spmd --json` and lab.spmd write. */
#include "mgpu/spmd_doc.h"
#include "tap.h"
#include <string.h>

static void test_params(void)
{
    json_t *args = json_pack("[s, s]", "a", "b c");
    mgpu_spmd_params p = {.script = "print(1)", .len = 8, .chunkname = "@x.lua", .args = args, .time_limit_s = 30,
                          .time_limit_cpu = 1, .mem_limit = 64u << 20, .spans = 1, .race_off = 1};
    json_t *j = mgpu_spmd_params_json(&p);
    json_decref(args);
    CHECK(j != NULL);
    mgpu_spmd_params q;
    CHECK_OK(mgpu_spmd_params_read(j, &q));
    CHECK(q.len == 8 && !memcmp(q.script, "print(1)", 8) && !strcmp(q.chunkname, "@x.lua") &&
          json_array_size(q.args) == 2 && !strcmp(json_string_value(json_array_get(q.args, 1)), "b c") &&
          q.time_limit_s == 30 && q.time_limit_cpu && q.mem_limit == 64u << 20 && q.spans && q.race_off);
    json_decref(j);

    /* the defaults: nothing but the script */
    mgpu_spmd_params d = {.script = "x = 1", .len = 5};
    j = mgpu_spmd_params_json(&d);
    CHECK_OK(mgpu_spmd_params_read(j, &q));
    CHECK(!strcmp(q.chunkname, "=script") && !q.args && q.time_limit_s == 0 && !q.time_limit_cpu && !q.mem_limit &&
          !q.spans && !q.race_off && json_object_size(j) == 3);
    json_array_append_new(json_object_get(j, "args"), json_integer(7));
    CHECK(mgpu_spmd_params_read(j, &q) != MGPU_OK && strstr(mgpu_error_message(), "argument 1 is not a string"));
    json_object_del(j, "script");
    CHECK(mgpu_spmd_params_read(j, &q) != MGPU_OK && strstr(mgpu_error_message(), "\"script\""));
    json_decref(j);

    /* a script that is not UTF-8 is refused where the params are made */
    mgpu_spmd_params bad = {.script = "\xff\xfe", .len = 2};
    CHECK(mgpu_spmd_params_json(&bad) == NULL && strstr(mgpu_error_message(), "UTF-8"));
}

static void send(mgpu_spmd_result *r, int rank, const char *type, json_t *body, int kept)
{
    mgpu_rt_msg m = {.rank = rank, .type = type, .body = body};
    CHECKF(mgpu_spmd_result_add(r, &m) == kept, "%s from rank %d: kept %d", type, rank, !kept);
    json_decref(body);
}

static void test_result(void)
{
    mgpu_spmd_result r;
    mgpu_spmd_result_init(&r);
    send(&r, 1, "result", json_pack("{s:i}", "x", 5), 1);
    send(&r, 0, "race", json_pack("{s:s}", "text", "a race"), 1);
    send(&r, 0, "race_summary", json_pack("{s:i}", "races", 3), 1);
    send(&r, 1, "race_summary", json_pack("{s:i}", "races", 2), 1);
    send(&r, 1, "spmd_error", json_pack("{s:s, s:s}", "message", "boom", "traceback", "tb"), 1);
    send(&r, 0, "log", json_pack("{s:s}", "text", "hello"), 0);
    CHECK(r.racing == 5 && json_array_size(r.races) == 1 &&
          json_integer_value(json_object_get(json_array_get(r.races, 0), "rank")) == 0);
    CHECK(mgpu_spmd_result_error(&r, 0) == NULL &&
          !strcmp(json_string_value(json_object_get(mgpu_spmd_result_error(&r, 1), "message")), "boom"));
    mgpu_rt_report rep = {.ok = 0, .failed_rank = 1, .wall_s = 1.5};
    strcpy(rep.reason, "rank 1 failed");
    json_t *logs = json_array();
    json_t *doc = mgpu_spmd_result_doc(&r, "s.lua", logs, 2, &rep);
    json_decref(logs);
    static const char *const keys[] = {"tool", "script", "logs", "results", "errors", "races", "race_summary",
                                       "ok", "failed_rank", "reason", "analysis", "wall_s"};
    size_t i = 0;
    const char *k;
    json_t *v;
    int order_ok = json_object_size(doc) == sizeof keys / sizeof keys[0];
    json_object_foreach(doc, k, v) order_ok = order_ok && i < sizeof keys / sizeof keys[0] && !strcmp(k, keys[i++]);
    CHECK(order_ok);
    json_t *e = json_array_get(json_object_get(doc, "errors"), 0);
    CHECK(json_array_size(json_object_get(doc, "errors")) == 1 && json_integer_value(json_object_get(e, "rank")) == 1);
    CHECK(json_integer_value(json_object_get(doc, "failed_rank")) == 1 &&
          json_integer_value(json_object_get(json_object_get(json_array_get(json_object_get(doc, "results"), 0),
                                                             "row"), "x")) == 5);
    json_decref(doc);
    mgpu_spmd_result_free(&r);
}

int main(void)
{
    test_params();
    test_result();
    return tap_done();
}
