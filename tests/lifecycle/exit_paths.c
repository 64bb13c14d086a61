/*
 * exit_paths.c — frees at the edges of a process's life: in an atexit
 * handler, in a thread's TLS (pthread key) destructor, in the main thread's
 * key destructor via pthread_exit is not used (exit runs none); after main
 * returns (a destructor function); and allocations in a thread that exits
 * with blocks still in its tcache.  Prints "ok" from the last destructor.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void *at_exit_block, *after_main_block;
static pthread_key_t key;

static void key_destructor(void *p)
{
    memset(p, 0x5a, 64);
    free(p);
    /* allocating again inside a TLS destructor must work too */
    void *q = malloc(100);
    free(q);
}

static void on_exit_handler(void)
{
    free(at_exit_block);
    void *q = malloc(4000);
    free(q);
}

__attribute__((destructor)) static void after_main(void)
{
    free(after_main_block);
    void *q = calloc(10, 10);
    free(q);
    write(1, "ok\n", 3);
}

static void *thread_main(void *arg)
{
    (void)arg;
    pthread_setspecific(key, malloc(64));
    for (int i = 0; i < 20; i++)
        free(malloc((size_t)i * 16));   /* leaves blocks in the tcache */
    return NULL;
}

int main(void)
{
    pthread_key_create(&key, key_destructor);
    at_exit_block = malloc(333);
    after_main_block = malloc(200000);   /* an mmap'd big block */
    atexit(on_exit_handler);
    for (int i = 0; i < 50; i++) {
        pthread_t t;
        pthread_create(&t, NULL, thread_main, NULL);
        pthread_join(t, NULL);
    }
    return 0;
}
