#pragma once
// BC7 (BPTC), one 4x4 block at a time: a decoder of all eight modes and Kiln's encoder.
//
// The encoder tries mode 6 (one subset, RGBA endpoints of 7 bits and a p-bit each, 16-level
// indices) on every block; on opaque blocks also mode 1 (two subsets from the 64 partitions, RGB
// endpoints of 6 bits and a shared p-bit, 8-level indices) and mode 3 (two subsets, 7-bit RGB
// endpoints, 4-level indices); on blocks with alpha mode 5 (colour and alpha fitted apart, one
// channel rotated into alpha). Endpoints start on the block's principal axis and are refined by
// least squares against the chosen indices; every p-bit choice is tried. The partitions of the
// two-subset modes are ranked by how well a line fits each half, and the best few fitted in full.
//
// Thread-safety: pure functions.

#include <cstdint>

namespace kiln::texture_codecs {

struct Bc7Options {
  // Two-subset partitions fitted in full per block, after ranking all 64 (0: one-subset modes only).
  int partitions = 8;
};

// `rgba`: 16 texels, rows top to bottom, 4 bytes each. `block`: 16 bytes.
void encode_bc7_block(const std::uint8_t rgba[64], std::uint8_t block[16], const Bc7Options& options = {});
// Any mode; a block of no mode (its first byte zero) decodes to transparent black, as GPUs do.
void decode_bc7_block(const std::uint8_t block[16], std::uint8_t rgba[64]);
// The mode a block uses (0-7), or -1 for none.
int bc7_block_mode(const std::uint8_t block[16]);

}  // namespace kiln::texture_codecs
