#include "kiln/jit/host_features.h"

#include <sstream>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include <cstdio>

namespace kiln::jit {
namespace {

#if defined(__x86_64__)
#if defined(__clang__)
// Clang's __builtin_cpu_supports does not know f16c, movbe or abm: those come from CPUID.
bool cpuid_ecx(unsigned leaf, unsigned bit) {
  unsigned a = 0, b = 0, c = 0, d = 0;
  return __get_cpuid(leaf, &a, &b, &c, &d) && (c >> bit & 1u);
}
#define KILN_HAS_F16C (cpuid_ecx(1, 29) && __builtin_cpu_supports("avx"))  // F16C needs the AVX state
#define KILN_HAS_MOVBE cpuid_ecx(1, 22)
#define KILN_HAS_LZCNT cpuid_ecx(0x80000001u, 5)
#else
#define KILN_HAS_F16C __builtin_cpu_supports("f16c")
#define KILN_HAS_MOVBE __builtin_cpu_supports("movbe")
#define KILN_HAS_LZCNT __builtin_cpu_supports("abm")
#endif
#endif

struct Feature {
  const char* llvm_name;
  bool present;
};

// __builtin_cpu_supports takes string literals only: one entry per feature.
const std::vector<Feature>& features() {
  static const std::vector<Feature> table = {
#if defined(__x86_64__)
    {"sse3", bool(__builtin_cpu_supports("sse3"))},
    {"ssse3", bool(__builtin_cpu_supports("ssse3"))},
    {"sse4.1", bool(__builtin_cpu_supports("sse4.1"))},
    {"sse4.2", bool(__builtin_cpu_supports("sse4.2"))},
    {"popcnt", bool(__builtin_cpu_supports("popcnt"))},
    {"avx", bool(__builtin_cpu_supports("avx"))},
    {"avx2", bool(__builtin_cpu_supports("avx2"))},
    {"fma", bool(__builtin_cpu_supports("fma"))},
    {"bmi", bool(__builtin_cpu_supports("bmi"))},
    {"bmi2", bool(__builtin_cpu_supports("bmi2"))},
    {"f16c", bool(KILN_HAS_F16C)},
    {"aes", bool(__builtin_cpu_supports("aes"))},
    {"pclmul", bool(__builtin_cpu_supports("pclmul"))},
    {"movbe", bool(KILN_HAS_MOVBE)},
    {"lzcnt", bool(KILN_HAS_LZCNT)},
    {"avx512f", bool(__builtin_cpu_supports("avx512f"))},
    {"avx512bw", bool(__builtin_cpu_supports("avx512bw"))},
    {"avx512dq", bool(__builtin_cpu_supports("avx512dq"))},
    {"avx512vl", bool(__builtin_cpu_supports("avx512vl"))},
    {"avx512cd", bool(__builtin_cpu_supports("avx512cd"))},
#endif
  };
  return table;
}

}  // namespace

std::vector<std::string> missing_cpu_features(std::string_view fingerprint) {
  std::vector<std::string> missing;
  std::string token;
  std::istringstream in{std::string(fingerprint)};
  while (std::getline(in, token, ',')) {
    // Tokens look like "+avx2" (possibly after other words of the fingerprint: take the last word).
    if (const auto space = token.rfind(' '); space != std::string::npos) token = token.substr(space + 1);
    if (token.size() < 2 || token[0] != '+') continue;
    const std::string name = token.substr(1);
    for (const Feature& f : features())
      if (name == f.llvm_name && !f.present) missing.push_back(name);
  }
  return missing;
}

std::string host_cpu_signature() {
  std::string out;
#if defined(__x86_64__)
  char line[96];
  auto leaf = [&](unsigned id, unsigned sub) {
    unsigned a = 0, b = 0, c = 0, d = 0;
    __cpuid_count(id, sub, a, b, c, d);
    if (id == 1) b &= 0x00ffffffu;  // bits 24-31: the APIC ID of the core this thread runs on
    std::snprintf(line, sizeof line, "%x.%x:%08x %08x %08x %08x\n", id, sub, a, b, c, d);
    out += line;
    return a;
  };
  const unsigned max_leaf = leaf(0, 0);
  for (unsigned id : {1u, 7u, 0xdu, 0x14u, 0x19u})
    if (id <= max_leaf) leaf(id, 0);
  if (max_leaf >= 7) leaf(7, 1);
  if (max_leaf >= 0xd) leaf(0xd, 1);
  const unsigned max_extended = leaf(0x80000000u, 0);
  for (unsigned id : {0x80000001u, 0x80000002u, 0x80000003u, 0x80000004u, 0x80000008u})
    if (id <= max_extended) leaf(id, 0);
  unsigned a = 0, b = 0, c = 0, d = 0;
  __cpuid(1, a, b, c, d);
  if (c & (1u << 27)) {  // OSXSAVE: which register state the OS saves decides AVX and AVX-512
    unsigned lo = 0, hi = 0;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    std::snprintf(line, sizeof line, "xcr0:%08x%08x\n", hi, lo);
    out += line;
  }
#else
  out = "unknown host";
#endif
  return out;
}

}  // namespace kiln::jit
