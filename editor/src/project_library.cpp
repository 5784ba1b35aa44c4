#include "project_library.h"

namespace kiln::cli {

shadercache::ShaderLibraryOptions project_library_options(const std::filesystem::path& root,
                                                          const project::ProjectSettings& settings,
                                                          const runtime::ShaderTarget& target, const Config& config,
                                                          cache::BlobStore* shader_store) {
  return {
      .root = root,
      .include_dirs = std::vector<std::filesystem::path>(settings.include_dirs.begin(), settings.include_dirs.end()),
      .defines = settings.defines,
      .target = target.target_env,
      .backend = target.backend,
      .store = shader_store,
      .memory_budget_bytes = config.cache_memory_max_bytes,
      .isolation = shadercache::compile_isolation(config)};
}

}  // namespace kiln::cli
