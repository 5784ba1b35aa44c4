#include <algorithm>
#include <cstring>

#include "bc7_tables.h"
#include "kiln/texture_codecs/bc7.h"

namespace kiln::texture_codecs {
namespace {

// The block's bits, least significant first.
class BitReader {
 public:
  explicit BitReader(const std::uint8_t block[16]) { std::memcpy(bytes_, block, 16); }
  int read(int count) {
    int value = 0;
    for (int i = 0; i < count; ++i, ++at_) value |= ((bytes_[at_ >> 3] >> (at_ & 7)) & 1) << i;
    return value;
  }

 private:
  std::uint8_t bytes_[16];
  int at_ = 0;
};

}  // namespace

int bc7_block_mode(const std::uint8_t block[16]) {
  for (int mode = 0; mode < 8; ++mode)
    if (block[0] & (1 << mode)) return mode;
  return -1;
}

void decode_bc7_block(const std::uint8_t block[16], std::uint8_t rgba[64]) {
  const int mode_number = bc7_block_mode(block);
  if (mode_number < 0) {
    std::memset(rgba, 0, 64);
    return;
  }
  const bc7::Mode& mode = bc7::kModes[mode_number];
  BitReader bits(block);
  bits.read(mode_number + 1);
  const int partition = bits.read(mode.partition_bits);
  const int rotation = bits.read(mode.rotation_bits);
  const int index_selection = bits.read(mode.index_selection_bits);
  const int endpoints = mode.subsets * 2;
  int e[6][4] = {};
  for (int c = 0; c < 3; ++c)
    for (int i = 0; i < endpoints; ++i) e[i][c] = bits.read(mode.color_bits);
  for (int i = 0; i < endpoints; ++i) e[i][3] = mode.alpha_bits ? bits.read(mode.alpha_bits) : 255;
  int pbit[6] = {};
  if (mode.endpoint_pbits)
    for (int i = 0; i < endpoints; ++i) pbit[i] = bits.read(1);
  if (mode.shared_pbits)
    for (int s = 0; s < mode.subsets; ++s) pbit[2 * s] = pbit[2 * s + 1] = bits.read(1);
  const bool has_pbit = mode.endpoint_pbits || mode.shared_pbits;
  for (int i = 0; i < endpoints; ++i) {
    for (int c = 0; c < 3; ++c)
      e[i][c] =
          has_pbit ? bc7::expand(e[i][c] << 1 | pbit[i], mode.color_bits + 1) : bc7::expand(e[i][c], mode.color_bits);
    if (mode.alpha_bits)
      e[i][3] =
          has_pbit ? bc7::expand(e[i][3] << 1 | pbit[i], mode.alpha_bits + 1) : bc7::expand(e[i][3], mode.alpha_bits);
  }
  int index[16], index2[16] = {};
  for (int i = 0; i < 16; ++i)
    index[i] = bits.read(mode.index_bits - (bc7::is_anchor(mode.subsets, partition, i) ? 1 : 0));
  if (mode.index2_bits)
    for (int i = 0; i < 16; ++i) index2[i] = bits.read(mode.index2_bits - (i == 0 ? 1 : 0));

  const std::uint8_t* color_weights = bc7::weights(mode.index_bits);
  const std::uint8_t* alpha_weights = color_weights;
  const int* color_index = index;
  const int* alpha_index = index;
  if (mode.index2_bits) {
    alpha_index = index2;
    alpha_weights = bc7::weights(mode.index2_bits);
    if (index_selection) {
      std::swap(color_index, alpha_index);
      std::swap(color_weights, alpha_weights);
    }
  }
  for (int i = 0; i < 16; ++i) {
    const int s = bc7::subset_of(mode.subsets, partition, i);
    const int* e0 = e[2 * s];
    const int* e1 = e[2 * s + 1];
    std::uint8_t* out = rgba + 4 * i;
    for (int c = 0; c < 3; ++c) out[c] = std::uint8_t(bc7::interpolate(e0[c], e1[c], color_weights[color_index[i]]));
    out[3] = std::uint8_t(bc7::interpolate(e0[3], e1[3], alpha_weights[alpha_index[i]]));
    if (rotation) std::swap(out[3], out[rotation - 1]);
  }
}

}  // namespace kiln::texture_codecs
