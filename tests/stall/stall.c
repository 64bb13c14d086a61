/*
 * stall.c — a program for tests/suites/26-symbolize.sh's stall-* and
 * wait-* cases (built -g -O1 -pthread -ldl; the callback's setter found
 * with dlsym, as under LD_PRELOAD): its report goes to a log nobody reads, or races main's exit.
 * The argument picks it:
 *   df       a double free on the main thread (fatal in every mode)
 *   leak     a block leaked (detect_leaks=1 reports it at exit)
 *   quiet    nothing wrong (a stats_path line, a warning are all it writes)
 *   thread S [HOW]  a worker thread's double free while main, 300 ms
 *            later, ends with status S: HOW exit (exit(S), the default),
 *            return (from main) or _exit (_exit(S))
 *   cbhang S [HOW]  the same with a report callback that never returns
 *   sigexit S MS [HOW]  a SIGALRM handler that ends the process with
 *            status S (HOW exit, the default, or _exit) MS ms after a
 *            double free on main began its report: it lands in the
 *            middle of the report (a symbolizer that takes its time)
 */
#include <chunkguard.h>
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <sys/time.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

volatile int sink;
void *volatile keep;

__attribute__((noinline)) static void free_twice(char *p)
{
    free(p);
    free(p);
    sink = 1;
}

static void *worker(void *arg)
{
    (void)arg;
    free_twice(malloc(24));
    return NULL;
}

static void hang(const cg_report_t *r, void *arg)
{
    (void)r;
    (void)arg;
    for (;;)
        pause();
}

static int alarm_status;
static const char *alarm_how = "exit";

static void on_alarm(int sig)
{
    (void)sig;
    if (strcmp(alarm_how, "_exit") == 0)
        _exit(alarm_status);
    exit(alarm_status);
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "";
    int status = argc > 2 ? atoi(argv[2]) : 0;
    if (strcmp(what, "df") == 0) {
        free_twice(malloc(24));
        return 0;
    }
    if (strcmp(what, "leak") == 0) {
        keep = malloc(40);
        keep = NULL;
        return 0;
    }
    if (strcmp(what, "quiet") == 0) {
        free(malloc(10));
        return 0;
    }
    if (strcmp(what, "thread") == 0 || strcmp(what, "cbhang") == 0) {
        void (*set)(cg_report_callback_t, void *) =
            (void (*)(cg_report_callback_t, void *))dlsym(RTLD_DEFAULT, "cg_set_report_callback");
        if (what[0] == 'c' && set != NULL)
            set(hang, NULL);
        pthread_t t;
        pthread_create(&t, NULL, worker, NULL);
        usleep(300000);
        const char *how = argc > 3 ? argv[3] : "exit";
        if (strcmp(how, "_exit") == 0)
            _exit(status);
        if (strcmp(how, "return") == 0)
            return status;
        exit(status);
    }
    if (strcmp(what, "sigexit") == 0 && argc > 3) {
        alarm_status = status;
        if (argc > 4)
            alarm_how = argv[4];
        signal(SIGALRM, on_alarm);
        long ms = atol(argv[3]);
        struct itimerval it = { { 0, 0 }, { ms / 1000, (ms % 1000) * 1000 } };
        keep = malloc(40);
        free(keep);
        setitimer(ITIMER_REAL, &it, NULL);
        free(keep);
        for (;;)
            pause();
    }
    fprintf(stderr, "usage: stall df|leak|quiet|thread S [exit|return|_exit]|cbhang S [...]|"
                    "sigexit S MS [exit|_exit]\n");
    return 2;
}
