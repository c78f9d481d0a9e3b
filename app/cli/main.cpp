#include <cstdio>
int main() { std::puts("opscope-cli: placeholder"); return 0; }
