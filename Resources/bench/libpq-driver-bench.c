/*
 * The libpq side of `todo-bench postgres-driver`: the same work postgres-nio does there, through Debian's libpq,
 * so the driver choice rests on a measurement. Not part of the product.
 *
 *   cc -O2 -o /tmp/libpq-driver-bench Resources/bench/libpq-driver-bench.c -I/usr/include/postgresql -lpq
 *   /tmp/libpq-driver-bench 'postgres://USER@HOST:PORT/DB' [batches] [lookups]
 *
 * Work: a table keyed like the cloud's records; `batches` inserts of 200 rows, each one statement (arrays unnested)
 * in its own transaction; then `lookups` single-row reads by key, one after another on one connection.
 */
#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static void check(PGconn *db, PGresult *result, const char *what) {
    ExecStatusType status = PQresultStatus(result);
    if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
        fprintf(stderr, "%s: %s", what, PQerrorMessage(db));
        exit(1);
    }
    PQclear(result);
}

/* A 160-byte fields object, as the cloud stores them. */
static const char *fields =
    "{\"title\":{\"value\":\"Buy oat milk and the good coffee\",\"type\":\"STRING\"},"
    "\"isCompleted\":{\"value\":0,\"type\":\"INT64\"},\"priority\":{\"value\":1,\"type\":\"INT64\"}}";

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s URL [batches] [lookups]\n", argv[0]);
        return 2;
    }
    int batches = argc > 2 ? atoi(argv[2]) : 100, lookups = argc > 3 ? atoi(argv[3]) : 20000;
    const int batch = 200;
    PGconn *db = PQconnectdb(argv[1]);
    if (PQstatus(db) != CONNECTION_OK) {
        fprintf(stderr, "connect: %s", PQerrorMessage(db));
        return 1;
    }
    check(db, PQexec(db, "DROP TABLE IF EXISTS bench_libpq"), "drop");
    check(db, PQexec(db, "CREATE TABLE bench_libpq(zone_pk int8 NOT NULL, record_name text NOT NULL, seq int8 NOT NULL, "
                         "fields bytea NOT NULL, PRIMARY KEY(zone_pk, record_name))"), "create");
    check(db, PQprepare(db, "insert",
                        "INSERT INTO bench_libpq SELECT * FROM unnest($1::int8[], $2::text[], $3::int8[], $4::bytea[])", 4, NULL),
          "prepare insert");
    check(db, PQprepare(db, "lookup", "SELECT seq, fields FROM bench_libpq WHERE zone_pk = $1 AND record_name = $2", 2, NULL),
          "prepare lookup");

    /* Arrays in text form: what libpq users bind. bytea elements as \x hex, escaped for the array literal. */
    size_t hexLength = strlen(fields) * 2 + 4;
    size_t capacity = (size_t)batch * (hexLength + 16) + 64;
    char *zones = malloc(capacity), *names = malloc(capacity), *seqs = malloc(capacity), *blobs = malloc(capacity);
    long seq = 0;
    double started = now();
    for (int b = 0; b < batches; b++) {
        char *z = zones, *n = names, *s = seqs, *f = blobs;
        *z++ = '{'; *n++ = '{'; *s++ = '{'; *f++ = '{';
        for (int i = 0; i < batch; i++) {
            if (i) { *z++ = ','; *n++ = ','; *s++ = ','; *f++ = ','; }
            seq++;
            z += sprintf(z, "1");
            n += sprintf(n, "r%08ld", seq);
            s += sprintf(s, "%ld", seq);
            f += sprintf(f, "\"\\\\x");
            for (const char *c = fields; *c; c++) f += sprintf(f, "%02x", (unsigned char)*c);
            *f++ = '"';
        }
        *z++ = '}'; *n++ = '}'; *s++ = '}'; *f++ = '}';
        *z = *n = *s = *f = 0;
        const char *values[4] = {zones, names, seqs, blobs};
        check(db, PQexecPrepared(db, "insert", 4, values, NULL, NULL, 0), "insert");
    }
    double insertSeconds = now() - started;

    char zone[] = "1", name[32];
    started = now();
    for (int i = 0; i < lookups; i++) {
        snprintf(name, sizeof name, "r%08ld", (long)(i * 7919L % seq) + 1);
        const char *values[2] = {zone, name};
        PGresult *result = PQexecPrepared(db, "lookup", 2, values, NULL, NULL, 1);
        if (PQresultStatus(result) != PGRES_TUPLES_OK || PQntuples(result) != 1) {
            fprintf(stderr, "lookup %s: %s", name, PQerrorMessage(db));
            return 1;
        }
        PQclear(result);
    }
    double lookupSeconds = now() - started;
    check(db, PQexec(db, "DROP TABLE bench_libpq"), "drop");
    printf("libpq        batch insert: %8.0f records/s (%d x %d rows)   lookup: %6.1f us each (%d)\n",
           batches * batch / insertSeconds, batches, batch, lookupSeconds / lookups * 1e6, lookups);
    PQfinish(db);
    return 0;
}
