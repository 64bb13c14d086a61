// sym.cc — a C++ frame for tests/suites/26-symbolize.sh (-g -O1): a double
// free in a member function of a class in a namespace, whose frame the
// report must name demangled, "ns::Holder::drop(int)", at its line.
#include <cstdlib>

namespace ns {
struct Holder {
    char *p;
    __attribute__((noinline)) void drop(int twice);
};

void Holder::drop(int twice)
{
    std::free(p);
    if (twice)
        std::free(p);                           // LINE-drop
    p = nullptr;
}
}  // namespace ns

int main(int argc, char **)
{
    ns::Holder h{ static_cast<char *>(std::malloc(24)) };
    h.drop(argc);
    return 0;
}
