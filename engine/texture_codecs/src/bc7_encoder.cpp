#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>

#include "bc7_tables.h"
#include "kiln/texture_codecs/bc7.h"

namespace kiln::texture_codecs {
namespace {

// How a mode stores a subset's endpoints: which channels, at how many bits, with which p-bits.
enum class PBits { kNone, kUnique, kShared };
struct EndpointFormat {
  int first_channel = 0, channels = 4;  // the channels fitted together: [first, first + channels)
  int bits = 7;                         // per stored endpoint value, the p-bit not counted
  PBits pbits = PBits::kUnique;
  int index_bits = 4;
};

// One subset fitted: stored endpoint values (without p-bits), p-bits, each member's index.
struct Fit {
  int q[2][4] = {};
  int p[2] = {};
  std::uint8_t index[16] = {};
  long error = std::numeric_limits<long>::max();
};

struct Texels {
  int v[16][4];
};

int expand_endpoint(int q, int p, const EndpointFormat& f) {
  return f.pbits == PBits::kNone ? bc7::expand(q, f.bits) : bc7::expand(q << 1 | p, f.bits + 1);
}

// The stored value whose widened endpoint is nearest `value`.
int quantise(float value, int p, const EndpointFormat& f) {
  const int top = (1 << f.bits) - 1;
  const bool with_p = f.pbits != PBits::kNone;
  const float scaled = value / 255.0f * float(with_p ? (2 << f.bits) - 1 : top);
  const int guess = std::clamp(int(std::lround(with_p ? (scaled - float(p)) / 2.0f : scaled)), 0, top);
  int best = guess;
  float best_error = std::numeric_limits<float>::max();
  for (int q = std::max(0, guess - 1); q <= std::min(top, guess + 1); ++q) {
    const float error = std::fabs(float(expand_endpoint(q, p, f)) - value);
    if (error < best_error) best = q, best_error = error;
  }
  return best;
}

// Indices and error of `members` against endpoints widened to 8 bits.
long assign(const Texels& t, const int* members, int count, const int e0[4], const int e1[4], const EndpointFormat& f,
            std::uint8_t* index) {
  const int levels = 1 << f.index_bits;
  const std::uint8_t* w = bc7::weights(f.index_bits);
  int palette[16][4];
  for (int k = 0; k < levels; ++k)
    for (int c = 0; c < f.channels; ++c)
      palette[k][c] = bc7::interpolate(e0[f.first_channel + c], e1[f.first_channel + c], w[k]);
  long total = 0;
  for (int m = 0; m < count; ++m) {
    const int* px = t.v[members[m]] + f.first_channel;
    int best = 0, best_error = std::numeric_limits<int>::max();
    for (int k = 0; k < levels; ++k) {
      int error = 0;
      for (int c = 0; c < f.channels; ++c) {
        const int d = palette[k][c] - px[c];
        error += d * d;
      }
      if (error < best_error) best = k, best_error = error;
    }
    index[m] = std::uint8_t(best);
    total += best_error;
  }
  return total;
}

// Quantises float endpoints under every p-bit choice the format allows and keeps the best fit.
void try_endpoints(const Texels& t, const int* members, int count, const float lo[4], const float hi[4],
                   const EndpointFormat& f, Fit& best) {
  const int choices = f.pbits == PBits::kUnique ? 4 : f.pbits == PBits::kShared ? 2 : 1;
  for (int choice = 0; choice < choices; ++choice) {
    Fit fit;
    fit.p[0] = f.pbits == PBits::kUnique ? choice & 1 : choice;
    fit.p[1] = f.pbits == PBits::kUnique ? choice >> 1 : choice;
    int e0[4] = {}, e1[4] = {};
    for (int c = 0; c < f.channels; ++c) {
      const int ch = f.first_channel + c;
      fit.q[0][ch] = quantise(lo[c], fit.p[0], f);
      fit.q[1][ch] = quantise(hi[c], fit.p[1], f);
      e0[ch] = expand_endpoint(fit.q[0][ch], fit.p[0], f);
      e1[ch] = expand_endpoint(fit.q[1][ch], fit.p[1], f);
    }
    fit.error = assign(t, members, count, e0, e1, f, fit.index);
    if (fit.error < best.error) best = fit;
  }
}

// Endpoints on the principal axis of the members, then refined by least squares on the indices.
Fit fit_subset(const Texels& t, const int* members, int count, const EndpointFormat& f) {
  const int n = f.channels;
  float mean[4] = {};
  for (int m = 0; m < count; ++m)
    for (int c = 0; c < n; ++c) mean[c] += float(t.v[members[m]][f.first_channel + c]);
  for (int c = 0; c < n; ++c) mean[c] /= float(count);
  float cov[4][4] = {};
  float lo_c[4], hi_c[4];
  std::fill(lo_c, lo_c + 4, 255.0f);
  std::fill(hi_c, hi_c + 4, 0.0f);
  for (int m = 0; m < count; ++m) {
    float d[4];
    for (int c = 0; c < n; ++c) {
      const float v = float(t.v[members[m]][f.first_channel + c]);
      d[c] = v - mean[c];
      lo_c[c] = std::min(lo_c[c], v);
      hi_c[c] = std::max(hi_c[c], v);
    }
    for (int a = 0; a < n; ++a)
      for (int b = 0; b < n; ++b) cov[a][b] += d[a] * d[b];
  }
  float axis[4] = {};
  for (int c = 0; c < n; ++c) axis[c] = hi_c[c] - lo_c[c];
  for (int iteration = 0; iteration < 6; ++iteration) {
    float next[4] = {};
    for (int a = 0; a < n; ++a)
      for (int b = 0; b < n; ++b) next[a] += cov[a][b] * axis[b];
    float length = 0;
    for (int c = 0; c < n; ++c) length = std::max(length, std::fabs(next[c]));
    if (length < 1e-6f) break;
    for (int c = 0; c < n; ++c) axis[c] = next[c] / length;
  }
  float norm = 0;
  for (int c = 0; c < n; ++c) norm += axis[c] * axis[c];
  float lo[4], hi[4];
  if (norm < 1e-12f) {
    std::copy(mean, mean + n, lo);
    std::copy(mean, mean + n, hi);
  } else {
    float tmin = std::numeric_limits<float>::max(), tmax = -tmin;
    for (int m = 0; m < count; ++m) {
      float s = 0;
      for (int c = 0; c < n; ++c) s += (float(t.v[members[m]][f.first_channel + c]) - mean[c]) * axis[c];
      tmin = std::min(tmin, s);
      tmax = std::max(tmax, s);
    }
    for (int c = 0; c < n; ++c) {
      lo[c] = std::clamp(mean[c] + tmin * axis[c] / norm, 0.0f, 255.0f);
      hi[c] = std::clamp(mean[c] + tmax * axis[c] / norm, 0.0f, 255.0f);
    }
  }
  Fit best;
  try_endpoints(t, members, count, lo, hi, f, best);
  // Least squares: the endpoints that best explain the members given their weights.
  const std::uint8_t* w = bc7::weights(f.index_bits);
  for (int round = 0; round < 2 && best.error > 0; ++round) {
    float a = 0, b = 0, d = 0, r0[4] = {}, r1[4] = {};
    for (int m = 0; m < count; ++m) {
      const float t1 = float(w[best.index[m]]) / 64.0f, t0 = 1.0f - t1;
      a += t0 * t0;
      b += t0 * t1;
      d += t1 * t1;
      for (int c = 0; c < n; ++c) {
        const float v = float(t.v[members[m]][f.first_channel + c]);
        r0[c] += t0 * v;
        r1[c] += t1 * v;
      }
    }
    const float det = a * d - b * b;
    if (std::fabs(det) < 1e-6f) break;
    for (int c = 0; c < n; ++c) {
      lo[c] = std::clamp((d * r0[c] - b * r1[c]) / det, 0.0f, 255.0f);
      hi[c] = std::clamp((a * r1[c] - b * r0[c]) / det, 0.0f, 255.0f);
    }
    const long before = best.error;
    try_endpoints(t, members, count, lo, hi, f, best);
    if (best.error >= before) break;
  }
  return best;
}

class BitWriter {
 public:
  void put(int value, int bits) {
    for (int i = 0; i < bits; ++i, ++at_) bytes_[at_ >> 3] |= std::uint8_t(((value >> i) & 1) << (at_ & 7));
  }
  void copy_to(std::uint8_t out[16]) const { std::memcpy(out, bytes_, 16); }

