#pragma once
// What a project's scripts can call on the engine, and what the engine calls on them.
//
// Every parameter a material authors is a function: materials/ui_panel.json's "color" is
// engine.ui_panel_color(r, g, b, a), one number per component the material gives it (the name is
// the material's path under materials/ without .json, then the parameter, anything but letters,
// digits and _ becoming _). The tools that compile a project's scripts declare them (a misspelt
// material or parameter is a compile error), and the player binds each to the parameter's place in
// the material's blocks when the script loads: a call costs a copy, no lookup.
//
// A script that defines frame(t) has it called once per rendered frame, t the time in seconds.
//
// Thread-safety: pure functions.

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kiln/runtime/material_record.h"

namespace kiln::runtime {

inline constexpr std::string_view kFrameFunction = "frame";

struct ParameterFunction {
  std::string name;  // after "engine."
  std::string material, parameter;
  std::size_t components = 0;
};

std::string parameter_function_name(std::string_view material_file, std::string_view parameter);

// One per authored parameter of `materials`, sorted by name; a name two materials would share goes
// to the first material in path order.
std::vector<ParameterFunction> parameter_functions(std::span<const MaterialRecord> materials);
// The same, of records held elsewhere (a project's materials), without copying them.
std::vector<ParameterFunction> parameter_functions(std::vector<const MaterialRecord*> materials);

}  // namespace kiln::runtime
