/*
 * fork_stdio.c — fork against glibc's stdio locks (issue 13, point 1).
 * glibc's fork takes the stdio list lock after the pthread_atfork prepare
 * handlers; fflush(NULL) takes each FILE's lock inside that list lock, and
 * getline reallocs inside its FILE's lock.  An allocator whose prepare
 * handler holds its own locks while fork waits for the list lock closes a
 * cycle: forker -> list lock (fflush) -> FILE lock (getline) -> allocator
 * lock (forker).
 *
 *   held        deterministic: a thread holds a FILE lock (flockfile) and
 *               waits; a second thread's fflush(NULL) holds the list lock
 *               and waits for that FILE; a third thread forks (its fork
 *               must wait for the list lock).  Meanwhile main's worker
 *               mallocs and frees blocks that need the allocator's locks.
 *               They must all be served while the fork waits: a worker
 *               still blocked after 3 s is a failure (exit 1, "blocked").
 *               Then the FILE is released and the fork completes.
 *   race SECS   the race itself: main forks in a loop (each child _exits)
 *               while one thread loops on fflush(NULL) and another reads a
 *               file with getline, lines of up to 8000 bytes (realloc
 *               beyond the tcache, under the FILE lock), for SECS seconds.
 *               A hang is the bug (the suite's timeout kills it).
 * Prints "ok held" / "ok race forks=N lines=M" and exits 0 when it passed.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void die(const char *what)
{
    fprintf(stderr, "fork_stdio: %s\n", what);
    _exit(2);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void fork_once(void)
{
    pid_t pid = fork();
    if (pid < 0)
        die("fork failed");
    if (pid == 0)
        _exit(0);
    int status;
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        die("a child failed");
}

/* ---- held ----------------------------------------------------------------- */

static FILE *locked_file;
static int release_pipe[2];
static atomic_int file_locked, worker_done;

static void *hold_file(void *arg)
{
    (void)arg;
    flockfile(locked_file);
    atomic_store(&file_locked, 1);
    char c;
    if (read(release_pipe[0], &c, 1) != 1)     /* until main says so */
        die("release pipe");
    funlockfile(locked_file);
    return NULL;
}

static void *flush_all(void *arg)
{
    (void)arg;
    fflush(NULL);                              /* list lock, then each FILE's */
    return NULL;
}

static void *forker(void *arg)
{
    (void)arg;
    fork_once();
    return NULL;
}

/* Blocks every allocator lock guards: beyond the tcache, a big block,
 * and a new thread's first call (arena selection). */
static atomic_int worker_go;

static void *worker(void *arg)
{
    (void)arg;
    while (!atomic_load(&worker_go))
        usleep(1000);
    for (int i = 0; i < 200; i++) {
        void *a = malloc(3000 + (size_t)i * 16), *b = malloc(200000);
        void *c = realloc(NULL, 5000);
        if (a == NULL || b == NULL || c == NULL)
            die("malloc failed");
        memset(a, 1, 3000);
        free(a);
        free(b);
        free(c);
    }
    atomic_store(&worker_done, 1);
    return NULL;
}

static int held(void)
{
    locked_file = fopen("/dev/null", "w");
    if (locked_file == NULL || pipe(release_pipe) != 0)
        die("set-up");
    fputs("unflushed", locked_file);           /* something for fflush to do */
    pthread_t h, f, k, w;
    /* every thread exists before the fork starts: creating one mallocs */
    pthread_create(&w, NULL, worker, NULL);
    pthread_create(&h, NULL, hold_file, NULL);
    while (!atomic_load(&file_locked))
        usleep(1000);
    pthread_create(&f, NULL, flush_all, NULL);
    usleep(200000);                            /* fflush now waits inside the list lock */
    pthread_create(&k, NULL, forker, NULL);
    usleep(200000);                            /* the fork now waits for the list lock */
    atomic_store(&worker_go, 1);
    double end = now_s() + 3;
    while (!atomic_load(&worker_done) && now_s() < end)
        usleep(1000);
    if (!atomic_load(&worker_done)) {
        static const char msg[] = "fork_stdio: blocked: malloc waited 3 s for the thread "
                                  "whose fork waits for the stdio list lock\n";
        if (write(2, msg, sizeof msg - 1) < 0)
            _exit(1);
        _exit(1);
    }
    if (write(release_pipe[1], "x", 1) != 1)
        die("release");
    pthread_join(w, NULL);
    pthread_join(h, NULL);
    pthread_join(f, NULL);
    pthread_join(k, NULL);
    printf("ok held\n");
    return 0;
}

/* ---- race ----------------------------------------------------------------- */

static atomic_int stop;
static atomic_long lines;
static char path[64];

static void *flusher(void *arg)
{
    FILE *out = fopen("/dev/null", "w");
    (void)arg;
    if (out == NULL)
        die("open /dev/null");
    while (!atomic_load(&stop)) {
        fputs("x", out);
        fflush(NULL);
    }
    fclose(out);
    return NULL;
}

static void *reader(void *arg)
{
    (void)arg;
    FILE *in = fopen(path, "r");
    if (in == NULL)
        die("open the line file");
    while (!atomic_load(&stop)) {
        char *line = NULL;                     /* a new buffer each line: */
        size_t cap = 0;                        /* malloc, then reallocs   */
        if (getline(&line, &cap, in) < 0) {
            rewind(in);
        } else {
            atomic_fetch_add(&lines, 1);
        }
        free(line);
    }
    fclose(in);
    return NULL;
}

static int race(int secs)
{
    snprintf(path, sizeof path, "/tmp/fork_stdio.%d", (int)getpid());
    FILE *f = fopen(path, "w");
    if (f == NULL)
        die("create the line file");
    for (int i = 0; i < 200; i++) {
        int len = 100 + (i * 997) % 8000;
        for (int j = 0; j < len; j++)
            fputc('a' + j % 26, f);
        fputc('\n', f);
    }
    fclose(f);
    pthread_t fl, rd;
    pthread_create(&fl, NULL, flusher, NULL);
    pthread_create(&rd, NULL, reader, NULL);
    double end = now_s() + secs;
    long forks = 0;
    while (now_s() < end) {
        fork_once();
        forks++;
    }
    atomic_store(&stop, 1);
    pthread_join(fl, NULL);
    pthread_join(rd, NULL);
    unlink(path);
    printf("ok race forks=%ld lines=%ld\n", forks, (long)atomic_load(&lines));
    return 0;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    if (argc >= 2 && strcmp(argv[1], "held") == 0)
        return held();
    if (argc >= 3 && strcmp(argv[1], "race") == 0)
        return race(atoi(argv[2]));
    die("usage: fork_stdio held | race SECS");
    return 2;
}
