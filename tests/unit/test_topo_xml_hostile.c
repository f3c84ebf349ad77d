/* test_topo_xml_hostile.c - malformed and hostile topology files give a
 * clear error with FILE:LINE:COL and the right code, never a crash, a hang
 * or a blown-up parser. */
#include "mgpu/topo.h"
#include "tap.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static mgpu_result parse(const char *text, size_t len)
{
    mgpu_topo *t = NULL;
    mgpu_result r = mgpu_topo_parse_xml(text, len, "t.xml", &t);
    if (r == MGPU_OK) CHECK(t != NULL);
    else CHECK(t == NULL);
    mgpu_topo_free(t);
    return r;
}

static mgpu_result parse_s(const char *text) { return parse(text, strlen(text)); }

static int says(const char *needle)
{
    int ok = strstr(mgpu_error_message(), needle) != NULL;
    if (!ok) fprintf(stderr, "# message: %s\n", mgpu_error_message());
    return ok;
}

#define MINI_GPU(attrs) \
    "<system version=\"1\">\n  <cpu numaid=\"0\">\n    <pci busid=\"0000:01:00.0\">\n      <gpu " attrs "/>\n" \
    "    </pci>\n  </cpu>\n</system>\n"

static void entities(void)
{
    const char *laughs =
        "<?xml version=\"1.0\"?>\n<!DOCTYPE lolz [\n <!ENTITY lol \"lol\">\n"
        " <!ENTITY lol2 \"&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;\">\n"
        " <!ENTITY lol3 \"&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;\">\n"
        " <!ENTITY lol9 \"&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;\">\n]>\n"
        "<system version=\"1\" name=\"&lol9;\"/>\n";
    CHECK(parse_s(laughs) == MGPU_ERR_PARSE);
    CHECK(says("t.xml:2:") && says("DOCTYPE"));
    const char *xxe = "<!DOCTYPE system [<!ENTITY xxe SYSTEM \"file:///etc/passwd\">]>\n"
                      "<system version=\"1\" name=\"&xxe;\"/>\n";
    CHECK(parse_s(xxe) == MGPU_ERR_PARSE);
    CHECK(says("DOCTYPE"));
    CHECK(parse_s("<!DOCTYPE system SYSTEM \"http://example.com/x.dtd\"><system version=\"1\"/>") == MGPU_ERR_PARSE);
    /* An undeclared entity reference is a plain well-formedness error. */
    CHECK(parse_s("<system version=\"1\" name=\"&xxe;\"/>") == MGPU_ERR_PARSE);
    CHECK(says("t.xml:1:"));
}

static void sizes(void)
{
    /* 1000-deep nesting */
    size_t cap = 1000 * 16 + 64;
    char *deep = malloc(cap);
    size_t n = (size_t)sprintf(deep, "<system version=\"1\">");
    for (int i = 0; i < 1000; i++) n += (size_t)sprintf(deep + n, "<pci>");
    for (int i = 0; i < 1000; i++) n += (size_t)sprintf(deep + n, "</pci>");
    n += (size_t)sprintf(deep + n, "</system>");
    CHECK(parse(deep, n) == MGPU_ERR_PARSE);
    CHECK(says("deeper than 64"));
    free(deep);

    /* a 10 MB attribute value */
    size_t big = 10u << 20;
    char *b = malloc(big + 64);
    n = (size_t)sprintf(b, "<system version=\"1\" name=\"");
    memset(b + n, 'A', big);
    n += big;
    n += (size_t)sprintf(b + n, "\"/>");
    CHECK(parse(b, n) == MGPU_ERR_PARSE);
    CHECK(says("name is 10485760 characters") && says("t.xml:1:"));
    free(b);

    /* more than 16 MiB in memory and on disk */
    size_t huge = (16u << 20) + 1;
    char *h = malloc(huge);
    memset(h, ' ', huge);
    CHECK(parse(h, huge) == MGPU_ERR_PARSE);
    CHECK(says("16 MiB"));
    char path[] = "/tmp/mgpu_topo_hugeXXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd >= 0) {
        CHECK(write(fd, h, huge) == (ssize_t)huge);
        close(fd);
        mgpu_topo *t = NULL;
        /* refused before it is read (mgpu_file_read's cap), naming the limit */
        CHECK(mgpu_topo_load_xml(path, &t) == MGPU_ERR_INVALID && t == NULL);
        CHECK(says("16 MiB"));
        unlink(path);
    }
    free(h);

    /* too many attributes, too long names */
    char many[2048];
    n = (size_t)sprintf(many, "<system version=\"1\"");
    for (int i = 0; i < MGPU_XML_MAX_ATTRS + 1; i++) n += (size_t)sprintf(many + n, " a%d=\"%d\"", i, i);
    sprintf(many + n, "/>");
    CHECK(parse_s(many) == MGPU_ERR_PARSE);
    CHECK(says("attributes"));
    CHECK(parse_s("<system version=\"1\"><averyveryverylongelementnamethatgoesonandon/></system>") == MGPU_ERR_PARSE);
    CHECK(parse_s("<system version=\"1\" averyveryverylongattributenamethatgoeson=\"1\"/>") == MGPU_ERR_PARSE);
}

