/* progress.c - the progress file: atomic writes, damaged files kept aside,
 * and saves that merge with what other commands saved meanwhile (a `run` of
 * lab 2 that took minutes must not drop the pass of lab 1 that a second
 * `run` saved in between). */
#include "lab/progress.h"
#include "mgpu/file.h"
#include "mgpu/sha256.h"
#include <sys/file.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define TMP_PREFIX "progress.json.tmp-"
/* A learner's progress is kilobytes; a file far larger is not one of ours
 * (reading a 1 GB file took 29 s and 2 GB of memory). */
#define PROGRESS_MAX ((size_t)16 << 20)

static json_t *empty_doc(void) { return json_pack("{s:i, s:{}}", "version", 1, "labs"); }

/*--- The keyed digest -----------------------------------------------------------
 * Every save writes "digest": HMAC-SHA256 over the document (without the
 * digest, keys sorted, compact), keyed by this machine's id and the user's
 * uid. A file whose digest does not match - edited by hand, written by
 * another program, copied from another machine or account - keeps its
 * contents, but the steps it says were done are marked "untrusted": they
 * count again once they run again. This stops casual editing only: the key
 * is derived from what the learner's machine holds (docs/classroom.md says
 * what it does not prevent). */

static void digest_key(unsigned char key[32])
{
    char id[256] = "";
    static const char *const files[] = {"/etc/machine-id", "/var/lib/dbus/machine-id"};
    for (int i = 0; i < 2 && !id[0]; i++) {
        FILE *f = fopen(files[i], "r");
        if (!f) continue;
        if (!fgets(id, sizeof id, f)) id[0] = '\0';
        fclose(f);
    }
    if (!id[0]) gethostname(id, sizeof id - 1);
    char material[400];
    int n = snprintf(material, sizeof material, "mgpulab progress digest v1\n%s\n%ld\n", id, (long)getuid());
    mgpu_sha256(material, (size_t)n, key);
}

/* "hmac-sha256:HEX" of doc without its "digest"; 0 on OOM. */
static int doc_digest(json_t *doc, char out[96])
{
    json_t *copy = json_copy(doc); /* shallow: the members are shared, not changed */
    if (!copy) return 0;
    json_object_del(copy, "digest");
    char *text = json_dumps(copy, JSON_COMPACT | JSON_SORT_KEYS);
    json_decref(copy);
    if (!text) return 0;
    unsigned char key[32], mac[32];
    digest_key(key);
    mgpu_hmac_sha256(key, sizeof key, text, strlen(text), mac);
    free(text);
    char hex[65];
    mgpu_sha256_hex(mac, hex);
    snprintf(out, 96, "hmac-sha256:%s", hex);
    return 1;
}

static int digest_ok(json_t *doc)
{
    char want[96];
    const char *have = json_string_value(json_object_get(doc, "digest"));
    return have && doc_digest(doc, want) && strcmp(have, want) == 0;
}

/* Mark every step the document says something of as untrusted; returns how
 * many it marked. */
static int distrust(json_t *doc)
{
    int n = 0;
    const char *k, *s;
    json_t *lab, *st;
    json_object_foreach(json_object_get(doc, "labs"), k, lab) json_object_foreach(json_object_get(lab, "steps"), s, st) {
        const char *state = json_string_value(json_object_get(st, "state"));
        if (!json_is_object(st) || !state || strcmp(state, "new") == 0) continue;
        json_object_set_new(st, "untrusted", json_true());
        n++;
    }
    return n;
}

/* A document read from disk whose digest does not match: its claims are
 * untrusted from now on. Returns the steps marked (0: digest fine or
 * nothing claimed). */
static int check_digest(json_t *doc)
{
    return digest_ok(doc) ? 0 : distrust(doc);
}

const char *lab_progress_digest_state(const lab_progress *p)
{
    const char *k, *s;
    json_t *lab, *st;
    json_object_foreach(json_object_get(p->doc, "labs"), k, lab) json_object_foreach(json_object_get(lab, "steps"), s, st)
        if (json_is_true(json_object_get(st, "untrusted"))) return "edited";
    return "ok";
}

