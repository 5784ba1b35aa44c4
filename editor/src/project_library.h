#pragma once
// The shader library a tool compiles a project's shaders with: the include directories and defines
// of the project's kiln.json, for one of its targets, through the process's cache store, isolated
// as the configuration says. The cook makes one per target; the editor one, for the default
// target: the same options, so both compile the same shaders.
//
// Thread-safety: a pure function.

#include <filesystem>

#include "kiln/cache/blob_store.h"
#include "kiln/core/config.h"
#include "kiln/project/project_settings.h"
#include "kiln/shadercache/isolated_compiler.h"
#include "kiln/shadercache/shader_library.h"

namespace kiln::cli {

shadercache::ShaderLibraryOptions project_library_options(const std::filesystem::path& root,
                                                          const project::ProjectSettings& settings,
                                                          const runtime::ShaderTarget& target, const Config& config,
                                                          cache::BlobStore* shader_store);

}  // namespace kiln::cli