 private:
  std::uint8_t bytes_[16] = {};
  int at_ = 0;
};

// A block in one mode, before the anchors are fixed and the bits written.
struct Encoded {
  int mode = 6, partition = 0, rotation = 0;
  int q[6][4] = {};
  int p[6] = {};
  int index[16] = {}, index2[16] = {};
  long error = std::numeric_limits<long>::max();
};

// An anchor's index is stored without its top bit: where that bit is set, the subset's endpoints
// are swapped and its indices mirrored, which decodes to the same texels.
void fix_anchors(Encoded& e) {
  const bc7::Mode& mode = bc7::kModes[e.mode];
  const int top = (1 << mode.index_bits) - 1;
  for (int s = 0; s < mode.subsets; ++s) {
    int anchor = 0;
    for (int i = 0; i < 16; ++i)
      if (bc7::subset_of(mode.subsets, e.partition, i) == s && bc7::is_anchor(mode.subsets, e.partition, i)) {
        anchor = i;
        break;
      }
    if (!(e.index[anchor] >> (mode.index_bits - 1))) continue;
    const int channels = mode.index2_bits ? 3 : 4;  // with two index sets, the first one is colour's only
    for (int c = 0; c < channels; ++c) std::swap(e.q[2 * s][c], e.q[2 * s + 1][c]);
    if (mode.endpoint_pbits) std::swap(e.p[2 * s], e.p[2 * s + 1]);
    for (int i = 0; i < 16; ++i)
      if (bc7::subset_of(mode.subsets, e.partition, i) == s) e.index[i] = top - e.index[i];
  }
  if (mode.index2_bits && (e.index2[0] >> (mode.index2_bits - 1))) {
    std::swap(e.q[0][3], e.q[1][3]);
    for (int i = 0; i < 16; ++i) e.index2[i] = (1 << mode.index2_bits) - 1 - e.index2[i];
  }
}

void pack(Encoded e, std::uint8_t out[16]) {
  fix_anchors(e);
  const bc7::Mode& mode = bc7::kModes[e.mode];
  BitWriter bits;
  bits.put(1 << e.mode, e.mode + 1);
  bits.put(e.partition, mode.partition_bits);
  bits.put(e.rotation, mode.rotation_bits);
  bits.put(0, mode.index_selection_bits);
  const int endpoints = 2 * mode.subsets;
  for (int c = 0; c < 3; ++c)
    for (int i = 0; i < endpoints; ++i) bits.put(e.q[i][c], mode.color_bits);
  if (mode.alpha_bits)
    for (int i = 0; i < endpoints; ++i) bits.put(e.q[i][3], mode.alpha_bits);
  if (mode.endpoint_pbits)
    for (int i = 0; i < endpoints; ++i) bits.put(e.p[i], 1);
  if (mode.shared_pbits)
    for (int s = 0; s < mode.subsets; ++s) bits.put(e.p[2 * s], 1);
  for (int i = 0; i < 16; ++i)
    bits.put(e.index[i], mode.index_bits - (bc7::is_anchor(mode.subsets, e.partition, i) ? 1 : 0));
  if (mode.index2_bits)
    for (int i = 0; i < 16; ++i) bits.put(e.index2[i], mode.index2_bits - (i == 0 ? 1 : 0));
  bits.copy_to(out);
}

Encoded encode_mode6(const Texels& t) {
  static constexpr int kAll[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
  const Fit fit = fit_subset(t, kAll, 16, {0, 4, 7, PBits::kUnique, 4});
  Encoded e;
  e.mode = 6;
  std::memcpy(e.q, fit.q, sizeof fit.q);
  e.p[0] = fit.p[0];
  e.p[1] = fit.p[1];
  for (int i = 0; i < 16; ++i) e.index[i] = fit.index[i];
  e.error = fit.error;
  return e;
}

// Mode 5: colour and alpha fitted apart, after moving one colour channel into alpha (`rotation`).
Encoded encode_mode5(const Texels& source, int rotation) {
  static constexpr int kAll[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
  Texels t = source;
  if (rotation)
    for (auto& px : t.v) std::swap(px[3], px[rotation - 1]);
  const Fit color = fit_subset(t, kAll, 16, {0, 3, 7, PBits::kNone, 2});
  const Fit alpha = fit_subset(t, kAll, 16, {3, 1, 8, PBits::kNone, 2});
  Encoded e;
  e.mode = 5;
  e.rotation = rotation;
  for (int c = 0; c < 3; ++c) e.q[0][c] = color.q[0][c], e.q[1][c] = color.q[1][c];
  e.q[0][3] = alpha.q[0][3];
  e.q[1][3] = alpha.q[1][3];
  for (int i = 0; i < 16; ++i) e.index[i] = color.index[i], e.index2[i] = alpha.index[i];
  e.error = color.error + alpha.error;
  return e;
}

// How much of a two-subset partition's variance a line through each subset leaves unexplained.
float partition_residual(const Texels& t, int partition) {
  float total = 0;
  for (int s = 0; s < 2; ++s) {
    float sum[3] = {}, cov[3][3] = {};
    int count = 0;
    for (int i = 0; i < 16; ++i) {
      if (bc7::subset_of(2, partition, i) != s) continue;
      ++count;
      for (int c = 0; c < 3; ++c) sum[c] += float(t.v[i][c]);
    }
    if (count == 0) continue;
    for (int i = 0; i < 16; ++i) {
      if (bc7::subset_of(2, partition, i) != s) continue;
      float d[3];
      for (int c = 0; c < 3; ++c) d[c] = float(t.v[i][c]) - sum[c] / float(count);
      for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b) cov[a][b] += d[a] * d[b];
    }
    float axis[3] = {1, 1, 1}, lambda = 0;
    for (int iteration = 0; iteration < 4; ++iteration) {
      float next[3] = {};
      for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b) next[a] += cov[a][b] * axis[b];
      const float length = std::sqrt(next[0] * next[0] + next[1] * next[1] + next[2] * next[2]);
      if (length < 1e-6f) break;
      lambda = length / std::sqrt(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]);
      for (int c = 0; c < 3; ++c) axis[c] = next[c] / length;
    }
    total += cov[0][0] + cov[1][1] + cov[2][2] - lambda;
  }
  return total;
}

// A two-subset RGB mode (1 or 3) for `partition`.
Encoded encode_two_subsets(const Texels& t, int mode, int partition) {
  const EndpointFormat format =
      mode == 1 ? EndpointFormat{0, 3, 6, PBits::kShared, 3} : EndpointFormat{0, 3, 7, PBits::kUnique, 2};
  Encoded e;
  e.mode = mode;
  e.partition = partition;
  e.error = 0;
  for (int s = 0; s < 2; ++s) {
    int members[16], count = 0;
    for (int i = 0; i < 16; ++i)
      if (bc7::subset_of(2, partition, i) == s) members[count++] = i;
    const Fit fit = fit_subset(t, members, count, format);
    for (int c = 0; c < 3; ++c) e.q[2 * s][c] = fit.q[0][c], e.q[2 * s + 1][c] = fit.q[1][c];
    e.p[2 * s] = fit.p[0];
    e.p[2 * s + 1] = fit.p[1];
    for (int m = 0; m < count; ++m) e.index[members[m]] = fit.index[m];
    e.error += fit.error;
  }
  return e;
}

}  // namespace