static void garbage(void)
{
    CHECK(parse("", 0) == MGPU_ERR_PARSE);
    CHECK(says("t.xml:1:"));
    CHECK(parse_s("   \n\n") == MGPU_ERR_PARSE);
    unsigned char bin[4096];
    unsigned s = 12345;
    for (size_t i = 0; i < sizeof bin; i++) s = s * 1103515245u + 12345u, bin[i] = (unsigned char)(s >> 16);
    CHECK(parse((const char *)bin, sizeof bin) == MGPU_ERR_PARSE);
    CHECK(parse("<system version=\"1\">\0</system>", 30) == MGPU_ERR_PARSE);
    CHECK(parse_s("<system version=\"1\">") == MGPU_ERR_PARSE);
    CHECK(says("t.xml:1:"));
    CHECK(parse_s("<system version=\"1\"></cpu>") == MGPU_ERR_PARSE);
    CHECK(parse_s("<system version=\"1\" version=\"1\"/>") == MGPU_ERR_PARSE);
    CHECK(parse_s("<system version=\"1\">hello</system>") == MGPU_ERR_PARSE);
    CHECK(says("text inside <system>"));
    CHECK(parse_s("<system version=\"1\"/><system version=\"1\"/>") == MGPU_ERR_PARSE);
    CHECK(parse_s("<topology/>") == MGPU_ERR_PARSE);
    CHECK(says("<topology>"));
    CHECK(parse_s("<system/>") == MGPU_ERR_PARSE);
    CHECK(says("version"));
    CHECK(parse_s("<system version=\"2\"/>") == MGPU_ERR_PARSE);
    CHECK(parse_s("<mgpulab-cluster version=\"1\"/>") == MGPU_ERR_PARSE);
    CHECK(parse_s("<mgpulab-cluster version=\"1\"><cpu/></mgpulab-cluster>") == MGPU_ERR_PARSE);
    CHECK(says("<cpu> inside"));
    CHECK(parse_s("<mgpulab-cluster><system version=\"1\"/></mgpulab-cluster>") == MGPU_ERR_PARSE);
    /* fine: a comment, a declaration, an empty machine, unknown elements */
    CHECK(parse_s("<?xml version=\"1.0\"?>\n<!-- c -->\n<system version=\"1\"><frob x=\"y\"/></system>") == MGPU_OK);
    CHECK(parse_s("<mgpulab-cluster version=\"1\"><system version=\"1\"/><system version=\"1\"/></mgpulab-cluster>") ==
          MGPU_OK);
}

