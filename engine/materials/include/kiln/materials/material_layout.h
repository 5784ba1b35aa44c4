#pragma once
// A material checked against the variants it uses, and its parameters laid out for them.
//
// Each parameter must be a member of a uniform block or push-constant block of at least one of the
// material's variants, with the same base type and component count (a scalar or a vector of
// float, int, uint or bool); "Block.member" names a member of one block where several declare it.
// Each texture slot must be a sampled image (a combined image sampler or a separate image, such as
// an HLSL Texture2D) of at least one variant. A separate sampler named `sampler_<slot>` (an HLSL
// SamplerState) is bound to that slot's texture as well, so that it samples with the texture's own
// filtering and wrap; any other separate sampler is the renderer's default (linear, repeat). A pass whose variant does not declare a parameter or a slot does without it.
// A mismatch is `file: /params/<name>: problem` (or /textures/<slot>) naming the legal names and
// the closest one; every problem is reported at once.
//
// The layout is what a renderer copies into buffers: for every pass, each block the material sets
// a member of, its declared size in bytes with every parameter at its reflected offset (the rest
// zero), and the set and binding of every texture (twice for a slot with a paired sampler: its
// image's binding and its sampler's).
//
// Thread-safety: pure function.

#include <map>
#include <string>
#include <vector>

#include "kiln/core/result.h"
#include "kiln/materials/material.h"
#include "kiln/runtime/material_record.h"
#include "kiln/runtime/reflection.h"

namespace kiln::materials {

// Each variant's stage reflections, by variant name; the pointers outlive the call.
using VariantReflections = std::map<std::string, std::vector<const runtime::StageReflection*>>;

// `record.passes` name their variants; `reflections` gives each variant's stage reflections. Fills
// every pass's blocks and textures.
Status lay_out_material(const Material& material, const VariantReflections& reflections,
                        runtime::MaterialRecord& record);

}  // namespace kiln::materials
