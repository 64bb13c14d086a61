/*
 * stk_fixture.c — a small shared object for the symbolizer and dlopen
 * tests: one static and one global function.  tests/tests.mk builds it as
 * libstk_fixture.so and, stripped of .symtab, libstk_fixture_stripped.so.
 */
int stk_fixture_global(int x);
void *stk_fixture_static_addr(void);

__attribute__((noinline)) static int stk_fixture_static(int x)
{
    __asm__ volatile("" : "+r"(x));
    return x * 3 + 1;
}

int stk_fixture_global(int x)
{
    return stk_fixture_static(x) + 2;
}

void *stk_fixture_static_addr(void)
{
    return (void *)stk_fixture_static;
}
