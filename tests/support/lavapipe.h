#pragma once
// Mesa's software Vulkan driver, lavapipe, selected explicitly: tests render on it whatever GPU the
// machine has, so every machine tests the same path.

#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>

namespace kiln::test {

// The lavapipe ICD manifest ("/usr/share/vulkan/icd.d/lvp_icd.x86_64.json"), or empty.
inline std::string lavapipe_icd() {
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator("/usr/share/vulkan/icd.d", ec))
    if (e.path().filename().string().rfind("lvp_icd.", 0) == 0) return e.path().string();
  return {};
}

// The environment of a child process that renders on lavapipe alone, with the validation layer
// (any message it prints fails the render).
inline std::map<std::string, std::string> lavapipe_env() {
  const std::string icd = lavapipe_icd();
  return {{"VK_ICD_FILENAMES", icd},
          {"VK_DRIVER_FILES", icd},
          {"KILN_RENDER_DEVICE", "llvmpipe"},
          {"KILN_RENDER_VALIDATE", "on"}};
}

// The same for this process (before its first Vulkan call; in-process contexts choose validation
// in their own options).
inline void use_lavapipe_here() {
  for (const auto& [name, value] : lavapipe_env()) ::setenv(name.c_str(), value.c_str(), 1);
}

}  // namespace kiln::test
