/* expect: signal=SIGABRT token=invalid-free check=none id=DEBUG_FOREIGN addr=printed options=mode=debug */
/* glibc: none */
/*
 * Debug mode: realloc() of a pointer into a global array: the report
 * names the program's writable data (a global or static variable).
 */
#include "case.h"

static _Alignas(16) char global_buf[64];

int main(void)
{
    void *volatile p = global_buf + 16;
    case_print_addr(p);
    p = realloc(p, 100);
    return p != NULL;
}