void encode_bc7_block(const std::uint8_t rgba[64], std::uint8_t block[16], const Bc7Options& options) {
  Texels t;
  bool opaque = true;
  for (int i = 0; i < 16; ++i) {
    for (int c = 0; c < 4; ++c) t.v[i][c] = rgba[4 * i + c];
    opaque = opaque && rgba[4 * i + 3] == 255;
  }
  Encoded best = encode_mode6(t);
  // A block mode 6 already reproduces to within one step per channel needs nothing better.
  if (best.error > 16 && options.partitions > 0) {
    if (opaque) {
      std::array<std::pair<float, int>, 64> ranked;
      for (int p = 0; p < 64; ++p) ranked[p] = {partition_residual(t, p), p};
      const int tried = std::min(options.partitions, 64);
      std::partial_sort(ranked.begin(), ranked.begin() + tried, ranked.end());
      for (int k = 0; k < tried; ++k)
        for (int mode : {1, 3}) {
          Encoded e = encode_two_subsets(t, mode, ranked[k].second);
          if (e.error < best.error) best = e;
        }
    } else {
      for (int rotation = 0; rotation < 4; ++rotation) {
        Encoded e = encode_mode5(t, rotation);
        if (e.error < best.error) best = e;
      }
    }
  }
  pack(best, block);
}

}  // namespace kiln::texture_codecs
