/* Issue 13, point 14: a new thread whose very first call into chunkguard
 * is a bad free.  The report's stack capture is that thread's first
 * unwind, and the unwinder's first touch of its own thread-local
 * variables makes the dynamic loader allocate that thread's block of them
 * (__tls_get_addr -> malloc) while chunkguard is inside the free: that
 * malloc is made on chunkguard's behalf and must be served, not reported
 * as a reentrant call.  The one report must be the bad free's.
 *   thread_first_free interior | double | stack */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *kind;
static char *block;

__attribute__((noinline)) static void bad_free(void)
{
    char local[16];
    if (strcmp(kind, "interior") == 0)
        free(block + 8);
    else if (strcmp(kind, "double") == 0)
        free(block);                   /* main freed it already */
    else
        free(local);
    __asm__ volatile("" ::: "memory");
}

static void *thread_main(void *arg)
{
    (void)arg;
    bad_free();
    return NULL;
}

int main(int argc, char **argv)
{
    kind = argc > 1 ? argv[1] : "interior";
    block = malloc(32);
    if (strcmp(kind, "double") == 0)
        free(block);
    pthread_t t;
    if (pthread_create(&t, NULL, thread_main, NULL) != 0)
        return 2;
    pthread_join(t, NULL);
    puts("survived");
    return 0;
}
