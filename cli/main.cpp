// The `kprof` executable.
#include "cli/cli.hpp"

int main(int argc, char** argv) { return kprof::cli::main(argc, argv); }