/* A doc we can use: an object whose "labs" is an object of objects. */
static int shape_ok(json_t *doc)
{
    json_t *labs = json_object_get(doc, "labs");
    if (!json_is_object(doc) || !json_is_object(labs)) return 0;
    const char *k;
    json_t *v;
    json_object_foreach(labs, k, v) {
        json_t *steps = json_object_get(v, "steps");
        if (!json_is_object(v) || (steps && !json_is_object(steps))) return 0;
    }
    return 1;
}

/* Writers that were SIGKILLed leave progress.json.tmp-PID behind; remove
 * those whose process is gone (a live one may be writing right now). */
static void remove_stale_temps(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (strncmp(e->d_name, TMP_PREFIX, strlen(TMP_PREFIX)) != 0) continue;
        long pid = strtol(e->d_name + strlen(TMP_PREFIX), NULL, 10);
        if (pid > 0 && (kill((pid_t)pid, 0) == 0 || errno != ESRCH)) continue;
        char path[PATH_MAX];
        if (snprintf(path, sizeof path, "%s/%s", dir, e->d_name) < (int)sizeof path) unlink(path);
    }
    closedir(d);
}

/* The file's document: *doc NULL (and jerr says why) when it is missing,
 * unparsable or too large, which the caller treats as damaged or new. A
 * FIFO, device or directory in its place is refused, not read (a FIFO would
 * block every command). */
static mgpu_result read_doc(const char *path, json_t **doc, json_error_t *jerr)
{
    *doc = NULL;
    struct stat st;
    if (stat(path, &st) != 0) return MGPU_OK; /* missing: new progress */
    if (!S_ISREG(st.st_mode))
        return mgpu_fail(MGPU_ERR_INVALID, "the progress file %s is not a regular file (a FIFO, device or "
                                           "directory?); move it away and run again", path);
    if ((size_t)st.st_size > PROGRESS_MAX) {
        snprintf(jerr->text, sizeof jerr->text, "%lld bytes, over the limit of %zu MiB", (long long)st.st_size,
                 PROGRESS_MAX >> 20);
        return MGPU_OK;
    }
    char *text = NULL;
    size_t len = 0;
    if (mgpu_file_read(path, PROGRESS_MAX, &text, &len) != MGPU_OK) {
        if (access(path, F_OK) != 0) { /* removed meanwhile */
            mgpu_error_clear();
            return MGPU_OK;
        }
        return mgpu_fail(mgpu_error_code(), "%s", mgpu_error_message());
    }
    *doc = json_loadb(text, len, 0, jerr);
    free(text);
    return MGPU_OK;
}

mgpu_result lab_progress_load(lab_progress *p, const char *state_dir)
{
    memset(p, 0, sizeof *p);
    if (snprintf(p->path, sizeof p->path, "%s/progress.json", state_dir) >= (int)sizeof p->path)
        return mgpu_fail(MGPU_ERR_INVALID, "state directory path too long: %s", state_dir);
    remove_stale_temps(state_dir);
    json_error_t jerr;
    memset(&jerr, 0, sizeof jerr);
    json_t *doc = NULL;
    MGPU_CHECK(read_doc(p->path, &doc, &jerr));
    if (doc && shape_ok(doc)) {
        p->doc = doc;
        p->base = json_deep_copy(doc);
        if (!p->base) return mgpu_fail(MGPU_ERR_NOMEM, "out of memory");
        /* marked in both: a save merges with the disk, whose unchanged
         * bad digest marks the same steps there, and a step this process
         * runs again loses its mark as its own change */
        int marked = check_digest(p->doc);
        if (marked) distrust(p->base);
        if (marked)
            snprintf(p->warning, sizeof p->warning,
                     "the progress file %.400s was changed outside mgpulab (its digest does not match); the %d "
                     "step%s it says you did count again once you run them again", p->path, marked,
                     marked == 1 ? "" : "s");
        return MGPU_OK;
    }
    json_decref(doc);
    if (access(p->path, F_OK) != 0 && errno == ENOENT) {
        p->doc = empty_doc();
        p->base = empty_doc();
        return p->doc && p->base ? MGPU_OK : mgpu_fail(MGPU_ERR_NOMEM, "out of memory");
    }
    /* Damaged: keep it for the learner (or us) to look at, start afresh. */
    char aside[PATH_MAX + 64], stamp[32];
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    if (strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm) == 0) snprintf(stamp, sizeof stamp, "%ld", (long)now);
    snprintf(aside, sizeof aside, "%s.damaged-%.20s", p->path, stamp);
    for (int i = 1; access(aside, F_OK) == 0 && i < 100; i++)
        snprintf(aside, sizeof aside, "%s.damaged-%.20s-%d", p->path, stamp, i);
    if (rename(p->path, aside) != 0)
        return mgpu_fail(MGPU_ERR_IO, "%s is damaged (%s) and could not be moved aside: %s", p->path,
                         doc ? "not the progress shape" : jerr.text, strerror(errno));
    char at[32] = ""; /* a file refused for its size was never parsed: no line */
    if (jerr.line > 0) snprintf(at, sizeof at, ", line %d", jerr.line);
    snprintf(p->warning, sizeof p->warning,
             "the progress file %.300s was damaged (%.200s%s); it was kept as %.400s and progress starts afresh",
             p->path, jerr.text[0] ? jerr.text : "not the progress shape", at, aside);
    p->doc = empty_doc();
    p->base = empty_doc();
    return p->doc && p->base ? MGPU_OK : mgpu_fail(MGPU_ERR_NOMEM, "out of memory");
}

