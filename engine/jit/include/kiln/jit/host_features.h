#pragma once
// Whether this CPU can run code compiled for another: the features a page compiler's fingerprint
// lists ("+avx2,+fma,...", LLVM's names) checked against this CPU without LLVM, so that the player
// never runs shipped pages that would fault on an illegal instruction.
//
// Thread-safety: pure function.

#include <string>
#include <string_view>
#include <vector>

namespace kiln::jit {

// The features `fingerprint` enables that this CPU lacks, among those that change x86-64 code
// generation (SSE3 to AVX-512, FMA, BMI, POPCNT, LZCNT, MOVBE, F16C, AES, PCLMUL). Empty: safe to run.
std::vector<std::string> missing_cpu_features(std::string_view fingerprint);

// This CPU as LLVM's host detection sees it: the raw CPUID leaves it reads (vendor, family and
// model, feature flags) and the OS-enabled register state (XGETBV), as text. Equal signatures mean
// LLVM picks the same host CPU and features.
std::string host_cpu_signature();

}  // namespace kiln::jit