static void numbers(void)
{
    CHECK(parse_s(MINI_GPU("dev=\"0\" sm=\"90\"")) == MGPU_OK);
    CHECK(parse_s(MINI_GPU("dev=\"abc\"")) == MGPU_ERR_PARSE);
    CHECK(says("t.xml:4:7:") && says("dev=\"abc\""));
    CHECK(parse_s(MINI_GPU("sm=\"90\"")) == MGPU_ERR_PARSE);
    CHECK(says("t.xml:4:7:") && says("'dev'"));
    CHECK(parse_s(MINI_GPU("dev=\"0\" sm=\"9x\"")) == MGPU_ERR_PARSE);
    CHECK(says("sm=\"9x\""));
    CHECK(parse_s(MINI_GPU("dev=\"-1\"")) == MGPU_ERR_PARSE);
    CHECK(parse_s(MINI_GPU("dev=\"99999999999999999999\"")) == MGPU_ERR_PARSE);
    CHECK(parse_s(MINI_GPU("dev=\" 1\"")) == MGPU_ERR_PARSE);
    CHECK(parse_s(MINI_GPU("dev=\"0\" gdr=\"2\"")) == MGPU_ERR_PARSE);
    CHECK(parse_s("<system version=\"1\"><cpu numaid=\"zero\"><pci><gpu dev=\"0\"/></pci></cpu></system>") ==
          MGPU_ERR_PARSE);
    CHECK(says("numaid"));
    CHECK(parse_s("<system version=\"1\"><cpu affinity=\"ffffffff,zz\"><pci><gpu dev=\"0\"/></pci></cpu></system>") ==
          MGPU_ERR_PARSE);
    CHECK(says("affinity"));
    CHECK(parse_s("<system version=\"1\"><cpu><pci link_speed=\"fast\" link_width=\"16\"><gpu dev=\"0\"/></pci>"
                  "</cpu></system>") == MGPU_ERR_PARSE);
    CHECK(says("link_speed"));
    CHECK(parse_s("<system version=\"1\"><cpu><pci link_speed=\"8 GT/s\" link_width=\"x16\"><gpu dev=\"0\"/></pci>"
                  "</cpu></system>") == MGPU_ERR_PARSE);
    CHECK(says("link_width"));
    CHECK(parse_s("<system version=\"1\"><cpu><pci><gpu dev=\"0\"><nvlink target=\"x\" count=\"many\"/></gpu></pci>"
                  "</cpu></system>") == MGPU_ERR_PARSE);
    CHECK(says("count"));
    CHECK(parse_s("<system version=\"1\"><cpu><pci><nic><net name=\"m\" speed=\"100G\"/></nic></pci></cpu></system>") ==
          MGPU_ERR_PARSE);
    CHECK(says("speed"));
    CHECK(parse_s("<system version=\"1\"><cpu familyid=\"six\"/></system>") == MGPU_ERR_PARSE);
    CHECK(parse_s("<system version=\"1\"><cpu><pci class=\"video\"/></cpu></system>") == MGPU_ERR_PARSE);
    CHECK(parse_s("<system version=\"1\"><cpu><pci><gpu dev=\"0\"/></pci><pci><gpu dev=\"0\"/></pci></cpu></system>") ==
          MGPU_ERR_PARSE);
    CHECK(says("dev must be unique"));
    /* a GPU with no <pci> or <cpu> around it still loads */
    CHECK(parse_s("<system version=\"1\"><gpu dev=\"0\"/><gpu dev=\"1\"/></system>") == MGPU_OK);
}

static void files(void)
{
    mgpu_topo *t = NULL;
    CHECK(mgpu_topo_load_xml("/nonexistent/dir/topo.xml", &t) == MGPU_ERR_IO && t == NULL);
    CHECK(says("/nonexistent/dir/topo.xml") && says("No such file or directory"));
    CHECK(mgpu_topo_load_xml("/tmp", &t) == MGPU_ERR_INVALID); /* not a regular file: refused at once */
    CHECK(says("/tmp") && says("a directory"));
    CHECK(mgpu_topo_load_xml("", &t) == MGPU_ERR_INVALID);
    char path[] = "/tmp/mgpu_topo_emptyXXXXXX";
    int fd = mkstemp(path);
    if (fd >= 0) {
        close(fd);
        CHECK(mgpu_topo_load_xml(path, &t) == MGPU_ERR_PARSE);
        CHECK(says(path) && says(":1:"));
        unlink(path);
    }
}

int main(void)
{
    entities();
    sizes();
    garbage();
    numbers();
    files();
    return tap_done();
}
