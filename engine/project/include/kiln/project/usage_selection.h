#pragma once
// What a cook ships when usage records say what the game used (`kiln cook --usage FILE...`).
//
// A material is used when a record names one of its variants or a script calls one of its engine
// functions. By default every variant a material needs must be recorded: one that is not is an
// error naming the material (the record is older than the material, or the runs never drew it).
// Leniently, a material no record uses is left out with its variants, and a used one ships whole
// (its unrecorded variants counted). In both modes a variant only declared to ship (a material's
// "ship", `#pragma kiln ship`) goes only when recorded or declared `always`. Records name variants
// with the target they ran on; a variant recorded on one target ships for every target.
//
// Thread-safety: plain values and pure functions.

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "kiln/project/project.h"
#include "kiln/usage/usage_record.h"

namespace kiln::project {

struct UsageSelection {
  std::vector<std::string> errors;  // variants materials need that no record has (not lenient)
  // Left out: materials by file with their variants; variants only declared to ship, by shader.
  std::map<std::string, std::vector<std::string>> left_out_materials;
  std::map<std::string, std::vector<std::string>> left_out_declared;
  std::map<std::string, std::size_t> left_out_keywords;  // keyword -> variants left out that have it
  std::size_t left_out_variants = 0;
  std::size_t shipped_recorded = 0;    // variants shipped because a record names them
  std::size_t shipped_always = 0;      // ... because `always`, though no record names them
  std::size_t shipped_unrecorded = 0;  // ... because a used material needs them (lenient)
  // Recorded variants this project does not build: the shader or material changed since the run.
  std::vector<std::string> stale;
};

// Keeps in `project` only what the records ask for (variants, materials; textures and scripts
// stay) and says what it left out.
UsageSelection select_by_usage(Project& project, const usage::UsageRecord& record, bool lenient);

}  // namespace kiln::project
