// A validator that misbehaves on purpose, for tests/core/test_vetting.cpp:
//   vet_test_child ok | crash | hang | spin | alloc MiB | status N | asan | fds
// alloc asks for MiB of memory and exits 3 (opscope-vet's "out of memory") when refused, 0
// when granted: it tells whether the parent's address-space limit is in force.
#include <fcntl.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <unistd.h>

int main(int argc, char** argv) {
    const std::string mode = argc > 1 ? argv[1] : "ok";
    if (mode == "crash") {
        std::signal(SIGSEGV, SIG_DFL);  // die by the signal, also where a sanitizer's handler would catch it
        std::raise(SIGSEGV);
    }
    if (mode == "hang") ::pause();
    if (mode == "spin")
        for (volatile unsigned long i = 0;; i = i + 1) {}
    if (mode == "alloc" && argc > 2) {
        try {
            const std::size_t bytes = std::strtoull(argv[2], nullptr, 10) << 20;
            static char* volatile block;  // volatile: the allocation may not be elided
            block = new char[bytes];      // never touched: address space, not memory
            delete[] block;
            return 0;
        } catch (const std::bad_alloc&) {
            return 3;
        }
    }
    if (mode == "status" && argc > 2) return std::atoi(argv[2]);
    if (mode == "fds") {  // 0 when only stdin, stdout and stderr are open
        for (int fd = 3; fd < 1024; ++fd)
            if (::fcntl(fd, F_GETFD) != -1) return 1;
        return 0;
    }
    if (mode == "asan") {
        std::fprintf(stderr,
                     "=================================================================\n"
                     "==42==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x6020 at pc 0x55\n");
        return 1;
    }
    return 0;
}