static mgpu_result write_doc(const lab_progress *p);

static mgpu_result write_all(int fd, const char *buf, size_t n, const char *path)
{
    while (n > 0) {
        ssize_t w = write(fd, buf, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return mgpu_fail(MGPU_ERR_IO, "cannot write %s: %s", path, strerror(errno));
        buf += w;
        n -= (size_t)w;
    }
    return MGPU_OK;
}

/* ours[key] becomes theirs[key] (or goes, when theirs has none). */
static void take(json_t *ours, const char *key, json_t *theirs)
{
    json_t *t = json_object_get(theirs, key);
    if (t) json_object_set(ours, key, t);
    else json_object_del(ours, key);
}

/* A step's counts: each process adds to them (a run, a hint), so two
 * commands that count at once must both be counted. Merged as increments:
 * the disk's count plus what this process added since it read the file. */
static const char *const COUNTERS[] = {"attempts", "hints_taken"};

static int is_counter(const char *key)
{
    for (size_t i = 0; i < sizeof COUNTERS / sizeof *COUNTERS; i++)
        if (strcmp(key, COUNTERS[i]) == 0) return 1;
    return 0;
}

/* ours[key] = disk + (ours - base) when all that is there are integers (a
 * count not in base was 0 when read); otherwise ours stays, as for any
 * other member this process changed. */
static void merge_counter(json_t *ours, const char *key, json_t *base, json_t *disk)
{
    json_t *o = json_object_get(ours, key), *b = base ? json_object_get(base, key) : NULL,
           *d = json_object_get(disk, key);
    if (!json_is_integer(o) || !json_is_integer(d) || (b && !json_is_integer(b))) return;
    json_int_t sum = json_integer_value(d) + json_integer_value(o) - (b ? json_integer_value(b) : 0);
    json_object_set_new(ours, key, json_integer(sum > 0 ? sum : 0));
}

/* The keys of up to three objects (NULL or not an object: none) as an
 * object of nulls: a copy of the key lists, since the merge changes them. */
static json_t *all_keys(json_t *a, json_t *b, json_t *c)
{
    json_t *keys = json_object(), *objs[3] = {a, b, c};
    const char *k;
    json_t *v;
    for (int i = 0; i < 3; i++)
        if (json_is_object(objs[i])) json_object_foreach(objs[i], k, v) json_object_set_new(keys, k, json_null());
    return keys;
}

/* Did this process leave a member as it was when read? */
static int unchanged(json_t *ours, json_t *base) { return ours == base || (ours && base && json_equal(ours, base)); }

/* Three-way merge of one object's members into `ours`: a member this
 * process left as it was when read (equal to base) takes the disk's
 * version; one it changed (or removed) keeps its own, except a count,
 * which adds this process's increment to the disk's. */
static void merge_members(json_t *ours, json_t *base, json_t *disk)
{
    json_t *keys = all_keys(ours, base, disk), *v;
    const char *k;
    json_object_foreach(keys, k, v) {
        if (unchanged(json_object_get(ours, k), base ? json_object_get(base, k) : NULL)) take(ours, k, disk);
        else if (is_counter(k)) merge_counter(ours, k, base, disk);
    }
    json_decref(keys);
}

/* One lab that this process and another may both have changed: step by
 * step, then member by member. */
static void merge_lab(json_t *o, json_t *b, json_t *d)
{
    json_t *os = json_object_get(o, "steps"), *bs = json_object_get(b, "steps"), *ds = json_object_get(d, "steps");
    if (!json_is_object(os) || !json_is_object(ds)) {
        if (!os && ds) json_object_set(o, "steps", ds);
        return;
    }
    if (!json_is_object(bs)) bs = NULL;
    json_t *keys = all_keys(os, bs, ds), *v;
    const char *s;
    json_object_foreach(keys, s, v) {
        json_t *o1 = json_object_get(os, s), *b1 = json_object_get(bs, s), *d1 = json_object_get(ds, s);
        if (unchanged(o1, b1)) take(os, s, ds);
        else if (json_is_object(o1) && json_is_object(d1))
            merge_members(o1, json_is_object(b1) ? b1 : NULL, d1);
    }
    json_decref(keys);
}

/* Merge what other commands saved since we read the file into p->doc:
 * labs, then each lab's steps, then each step's members. */
static void merge_disk(lab_progress *p, json_t *disk)
{
    json_t *ol = json_object_get(p->doc, "labs"), *bl = json_object_get(p->base, "labs"),
           *dl = json_object_get(disk, "labs");
    if (!json_is_object(ol) || !json_is_object(dl)) return;
    json_t *keys = all_keys(ol, bl, dl), *v;
    const char *k;
    json_object_foreach(keys, k, v) {
        json_t *o = json_object_get(ol, k), *b = json_object_get(bl, k), *d = json_object_get(dl, k);
        if (unchanged(o, b)) take(ol, k, dl); /* a lab we did not touch: theirs */
        else if (o && json_is_object(d)) merge_lab(o, b, d); /* else we reset it, or only we have it */
    }
    json_decref(keys);
    /* the members beside "labs" (the learner's name for exports): ours
     * when this process changed them, else the disk's */
    keys = all_keys(p->doc, disk, NULL);
    json_object_foreach(keys, k, v) {
        if (strcmp(k, "labs") == 0 || strcmp(k, "digest") == 0) continue;
        if (unchanged(json_object_get(p->doc, k), json_object_get(p->base, k))) take(p->doc, k, disk);
    }
    json_decref(keys);
}

mgpu_result lab_progress_save(lab_progress *p)
{
    /* one saver at a time: read what is on disk, merge, write, under a lock
     * beside the file (the file itself is replaced by rename) */
    char lock[PATH_MAX + 8];
    snprintf(lock, sizeof lock, "%s.lock", p->path);
    int lfd = open(lock, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (lfd < 0) return mgpu_fail(MGPU_ERR_IO, "cannot lock the progress file (%s): %s", lock, strerror(errno));
    while (flock(lfd, LOCK_EX) != 0)
        if (errno != EINTR) {
            int e = errno;
            close(lfd);
            return mgpu_fail(MGPU_ERR_IO, "cannot lock the progress file (%s): %s", lock, strerror(e));
        }
    json_t *disk = NULL;
    json_error_t jerr;
    if (read_doc(p->path, &disk, &jerr) != MGPU_OK) {
        close(lfd);
        return mgpu_fail(mgpu_error_code(), "%s", mgpu_error_message());
    }
    if (disk && shape_ok(disk)) {
        check_digest(disk); /* an edit made meanwhile is not laundered by our fresh digest */
        merge_disk(p, disk);
    }
    json_decref(disk);
    mgpu_result r = write_doc(p);
    if (r == MGPU_OK) {
        json_t *b = json_deep_copy(p->doc);
        if (b) {
            json_decref(p->base);
            p->base = b;
        }
    }
    close(lfd); /* and the lock with it */
    return r;
}

mgpu_result lab_progress_refresh(lab_progress *p)
{
    json_t *disk = NULL;
    json_error_t jerr;
    MGPU_CHECK(read_doc(p->path, &disk, &jerr));
    if (!disk || !shape_ok(disk)) {
        json_decref(disk);
        return MGPU_OK; /* nothing better there: a save would start afresh too */
    }
    check_digest(disk);
    merge_disk(p, disk);
    /* the base is what was read, apart from the document (which now holds
     * some of disk's members): a later change to a member taken from disk
     * must differ from the base */
    json_t *b = json_deep_copy(disk);
    json_decref(disk);
    if (!b) return mgpu_fail(MGPU_ERR_NOMEM, "out of memory reading the progress");
    json_decref(p->base);
    p->base = b;
    return MGPU_OK;
}

static mgpu_result write_doc(const lab_progress *p)
{
    char digest[96];
    if (!doc_digest(p->doc, digest)) return mgpu_fail(MGPU_ERR_NOMEM, "cannot serialise the progress");
    json_object_set_new(p->doc, "digest", json_string(digest));
    char *text = json_dumps(p->doc, JSON_INDENT(1) | JSON_SORT_KEYS);
    if (!text) return mgpu_fail(MGPU_ERR_NOMEM, "cannot serialise the progress");
    char dir[PATH_MAX], tmp[PATH_MAX + 32];
    snprintf(dir, sizeof dir, "%s", p->path);
    char *slash = strrchr(dir, '/');
    if (slash) *slash = '\0';
    else snprintf(dir, sizeof dir, ".");
    snprintf(tmp, sizeof tmp, "%s/" TMP_PREFIX "%ld", dir, (long)getpid());
    mgpu_result r = MGPU_OK;
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) {
        free(text);
        return mgpu_fail(MGPU_ERR_IO, "cannot write the progress file %s: %s", tmp, strerror(errno));
    }
    r = write_all(fd, text, strlen(text), tmp);
    if (r == MGPU_OK) r = write_all(fd, "\n", 1, tmp);
    free(text);
    /* fsync before rename: after a crash the name points at complete data */
    if (r == MGPU_OK && fsync(fd) != 0) r = mgpu_fail(MGPU_ERR_IO, "cannot sync %s: %s", tmp, strerror(errno));
    if (close(fd) != 0 && r == MGPU_OK) r = mgpu_fail(MGPU_ERR_IO, "cannot close %s: %s", tmp, strerror(errno));
    if (r == MGPU_OK && rename(tmp, p->path) != 0)
        r = mgpu_fail(MGPU_ERR_IO, "cannot replace %s: %s", p->path, strerror(errno));
    if (r != MGPU_OK) {
        unlink(tmp);
        return r;
    }
    /* and the directory, so the rename itself survives a power loss */
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        fsync(dfd);
        close(dfd);
    }
    return MGPU_OK;
}

void lab_progress_free(lab_progress *p)
{
    json_decref(p->doc);
    json_decref(p->base);
    p->doc = p->base = NULL;
}

static json_t *get_or_add(json_t *parent, const char *key, int create)
{
    json_t *o = json_object_get(parent, key);
    if (json_is_object(o) || !create) return json_is_object(o) ? o : NULL;
    o = json_object();
    json_object_set_new(parent, key, o);
    return o;
}

json_t *lab_progress_step(lab_progress *p, const char *lab, const char *step, int create)
{
    json_t *labs = get_or_add(p->doc, "labs", create);
    json_t *l = labs ? get_or_add(labs, lab, create) : NULL;
    json_t *steps = l ? get_or_add(l, "steps", create) : NULL;
    return steps ? get_or_add(steps, step, create) : NULL;
}

json_t *lab_progress_step_obj(lab_progress *p, const char *lab, const char *step, const char *member)
{
    json_t *s = lab_progress_step(p, lab, step, 1);
    return s ? get_or_add(s, member, 1) : NULL;
}

void lab_progress_forget_lab(lab_progress *p, const char *lab)
{
    json_object_del(json_object_get(p->doc, "labs"), lab);
}
