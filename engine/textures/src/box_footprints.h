#pragma once
// One axis of an area-weighted box resample, shared by thumbnails and the mip chain: for each
// output index, the first input index it covers and the weight of each covered input (summing to
// 1). Output index i covers [i * scale, (i + 1) * scale) of the input; growing picks the nearest.
//
// Thread-safety: a pure function.

#include <cstdint>
#include <vector>

namespace kiln::textures {

struct BoxFootprint {
  std::uint32_t first = 0;
  std::vector<float> weights;
};

std::vector<BoxFootprint> box_footprints(std::uint32_t from, std::uint32_t to);

}  // namespace kiln::textures
