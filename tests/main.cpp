#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <csignal>

int main(int argc, char** argv) {
  // Tests write to child processes' stdin: a child that has exited must be an error, not a signal.
  std::signal(SIGPIPE, SIG_IGN);
  return doctest::Context(argc, argv).run();
}
