#include <cmath>

#include "kiln/jit/jit_abi.h"

namespace kiln::jit::abi {
namespace {

double h_pow(double x, double y) { return std::pow(x, y); }
double h_fmod(double x, double y) { return std::fmod(x, y); }
double h_sin(double x, double) { return std::sin(x); }
double h_cos(double x, double) { return std::cos(x); }
double h_tan(double x, double) { return std::tan(x); }
double h_asin(double x, double) { return std::asin(x); }
double h_acos(double x, double) { return std::acos(x); }
double h_atan(double x, double) { return std::atan(x); }
double h_exp(double x, double) { return std::exp(x); }
double h_log(double x, double) { return std::log(x); }
double h_log10(double x, double) { return std::log10(x); }
double h_atan2(double x, double y) { return std::atan2(x, y); }

constexpr Helper kTable[kHelperCount] = {h_pow,  h_fmod, h_sin, h_cos, h_tan,   h_asin,
                                         h_acos, h_atan, h_exp, h_log, h_log10, h_atan2};

}  // namespace

const Helper* helper_table() { return kTable; }

}  // namespace kiln::jit::abi
